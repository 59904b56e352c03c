"""A query's order kept, so that the same query asked again over the same files reads it
back instead of ranking again.

An agent greps one question with one pattern, then another; a person runs a search again
with ``-m`` or ``-C``. Only the pattern changed, and the order it streams rg over is the one
ranked a moment ago: on sympy the ranking of a repeated query (the cheap tier, the stage's
kept vectors, the passage tier) was most of its 0.5-1 s.

The key is everything the order is computed from: the query; the stage's files and the
chosen constants; the model; the candidates' index rows (a file's row changes when its text
does); the index's segments and their dead rows (the corpus statistics); the embedding
index's parts; and the ranking code itself (the size and time of rrg's modules). Any of
them changed, the key is another and the query is ranked anew. Kept in the root's vector
cache (``orders``, bounded, least recently used first), only for searches that need the
order alone (not the passages the stage read: ``-q`` without a pattern and ``--recall``
print those), and never for an order whose stage failed.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import xxhash

from rrg.errors import RrgError
from rrg.index.served import ServedRoot
from rrg.index.view import IndexView
from rrg.rank.tuning import Tuning

#: Written into every key: a change to how an order is packed misses every kept one.
_FORMAT = "order-v2"

#: The passages of the files the stage and the passage tier scored, each file's in the
#: order they answer: each as (the file as an index into the candidates, first line, last
#: line). A capped search prints its lines of those files from them.
Spans = list[tuple[int, int, int]]


@dataclass(frozen=True)
class KeptOrder:
    """An order as kept under its key: a search that scores more of its files' passages
    (``rrg.rank.cheap_spans``) keeps their spans with it, so the next asking reads them."""

    key: str
    order: np.ndarray
    fast: bool
    spans: Spans

    def with_more_spans(self, served: ServedRoot, more: Spans) -> None:
        keep_order(served, self.key, self.order, self.fast, [*self.spans, *more])


def order_key(
    query: str,
    served: ServedRoot,
    view: IndexView,
    cand_rows: np.ndarray,
    stage_files: int,
    tuning: Tuning,
    embedded: tuple[str, ...],
) -> str:
    """The key of one ranking: see the module's docstring for what it holds."""
    made = xxhash.xxh3_128()
    spec = served.spec
    for part in (_FORMAT, code_make(), query, str(stage_files), repr(tuning), spec.key,
                 spec.vector_key, "/".join(embedded), str(view.vocab)):  # fmt: skip
        made.update(part.encode("utf-8", "surrogatepass") + b"\0")
    made.update(view.fingerprint())
    made.update(np.ascontiguousarray(cand_rows, np.int64).tobytes())
    return made.hexdigest()


def find_order(
    served: ServedRoot, key: str, candidates: int
) -> tuple[np.ndarray, bool, Spans] | None:
    """The kept order (indices into the candidates, best first), whether it was the cheap
    tier's alone, and the spans kept with it; None where none is kept, or what is kept does
    not fit. One read more than a day after the last is marked, so that the bound drops
    the unread first."""
    try:
        found = served.vectors.get_order(key)
    except (OSError, sqlite3.Error, RrgError):
        return None
    if found is None:
        return None
    data, used = found
    if time.time() - used > 86400:
        with contextlib.suppress(OSError, sqlite3.Error, RrgError):
            served.vectors.mark_order_used(key)
    try:
        raw = zlib.decompress(data)
    except zlib.error:
        return None
    if len(raw) < 5 or (len(raw) - 1) % 4:
        return None
    numbers = np.frombuffer(raw[1:], "<i4").astype(np.int64)
    length = int(numbers[0])
    order, packed = numbers[1 : 1 + length], numbers[1 + length :]
    if length < 0 or len(order) != length or len(packed) % 3:
        return None
    if len(packed) and (packed[0::3].min() < 0 or packed[0::3].max() >= candidates):
        return None
    # return_index: plain np.unique imports numpy.ma (9 ms of a repeated query's process).
    if len(order) > candidates or len(np.unique(order, return_index=True)[0]) != len(order):
        return None
    if len(order) and (order.min() < 0 or order.max() >= candidates):
        return None
    spans = [(int(f), int(a), int(b)) for f, a, b in packed.reshape(-1, 3).tolist()]
    return order, raw[0] == 1, spans


def keep_order(served: ServedRoot, key: str, order: np.ndarray, fast: bool, spans: Spans) -> None:
    """Keep a ranked order, and its spans, under its key. A cache that cannot be written
    costs only a ranking next time."""
    numbers = [len(order), *np.asarray(order).tolist(), *(n for span in spans for n in span)]
    raw = bytes([1 if fast else 0]) + np.asarray(numbers, "<i4").tobytes()
    with contextlib.suppress(OSError, sqlite3.Error, RrgError):
        served.vectors.put_order(key, zlib.compress(raw, 1))


@cache
def code_make() -> str:
    """rrg's modules as installed (each one's size and time): an edited or upgraded rrg
    ranks otherwise, and must not read an order the old code kept."""
    package = Path(__file__).resolve().parent.parent
    made = xxhash.xxh3_64()
    for folder, _, files in sorted(os.walk(package)):
        for name in sorted(files):
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                made.update(f"{folder}/{name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return made.hexdigest()
