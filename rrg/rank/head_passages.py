"""The passages of the files at the head of an order, cut and scored: what the stage
(``rrg.rank.stage``), the passage tier (``rrg.rank.passage_tier``) and the printed
passages (``rrg.rank.entry_points``) read. A scorer reads a root's kept vectors, cuts and
word counts first (``stage_scorer``); the model scores only the ``budget`` best by the
cheap tier."""

from __future__ import annotations

import numpy as np

from rrg.errors import RrgError
from rrg.index.served import ServedRoot
from rrg.rank.code_passages import blank_line_passages, cut_passages
from rrg.rank.embedding import embedding_model, held_vectors, reading_embedded
from rrg.rank.kept_cuts import KeptCuts
from rrg.rank.kept_terms import KeptTerms
from rrg.rank.passages import (
    PassageScorer,
    ScoredPassages,
    file_texts,
    passage_name,
    score_passages,
)
from rrg.rank.query import Query
from rrg.rank.root_cache import passage_tag, root_vectors
from rrg.rank.tuning import Tuning

#: Files whose passages a query reads whatever their length (``files_within``).
MIN_FILES = 5


def files_within(lengths: np.ndarray, budget: int) -> int:
    """How many of the files, in order (``lengths``: each one's words), a query reads the
    passages of (``Tuning.passage_words``): all while they hold at most ``budget`` words
    together, else those before the one that would pass it, and at least ``MIN_FILES`` (0:
    no budget)."""
    if not budget:
        return len(lengths)
    held = np.cumsum(np.asarray(lengths, np.int64))
    return min(len(lengths), max(MIN_FILES, int(np.searchsorted(held, budget, "right"))))


def stage_scorer(
    served: ServedRoot, piece_idf: np.ndarray | None, budget: int, tuning: Tuning
) -> PassageScorer:
    """The stage's scorer for a root: its vectors kept in the root's vector cache, read
    first from its embedding index where it has one and its vectors are the ones this
    tuning reads (the index is built at the shipped point)."""
    spec = served.spec
    vectors_for = root_vectors(served, tuning)
    held = held_vectors(served)
    if held is not None and passage_tag("passage", spec, tuning) == embedding_model(spec):
        vectors_for = reading_embedded(held, vectors_for)
    try:
        cuts: KeptCuts | None = KeptCuts(served.vectors)
        terms: KeptTerms | None = KeptTerms(served.vectors)
    except (OSError, RrgError):
        cuts, terms = None, None  # no usable cache dir: files are cut and counted each time
    return PassageScorer(served.encoder, piece_idf, vectors_for, budget, tuning, cuts, terms)


def passages_of(
    query: Query,
    root: bytes,
    rel: list[bytes],
    scorer: PassageScorer,
    pieces: np.ndarray | None = None,
) -> ScoredPassages:
    """The passages of these files (relative to root, or absolute) scored by the cheap tier,
    the best ``scorer.budget`` of them by the model too; ``pieces``:
    the query's WordPiece ids, where the caller has them. A file that cannot be read, or
    that rg would skip as binary, has no passages."""
    names = [passage_name(root, path) for path in rel]
    cut = cut_passages if scorer.tuning.code_passages else blank_line_passages
    return score_passages(query, file_texts(root, rel), scorer, names, cut, pieces)
