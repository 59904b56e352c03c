"""Scoring documents against a query: BM25, static vectors, and their fusion.

Pure array code with no I/O, so that it can be tested and benchmarked on its own.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from rrg.model.static_table import static_vectors
from rrg.rank.tuning import TUNING

BM25_K1 = 0.9
BM25_B = 0.4


def bm25(
    postings: Iterable[tuple[np.ndarray, np.ndarray]], doclen: np.ndarray, n_docs: int
) -> np.ndarray:
    """BM25 score of every document (k1=0.9, b=0.4) from each query term's postings (the
    documents holding it and their counts); documents of length 0 are not text."""
    scores = np.zeros(len(doclen), np.float32)
    text = doclen > 0
    avg = float(doclen[text].mean()) if text.any() else 1.0
    for docs, tfs in postings:
        if len(docs):
            tf = tfs.astype(np.float32)
            scores[docs] += bm25_term(tf, len(docs), n_docs, doclen[docs], avg)
    return scores


def bm25_term(tf: np.ndarray, df: int, n_docs: int, lengths: np.ndarray, avg: float) -> np.ndarray:
    """One query term's BM25 contribution to documents with these counts and lengths."""
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths / avg)
    return idf * tf * (BM25_K1 + 1) / (tf + norm)


def static_query_vector(pieces: np.ndarray, piece_idf: np.ndarray, table: np.ndarray) -> np.ndarray:
    """The query's static vector, weighted as documents are (idf per WordPiece): the same
    formula, ``static_vectors``, applied to one text."""
    if not len(pieces):
        return np.zeros(table.shape[1], np.float32)
    distinct, counts = np.unique(np.asarray(pieces, np.int64), return_counts=True)
    return static_vectors([distinct], [counts], piece_idf, table)[0].astype(np.float32)


def path_bm25(
    postings: Iterable[tuple[np.ndarray, np.ndarray]], text: np.ndarray, n_docs: int
) -> np.ndarray:
    """BM25 of the path field (``text``: which documents are text files): every path taken
    as one length, since paths differ little in length and a deep one is no weaker."""
    return bm25(postings, text.astype(np.float32), n_docs)


def lexical_signal(
    text: np.ndarray, path: np.ndarray, path_weight: float = TUNING.path_weight
) -> np.ndarray:
    """The lexical signal: BM25 of the text and of the path field, z-scored and summed.

    The path's z-score counts only above its mean: a path may raise its file, but a word
    missing from a path says nothing against the file. Unclipped, a question naming the
    package (a word in 99% of its paths) put the other 1% ten deviations lower; clipped,
    the dev mean is within a tie of the unclipped form's (.540 against .542)."""
    return zscore(text) + path_weight * np.maximum(zscore(path), 0.0)


def zscore(values: np.ndarray) -> np.ndarray:
    values = values.astype(np.float64)
    std = float(values.std())
    if std < 1e-12:
        return np.zeros_like(values)
    return (values - values.mean()) / std


def fuse(
    lexical: np.ndarray, semantic: np.ndarray, lexical_weight: float = TUNING.lexical_weight
) -> np.ndarray:
    """z-score fusion: each signal on one scale, then a weighted sum.

    Rounded to 1e-9: BLAS may sum in another order for another memory layout, and a last-bit
    difference must not reorder near-ties between two runs over one index.
    """
    fused = lexical_weight * zscore(lexical) + (1 - lexical_weight) * zscore(semantic)
    return np.round(fused, 9)


def order_by(scores: np.ndarray) -> np.ndarray:
    """Indices best first; ties keep their input order (rg's order), so output is stable."""
    return np.argsort(-scores, kind="stable")


def staged_scores(
    lexical: np.ndarray,
    static: np.ndarray,
    dense: np.ndarray,
    fused: np.ndarray,
    dense_weight: float = TUNING.stage_dense_weight,
    *,
    offsets: np.ndarray | None = None,
) -> np.ndarray:
    """New scores for the top files, all above every file outside the top: BM25, static and
    transformer cosines z-scored and summed, plus each file's code offsets (``code_order``).
    A file the model read nothing of (NaN) takes the lowest cosine read."""
    if np.isfinite(dense).any():
        dense = np.where(np.isnan(dense), np.nanmin(dense), dense)
    else:
        dense = np.zeros_like(dense)
    mixed = zscore(lexical) + zscore(static) + dense_weight * zscore(dense)
    if offsets is not None:
        mixed = mixed + offsets
    floor = float(fused.max()) + 1.0
    return np.round(floor + mixed - mixed.min(), 9)
