"""rrg's paragraph splitter as it was before long lines were cut evenly (commit 8f41fe9),
kept for the side-by-side in ``passage_stage.py --split``. It cut a line over MAX_CHARS
at every MAX_CHARS characters, mid-word, and left a short block above such a line (a
title) as a passage of its own."""

from __future__ import annotations

from rrg.rank.paragraphs import MAX_CHARS, MIN_CHARS, Paragraph


def split_before(text: str) -> list[Paragraph]:
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
