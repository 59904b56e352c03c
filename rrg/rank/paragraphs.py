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


def split_paragraphs(text: str) -> list[Paragraph]:
    """Blank lines separate; short blocks merge up to MIN_CHARS; nothing exceeds MAX_CHARS.

    A single line longer than MAX_CHARS is cut into pieces that share its line number.
    """
    out: list[Paragraph] = []
    buf: list[str] = []
    buf_start = 1
    size = 0

    def flush(end: int) -> None:
        nonlocal buf, size
        # Blank lines kept while merging short blocks never end a paragraph.
        while buf and not buf[-1].strip():
            buf.pop()
            end -= 1
        if buf:
            out.append(Paragraph(buf_start, end, "\n".join(buf)))
        buf, size = [], 0

    for number, line in enumerate(text.splitlines(), start=1):
        if len(line) > MAX_CHARS:
            flush(number - 1)
            for cut in range(0, len(line), MAX_CHARS):
                out.append(Paragraph(number, number, line[cut : cut + MAX_CHARS]))
            buf_start = number + 1
            continue
        if not line.strip():
            if size >= MIN_CHARS:
                flush(number - 1)
                buf_start = number + 1
            elif not buf:
                buf_start = number + 1
            else:
                buf.append(line)
            continue
        if size + len(line) + 1 > MAX_CHARS and buf:
            flush(number - 1)
            buf_start = number
        if not buf:
            buf_start = number
        buf.append(line)
        size += len(line) + 1
    flush(len(text.splitlines()))
    return out
