"""The matches of a search, collected from rg's JSON messages in file order (the pool that
``--rerank`` scores), and a match given back as rg's JSON ``match`` message.

Memory stays bounded by what can be scored and printed: a match keeps its line only when the
line is short; a long line keeps its coordinates and a content hash, and is re-read from its
file when it is printed.
"""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field

import xxhash

from rrg.errors import EXIT_ERROR
from rrg.excerpt import char_offset, window
from rrg.rg.args import RgArgs
from rrg.rg.binary_files import walk_alone_command, walks_alone
from rrg.rg.children import started
from rrg.rg.ordered import Json, OrderedSearch, batches
from rrg.rg.replies import StderrFilter, json_bytes, reaped

#: Characters of a match line the model reads, around the first submatch (a third before it).
SCORE_CHARS = 480
#: Lines up to this size are kept whole; longer ones are re-read from their file to print.
KEEP_LINE_BYTES = 16 * 1024
#: Flags under which rg searches other bytes than the file holds, so lines are kept whole.
_TRANSFORMING = ("--pre", "--search-zip", "--encoding")


@dataclass
class Match:
    """One matching line: where it is, its submatches, and what the model scores."""

    path: bytes
    path_json: Json  # rg's own {"text": ...} or {"bytes": ...}
    line_number: int | None
    offset: int  # absolute byte offset of the line in its file
    length: int  # bytes of the line, its terminator included
    digest: str  # xxh3-64 of the line
    spans: list[tuple[int, int]]  # submatches, byte offsets in the line
    excerpt: str  # what the model reads
    kept: bytes | None  # the line itself, when short (or when rg transforms the bytes)
    order: int = 0
    score: float = 0.0
    extras: Json = field(default_factory=dict)

    def line(self) -> bytes | None:
        """The whole line, terminator included; None when its file changed since rg read it."""
        if self.kept is not None:
            return self.kept
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read(self.length)
        except OSError:
            return None
        return data if xxhash.xxh3_64_hexdigest(data) == self.digest else None


def scoring_excerpt(line: bytes, spans: list[tuple[int, int]]) -> str:
    """The line cut to SCORE_CHARS characters around its first submatch."""
    start_byte = spans[0][0] if spans else 0
    lo_byte = max(0, start_byte - 4 * SCORE_CHARS)
    piece = line[lo_byte : start_byte + 4 * SCORE_CHARS].decode("utf-8", "replace")
    start = char_offset(line[lo_byte:], start_byte - lo_byte)
    lo, hi = window(len(piece), start, 0, SCORE_CHARS, lead=1 / 3)
    return piece[lo:hi].strip()


def _match_from(message: Json, keep_whole: bool, order: int) -> Match:
    data = message["data"]
    line = json_bytes(data["lines"])
    spans = [(int(s["start"]), int(s["end"])) for s in data.get("submatches") or []]
    keep = keep_whole or len(line) <= KEEP_LINE_BYTES
    return Match(
        path=json_bytes(data["path"]),
        path_json=data["path"],
        line_number=data.get("line_number"),
        offset=int(data.get("absolute_offset") or 0),
        length=len(line),
        digest=xxhash.xxh3_64_hexdigest(line),
        spans=spans,
        excerpt=scoring_excerpt(line, spans),
        kept=line if keep else None,
        order=order,
    )


def collect(
    search: OrderedSearch, files: list[bytes], pool: int
) -> tuple[list[Match], bool, bytes]:
    """Up to ``pool`` matches of the search's rg, flags and patterns, in file order;
    (matches, more remain, rg's messages that stand). The messages are the caller's to
    write: where the pool is printed as it stands, the ordered search runs rg again and
    rg's messages come from that run, once."""
    keep_whole = search.args.has(*_TRANSFORMING)
    found: list[Match] = []
    said = bytearray()
    for named, cmd in _json_runs(search, files):
        proc = started(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
        )
        # A listed file deleted since rg listed it is no error, as in rg's own walk.
        messages = StderrFilter(proc, set(named))
        assert proc.stdout is not None
        for raw in proc.stdout:
            if not raw.startswith(b'{"type":"match"'):
                continue
            found.append(_match_from(json.loads(raw), keep_whole, len(found)))
            del raw  # a 500 KB line must not outlive its parse
            if len(found) > pool:
                proc.kill()
                reaped(proc)
                said += messages.standing()  # what rg said of the files it read before
                return found[:pool], True, bytes(said)
        if reaped(proc) == EXIT_ERROR:
            said += messages.standing()
    return found, False, bytes(said)


def _json_runs(
    search: OrderedSearch, files: list[bytes]
) -> Iterator[tuple[list[bytes], list[str | bytes]]]:
    """The rg runs whose JSON gives the files' matches in order: batches named to rg, and
    for a file with a NUL past rg's first read, rg's walk to it alone (its matches before
    the NUL, as rg's walk prints them; named, rg would read past it)."""
    rg, user_flags, patterns = search.rg, search.user_flags, search.patterns
    for batch in batches(files):
        late = search.late_nul_in(batch)
        run: list[bytes] = []
        for path in [*batch, None]:
            if path is not None and path not in late:
                run.append(path)
                continue
            if run:
                yield run, [rg, *user_flags, *patterns, "--json", "-j1", "--", *run]
                run = []
            if path is not None and walks_alone(path):
                yield [path], walk_alone_command(rg, search.args, path, ["--json"], True)


def unsupported_with_rerank(args: RgArgs) -> str | None:
    """Flags whose output cannot be put in score order one match at a time; and
    ``--stats``, whose block counts what rg searched (the files and bytes it read to fill
    the pool), which the lines printed in score order do not tell: it was left out without
    a word. (``--json``'s summary, which says only what is certain, stays.)"""
    if args.stats_block:
        return "--stats"
    if args.prints_context:
        return next(
            name
            for name, value in reversed(args.flags)
            if name in ("--after-context", "--before-context", "--context") and value != "0"
        )
    # The mode rg keeps (the last given; --quiet wherever it stands), and a flag turned
    # off again is off: a config file's --byte-offset with --no-byte-offset typed.
    if args.files_mode:
        return "--files"
    if args.output_mode not in ("lines", "--json"):
        return args.output_mode
    if args.turned_on("--byte-offset"):
        return "--byte-offset"
    return next((name for name, _ in args.flags if name in ("--passthru", "--replace")), None)


def line_json(match: Match, line: bytes) -> Json:
    """The match as rg's JSON ``match`` message, with its score."""

    def text_or_bytes(data: bytes) -> Json:
        try:
            return {"text": data.decode("utf-8")}
        except UnicodeDecodeError:
            return {"bytes": base64.b64encode(data).decode()}

    submatches = [{"match": text_or_bytes(line[s:e]), "start": s, "end": e} for s, e in match.spans]
    return {
        "type": "match",
        "data": {
            "path": match.path_json,
            "lines": text_or_bytes(line),
            "line_number": match.line_number,
            "absolute_offset": match.offset,
            "submatches": submatches,
            "score": round(match.score, 6),
        },
    }
