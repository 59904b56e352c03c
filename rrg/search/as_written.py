"""A passage printed with its file's own bytes, as rg prints a line.

The ranking reads a file as text, a byte that is not UTF-8 read as U+FFFD (the model and
the tokenizer take text, not bytes). rg prints the bytes as the file holds them: a Latin-1
``café`` prints as the user's terminal shows the file, not as ``caf\ufffd``. The printed
passages take their lines from the file again, where the text read lost a byte."""

from __future__ import annotations

import itertools
from dataclasses import replace

from rrg.rank.paragraphs import Paragraph

_LOST = "\ufffd"


def as_written(found: list[tuple[bytes, Paragraph]]) -> list[tuple[bytes, Paragraph]]:
    """``found`` (paths as rg printed them, readable from the working folder), each
    passage whose text lost a byte holding its file's own lines instead; the others, and
    any whose file no longer reads as it did, as they were."""
    lost = [(path, p) for path, p in found if _read_again(p)]
    if not lost:
        return found
    # A file's lines up to the last one a passage needs (a log may run to gigabytes).
    needed: dict[bytes, int] = {}
    for path, p in lost:
        needed[path] = max(needed.get(path, 0), p.end)
    lines = {path: _first_lines(path, count) for path, count in needed.items()}
    return [(path, _from_lines(p, lines.get(path))) for path, p in found]


def _first_lines(path: bytes, count: int) -> list[bytes] | None:
    try:
        with open(path, "rb") as fh:
            return list(itertools.islice(fh, count))
    except OSError:
        return None  # gone or unreadable since it was ranked: the text read then stands


def _read_again(passage: Paragraph) -> bool:
    """Whether the passage's text lost a byte that its file's lines give back: not a piece
    of a long line, whose place in the line's bytes is not kept."""
    return _LOST in passage.text and not (passage.starts_mid_line or passage.ends_mid_line)


def _from_lines(passage: Paragraph, file_lines: list[bytes] | None) -> Paragraph:
    if file_lines is None or not _read_again(passage):
        return passage
    lines = [line.removesuffix(b"\n") for line in file_lines[passage.start - 1 : passage.end]]
    if passage.start == 1 and lines:
        lines[0] = lines[0].removeprefix(b"\xef\xbb\xbf")  # rg prints no byte order mark
    # A prose block's CRLF lines end without their \r (rank.paragraphs); code cut at its
    # definitions keeps them, as the file has them.
    for raw in (b"\n".join(lines), b"\n".join(line.removesuffix(b"\r") for line in lines)):
        # Only where the bytes are the lines the passage was cut from (the file unchanged
        # since, UTF-8 with a byte astray, not UTF-16, which rg prints as UTF-8 as the text
        # read is): never print lines the ranking did not choose.
        if raw.decode("utf-8", "replace") == passage.text:
            return replace(passage, text=raw.decode("utf-8", "surrogateescape"))
    return passage
