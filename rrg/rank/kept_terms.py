"""Passages' word counts kept in the root's vector cache (``VectorCache``'s ``terms``), so
that a query's passage BM25 looks its words up instead of counting them.

The cheap tier scores each passage of its files by BM25 among them, which needs each query
word's count in each passage: splitting a passage into words is Python's regex and a
Counter, and a query with a short word ("a", "of") finds it in nearly every passage, so
every passage was split (0.1-0.14 s of a new query on sympy, the largest part of the tier
once its static vectors are computed ahead). The job that computes passages ahead
(``rrg.rank.warm_passages``) keeps every passage's counts: the xxh32 ids of its words (as
the index hashes a file's) and their counts, by the passage's content hash. A query reads
those it finds and counts the rest itself, as before; the counts are the same
(``textstats.words``), so the scores are too, but for two words of one passage sharing an
id (one chance in tens of millions a query word).
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Sequence

import numpy as np

from rrg.errors import RrgError
from rrg.index.textstats import term_counts, term_id
from rrg.index.vectors import MARK_AFTER_S, VectorCache

#: The first byte of every record: counts kept by another make of the words are not read.
_FORMAT = 1
#: A count this high may be clipped (uint16): its passage is counted by the query instead.
_MOST = 65535

Counts = tuple[np.ndarray, np.ndarray]  # the sorted uint32 ids of a passage's words, counts


def pack(text: str) -> bytes | None:
    """A passage's word counts, packed; None where a count is past what is kept."""
    ids, tfs, _ = term_counts(text)
    if len(tfs) and int(tfs.max()) >= _MOST:  # clipped there: the true count is unknown
        return None
    return bytes([_FORMAT]) + np.uint32(len(ids)).tobytes() + ids.tobytes() + tfs.tobytes()


def unpack(data: bytes) -> Counts | None:
    if len(data) < 5 or data[0] != _FORMAT:
        return None
    n = int(np.frombuffer(data, "<u4", 1, 1)[0])
    if len(data) != 5 + 6 * n:
        return None
    return np.frombuffer(data, "<u4", n, 5), np.frombuffer(data, "<u2", n, 5 + 4 * n)


class KeptTerms:
    """Passages' kept word counts; every failure to read or write only costs counting."""

    def __init__(self, cache: VectorCache) -> None:
        self.cache = cache

    def read(self, keys: Sequence[str]) -> dict[str, Counts]:
        """The kept counts of these passages (by content hash) that are kept; those last
        marked used a day ago or more are marked now."""
        try:
            found = self.cache.get_terms(sorted(set(keys)))
        except (OSError, sqlite3.Error, RrgError):
            return {}
        out: dict[str, Counts] = {}
        before = time.time() - MARK_AFTER_S
        stale = []
        for key, (data, used) in found.items():
            counts = unpack(data)
            if counts is not None:
                out[key] = counts
                if used < before:
                    stale.append(key)
        if stale:
            with contextlib.suppress(OSError, sqlite3.Error, RrgError):
                self.cache.put_terms({}, stale)
        return out

    def keep(self, keys: Sequence[str], texts: Sequence[str], wait_s: float) -> bool:
        """Count and keep the words of these passages not kept yet; False where the lock
        was busy past ``wait_s`` or the cache could not be written."""
        held = self.cache.get_terms(sorted(set(keys)))
        fresh: dict[str, bytes] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in held and key not in fresh:
                packed = pack(text)
                if packed is not None:
                    fresh[key] = packed
        try:
            return self.cache.put_terms(fresh, [], wait_s)
        except (OSError, sqlite3.Error, RrgError):
            return False


def term_frequencies(counts: list[Counts | None], terms: Sequence[str]) -> np.ndarray:
    """Each term's count in each passage (passages x terms) from kept counts; rows of
    passages with none (None) are left 0 for the caller to fill."""
    out = np.zeros((len(counts), len(terms)), np.float64)
    wanted = np.array([term_id(t) for t in terms], np.uint32)
    for row, held in enumerate(counts):
        if held is None:
            continue
        ids, tfs = held
        at = np.searchsorted(ids, wanted)
        inside = at < len(ids)
        hit = np.zeros(len(wanted), bool)
        hit[inside] = ids[at[inside]] == wanted[inside]
        out[row, hit] = tfs[at[hit]]
    return out
