"""Printing matches one at a time in rg's formats, for output in an order rg cannot produce
(score order after --rerank): standard lines (path, line and column numbers, -o, --vimgrep,
-0, rg's default colours, -M/--max-columns, --max-columns-preview, --trim) and rg's JSON
with a score field.

The long-line rules follow rg's standard printer (crates/printer/src/standard.rs): a line
longer than -M bytes, its terminator counted, is omitted or previewed; the message depends on
whether rg looked at each match (colour, --column, -o, --vimgrep) or not.
Reranked lines are never grouped under file headings: neighbours come from different files.
"""

from __future__ import annotations

import json
import unicodedata

from rrg.excerpt import MARKER, char_offset, window
from rrg.rg.args import RgArgs, as_printed
from rrg.rg.hyperlinks import CLOSE, LineLink
from rrg.rg.matches import Match, line_json
from rrg.rg.palette import DEFAULT, Paint, Palette

_ASCII_SPACE = b" \t\n\x0b\x0c\r"


def _graphemes_end(data: bytes, limit: int) -> int:
    """Byte offset after the first ``limit`` grapheme clusters, as rg counts them for
    --max-columns-preview (``_joins``; not every emoji sequence). Bytes that are not UTF-8
    count as rg's bstr counts them: each longest run that begins a character and cannot
    end it (``\xf1\x8c\xbd`` before an ASCII byte) as one U+FFFD, a cluster alone."""
    count = 0
    at = 0
    prev: str | None = None  # the character before, None at the start and after bad bytes
    flags = 0  # regional indicators just before: two make one flag
    while at < len(data):
        try:
            text, bad = data[at:].decode("utf-8"), None
        except UnicodeDecodeError as err:  # its start and end: Unicode's maximal subpart
            text, bad = data[at : at + err.start].decode("utf-8"), (at + err.start, at + err.end)
        for char in text:
            indicator = "\U0001f1e6" <= char <= "\U0001f1ff"
            joins = _joins(prev, char) or (indicator and flags % 2 == 1)
            if count == limit and not joins:
                return at
            count += not joins
            flags = flags + 1 if indicator else 0
            prev = char
            at += len(char.encode("utf-8"))
        if bad is None:
            break
        if count == limit:
            return bad[0]
        count += 1
        prev, flags = None, 0
        at = bad[1]
    return len(data)


def _joins(prev: str | None, char: str) -> bool:
    """Whether ``char`` goes on the grapheme cluster that ``prev`` ends (Unicode's rules
    GB3 to GB11, a pictograph told by its category): a newline after a carriage return; a
    mark, a joiner or a skin tone after anything but a control character; a pictograph
    after a joiner (an emoji sequence)."""
    if prev is None:
        return False
    if prev == "\r":
        return char == "\n"
    kind = unicodedata.category(prev)
    if kind in ("Cc", "Zl", "Zp") or (kind == "Cf" and prev not in "\u200c\u200d"):
        return False
    if prev == "\u200d" and (
        unicodedata.category(char) == "So" or "\U0001f000" <= char <= "\U0001faff"
    ):
        return True
    return (
        unicodedata.category(char) in ("Mn", "Me", "Mc")
        or char in "\u200c\u200d"
        or "\U0001f3fb" <= char <= "\U0001f3ff"
    )


def _rows(text: bytes) -> list[tuple[int, bytes]]:
    """A match's text as its lines, each with where it starts, terminators kept."""
    rows, at = [], 0
    while at < len(text):
        end = text.find(b"\n", at)
        end = len(text) if end < 0 else end + 1
        rows.append((at, text[at:end]))
        at = end
    return rows


def _row_of(rows: list[tuple[int, bytes]], offset: int) -> int:
    """Which of a match's lines holds the byte at ``offset`` of its text."""
    return max(k for k, (at, _) in enumerate(rows) if at <= offset)


def _within(spans: list[tuple[int, int]], at: int, length: int) -> list[tuple[int, int]]:
    """The spans that fall in a line starting at ``at`` of ``length`` bytes, in its offsets."""
    return [
        (max(s, at) - at, min(e, at + length) - at) for s, e in spans if s < at + length and e > at
    ]


def _touching_joined(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans with each that starts where the one before ends joined to it: rg stays in a
    match's colour from one to the next (``foo|bar`` paints ``foobar`` once)."""
    joined: list[tuple[int, int]] = []
    for start, end in spans:
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
        else:
            joined.append((start, end))
    return joined


def _unended(line: bytes) -> bytes:
    """The line without its newline; a CR before it stays, as rg prints it (even with
    --crlf, rg writes the line's bytes as they are)."""
    return line[:-1] if line.endswith(b"\n") else line


def _multi_line_printed(
    rows: list[tuple[int, bytes]], spans: list[tuple[int, int]], end: int, only: bool
) -> list[tuple[int, int]]:
    """The matches rg's multi-line printer (-U) writes of a line's under -o and --vimgrep:
    no empty match under -o (it prints a line's text up to its terminator), and under
    --vimgrep none at a line's start or its end (its walk over the lines stops at the first
    line that starts where the match ends)."""
    if only:
        return [(s, e) for s, e in spans if s < e]
    starts = {at for at, _ in rows}
    return [(s, e) for s, e in spans if s < e or (s not in starts and s < end)]


def _trim_start(line: bytes, terminator: bytes) -> int:
    """Where --trim makes a line start: after its leading ASCII white space, up to a byte
    of its terminator (a record's newlines are white space to trim, as rg trims them)."""
    at = 0
    while at < len(line) and line[at] in _ASCII_SPACE and line[at] not in terminator:
        at += 1
    return at


class Printer:
    def __init__(
        self,
        args: RgArgs,
        with_filename: bool,
        palette: Palette | None,
        excerpt: int,
        terminal: bool,
        links: dict[bytes, LineLink] | None = None,
        multi_line: bool = False,
    ) -> None:
        self.colour = palette is not None
        #: Each path's line links (``--hyperlink-format``), as rg draws them in colour.
        self.links = links or {}
        self.palette = palette or DEFAULT
        self.excerpt = excerpt
        self.with_filename = with_filename
        self.line_numbers = args.line_numbers(terminal)
        self.column = args.column_shown
        self.vimgrep = self.only = self.null = False
        self.trim = self.preview = False
        self.records = args.nul_ended  # --null-data: NUL ends each "line"
        # rg prints multi-line (-U) only where its search is (``rrg.rg.multiline``: where
        # the pattern may match the line terminator, or PCRE2 searches).
        self.multi_line = multi_line
        # rg's line terminator: what it ends a line with where it writes the end itself (a
        # match of -o, a line cut or left out for --max-columns), the NUL of --null-data or
        # the CRLF of --crlf; elsewhere a line keeps its own end.
        self.end = b"\0" if self.records else b"\r\n" if args.crlf_ended else b"\n"
        self.max_columns: int | None = None
        self.field = args.field_separators[0]  # between path, line number, column and line
        self.path_separator = args.path_separator
        for name, value in args.flags:
            if name == "--with-filename":
                self.with_filename = True
            elif name == "--no-filename":
                self.with_filename = False
            elif name == "--vimgrep":
                self.vimgrep = True
            elif name == "--only-matching":
                self.only = True
            elif name == "--null":
                self.null = True
            elif name == "--trim":
                self.trim = True
            elif name == "--no-trim":
                self.trim = False
            elif name == "--max-columns-preview":
                self.preview = True
            elif name == "--no-max-columns-preview":
                self.preview = False
            elif name == "--max-columns" and value is not None:
                self.max_columns = int(value) if value.isdigit() and int(value) else None
        # rg finds each match only when it must: for colour, columns, -o or --vimgrep.
        self.per_match_detail = self.colour or self.column or self.only or self.vimgrep

    # ---- standard lines --------------------------------------------------------------------
    def lines(self, match: Match) -> bytes:
        line = match.line()
        if line is None:
            return self._prelude(match, match.spans[0][0] if match.spans else 0) + (
                MARKER + match.excerpt.encode("utf-8", "surrogateescape") + MARKER + b"\n"
            )
        spans = match.spans
        # Under --null-data a record holds its newlines: it prints as one, as rg prints it.
        rows = _rows(line) if not self.records else [(0, line)]
        if not spans:
            return self._unmatched(match, rows)
        if self.multi_line and (self.only or self.vimgrep):
            spans = _multi_line_printed(rows, spans, len(line), self.only)
            if not spans:
                return b""
        if len(rows) > 1:
            return self._rows(match, rows, spans)
        if self.only or self.vimgrep:
            # Under --vimgrep each line printed colours its own match alone, as rg does.
            return b"".join(
                self._prelude(match, start)
                + (
                    self._only(line, spans, start, end)
                    if self.only
                    else self._body(line, spans, [(start, end)])
                )
                for start, end in spans
            )
        return self._prelude(match, spans[0][0] if spans else 0) + self._body(line, spans)

    def _rows(
        self, match: Match, rows: list[tuple[int, bytes]], spans: list[tuple[int, int]]
    ) -> bytes:
        """A match of several lines (``-U``: a match across lines, or adjacent lines that
        PCRE2 reports as one), printed as rg prints it: each line with its own number; in
        standard lines each with the first match's column; under --vimgrep each match once,
        on the line where it starts, its column counted in that line; under -o each line of
        each match's text, with its column counted from the first line's start (rg's own)."""
        first = match.line_number
        out = b""
        if self.vimgrep and not self.only:
            for start, end in spans:
                k = _row_of(rows, start)
                at, row = rows[k]
                number = None if first is None else first + k
                out += self._prelude(match, start - at, number)
                mine = _within([(start, end)], at, len(row))
                out += self._body(row, _within(spans, at, len(row)), mine, len(spans))
            return out
        if self.only:
            text = b"".join(row for _, row in rows)
            for start, end in spans:
                k = _row_of(rows, start)
                for j, piece in enumerate(text[start:end].split(b"\n")):
                    if not piece:
                        continue  # rg prints a line's part of the match, none of its end
                    number = None if first is None else first + k + j
                    out += self._prelude(match, start, number)
                    out += self._only(piece + b"\n", [(0, len(piece))], 0, len(piece))
            return out
        column = spans[0][0] if spans else 0
        for k, (at, row) in enumerate(rows):
            number = None if first is None else first + k
            out += self._prelude(match, column, number) + self._body(
                row, _within(spans, at, len(row)), block=len(spans)
            )
        return out

    def _unmatched(self, match: Match, rows: list[tuple[int, bytes]]) -> bytes:
        """A line rg reports with no match in it (-v's lines), printed as rg prints it under
        any format (-o, --vimgrep, --column alike): each of its lines after a prelude with
        no column, whole and uncoloured, cut where too long with no count of matches."""
        first = match.line_number
        out = b""
        for k, (_, row) in enumerate(rows):
            lo = _trim_start(row, self.end) if self.trim else 0
            if self._exceeds(row[lo:]):
                body = self._exceeded(row, lo, [], [], detail=False)
            elif row.endswith(self.end[-1:]):
                body = row[lo:]  # rg writes the line as it is, its own end with it
            else:
                body = row[lo:] + self.end
            out += self._prelude(match, None, None if first is None else first + k) + body
        return out

    def _prelude(self, match: Match, column: int | None, number: int | None = None) -> bytes:
        """The fields before a line: its path, number and column (none where ``column`` is
        None: a line with no match in it)."""
        fields: list[tuple[bytes, bytes]] = []  # each field and the separator after it
        if self.with_filename:
            path = as_printed(match.path, self.path_separator)
            fields.append(
                (self._paint(self.palette.path, path), b"\0" if self.null else self.field)
            )
        if number is None:
            number = match.line_number
        if self.line_numbers and number is not None:
            fields.append((self._paint(self.palette.line, str(number).encode()), self.field))
        if self.column and column is not None:
            fields.append((self._paint(self.palette.column, str(column + 1).encode()), self.field))
        link = self.links.get(match.path) if self.with_filename else None
        if link is None or not fields:
            return b"".join(field + sep for field, sep in fields)
        # rg links the prelude's fields, the separator after the last one outside the link;
        # the line is 1 where none is printed, the column the match's, printed or not.
        line = number if self.line_numbers else None
        *inner, (last, sep) = fields
        opened = link(line, 1 if column is None else column + 1)
        return opened + b"".join(f + s for f, s in inner) + last + CLOSE + sep

    def _exceeds(self, data: bytes) -> bool:
        return self.max_columns is not None and len(data) > self.max_columns

    def _only(self, line: bytes, spans: list[tuple[int, int]], start: int, end: int) -> bytes:
        text = line[start:end]
        if self.trim:
            text = text[_trim_start(text, self.end) :]
        if self._exceeds(line[start:end] if self.colour else text):
            if not self.preview:
                return b"[Omitted long matching line]" + self.end
            cut = _graphemes_end(text, self.max_columns or 0)
            # rg counts the line's matches against the match text's own offsets here.
            own = [(0, len(text))] if self.colour else spans
            more = sum(1 for s, _ in own if cut <= s < len(text))
            shown = self._coloured(text[:cut], [(0, len(text))])
            return (
                shown
                + b" [... %d more %s]" % (more, b"match" if more == 1 else b"matches")
                + self.end
            )
        # rg paints no empty match (``^$`` under -o): it writes nothing between the colours.
        return (self._paint(self.palette.match, text) if text else b"") + self.end

    def _body(
        self,
        line: bytes,
        spans: list[tuple[int, int]],
        painted: list[tuple[int, int]] | None = None,
        block: int | None = None,
    ) -> bytes:
        """The line as rg prints it after its prelude: its ``spans`` counted where it is too
        long, ``painted`` (all of them unless given: --vimgrep's own match) coloured;
        ``block``: the matches of the lines rg reported it with (one match of several lines,
        or adjacent lines of a multi-line search), which rg's notice counts for each."""
        painted = spans if painted is None else painted
        lo = _trim_start(line, self.end) if self.trim else 0
        checked = line if self.colour else line[lo:]
        if self._exceeds(checked):
            return self._exceeded(line, lo, spans, painted, self.per_match_detail, block)
        shifted = [(max(0, s - lo), max(0, e - lo)) for s, e in painted]
        if self.records:  # its newlines are its own; a NUL ends it, as rg ends it
            text = line[lo:-1] if line.endswith(b"\0") else line[lo:]
            return self._cut(text, shifted) + b"\0"
        if self.colour or (self.multi_line and (self.column or self.vimgrep)):
            # rg writes the line less its end, then its terminator (CRLF): in colour, and in
            # a multi-line search wherever it finds each match (--column, --vimgrep).
            return self._cut(self._unterminated(line[lo:]), shifted) + self.end
        # Plain, rg writes the line as it is, and its terminator only where it has no end.
        ended = b"\n" if line.endswith(b"\n") else self.end
        return self._cut(_unended(line[lo:]), shifted) + ended

    def _exceeded(
        self,
        line: bytes,
        lo: int,
        spans: list[tuple[int, int]],
        painted: list[tuple[int, int]],
        detail: bool,
        block: int | None = None,
    ) -> bytes:
        """A line longer than --max-columns: its preview, or rg's notice in its place; with
        ``detail`` (rg found each match) they count its matches: the preview those after
        its cut in the line, the notice those of its ``block`` (the line's own by default)."""
        if self.preview:
            cut = lo + _graphemes_end(line[lo:], self.max_columns or 0)
            shown = self._unterminated(line[lo:cut])
            visible = [(max(0, s - lo), max(0, e - lo)) for s, e in painted]
            out = self._coloured(shown, visible if self.colour else [])
            if not detail:
                return out + b" [... omitted end of long line]" + self.end
            if self.colour or (self.vimgrep and self.multi_line):
                # rg counts the matches it paints here: --vimgrep's own match (its
                # multi-line printer hands on that match alone, in any colour).
                more = sum(1 for s, _ in painted if cut <= s < len(line))
            else:
                # rg's plain printer hands on the line cut by --trim with the matches'
                # offsets in the whole line, and counts them against the cut one's.
                more = sum(1 for s, _ in spans if cut - lo <= s < len(line) - lo)
            tense = b"match" if more == 1 else b"matches"
            return out + b" [... %d more %s]" % (more, tense) + self.end
        if not detail:
            return b"[Omitted long matching line]" + self.end
        count = len(spans) if block is None else block
        return b"[Omitted long line with %d matches]" % count + self.end

    def _unterminated(self, text: bytes) -> bytes:
        """The text less its line terminator, as rg drops it before writing its own: a
        record's newlines are its text; under --crlf a CR goes with the LF."""
        if self.records:
            return text.removesuffix(b"\0")
        text = _unended(text)
        return text.removesuffix(b"\r") if self.end == b"\r\n" else text

    def _paint(self, part: Paint, text: bytes) -> bytes:
        return part(text) if self.colour else text

    def _coloured(self, text: bytes, spans: list[tuple[int, int]]) -> bytes:
        if not self.colour:
            return text
        out, at = b"", 0
        for start, end in _touching_joined(spans):
            start, end = max(start, at), min(end, len(text))
            if start >= end:
                continue
            out += text[at:start] + self.palette.match(text[start:end])
            at = end
        return out + text[at:]

    def _cut(self, text: bytes, spans: list[tuple[int, int]]) -> bytes:
        """The line, coloured, cut to --excerpt characters around its first match."""
        if not self.excerpt or not spans:
            return self._coloured(text, spans)
        chars = text.decode("utf-8", "surrogateescape")
        if len(chars) <= self.excerpt:
            return self._coloured(text, spans)
        first_start, first_end = spans[0]
        start = char_offset(text, first_start)
        lo, hi = window(
            len(chars),
            start,
            char_offset(text[first_start:], first_end - first_start),
            self.excerpt,
        )
        lo_b = len(chars[:lo].encode("utf-8", "surrogateescape"))
        hi_b = len(chars[:hi].encode("utf-8", "surrogateescape"))
        inside = [(s - lo_b, e - lo_b) for s, e in spans if e > lo_b and s < hi_b]
        body = self._coloured(text[lo_b:hi_b], inside)
        return (MARKER if lo > 0 else b"") + body + (MARKER if hi < len(chars) else b"")

    # ---- JSON --------------------------------------------------------------------------
    @staticmethod
    def json_messages(match: Match) -> bytes:
        """begin, the match with its score, end: each match stands alone in score order.

        rg's end message carries per-file statistics (time, bytes searched) that a match
        taken out of its file's search does not have: they are left out, not made up.
        """
        line = match.line()
        if line is None:
            line = match.excerpt.encode("utf-8", "surrogateescape")
        path = match.path_json
        parts = [
            {"type": "begin", "data": {"path": path}},
            line_json(match, line),
            {"type": "end", "data": {"path": path, "binary_offset": None}},
        ]
        return b"".join(json.dumps(p, separators=(",", ":")).encode() + b"\n" for p in parts)

    @staticmethod
    def json_summary(matches: list[Match], elapsed_s: float) -> bytes:
        """rg's summary message with what rrg knows for certain: the whole run's time and
        the lines and matches printed."""
        secs = int(elapsed_s)
        nanos = int((elapsed_s - secs) * 1e9)
        elapsed = {"secs": secs, "nanos": nanos, "human": f"{elapsed_s:.6f}s"}
        stats = {
            "matched_lines": len(matches),
            "matches": sum(len(m.spans) for m in matches),
        }
        summary = {"data": {"elapsed_total": elapsed, "stats": stats}, "type": "summary"}
        return json.dumps(summary, separators=(",", ":")).encode() + b"\n"
