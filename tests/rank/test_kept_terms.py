"""Passages' word counts kept (rrg/rank/kept_terms.py): what a query reads back scores a
passage as counting its words does; a record of another make, a damaged one or a count
that may be clipped is not read; the real cache's SQLite file."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from rrg.index.textstats import counted_words
from rrg.index.vectors import VectorCache
from rrg.rank.kept_terms import KeptTerms, pack, term_frequencies, unpack
from rrg.rank.passages import passage_bm25
from rrg.rank.query import Query

TEXTS = [
    "src/http.py\ndef retry_request(session):\n    '''Retry a request after a timeout.'''",
    "src/cache.py\nclass RequestCache:\n    def get(self, key): return self.store[key]",
    "docs/guide.md\nA request is retried three times; the cache keeps each request.",
    "src/naïve.py\ndef café(): return 'requête'  # non-ASCII words",
]
QUERY = "retry a request from the cache"


def test_kept_counts_score_as_counting_does(tmp_path: Path) -> None:
    kept = KeptTerms(VectorCache(tmp_path / "root.sqlite"))
    keys = [f"k{k}" for k in range(len(TEXTS))]
    counted = passage_bm25(Query.of(QUERY), TEXTS, keys)
    assert kept.keep(keys, TEXTS, wait_s=1)
    assert sorted(kept.read(keys)) == keys
    read = passage_bm25(Query.of(QUERY), TEXTS, keys, kept)
    assert read.tobytes() == counted.tobytes()
    assert (counted > 0).sum() == 3
    # Half of them kept: the others are counted, and the scores do not change.
    half = KeptTerms(VectorCache(tmp_path / "half.sqlite"))
    assert half.keep(keys[:2], TEXTS[:2], wait_s=1)
    assert passage_bm25(Query.of(QUERY), TEXTS, keys, half).tobytes() == counted.tobytes()


def test_term_frequencies_are_the_counted_words() -> None:
    terms = sorted({"retry", "request", "cache", "the", "requête", "store"})
    counts = [unpack(pack(text)) for text in TEXTS]  # type: ignore[arg-type]
    got = term_frequencies(counts, terms)
    for row, text in enumerate(TEXTS):
        want: Counter[str] = counted_words(text, frozenset(terms))
        assert got[row].tolist() == [want[t] for t in terms]
    assert term_frequencies([None], terms).tolist() == [[0.0] * len(terms)]


def test_what_is_not_read(tmp_path: Path) -> None:
    packed = pack("one two two")
    assert packed is not None and unpack(packed) is not None
    assert unpack(bytes([9]) + packed[1:]) is None  # another make of the words
    assert unpack(packed[:-1]) is None  # cut short
    assert unpack(b"") is None
    assert pack(" ".join(["word"] * 70_000)) is None  # clipped at 65,535: not kept
    cache = VectorCache(tmp_path / "root.sqlite")
    assert cache.put_terms({"bad": b"\x01garbage", "good": packed}, [])
    assert sorted(KeptTerms(cache).read(["bad", "good", "absent"])) == ["good"]
    ids, tfs = KeptTerms(cache).read(["good"])["good"]
    assert sorted(tfs.tolist()) == [1, 2] and np.all(np.diff(ids.astype(np.int64)) > 0)
