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
    if first < 0:
        start = 0
        match_len = 0
    else:
        start = len(plain(body[:first]))
        end_mark = body.find(_RESET, first + len(_MATCH_ON))
        match_len = len(plain(body[first:end_mark])) if end_mark >= 0 else 0
    chars = text.decode("utf-8", "surrogateescape")
    # Work in characters so that a cut never splits a UTF-8 sequence.
    char_start = len(text[:start].decode("utf-8", "surrogateescape"))
    char_match = len(text[start : start + match_len].decode("utf-8", "surrogateescape"))
    lo = max(0, char_start - max(0, limit - char_match) // 2)
    hi = min(len(chars), lo + limit)
    lo = max(0, hi - limit)
    out = chars[lo:hi].encode("utf-8", "surrogateescape")
    was_cut = lo > 0 or hi < len(chars)
    return prefix + (MARKER if lo > 0 else b"") + out + (
        MARKER if hi < len(chars) else b""
    ), was_cut
