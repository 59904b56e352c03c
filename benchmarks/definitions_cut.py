"""A tried alternative to cutting code at blank lines: passages that start where a
definition starts. Measured in passage_stage.py's sweep (the dev half preferred blank-line
cutting, which rrg uses); kept here so that the sweep can be re-run.
"""

from __future__ import annotations

import re

from rrg.rank.paragraphs import MAX_CHARS, MIN_CHARS, Paragraph, split_paragraphs

#: Files cut at their definitions (by the name's extension); every other file is cut at
#: blank lines. Indentation-based detection works alike for these languages' layouts.
CODE_SUFFIXES = frozenset(
    ".py .pyi .pyx .js .jsx .mjs .cjs .ts .tsx .go .rs .java .kt .kts .scala .c .h .cc .cpp"
    " .cxx .hh .hpp .cs .rb .php .swift .m .mm .lua .pl .pm .r .jl .ex .exs .erl .hs .ml"
    " .clj .dart .zig .nim .sh .bash .zsh".split()
)

# A definition that opens a unit when it sits at the top level or one level in (a method).
_DEFINITION = re.compile(
    r"(?:(?:export|default|pub(?:\([\w:]+\))?|public|private|protected|internal|static"
    r"|final|abstract|async|unsafe|extern|override|open|inline|virtual)\s+)*"
    r"(?:def|class|function|func|fn|impl|struct|enum|trait|interface|object|module"
    r"|macro_rules!|sub|defmodule|defp?)\b"
)
# Lines that belong to the definition below them: decorators, attributes, comments.
_PREAMBLE = re.compile(r"(?:@|#\[|#!|//|/\*|\*|#|--|;)")
# Lines that close the unit above rather than open one.
_CLOSER = re.compile(r"[}\])]|end\b|fi\b|done\b|esac\b")
_ONE_LEVEL = 8  # columns: a tab, or up to two levels of two spaces, or one of four


def is_code(name: str) -> bool:
    dot = name.rfind(".")
    return dot > name.rfind("/") and name[dot:].lower() in CODE_SUFFIXES


def _indent(line: str) -> int:
    stripped = line.lstrip(" \t")
    return len(line[: len(line) - len(stripped)].expandtabs(8))


def _unit_starts(lines: list[str]) -> list[int]:
    """0-based first lines of a code file's units: each top-level statement after a blank
    line and each definition at most one level in, with the comments and decorators
    directly above it."""
    starts = [0]
    for k, line in enumerate(lines):
        body = line.lstrip(" \t")
        if not body or k == 0:
            continue
        indent = _indent(line)
        opens = (
            indent <= _ONE_LEVEL
            and _DEFINITION.match(body) is not None
            and _PREAMBLE.match(body) is None
        ) or (indent == 0 and not lines[k - 1].strip() and _CLOSER.match(body) is None)
        if not opens:
            continue
        first = k
        while (
            first > starts[-1] + 1
            and lines[first - 1].strip()
            and _indent(lines[first - 1]) <= indent
            and _PREAMBLE.match(lines[first - 1].lstrip(" \t"))
        ):
            first -= 1
        if first > starts[-1]:
            starts.append(first)
    return starts


def split_code(text: str) -> list[Paragraph]:
    """Passages of a source file that start where a definition (with its comments and
    decorators) or a top-level statement starts: short units merge up to MIN_CHARS, a unit
    over MAX_CHARS is cut at its blank lines as prose is, and nothing exceeds MAX_CHARS."""
    lines = text.splitlines()
    starts = _unit_starts(lines)
    out: list[Paragraph] = []
    begin, size = -1, 0  # the unit lines waiting to become a passage: lines[begin:end]

    def flush(end: int) -> None:
        nonlocal begin, size
        while end > begin >= 0 and not lines[end - 1].strip():
            end -= 1
        while begin < end and begin >= 0 and not lines[begin].strip():
            begin += 1
        if begin >= 0 and end > begin:
            out.append(Paragraph(begin + 1, end, "\n".join(lines[begin:end])))
        begin, size = -1, 0

    for first, stop in zip(starts, [*starts[1:], len(lines)], strict=True):
        unit = sum(len(line) + 1 for line in lines[first:stop])
        if begin >= 0 and (size >= MIN_CHARS or size + unit > MAX_CHARS):
            flush(first)
        if unit > MAX_CHARS:
            flush(first)
            for p in split_paragraphs("\n".join(lines[first:stop])):
                out.append(Paragraph(p.start + first, p.end + first, p.text))
            continue
        if begin < 0:
            begin = first
        size += unit
    flush(len(lines))
    return out


def cut_definitions(text: str, path: str) -> list[Paragraph]:
    """A file's passages: cut at definitions for source code, at blank lines otherwise."""
    return split_code(text) if is_code(path) else split_paragraphs(text)
