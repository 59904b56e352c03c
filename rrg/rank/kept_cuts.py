"""Files' passages kept across processes, in the root's vector cache (``VectorCache``'s
``cuts``): a file read by a query before is not cut again.

Cutting a file at its definitions is tree-sitter's parse and a walk of its tree: on a
repository of long TypeScript files, 0.15-0.2 s for the 25 files the passage tier reads,
more than the rest of a ``--fast`` query. An agent asks many questions of one repository,
and the same files come back: each is cut once, its passages kept by the hash of its text,
its path and the make of the cutter (``code_passages.cut_make``), and read back packed.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
import zlib

import xxhash

# A kept cut read within MARK_AFTER_S of its last mark is not marked again: a query that
# only reads writes nothing (the vectors and word counts are marked alike).
from rrg.index.vectors import MARK_AFTER_S, VectorCache
from rrg.rank.code_passages import blank_line_passages, cut_make, cut_passages
from rrg.rank.paragraphs import Paragraph

#: Shorter files are cut each time, and kept nowhere: a read back saves 0.1 ms of them at
#: most. A file's cut against its read back, the connection shared by a query's reads (zod
#: and tokio, 300 files each; docs/benchmarks.md): under 1,000 characters 0.16-0.17 ms
#: against 0.05-0.06, 1,000-2,000 0.31-0.46 against 0.06-0.10, 2,000-4,000 0.57-0.91
#: against 0.10-0.15, 8,000-32,000 2.2-3.9 against 0.23-0.38, past 32,000 13-18 against
#: 0.75-1.3.
KEEP_FROM_CHARS = 1000


class KeptCuts:
    """One query's look into the kept cuts: ``find`` reads, ``keep`` and ``find``'s hits
    wait in memory until ``save`` writes them at once. Every failure to read or write only
    costs cutting again."""

    def __init__(self, cache: VectorCache) -> None:
        self.cache = cache
        self.fresh: dict[str, bytes] = {}
        self.hits: list[str] = []
        self._db: sqlite3.Connection | None = None  # one query's reads share it
        self._opened = False

    @staticmethod
    def worth_keeping(text: str) -> bool:
        return len(text) >= KEEP_FROM_CHARS

    def find(self, cut: object, name: str, digest: str) -> list[Paragraph] | None:
        """The kept passages of a file (``digest``: its text's hash) as ``cut`` cuts it;
        None where none is kept, or ``cut`` is not one of rrg's own."""
        key = _key(cut, name, digest)
        if key is None:
            return None
        try:
            if not self._opened:
                self._db, self._opened = self.cache.reader(), True
            found = self.cache.get_cuts([key], self._db) if self._db is not None else {}
        except sqlite3.Error:
            return None
        if key not in found:
            return None
        data, used = found[key]
        try:
            passages = _unpack(data)
        except (ValueError, TypeError, zlib.error):
            return None  # damaged: cut again, and kept anew
        if used < time.time() - MARK_AFTER_S:
            self.hits.append(key)
        return passages

    def keep(self, cut: object, name: str, digest: str, passages: list[Paragraph]) -> None:
        key = _key(cut, name, digest)
        if key is not None:
            self.fresh[key] = _pack(passages)

    def save(self) -> None:
        """Write what was cut and found, and let go of the reads' connection."""
        if self._db is not None:
            self._db.close()
        self._db, self._opened = None, False
        if self.fresh or self.hits:
            with contextlib.suppress(OSError, sqlite3.Error):
                self.cache.put_cuts(self.fresh, self.hits)
        self.fresh, self.hits = {}, []


def _key(cut: object, name: str, digest: str) -> str | None:
    if cut is None or cut is blank_line_passages:
        kind = "blank"
    elif cut is cut_passages:
        kind = "code"
    else:
        return None  # a benchmark's own cut: its make is not known here
    dot = name.rfind(".")
    extension = name[dot:].lower() if dot > name.rfind("/") else ""
    made = f"{kind}\0{cut_make(extension)}\0{name}\0{digest}"
    return xxhash.xxh3_64_hexdigest(made.encode("utf-8", "surrogatepass"))


def _pack(passages: list[Paragraph]) -> bytes:
    rows = [
        [p.start, p.end, p.text, p.context, p.name, p.within, p.starts_mid_line, p.ends_mid_line]
        for p in passages
    ]
    return zlib.compress(json.dumps(rows).encode("ascii"), 1)  # lone surrogates escaped


def _unpack(data: bytes) -> list[Paragraph]:
    rows = json.loads(zlib.decompress(data).decode("ascii"))
    return [
        Paragraph(
            int(start), int(end), str(text), str(context), str(name), str(within), *map(bool, cut)
        )
        for start, end, text, context, name, within, *cut in rows
    ]
