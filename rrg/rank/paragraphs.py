"""Splitting a text into paragraphs of contiguous lines, about 400-1200 characters each
(the RARG entry-point unit). Pure: no I/O."""

from __future__ import annotations

from dataclasses import dataclass

MIN_CHARS = 400
MAX_CHARS = 1200


@dataclass(frozen=True)
class Paragraph:
    start: int  # first line, 1-based
    end: int  # last line, inclusive
    text: str
    # Read before the text, not printed: the first line of the class a method was cut from
    # (``rrg.rank.code_passages``), so that the method is read as the class's.
    context: str = ""
    # The name of the definition the passage starts (``rrg.rank.code_passages``): what
    # the query's words may abbreviate (``rrg.rank.abbreviations``). Empty elsewhere.
    name: str = ""
    # The function a passage is a later part of (a long function's later pieces, a helper
    # nested in it): the passage answers as that function, whose first passage is the one
    # shown (``rrg.rank.entry_points``). Empty elsewhere.
    within: str = ""
    # A piece of a line longer than a passage (``cut_evenly``): it begins after the line's
    # start, or ends before the line's end. Printed marked ``[...]`` there, as an excerpt.
    starts_mid_line: bool = False
    ends_mid_line: bool = False


#: How far back from an even cut a piece of a long line may end, to end after a space.
_SLACK = 150


def split_paragraphs(text: str) -> list[Paragraph]:
    """Blank lines separate; short blocks merge up to MIN_CHARS; nothing exceeds MAX_CHARS.

    Text that must be cut inside a line (a line over MAX_CHARS, or a short block that a long
    line follows) is cut into near-equal pieces, after a space where one is near, and the
    short block goes into the first piece: a title line above an abstract written as one
    line is read with its abstract, not alone, and no piece is a few words of tail. The
    pieces of a line share its line number.
    """
    out: list[Paragraph] = []
    buf: list[str] = []
    buf_start = 1
    size = 0
    spaces = 0  # of the blank lines kept as written in ``buf``

    def flush(end: int) -> None:
        nonlocal buf, size, spaces
        # Blank lines kept while merging short blocks never end a paragraph.
        while buf and not buf[-1].strip():
            buf.pop()
            end -= 1
        if buf:
            out.append(Paragraph(buf_start, end, "\n".join(buf)))
        buf, size, spaces = [], 0, 0

    lines = text_lines(text)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            if size >= MIN_CHARS:
                flush(number - 1)
                buf_start = number + 1
            elif not buf:
                buf_start = number + 1
            else:
                # Its spaces are nothing to read, and count for nothing in the size. Kept
                # as written where the passage has room (a reader, an agent's edit matched
                # against the file, needs the line's own); a line of thousands is empty.
                fits = size + spaces + len(line) <= MAX_CHARS
                buf.append(line if fits else "")
                spaces += len(line) + 1 if fits else 0
            continue
        if size + len(line) + 1 > MAX_CHARS and buf and size >= MIN_CHARS:
            flush(number - 1)
        if not buf:
            buf_start = number
        if size + len(line) > MAX_CHARS:
            # Only a short block (or none) waits: it is cut with this line.
            pieces = cut_evenly("\n".join([*buf, line]))
            last = len(pieces) - 1
            out.extend(
                Paragraph(
                    buf_start if k == 0 else number,
                    number,
                    piece,
                    starts_mid_line=k > 0,
                    ends_mid_line=k < last,
                )
                for k, piece in enumerate(pieces)
            )
            buf, size, spaces = [], 0, 0
            buf_start = number + 1
            continue
        buf.append(line)
        size += len(line) + 1
    flush(len(lines))
    return out


def text_lines(text: str) -> list[str]:
    """The lines of a text as rg numbers them: ended by ``\\n`` alone (a CRLF line's
    ``\\r`` left off, as before). Python's ``splitlines`` also ends a line at a lone ``\\r``, a
    form feed (GNU and Python sources part pages with ``^L`` on a line of its own), a
    vertical tab and the Unicode separators: every passage after one named lines one
    later than rg's, and the cap chose lines that were not its best passage's."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the text's last line end, or an empty text
    return [line.removesuffix("\r") for line in lines]


def cut_evenly(text: str) -> list[str]:
    """text in the fewest near-equal pieces of at most MAX_CHARS, each ending after a space
    where one lies within _SLACK characters of its even end; the pieces join to text."""
    pieces = []
    at = 0
    while at < len(text):
        left = len(text) - at
        count = -(-left // (MAX_CHARS - _SLACK))
        end = at + min(MAX_CHARS, -(-left // count))
        if end < len(text):
            space = text.rfind(" ", max(at + 1, end - _SLACK), end)
            if space > at:
                end = space + 1
        pieces.append(text[at:end])
        at = end
    return pieces
