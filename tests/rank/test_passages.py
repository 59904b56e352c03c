"""The cheap scores of passages equal their definitions: a passage's static vector is the
idf-weighted mean of its WordPiece vectors (as a query's), and its BM25 counts its words."""

from __future__ import annotations

import sys
import threading
from collections import Counter

import numpy as np
import pytest

from rrg.index.textstats import words
from rrg.model.encoder import Encoder
from rrg.model.registry import default_model
from rrg.model.static_table import static_table
from rrg.rank.passages import (
    Encode,
    PassageScorer,
    ScoredPassages,
    passage_bm25,
    passage_static,
    score_passages,
)
from rrg.rank.query import Query
from rrg.rank.scoring import bm25_term, static_query_vector
from rrg.rank.tuning import TUNING

TEXTS = [
    "def parse_config(path):\n    return load(path)",
    "the river floods the valley every spring",
    "",
    "ParseConfig reads the CONFIG file; parseConfig too",
    "nothing to see here",
]


def test_passage_static_is_the_weighted_mean_cosine(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RRG_CACHE_DIR", env["RRG_CACHE_DIR"])
    encoder = Encoder(default_model())
    table = static_table(encoder)
    idf = np.random.default_rng(1).uniform(0.5, 5.0, table.shape[0]).astype(np.float32)
    query = "parse the config"
    computed: list[str] = []

    def vectors_for(kind: str, keys: list[str], encode: Encode) -> dict[str, np.ndarray]:
        assert kind == "static"
        computed.extend(keys)
        return dict(zip(keys, encode(keys), strict=True))

    keys = [f"k{i}" for i in range(len(TEXTS))]
    got = passage_static(
        Query.of(query), TEXTS, keys, PassageScorer(encoder, idf, vectors_for, 0, TUNING)
    )
    assert computed == keys

    def weighted_mean(text: str) -> np.ndarray:
        # The definition, token by token: each occurrence's vector times its idf, summed,
        # then scaled to unit length.
        ids = encoder.piece_ids([text], TUNING.passage_tokens)[0].astype(np.int64)
        vec = (np.asarray(table[ids], np.float64) * idf[ids][:, None]).sum(0)
        return vec / max(float(np.linalg.norm(vec)), 1e-9)

    qvec = weighted_mean(query)
    assert (
        np.abs(
            static_query_vector(encoder.piece_ids([query], TUNING.passage_tokens)[0], idf, table)
            - qvec
        ).max()
        < 1e-5
    )
    for text, value in zip(TEXTS, got, strict=True):
        want = float(weighted_mean(text) @ qvec)
        assert abs(value - want) < 1e-5, text
    assert got[0] > got[1] and got[2] == 0.0


def test_passage_bm25_counts_every_word_form() -> None:
    query = "config river"
    got = passage_bm25(Query.of(query), TEXTS)
    terms = set(words(query))
    counts = [Counter(w for w in words(t) if w in terms) for t in TEXTS]
    lengths = np.array([max(1, len(t) // 6) for t in TEXTS], np.float64)
    want = np.zeros(len(TEXTS))
    for term in terms:
        tf = np.array([c[term] for c in counts], np.float64)
        want += bm25_term(tf, int((tf > 0).sum()), len(TEXTS), lengths, float(lengths.mean()))
    assert np.allclose(got, want)
    # camelCase and upper-case forms count: the third passage holds "config" three times.
    assert got[3] > got[0] > 0 and got[1] > 0 and got[2] == got[4] == 0


def test_passage_bm25_answers_each_thread_for_its_own_query() -> None:
    """The library and the MCP server answer queries at once on threads: the counts one
    query memoises for the passages it read are never another query's (a memo shared by
    the threads gave near-ties swapped and wrong passages under four threads)."""
    rows = [f"river {k} config {k % 7} stone {k % 3} river" for k in range(400)]
    keys = [f"key{k}" for k in range(len(rows))]
    queries = [Query.of(q) for q in ("river config", "stone river", "config", "stone")]
    want = [passage_bm25(q, rows, keys) for q in queries]
    wrong: list[int] = []

    def ask(k: int) -> None:
        for _ in range(30):
            if not np.array_equal(passage_bm25(queries[k], rows, keys), want[k]):
                wrong.append(k)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often, inside each call
    try:
        threads = [threading.Thread(target=ask, args=(k,)) for k in range(len(queries))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not wrong


def test_each_passage_is_read_with_its_files_path(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RRG_CACHE_DIR", env["RRG_CACHE_DIR"])
    encoder = Encoder(default_model())
    idf = np.ones(static_table(encoder).shape[0], np.float32)
    # The same loop in two files: only the path says which one computes a determinant.
    body = "".join(f"    total = total + rows[{k}][k] * sign\n    sign = -sign\n" for k in range(8))
    texts = ["def step(rows, k):\n" + body] * 2

    def vectors_for(kind: str, keys: list[str], encode: Encode) -> dict[str, np.ndarray]:
        return dict(zip(keys, encode(keys), strict=True))

    def score(names: list[str] | None) -> ScoredPassages:
        scorer = PassageScorer(encoder, idf, vectors_for, 2, TUNING)
        return score_passages(Query.of("matrix determinant"), texts, scorer, names)

    named = score(["a/colors.py", "z/determinant.py"])
    assert named.cheap[1] > named.cheap[0]
    assert named.cosine[1] > named.cosine[0] + 0.05
    unnamed = score(None)
    assert unnamed.cheap[0] == unnamed.cheap[1] and unnamed.cosine[0] == unnamed.cosine[1]
    # What is printed is the file's own text, without the path.
    assert [p.text for p in named.paragraphs] == [texts[0].rstrip("\n")] * 2


def test_a_passages_vector_does_not_depend_on_what_was_read_with_it(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The int8 graph quantises a run's activations with one scale: read in one batch, short
    passages would change each other's vectors, and a query's order would depend on which
    of its passages an earlier query had left in the cache."""
    monkeypatch.setenv("RRG_CACHE_DIR", env["RRG_CACHE_DIR"])
    encoder = Encoder(default_model())
    assert encoder.quantized  # the default model runs its products in int8
    idf = np.ones(static_table(encoder).shape[0], np.float32)
    texts = [
        "def parse_config(path):\n    return load(path)",
        "RIVER = 'the river floods the valley every spring'",
        "class Flood(Exception):\n    '''Raised where WATER rises past 9000 metres.'''",
    ]
    query = "where is the config file parsed"

    def scored(memo: dict[str, np.ndarray], only: list[str]) -> ScoredPassages:
        def vectors_for(kind: str, keys: list[str], encode: Encode) -> dict[str, np.ndarray]:
            missing = [k for k in keys if (kind, k) not in memo]
            memo.update(((kind, k), v) for k, v in zip(missing, encode(missing), strict=True))
            return {k: memo[kind, k] for k in keys}

        return score_passages(
            Query.of(query), only, PassageScorer(encoder, idf, vectors_for, 8, TUNING)
        )

    together = scored({}, texts).cosine
    memo: dict = {}
    scored(memo, texts[1:2])  # one passage (and the query) read first, alone
    apart = scored(memo, texts).cosine
    assert np.isfinite(together).all()
    assert together.tolist() == apart.tolist()
