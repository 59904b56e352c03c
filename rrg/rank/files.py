"""Ordering candidate files by a query: refresh the root's index, then score.

If the index cannot be used (an unwritable cache dir, say), the search still runs in rg's
own order with one warning: a user's search never fails for want of a cache.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rrg import timings
from rrg.errors import ModelError, RrgError
from rrg.index.definitions import query_definition_terms, top_level_term
from rrg.index.refresh import IndexBehind, Listing, RefreshReport
from rrg.index.served import ServedRoot
from rrg.index.store import KIND_BINARY, KIND_TEXT, IndexUnavailable
from rrg.index.textstats import term_id
from rrg.index.view import IndexView
from rrg.model.encoder import Encoder
from rrg.model.registry import ModelSpec
from rrg.model.static_table import static_table, static_table_path
from rrg.paths import relative_to
from rrg.progress import draws
from rrg.rank import passage_lexical, passage_tier
from rrg.rank.code_order import code_order, skips_stage
from rrg.rank.code_passages import blank_line_passages, cut_passages
from rrg.rank.embedding import (
    dense_file_scores,
    embedded_parts,
    embedding_model,
    held_vectors,
    reading_embedded,
)
from rrg.rank.kept_cuts import KeptCuts
from rrg.rank.kept_orders import find_order, keep_order, order_key
from rrg.rank.kept_terms import KeptTerms
from rrg.rank.passages import (
    PassageScorer,
    ScoredPassages,
    file_texts,
    passage_name,
    query_vector,
    score_passages,
)
from rrg.rank.query import Query
from rrg.rank.root_cache import (
    QUERY_TOKENS,
    passage_tag,
    query_pieces,
    query_seen,
    root_vectors,
)
from rrg.rank.scoring import (
    bm25,
    fuse,
    lexical_signal,
    order_by,
    path_bm25,
    staged_scores,
    static_query_vector,
    zscore,
)
from rrg.rank.tuning import TUNING, Tuning
from rrg.rank.warm_passages import needs_warming


@dataclass
class Ranking:
    ordered: list[bytes]  # ranked files, best first, then the unranked in rg's order
    binary: set[bytes]  # files rg would skip while walking (NUL bytes)
    ranked: int  # how many files at the head of ``ordered`` the index ranked
    report: RefreshReport | None
    #: The root whose index served (an indexed ancestor of the search root), with the model
    #: as the ranking loaded it: the passages and the rerank that follow use it.
    served: ServedRoot
    query: Query  # the query as it was ranked: the passages that follow read its forms
    piece_idf: np.ndarray | None = None  # the index's WordPiece idf, for paragraph vectors
    stage: StagePassages | None = None  # the passages the transformer stage read
    fast: bool = False  # the stage was off (--fast) or failed: no model at query time
    tuning: Tuning = TUNING  # the constants it was ranked with
    #: The root's passages wait to be computed ahead (``rrg.rank.warm_passages``): the
    #: caller may start that in the background.
    unwarmed: bool = False


def signals(
    query: Query,
    view: IndexView,
    encoder: Encoder,
    pieces: np.ndarray | None = None,
    path_weight: float = TUNING.path_weight,
    form_weight: float = TUNING.path_form_weight,
) -> tuple[np.ndarray, np.ndarray]:
    """The lexical signal (BM25 of the text and of the path, ``lexical_signal``; a path
    word may be a query word in another form, ``Query.path_forms``) and the static-vector
    cosine of every indexed document against the query (whose WordPiece ids are
    ``pieces``: cut by the encoder's tokenizer when not given)."""
    if pieces is None:
        pieces = encoder.piece_ids([query.text], QUERY_TOKENS)[0]
    is_text = view.kinds == KIND_TEXT
    doclen = np.where(is_text, view.doclen, 0)
    text = bm25((view.postings(t) for t in query.term_ids), doclen, view.n_text)
    # A path word may be a query word in another form: the first a path holds counts.
    path = path_bm25((view.postings(t) for t in query.path_ids), is_text, view.n_text)
    if form_weight:
        forms = view.first_postings(query.path_forms)
        path = path + form_weight * path_bm25(forms, is_text, view.n_text)
    qvec = static_query_vector(pieces, view.piece_idf, static_table(encoder))
    return lexical_signal(text, path, path_weight), view.cosines(qvec)


# On an embedded root, a file is scored by its best stored passage (every passage: MaxP over
# the whole file), not by the passages the cheap tier picks for the model; and the stage
# weighs the cheap order's best files alone. Chosen on the dev halves of semble-code (194
# queries) and sympy (42): files added by their stored passages, 0 / 5 / 10 / 20, scored by
# the picked passages: semble .801 / .800 / .794 / .787, sympy .603 / .573 / .573 / .504;
# by the best stored passage, 0 / 5 / 20: semble .822 / .819 / .821, sympy .657 / .650 /
# .642 (benchmarks/embedded_sweep.py, removed with its two switches once both were chosen:
# run it from commit 8f976d1).


@dataclass
class StagePassages:
    """What the transformer stage read: the files it weighed (as rg printed them) and their
    passages, scored; entry points and the no-pattern mode print from it."""

    paths: list[bytes]
    scored: ScoredPassages


@dataclass(frozen=True)
class RankSettings:
    """How a ranking runs: how many files the stage re-orders (0: the cheap order alone),
    where warnings go, whether an index build shows its bar, a ``checkpoint`` called
    between the steps that may raise to give the ranking up, and the chosen constants
    (``tuning``: a benchmark passes a variant)."""

    stage_files: int
    warn: Callable[[str], None]
    show_progress: bool = False
    checkpoint: Callable[[], None] = lambda: None
    #: Seconds the refresh may take before the ranking goes on with what is indexed
    #: (``RRG_INDEX_WAIT_S``); None: the whole index first.
    index_wait: float | None = None
    tuning: Tuning = TUNING
    #: The order alone is wanted (not the passages the stage read): the same query over the
    #: same files reads back the order it kept (``rrg.rank.kept_orders``).
    order_only: bool = False


def rank_files(
    query: str,
    served: ServedRoot,
    printed: list[bytes],
    settings: RankSettings,
    listing: Listing | None = None,
) -> Ranking:
    """Candidate files best first: the cheap tier (BM25 fused with static vectors) orders
    every file, then the transformer stage re-orders the ``stage_files`` best through their
    best passages, and in a tree of code the passage tier fuses its order of their passages
    in. ``served`` is the serving root and ``listing`` the printed paths relative to it,
    already stat-ed (both from ``list_and_stat``). The checkpoint runs before the model is
    loaded, before scoring and before the model runs (a search that has found out it
    matches nothing gives up there)."""
    tuning = settings.tuning
    asked = Query.of(query)
    settings.checkpoint()
    _preload_for_stage(asked, served, settings)
    indexed = _refreshed_index(served, printed, settings, listing)
    if indexed is None:
        return Ranking(list(printed), set(), 0, None, served, asked, tuning=tuning)
    view, rows, report = indexed
    kinds = np.full(len(rows), -1, np.int64)
    has_row = rows >= 0
    kinds[has_row] = view.kinds[rows[has_row]]
    binary = {printed[i] for i in np.nonzero(kinds == KIND_BINARY)[0]}
    # Scored in the index's row order: rg lists files in thread order, and one query must
    # give one order (ties, and even float sums, would follow the listing otherwise).
    text = np.nonzero(kinds == KIND_TEXT)[0]
    rankable = text[np.argsort(rows[text], kind="stable")]
    if not len(rankable):
        return Ranking(
            list(printed), binary, 0, report, served, asked, view.piece_idf, tuning=tuning
        )
    settings.checkpoint()
    by_score, staged, fast = _kept_or_ordered(asked, served, view, rows[rankable], settings, report)
    stage = None
    if staged is not None:
        stage = StagePassages([printed[i] for i in rankable[staged.paths_at]], staged.scored)
    order = rankable[by_score]
    ranked = [printed[i] for i in order]
    unranked = np.ones(len(printed), bool)
    unranked[order] = False
    rest = [printed[i] for i in np.nonzero(unranked)[0].tolist()]
    whole = report is None or not report.left
    return Ranking(
        ranked + rest,
        binary,
        len(ranked),
        report,
        served,
        asked,
        view.piece_idf,
        stage,
        fast,
        tuning,
        unwarmed=whole and needs_warming(served, view, tuning),
    )


def _kept_or_ordered(
    query: Query,
    served: ServedRoot,
    view: IndexView,
    cand_rows: np.ndarray,
    settings: RankSettings,
    report: RefreshReport | None,
) -> tuple[np.ndarray, _Staged | None, bool]:
    """``_ordered``'s answer, read back where this query over these files was ranked
    before and only the order is wanted; kept for next time where it is settled (a whole
    index, a stage that did not fail)."""
    if not settings.order_only or (report is not None and report.left):
        return _ordered(query, served, view, cand_rows, settings)
    key = order_key(
        query.text,
        served,
        view,
        cand_rows,
        settings.stage_files,
        settings.tuning,
        embedded_parts(served),
    )
    kept = find_order(served, key, len(cand_rows))
    if kept is not None:
        return kept[0], None, kept[1]
    by_score, staged, fast = _ordered(query, served, view, cand_rows, settings)
    stage_failed = fast and settings.stage_files > 0  # a symbol query's order is not fast
    if not stage_failed:
        keep_order(served, key, by_score, fast)
    return by_score, staged, fast


def _preload_for_stage(query: Query, served: ServedRoot, settings: RankSettings) -> None:
    """A new query: the stage will run the model, which starts loading now, on another
    thread. (A symbol query skips the stage in a tree of code, the tree most searched: a
    load begun for it would delay the exit; in prose the model loads when the stage runs.)"""
    if (
        settings.stage_files > 0
        and not skips_stage(query)
        and model_ready(served.spec)
        and not query_seen(query.text, served, settings.tuning)
    ):
        served.encoder.preload()


def _refreshed_index(
    served: ServedRoot, printed: list[bytes], settings: RankSettings, listing: Listing | None
) -> tuple[IndexView, np.ndarray, RefreshReport | None] | None:
    """The index brought up to date for the printed files (within ``index_wait``), or as
    another process left it while that one writes; None, with a warning, where no index
    can serve (then rg's order does)."""
    warn = settings.warn
    rel = listing.paths if listing is not None else relative_to(served.root, printed)
    start = time.monotonic()
    try:
        prepared = served.prepare_model(settings.show_progress)  # once a machine
    except ModelError:
        raise
    except RrgError as err:  # its table cannot be kept (a full disk): the next search tries
        warn(f"{err}; searching in rg's order")
        return None
    if prepared and not draws(settings.show_progress):
        # Where no bar showed it (a pipe, an agent's tool), the wait of 15-30 s is said.
        seconds = time.monotonic() - start
        warn(f"prepared the model's static table in {seconds:.1f} s (once a machine)")
    wait = settings.index_wait
    deadline = None if wait is None else time.monotonic() + wait
    try:
        return served.refresh(rel, warn, settings.show_progress, listing, deadline)
    except ModelError:
        raise
    except IndexBehind as behind:
        if behind.view is None or behind.rows is None or not len(behind.view.kinds):
            # No index yet, or one whose first build has registered nothing so far.
            warn(f"{behind}; searching in rg's order")
            return None
        # Files changed or added since are still searched: their rows are -1, so they
        # follow the ranked ones in rg's order.
        indexed = int((behind.rows >= 0).sum())
        if indexed < len(behind.rows):
            warn(
                f"{behind}; ranking from its last state: {indexed:,} of {len(behind.rows):,} "
                "files indexed, the others follow in rg's order"
            )
        else:
            warn(f"{behind}; ranking from its last state")
        return behind.view, behind.rows, behind.report
    except (OSError, sqlite3.Error, RrgError, IndexUnavailable) as err:
        warn(f"cannot use the index ({err}); searching in rg's order")
        return None


@dataclass
class _Staged:
    """The stage's passages, with its files as indices into the candidates."""

    paths_at: np.ndarray
    scored: ScoredPassages


def _ordered(
    query: Query, served: ServedRoot, view: IndexView, cand_rows: np.ndarray, settings: RankSettings
) -> tuple[np.ndarray, _Staged | None, bool]:
    """The candidates (rows of the index) best first, as indices into ``cand_rows``; the
    passages the stage read; whether the order is the cheap tier's alone (--fast, or a stage
    that failed; a symbol query's, which skips the stage, is not)."""
    tuning, check = settings.tuning, settings.checkpoint
    with timings.phase("rank"):
        pieces = query_pieces(query.text, served)
        lexical, semantic = signals(
            query, view, served.encoder, pieces, tuning.path_weight, tuning.path_form_weight
        )
    fused = fuse(lexical[cand_rows], semantic[cand_rows], tuning.lexical_weight)
    with timings.phase("code"):
        fused, offsets, among_code = code_order(
            query,
            fused,
            lambda k: view.path(int(cand_rows[k])),
            lambda names: defining_candidates(view, cand_rows, names),
            tuning,
        )
    stage: _Staged | None = None
    fast = settings.stage_files <= 0
    if not fast and not skips_stage(query, among_code):
        check()
        try:
            with timings.phase("stage"):
                top, best, scored = run_stage(
                    query, served, view, cand_rows, fused, settings.stage_files, pieces, tuning
                )
        except (ModelError, OSError, sqlite3.Error) as err:
            settings.warn(f"the transformer stage failed ({err}); ranking without it")
            fast = True
        else:
            fused = fused.copy()
            fused[top] = staged_scores(
                lexical[cand_rows[top]],
                semantic[cand_rows[top]],
                best,
                fused,
                tuning.stage_dense_weight,
                offsets=offsets[top],
            )
            if scored is not None:
                stage = _Staged(top, scored)
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
    by_score = order_by(fused)
    # The tier runs in a repository of code: on the prose sets' dev halves it lost (--fast:
    # scifact -.057, nfcorpus -.020, cranfield -.020, hotpotqa +.007; docs/benchmarks.md).
    if among_code and tuning.passage_tier_weight:
        check()
        with timings.phase("passage tier"):
            by_score = passage_tier_order(query, served, view, cand_rows, by_score, pieces, tuning)
    return by_score, stage, fast


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


def passage_tier_order(
    query: Query,
    served: ServedRoot,
    view: IndexView,
    cand_rows: np.ndarray,
    by_score: np.ndarray,
    pieces: np.ndarray,
    tuning: Tuning,
) -> np.ndarray:
    """The candidates' order (``by_score``, indices into ``cand_rows``) of a tree of code
    with its head fused with the passage tier's order of the same files
    (``rrg.rank.passage_tier``)."""
    head = by_score[: tuning.passage_tier_files]
    head = head[: files_within(view.doclen[cand_rows[head]], tuning.passage_words)]
    rel = [view.path(int(cand_rows[k])) for k in head]
    scorer = stage_scorer(served, view.piece_idf, 0, tuning)
    scored = passages_of(query, served.root, rel, scorer, pieces)
    names = [passage_name(served.root, path) for path in rel]
    tier = passage_tier.tier_order(
        query, names, scored, among_code=True, abbreviation=tuning.abbreviation_weight
    )
    fused = passage_tier.fuse_orders(list(range(len(head))), tier, tuning.passage_tier_weight)
    return np.concatenate([head[fused], by_score[len(head) :]])


def defining_candidates(view: IndexView, cand_rows: np.ndarray, names: tuple[str, ...]) -> set[int]:
    """The candidates (indices into ``cand_rows``, which ascend) whose files define one of
    the names, from the index's definitions field; those that define one at their top level
    alone where any does (``definitions.TOP_LEVEL``): the same name nested in a macro, a
    test module or a class is a local copy of what the top-level one declares."""
    defining = _holding(view, cand_rows, [t for n in names for t in query_definition_terms(n)])
    top = defining & _holding(view, cand_rows, [top_level_term(name) for name in names])
    return top or defining


def _holding(view: IndexView, cand_rows: np.ndarray, terms: list[str]) -> set[int]:
    """The candidates whose files hold one of the terms."""
    rows = [view.postings(term_id(term))[0] for term in terms]
    if not rows:
        return set()
    # return_index: plain np.unique imports numpy.ma to ask whether the array is masked
    # (9 ms of a new process's query).
    found = np.unique(np.concatenate(rows), return_index=True)[0]
    at = np.searchsorted(cand_rows, found)
    hit = at < len(cand_rows)
    hit[hit] = cand_rows[at[hit]] == found[hit]
    return set(at[hit].tolist())


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


def model_ready(spec: ModelSpec) -> bool:
    """Whether the model has served here before (its static table is kept): only then is
    it loaded ahead, on another thread. The first use distills the table on this thread,
    and a broken model is reported by it alone."""
    try:
        return static_table_path(spec).is_file()
    except (OSError, RrgError):
        return False
