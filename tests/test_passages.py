"""The cheap scores of passages equal their definitions: a passage's static vector is the
idf-weighted mean of its WordPiece vectors (as a query's), and its BM25 counts its words."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from rrg.index.textstats import words
from rrg.model.encoder import Encoder, static_table
from rrg.model.registry import default_model
from rrg.rank.passages import PASSAGE_TOKENS, Encode, passage_bm25, passage_static
from rrg.rank.scoring import bm25_term, static_query_vector

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
    got = passage_static(query, TEXTS, keys, encoder, idf, vectors_for)
    assert computed == keys

    def weighted_mean(text: str) -> np.ndarray:
        # The definition, token by token: each occurrence's vector times its idf, summed,
        # then scaled to unit length.
        ids = encoder.piece_ids([text], PASSAGE_TOKENS)[0].astype(np.int64)
        vec = (np.asarray(table[ids], np.float64) * idf[ids][:, None]).sum(0)
        return vec / max(float(np.linalg.norm(vec)), 1e-9)

    qvec = weighted_mean(query)
    assert (
        np.abs(
            static_query_vector(encoder.piece_ids([query], PASSAGE_TOKENS)[0], idf, table) - qvec
        ).max()
        < 1e-5
    )
    for text, value in zip(TEXTS, got, strict=True):
        want = float(weighted_mean(text) @ qvec)
        assert abs(value - want) < 1e-5, text
    assert got[0] > got[1] and got[2] == 0.0


def test_passage_bm25_counts_every_word_form() -> None:
    query = "config river"
    got = passage_bm25(query, TEXTS)
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
