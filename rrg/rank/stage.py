"""The transformer stage, a query's second step: the cheap order's best files re-ordered
by the model's cosine of their best passages. Where the stage is off (``--fast``) or
fails, the cheap order's head is weighed by its passages' words instead
(``rrg.rank.passage_lexical``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rrg import timings
from rrg.errors import ModelError
from rrg.index.served import ServedRoot
from rrg.index.view import IndexView
from rrg.rank import passage_lexical
from rrg.rank.cheap import CheapOrder
from rrg.rank.code_order import skips_stage
from rrg.rank.embedding import dense_file_scores, held_vectors
from rrg.rank.head_passages import files_within, passages_of, stage_scorer
from rrg.rank.passages import ScoredPassages, query_vector
from rrg.rank.query import Query
from rrg.rank.scoring import order_by, staged_scores, zscore
from rrg.rank.tuning import Tuning


@dataclass
class Staged:
    """The stage's passages, with its files as indices into the candidates."""

    paths_at: np.ndarray
    scored: ScoredPassages


def staged_order(
    query: Query,
    served: ServedRoot,
    view: IndexView,
    cand_rows: np.ndarray,
    cheap: CheapOrder,
    stage_files: int,
    warn: Callable[[str], None],
    checkpoint: Callable[[], None],
    tuning: Tuning,
) -> tuple[np.ndarray, Staged | None, bool]:
    """The candidates' scores after the stage re-ordered the ``stage_files`` best (0: off);
    the passages it read; whether the order is the cheap tier's alone (--fast, or a stage
    that failed; a symbol query's, which skips the stage, is not). ``checkpoint`` runs
    before the model does."""
    fused = cheap.scores
    stage: Staged | None = None
    fast = stage_files <= 0
    if not fast and not skips_stage(query, cheap.among_code):
        checkpoint()
        try:
            with timings.phase("stage"):
                top, best, scored = run_stage(
                    query, served, view, cand_rows, fused, stage_files, cheap.pieces, tuning
                )
        except (ModelError, OSError, sqlite3.Error) as err:
            warn(f"the transformer stage failed ({err}); ranking without it")
            fast = True
        else:
            fused = fused.copy()
            fused[top] = staged_scores(
                cheap.lexical[cand_rows[top]],
                cheap.semantic[cand_rows[top]],
                best,
                fused,
                tuning.stage_dense_weight,
                offsets=cheap.offsets[top],
            )
            if scored is not None:
                stage = Staged(top, scored)
    if fast and tuning.passage_words_weight:
        # The cheap order alone (--fast, or a stage that failed): the stage's passages weigh
        # closeness better, and this signal added to them gained nothing (docs/benchmarks.md).
        with timings.phase("passage words"):
            head = order_by(fused)[: tuning.passage_words_files]
            rel = [view.path(int(cand_rows[k])) for k in head]
            fused = fused.copy()
            fused[head] += tuning.passage_words_weight * zscore(
                passage_lexical.best_window_bm25(
                    query, served.root, rel, tuning.passage_words_window
                )
            )
    return fused, stage, fast


# On an embedded root, a file is scored by its best stored passage (every passage: MaxP over
# the whole file), not by the passages the cheap tier picks for the model; and the stage
# weighs the cheap order's best files alone. Chosen on the dev halves of semble-code (194
# queries) and sympy (42): files added by their stored passages, 0 / 5 / 10 / 20, scored by
# the picked passages: semble .801 / .800 / .794 / .787, sympy .603 / .573 / .573 / .504;
# by the best stored passage, 0 / 5 / 20: semble .822 / .819 / .821, sympy .657 / .650 /
# .642 (benchmarks/embedded_sweep.py, removed with its two switches once both were chosen:
# run it from commit 8f976d1).
def run_stage(
    query: Query,
    served: ServedRoot,
    view: IndexView,
    cand_rows: np.ndarray,
    fused: np.ndarray,
    stage_files: int,
    pieces: np.ndarray,
    tuning: Tuning,
) -> tuple[np.ndarray, np.ndarray, ScoredPassages | None]:
    """The candidates the stage re-orders (the cheap order's ``stage_files`` best), each
    one's best passage cosine, and the passages it read (None where it read stored vectors
    only). On an embedded root an embedded file is scored by its best stored passage, and
    only the others are cut into passages for the model."""
    top = order_by(fused)[:stage_files]
    held = held_vectors(served)
    if held is None:
        # Every file is cut and scored here: long files bound how many (an embedded root's
        # files are read from their stored vectors, which costs the same whatever their length).
        top = top[: files_within(view.doclen[cand_rows[top]], tuning.passage_words)]
    budget = max(tuning.stage_passages, len(top))
    root = served.root
    scorer = stage_scorer(served, view.piece_idf, budget, tuning)
    if held is not None:
        # --recall and the no-pattern mode cut the passages of embedded files when they
        # print (their vectors read from the index).
        dense = dense_file_scores(held, view, cand_rows, query_vector(query, scorer))
        best = dense[top].copy()
        missing = np.flatnonzero(np.isnan(best))
        if len(missing):
            rel = [view.path(int(r)) for r in cand_rows[top[missing]]]
            best[missing] = passages_of(query, root, rel, scorer, pieces).best_per_file(len(rel))
        return top, best, None
    rel_top = [view.path(int(r)) for r in cand_rows[top]]
    scored = passages_of(query, root, rel_top, scorer, pieces)
    return top, scored.best_per_file(len(top)), scored
