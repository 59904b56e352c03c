"""The lines of a passage that lie inside a triple-quoted string: a Python docstring, an
Elixir ``@moduledoc``, a Kotlin or Swift raw string. Their text is prose and examples, and
an example matches a definition pattern as the code does: with ``-n 'def \\w+'``, fastapi's
``exceptions.py`` printed ``async def read_item(`` of ``HTTPException``'s docstring, where
the class's own ``def __init__(`` follows it. A capped search takes a file's line from its
passage's code first (``rrg.rank.passage_order.line_spans``).

Scanned from quote to quote, not parsed: a passage is a piece of a file, and a parser given
a piece (a method cut out of its class, a string cut at the passage's end) fails where this
still reads the rest. A ``#`` comment's quotes open nothing (Python, Elixir, Julia); a
quote inside a one-line string (``"#"``, ``'\"\"\"'``) may mislead it, and then only the
order of a file's printed lines is the worse for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rrg.rank.paragraphs import Paragraph

#: The extensions of languages whose ``\"\"\"`` (or ``'''``) opens a string that may run
#: over lines. Elsewhere three quotes are no such thing (``""`` then ``"`` in C or Go).
TRIPLE_QUOTED = frozenset(
    (".py", ".pyi", ".pyw", ".ex", ".exs", ".jl", ".kt", ".kts", ".scala", ".sc", ".swift")
    + (".groovy", ".gradle", ".dart", ".java", ".cs")
)

#: A triple quote, or a comment's ``#`` that would hide one (Python, Elixir, Julia).
_QUOTE_OR_HASH = re.compile(r"\"\"\"|'''|#")


def string_spans(passages: Iterable[Paragraph], suffix: str) -> list[tuple[int, int]]:
    """The runs of a file's lines (first, last; in order) that lie inside a multi-line
    triple-quoted string, the file read from its passages in order (a passage alone may
    start inside a docstring: a long one's later piece). A string's opening line counts
    where the string opens it (``\"\"\"Example:``), its closing line where nothing but the
    string's end is on it. None, for a language without such strings."""
    if suffix not in TRIPLE_QUOTED:
        return []
    hash_comments = suffix in (".py", ".pyi", ".pyw", ".ex", ".exs", ".jl")
    text, first = _joined(passages)
    inside: list[tuple[int, int]] = []
    # Lines are numbered by counting line ends from quote to quote, not line by line: a
    # search's 20 files may hold thousands of lines each.
    counted_to, line = 0, 0

    def line_of(pos: int) -> int:
        nonlocal counted_to, line
        line += text.count("\n", counted_to, pos)
        counted_to = pos
        return line

    at = 0
    while (found := _QUOTE_OR_HASH.search(text, at)) is not None:
        if found.group() == "#":
            if not hash_comments:
                at = found.end()
                continue
            at = text.find("\n", found.end())  # a comment's quotes open nothing
            if at < 0:
                break
            continue
        quote = found.group()
        close = text.find(quote, found.end())
        end = len(text) if close < 0 else close + 3
        opened = line_of(found.start())
        closed = line_of(end - 1)
        if closed > opened:
            # A string's prefix (``r\"\"\"``, ``~S\"\"\"``) or an opening bracket is no code.
            line_start = text.rfind("\n", 0, found.start()) + 1
            own_first = bool(text[line_start : found.start()].strip(_NO_CODE))
            line_end = text.find("\n", end)
            after = text[end : line_end if line_end >= 0 else len(text)]
            # Code after the string's end makes the closing line code's.
            own_last = close >= 0 and bool(after.strip())
            a, b = opened + own_first, closed - own_last
            if a <= b:
                inside.append((first + a, first + b))
        if close < 0:
            break
        at = end
    return inside


#: What may stand before a string's quotes on its line that is no code of the line's own:
#: indentation, a prefix (``r``, ``b``, ``f``, Elixir's sigil ``~S``), an opening bracket.
_NO_CODE = " \t([{,=rRbBuUfF~sS"


def _joined(passages: Iterable[Paragraph]) -> tuple[str, int]:
    """A file's text as its passages give it, in order, each line once (the lines between
    passages, blank ones the cut leaves out, as empty lines), and its first line's number."""
    lines: list[str] = []
    first = 0
    for passage in sorted(passages, key=lambda p: p.start):
        if not lines:
            first = passage.start
        next_number = first + len(lines)
        if passage.start > next_number:
            lines.extend([""] * (passage.start - next_number))
        own = passage.text.split("\n")[: passage.end - passage.start + 1]
        skip = max(0, first + len(lines) - passage.start)  # lines another passage gave
        lines.extend(own[skip:])
    return "\n".join(lines), first
