"""Cutting long output lines around their matches (``--excerpt N``).

rg cannot cut around a match itself (``--max-columns-preview`` keeps a line's head), so the
print pass runs with colours that mark only the matches, and this module finds the marked
spans, cuts each long line to N characters of text around its first match, and drops the
marks. A line that needs no cut comes out byte-identical to rg's plain output.
"""

from __future__ import annotations

import re

#: Appended to the print pass: every colour off but an underline on matches.
MARK_FLAGS = [
    "--color=always",
    "--colors=path:none",
    "--colors=line:none",
    "--colors=column:none",
    "--colors=match:none",
    "--colors=match:style:underline",
]
_RESET = b"\x1b[0m"
_MATCH_ON = b"\x1b[4m"
_ESCAPE = re.compile(rb"\x1b\[[0-9;]*m")
#: The prefix rg prints before a line's text: fields (path, line, column, offset) each
#: wrapped in resets and followed by a one-byte separator.
_PREFIX = re.compile(rb"(?:\x1b\[0m[^\x1b]*\x1b\[0m[^\x1b])*")
MARKER = b"[...]"


def plain(line: bytes) -> bytes:
    return _ESCAPE.sub(b"", line)


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


def cut_line(line: bytes, limit: int) -> tuple[bytes, bool]:
    """One output line (colour-marked, newline stripped) as rg would print it without
    colour, its text cut to ``limit`` characters around the first match; and whether it
    was cut."""
    prefix_end = _PREFIX.match(line).end()  # type: ignore[union-attr]
    prefix, body = plain(line[:prefix_end]), line[prefix_end:]
    text = plain(body)
    if len(text) <= limit:
        return prefix + text, False
    first = body.find(_MATCH_ON)
    start = match_len = 0
    if first >= 0:
        start = len(plain(body[:first]))
        end_mark = body.find(_RESET, first + len(_MATCH_ON))
        match_len = len(plain(body[first:end_mark])) if end_mark >= 0 else 0
    chars = text.decode("utf-8", "surrogateescape")
    char_start = char_offset(text, start)
    char_match = char_offset(text[start:], match_len)
    out, was_cut = cut_text(chars, char_start, char_match, limit)
    return prefix + out.encode("utf-8", "surrogateescape"), was_cut
