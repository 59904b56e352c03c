"""Cutting long output lines around their matches (``--excerpt N``).

rg cannot cut around a match itself (``--max-columns-preview`` keeps a line's head), so the
print pass runs with colours that mark its fields and matches, colours no file holds, and
this module finds the marked spans, cuts each long line to N characters of text around its
first match, and drops the marks. A line that needs no cut comes out byte-identical to rg's
plain output, escapes of the file's own (a coloured log's) included.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

#: The bytes to write before and after each marked field, by the digit that ends its mark's
#: colour (3 path, 4 line number, 5 column or offset, 6 match): the user's colours, as rg
#: paints them (``rrg.rg.palette``), where colour is wanted with an excerpt.
Paints = Mapping[bytes, tuple[bytes, bytes]]

#: Appended to the print pass: each field rg marks (path, line number, column or offset,
#: match) in a colour of its own and no style, every other colour off. The marks must be
#: told from the escapes a file's lines hold themselves (a coloured log's), which rg prints
#: as they are: such colours are no file's. A user's colours (rg's config file too) are
#: overridden, as a later flag wins, and so are links where no colour is wanted
#: (``NO_LINKS``); where it is, rg's links stand around the fields, as rg prints them.
MARK_FLAGS = [
    "--color=always",
    "--colors=highlight:none",
    "--colors=path:none",
    "--colors=path:fg:1,2,3",
    "--colors=line:none",
    "--colors=line:fg:1,2,4",
    "--colors=column:none",
    "--colors=column:fg:1,2,5",
    "--colors=match:none",
    "--colors=match:fg:1,2,6",
]
#: Appended with ``MARK_FLAGS`` where the output is plain: rg draws links only in colour.
NO_LINKS = "--hyperlink-format=none"
_RESET = b"\x1b[0m"
_MATCH_ON = b"\x1b[0m\x1b[38;2;1;2;6m"
_OPENING = b"\x1b[38;2;1;2;"
#: One marked field: rg opens it with a reset and its colour and closes it with a reset.
#: Split by it, the output falls into the text between marks and each field's own.
_MARKED = re.compile(rb"\x1b\[0m\x1b\[38;2;1;2;[3-6]m(.*?)\x1b\[0m", re.S)
#: The same where a field holds no escape: twice as fast, and true of all but a match of an
#: escape itself.
_MARKED_PLAIN = re.compile(rb"\x1b\[0m\x1b\[38;2;1;2;[3-6]m([^\x1b]*)\x1b\[0m")
#: A marked field with the digit that tells which.
_MARKED_FIELD = re.compile(rb"\x1b\[0m\x1b\[38;2;1;2;([3-6])m(.*?)\x1b\[0m", re.S)


def prefix_pattern(separators: Iterable[bytes]) -> re.Pattern[bytes]:
    """The prefix rg prints before a line's text: fields (path, line, column, offset) each
    marked and followed by one of ``separators`` (``--field-match-separator``'s, the
    context lines' one, NUL after a path under ``--null``), which may be of any length;
    where rg draws ``--hyperlink-format``'s link, it opens before the first field and
    closes before the last separator."""
    longest_first = sorted(set(separators), key=len, reverse=True)
    either = b"|".join(re.escape(separator) for separator in longest_first)
    return re.compile(
        rb"(?:\x1b\]8;;[^\x1b]*\x1b\\)?(?:\x1b\[0m\x1b\[38;2;1;2;[345]m[^\x1b]*\x1b\[0m"
        rb"(?:\x1b\]8;;\x1b\\)?(?:" + either + rb"))*"
    )


#: rg's own separators.
_PREFIX = prefix_pattern([b":", b"-", b"\0"])
MARKER = b"[...]"


def plain(line: bytes) -> bytes:
    """Marked output as rg prints it without colour: its marks dropped, any other escape
    (a file's own) kept."""
    out = b"".join(_MARKED_PLAIN.split(line))
    if _OPENING in out:  # a field holding an escape: read to the reset that closes it
        out = b"".join(_MARKED.split(line))
    return out


def painted(line: bytes, paints: Paints) -> bytes:
    """Marked output as rg prints it in the user's colours: each mark's escapes replaced by
    those rg paints that field with (``before + text + after``, as the mark itself is), so
    a line that needs no cut is rg's coloured bytes."""

    def paint(field: re.Match[bytes]) -> bytes:
        before, after = paints[field[1]]
        return before + field[2] + after

    return _MARKED_FIELD.sub(paint, line)


def window(
    length: int, start: int, match_len: int, limit: int, lead: float = 0.5
) -> tuple[int, int]:
    """The span [lo, hi) of at most ``limit`` units of a text of ``length`` units that holds
    the match at ``start`` with ``lead`` of the room before it (0.5: centred).

    The one rule for every cut around a match: printed excerpts, reranked lines and the text
    the model scores. Units are characters, so that no cut splits a UTF-8 sequence.
    """
    lo = max(0, start - int(max(0, limit - match_len) * lead))
    hi = min(length, lo + limit)
    lo = max(0, hi - limit)
    return lo, hi


def cut_text(text: str, start: int, match_len: int, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters around a match, marked [...] where cut; and
    whether it was cut."""
    if len(text) <= limit:
        return text, False
    lo, hi = window(len(text), start, match_len, limit)
    marker = MARKER.decode()
    return (marker if lo > 0 else "") + text[lo:hi] + (marker if hi < len(text) else ""), True


def char_offset(data: bytes, byte_offset: int) -> int:
    """The character index of a byte offset in UTF-8 data (invalid bytes count one each)."""
    return len(data[:byte_offset].decode("utf-8", "surrogateescape"))


def cut_line(
    line: bytes,
    limit: int,
    prefix: re.Pattern[bytes] = _PREFIX,
    paints: Paints | None = None,
) -> tuple[bytes, bool]:
    """One output line (colour-marked, newline stripped) as rg would print it without
    colour (or in ``paints``), its text cut to ``limit`` characters around the first match;
    and whether it was cut. ``prefix``: ``prefix_pattern`` of the run's separators."""
    prefix_end = prefix.match(line).end()  # type: ignore[union-attr]
    head, body = line[:prefix_end], line[prefix_end:]
    fields = plain(head) if paints is None else painted(head, paints)
    text = plain(body)
    if len(text) <= limit:
        return fields + (text if paints is None else painted(body, paints)), False
    if paints is not None:
        return fields + _cut_painted(body, limit, paints), True
    first = body.find(_MATCH_ON)
    start = match_len = 0
    if first >= 0:
        start = first  # no mark before a line's first match
        end_mark = body.find(_RESET, first + len(_MATCH_ON))
        match_len = end_mark - (first + len(_MATCH_ON)) if end_mark >= 0 else 0
    chars = text.decode("utf-8", "surrogateescape")
    char_start = char_offset(text, start)
    char_match = char_offset(text[start:], match_len)
    out, was_cut = cut_text(chars, char_start, char_match, limit)
    return fields + out.encode("utf-8", "surrogateescape"), was_cut


def _cut_painted(body: bytes, limit: int, paints: Paints) -> bytes:
    """A marked line's text cut to ``limit`` characters around its first match, as
    ``cut_line`` cuts it plain, each match (or the part of one) the cut keeps painted."""
    # Pieces of text, each a match or not, in characters: split by the marks rg writes.
    pieces: list[tuple[str, bool]] = []
    parts = _MARKED_FIELD.split(body)  # text, digit, field, text, digit, field, ..., text
    for k in range(0, len(parts), 3):
        pieces.append((parts[k].decode("utf-8", "surrogateescape"), False))
        if k + 2 < len(parts):
            pieces.append((parts[k + 2].decode("utf-8", "surrogateescape"), True))
    length = sum(len(piece) for piece, _ in pieces)
    start = match_len = at = 0
    for piece, is_match in pieces:
        if is_match:
            start, match_len = at, len(piece)
            break
        at += len(piece)
    lo, hi = window(length, start, match_len, limit)
    out: list[bytes] = [MARKER] if lo > 0 else []
    before, after = paints[b"6"]
    at = 0
    for piece, is_match in pieces:
        kept = piece[max(0, lo - at) : max(0, hi - at)]
        at += len(piece)
        if kept:
            encoded = kept.encode("utf-8", "surrogateescape")
            out.append(before + encoded + after if is_match else encoded)
    if hi < length:
        out.append(MARKER)
    return b"".join(out)
