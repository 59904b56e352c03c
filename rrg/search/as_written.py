"""A passage printed with its file's own bytes, as rg prints a line.

The ranking reads a file as text, a byte that is not UTF-8 read as U+FFFD (the model and
the tokenizer take text, not bytes). rg prints the bytes as the file holds them: a Latin-1
``café`` prints as the user's terminal shows the file, not as ``caf\ufffd``. The printed
passages take their lines from the file again, where the text read lost a byte."""

from __future__ import annotations

import codecs
import itertools
import threading
from dataclasses import replace

from rrg.rank.paragraphs import Paragraph

_LOST = "\ufffd"
#: The byte spans each U+FFFD of the last ``_read_with_spans`` stands for, a thread's own.
_spans = threading.local()


def _lost_and_kept(err: UnicodeError) -> tuple[str, int]:
    """Python's "replace", keeping the bytes each U+FFFD replaced (decoding only)."""
    if not isinstance(err, UnicodeDecodeError):
        raise err
    _spans.found.append((err.start, err.end))
    return _LOST, err.end


codecs.register_error("rrg-replace-kept", _lost_and_kept)


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
    """Whether the passage's text lost a byte that its file's lines may give back."""
    return _LOST in passage.text


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
        text, lost = _read_with_spans(raw)
        at = _place(text, passage)
        if at is not None:
            first, last = _byte_offsets(raw, text, lost, (at, at + len(passage.text)))
            return replace(passage, text=raw[first:last].decode("utf-8", "surrogateescape"))
    return passage


def _read_with_spans(raw: bytes) -> tuple[str, list[tuple[int, int]]]:
    """``raw`` read as the ranking read it (UTF-8, U+FFFD for a byte that is not), and the
    bytes each U+FFFD stands for."""
    _spans.found = []
    text = raw.decode("utf-8", "rrg-replace-kept")
    return text, _spans.found


def _place(text: str, passage: Paragraph) -> int | None:
    """Where in ``text`` (the passage's lines, whole) the passage's text starts: all of it;
    its end, or its start, for the first or the last piece of a long line; a piece between,
    where it stands once in the line. None where the lines do not hold it so."""
    piece = passage.text
    if passage.starts_mid_line and passage.ends_mid_line:
        at = text.find(piece)
        return at if at >= 0 and text.find(piece, at + 1) < 0 else None
    if passage.starts_mid_line:
        return len(text) - len(piece) if text.endswith(piece) else None
    if passage.ends_mid_line:
        return 0 if text.startswith(piece) else None
    return 0 if text == piece else None


def _byte_offsets(
    raw: bytes, text: str, lost: list[tuple[int, int]], chars: tuple[int, int]
) -> tuple[int, int]:
    """The offsets in ``raw`` of two places in ``text`` (its reading; ``lost``: the bytes of
    each U+FFFD in it, in order), a character read as UTF-8 taking its bytes, a U+FFFD the
    bytes it replaced."""
    found = []
    for char in chars:
        made = at = 0  # characters made, bytes read, at the start of a valid stretch
        for start, end in [*lost, (len(raw), len(raw))]:
            valid = raw[at:start].decode("utf-8")
            if char <= made + len(valid):
                found.append(at + len(valid[: char - made].encode("utf-8")))
                break
            made += len(valid) + 1  # the stretch, then the U+FFFD for raw[start:end]
            at = end
        else:
            found.append(len(raw))
    return found[0], found[1]
