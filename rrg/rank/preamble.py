"""Whether a passage is a file's preamble and nothing more: its licence, its package line and
its imports.

Code is cut into passages at its definitions, so what stands above a file's first one is a
passage of its own. Its words are the file's words (the module's imports name what the file
is about), so the cheap scores and the model may rank it a file's best: of the first 10
passages ``rrg -q Q`` printed on semble-code's whole trees, 4.5% (dev half) and 3.0% (test
half) were a licence block or an import list (docs/benchmarks.md, "A file's preamble"). A
reader learns nothing there that the file's path did not say. The passages' order puts such a
passage after its file's others (``rrg.rank.passage_order``), and the rounds of ``rrg -q Q``'s
passages after every other passage (``rrg.rank.entry_points.spread``); the file's own place
in the order does not change, and a file that holds nothing else still shows it.

A doc comment above the imports (a header's "In most cases, your default choice for a hash
map should be...", Rust's ``//!``) is not a preamble: it says what the file is for.
"""

from __future__ import annotations

import re

from rrg.rank.paragraphs import Paragraph

#: A line that brings in another module or names the file's own.
_IMPORT = re.compile(
    r"""^\s*(
        (import|package|use|using|require|require_relative|source|library|extern\s+crate
         |@import)\b
      | from\s+\S+\s+import\b
      | \#\s*(include|import)\b
      | mod\s+\w+\s*;
      | namespace\s+[\w.]+\s*;
      | part\s+of\b
      | (local|const|let|var)\s+[\w{}, ]+\s*=\s*require\b
      | export\s+(\*|\{[^}]*\}?)\s*(as\s+\w+\s+)?from\b
      | \}\s*from\s+['"]
    )""",
    re.X,
)
#: A C macro given a value (``#define BUF_SIZE 4096``): code, where an include guard's bare
#: ``#define`` and the other directives are a header's frame, read as comments.
_VALUED_MACRO = re.compile(r"^\s*#\s*define\s+\w+(\([^)]*\))?\s+\S")
#: A comment's marker, in the languages rrg cuts at definitions and their neighbours.
_COMMENT = re.compile(r"^\s*(//+!?|/\*+|\*+/?|#+!?|--|;+|%)")
#: What an import list holds between its import lines: a quoted path (Go's import block),
#: the names of a list cut over lines, the brackets that close it (alone, or after its
#: last names: Python's ``    ProductSet)``).
_NAME = r"[\w.:*{}\\]+(\s+as\s+\w+)?"
_LISTED = re.compile(
    rf"""^\s*(
        ["'`<][^"'`>]*["'`>]\s*[,;]?
      | [)}}\]]+\s*;?
      | {_NAME}(\s*,\s*{_NAME})*\s*,?\s*[)}}\]]*\s*[,;]?
    )\s*$""",
    re.X,
)
_LICENCE = re.compile(
    r"copyright|licen[cs]|spdx-|permission is hereby|all rights reserved|warrant", re.I
)
#: Lines of comment prose (three words or more, outside a licence's block) a preamble may
#: hold: a build tag or a coding line is not prose, two lines of it may say little.
_PROSE_LINES = 2


def is_preamble(text: str) -> bool:
    """Whether the passage holds imports or a licence, and besides them only the lines an
    import list or a file's head holds (at most ``_PROSE_LINES`` of comment prose)."""
    imports = licence = False
    prose = 0
    block: list[str] = []  # the comment text since the last empty comment or other line

    def end_block() -> None:
        nonlocal prose, licence
        if _LICENCE.search(" ".join(block)):
            licence = True
        else:
            prose += sum(len(words.split()) >= 3 for words in block)
        block.clear()

    for line in text.split("\n"):
        if _IMPORT.match(line):
            end_block()
            imports = True
            continue
        if _VALUED_MACRO.match(line):
            return False
        marker = _COMMENT.match(line)
        if marker:
            words = line[marker.end() :].strip()
            if words:
                block.append(words)
            else:
                end_block()
            continue
        end_block()
        if line.strip() and not _LISTED.match(line):
            return False
    end_block()
    return (imports or licence) and prose <= _PROSE_LINES


def is_file_preamble(passage: Paragraph) -> bool:
    """A passage that holds only a file's imports and licence: what stands above its first
    definition (a definition's own passage, or a later part of one, never is one)."""
    return not passage.name and not passage.within and is_preamble(passage.text)
