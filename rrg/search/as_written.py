"""A passage printed with its file's own bytes, as rg prints a line.

The ranking reads a file as text, a byte that is not UTF-8 read as U+FFFD (the model and
the tokenizer take text, not bytes). rg prints the bytes as the file holds them: a Latin-1
``café`` prints as the user's terminal shows the file, not as ``caf\ufffd``. The printed
passages take their lines from the file again, where the text read lost a byte."""

from __future__ import annotations

from dataclasses import replace

from rrg.rank.paragraphs import Paragraph

_LOST = "\ufffd"


def as_written(found: list[tuple[bytes, Paragraph]]) -> list[tuple[bytes, Paragraph]]:
    """``found`` (paths as rg printed them, readable from the working folder), each
    passage whose text lost a byte holding its file's own lines instead; the others, and
    any whose file no longer reads as it did, as they were."""
    bytes_of: dict[bytes, bytes | None] = {}
    out = []
    for path, passage in found:
        if _LOST in passage.text and not (passage.starts_mid_line or passage.ends_mid_line):
            if path not in bytes_of:
                bytes_of[path] = _read(path)
            passage = _from_bytes(passage, bytes_of[path])
        out.append((path, passage))
    return out


def _read(path: bytes) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None  # gone or unreadable since it was ranked: the text read then stands


def _from_bytes(passage: Paragraph, data: bytes | None) -> Paragraph:
    if data is None:
        return passage
    lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")[passage.start - 1 : passage.end]
    # A prose block's CRLF lines end without their \r (rank.paragraphs); code cut at its
    # definitions keeps them, as the file has them.
    for raw in (b"\n".join(lines), b"\n".join(line.removesuffix(b"\r") for line in lines)):
        # Only where the bytes are the lines the passage was cut from (the file unchanged
        # since, UTF-8 with a byte astray, not UTF-16, which rg prints as UTF-8 as the text
        # read is): never print lines the ranking did not choose.
        if raw.decode("utf-8", "replace") == passage.text:
            return replace(passage, text=raw.decode("utf-8", "surrogateescape"))
    return passage
