"""The lines of a passage that lie inside a triple-quoted string (``rrg.code_prose``): a
Python docstring, an Elixir ``@moduledoc``, a Kotlin or Swift raw string. An example there
matches a definition pattern as the code does: fastapi's ``exceptions.py`` printed ``async
def read_item(`` of ``HTTPException``'s docstring, where the class's own ``def __init__(``
follows it. A capped search takes a file's line from its passage's code first
(``rrg.rank.passage_order.line_spans``).
"""

from __future__ import annotations

from collections.abc import Iterable

from rrg.code_prose import TRIPLE_QUOTED, triple_quoted
from rrg.rank.paragraphs import Paragraph


def string_spans(passages: Iterable[Paragraph], suffix: str) -> list[tuple[int, int]]:
    """The runs of a file's lines (first, last; in order) that lie inside a multi-line
    triple-quoted string, the file read from its passages in order (a passage alone may
    start inside a docstring: a long one's later piece). A string's opening line counts
    where the string opens it (``\"\"\"Example:``), its closing line where nothing but the
    string's end is on it. None, for a language without such strings."""
    if suffix not in TRIPLE_QUOTED:
        return []
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

    for start, end, closes in triple_quoted(text, suffix):
        opened = line_of(start)
        closed = line_of(end - 1)
        if closed > opened:
            # A string's prefix (``r\"\"\"``, ``~S\"\"\"``) or an opening bracket is no code.
            line_start = text.rfind("\n", 0, start) + 1
            own_first = bool(text[line_start:start].strip(_NO_CODE))
            line_end = text.find("\n", end)
            after = text[end : line_end if line_end >= 0 else len(text)]
            # Code after the string's end makes the closing line code's.
            own_last = closes and bool(after.strip())
            a, b = opened + own_first, closed - own_last
            if a <= b:
                inside.append((first + a, first + b))
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
