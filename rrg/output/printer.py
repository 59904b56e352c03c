"""Printing matches one at a time in rg's formats, for output in an order rg cannot produce
(score order after --rerank): standard lines (path, line and column numbers, -o, --vimgrep,
-0, rg's default colours) and rg's JSON with a score field.

Reranked lines are never grouped under file headings: neighbours come from different files.
"""

from __future__ import annotations

import json
import os

from rrg.output.excerpt import MARKER
from rrg.rank.rerank import Match
from rrg.rg.args import RgArgs

_PATH, _LINE, _MATCH, _RESET = (
    b"\x1b[0m\x1b[35m",
    b"\x1b[0m\x1b[32m",
    b"\x1b[0m\x1b[1m\x1b[31m",
    b"\x1b[0m",
)


class Renderer:
    def __init__(self, args: RgArgs, with_filename: bool, colour: bool, excerpt: int) -> None:
        self.colour = colour
        self.excerpt = excerpt
        self.with_filename = with_filename
        self.line_numbers = os.isatty(1)
        self.column = self.vimgrep = self.only = self.null = False
        for name, _ in args.flags:
            if name == "--with-filename":
                self.with_filename = True
            elif name == "--no-filename":
                self.with_filename = False
            elif name == "--line-number":
                self.line_numbers = True
            elif name == "--no-line-number":
                self.line_numbers = False
            elif name == "--column":
                self.column = True
            elif name == "--vimgrep":
                self.vimgrep = True
            elif name == "--only-matching":
                self.only = True
            elif name == "--null":
                self.null = True
        if self.vimgrep:
            self.column = True
        if self.column:
            self.line_numbers = True

    def lines(self, match: Match) -> bytes:
        data = match.data
        line = match.line_bytes().rstrip(b"\n").rstrip(b"\r")
        spans = [(int(s["start"]), int(s["end"])) for s in data.get("submatches") or []]
        if self.only or self.vimgrep:
            pieces = [self._one(match, line, [span], span[0], only=self.only) for span in spans]
            return b"".join(pieces)
        return self._one(match, line, spans, spans[0][0] if spans else 0, only=False)

    def _one(
        self, match: Match, line: bytes, spans: list[tuple[int, int]], column: int, only: bool
    ) -> bytes:
        out = b""
        if self.with_filename:
            path = match.path_bytes()
            out += (_PATH + path + _RESET if self.colour else path) + (b"\0" if self.null else b":")
        if self.line_numbers:
            number = str(match.data["line_number"]).encode()
            out += (_LINE + number + _RESET if self.colour else number) + b":"
        if self.column:
            out += str(column + 1).encode() + b":"
        if only:
            start, end = spans[0]
            text = line[start:end]
            return out + (_MATCH + text + _RESET if self.colour else text) + b"\n"
        return out + self._text(line, spans) + b"\n"

    def _text(self, line: bytes, spans: list[tuple[int, int]]) -> bytes:
        lo, hi = 0, len(line)
        if self.excerpt and len(line) > self.excerpt and spans:
            first_start, first_end = spans[0]
            lo = max(0, first_start - max(0, self.excerpt - (first_end - first_start)) // 2)
            hi = min(len(line), lo + self.excerpt)
            lo = max(0, hi - self.excerpt)
            # Keep whole UTF-8 characters at both cut ends.
            while lo > 0 and (line[lo] & 0xC0) == 0x80:
                lo -= 1
            while hi < len(line) and (line[hi] & 0xC0) == 0x80:
                hi += 1
        out, at = b"", lo
        if self.colour:
            for start, end in spans:
                start, end = max(start, lo), min(end, hi)
                if start >= end:
                    continue
                out += line[at:start] + _MATCH + line[start:end] + _RESET
                at = end
        out += line[at:hi]
        return (MARKER if lo > 0 else b"") + out + (MARKER if hi < len(line) else b"")

    @staticmethod
    def json_summary(matches: list[Match]) -> bytes:
        zero = {"secs": 0, "nanos": 0, "human": "0s"}
        stats = {
            "elapsed": zero,
            "searches": len(matches),
            "searches_with_match": len(matches),
            "bytes_searched": 0,
            "bytes_printed": 0,
            "matched_lines": len(matches),
            "matches": sum(len(m.data.get("submatches") or []) for m in matches),
        }
        summary = {"data": {"elapsed_total": zero, "stats": stats}, "type": "summary"}
        return json.dumps(summary, separators=(",", ":")).encode() + b"\n"

    @staticmethod
    def json_messages(match: Match) -> bytes:
        """begin, the match with its score, end: each match stands alone in score order."""
        path = match.data["path"]
        message = {**match.message, "data": {**match.data, "score": round(match.score, 6)}}
        stats = {
            "elapsed": {"secs": 0, "nanos": 0, "human": "0s"},
            "searches": 1,
            "searches_with_match": 1,
            "bytes_searched": 0,
            "bytes_printed": 0,
            "matched_lines": 1,
            "matches": len(match.data.get("submatches") or []),
        }
        end = {"type": "end", "data": {"path": path, "binary_offset": None, "stats": stats}}
        parts = [{"type": "begin", "data": {"path": path}}, message, end]
        return b"".join(json.dumps(p, separators=(",", ":")).encode() + b"\n" for p in parts)
