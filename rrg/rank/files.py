"""Ordering candidate files by a query: refresh the root's index, then score in three
steps, a module each: the cheap tier over every file (``rrg.rank.cheap``), the transformer
stage over its best (``rrg.rank.stage``), and in a tree of code the passage tier over the
head (``rrg.rank.passage_tier``). A query asked again over the same files reads back the
order it was given (``rrg.rank.kept_orders``).

If the index cannot be used (an unwritable cache dir, say), the search still runs in rg's
own order with one warning: a user's search never fails for want of a cache.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from rrg import timings
from rrg.errors import ModelError, RrgError
from rrg.index.refresh import IndexBehind, Listing, RefreshReport
from rrg.index.served import ServedRoot
from rrg.index.store import KIND_BINARY, KIND_TEXT, IndexUnavailable
from rrg.index.view import IndexView
from rrg.model.registry import ModelSpec
from rrg.model.static_table import static_table_path
from rrg.paths import relative_to
from rrg.progress import draws
from rrg.rank.cheap import cheap_order
from rrg.rank.code_order import skips_stage
from rrg.rank.code_priors import primary_sources
from rrg.rank.embedding import embedded_parts, held_vectors, reading_embedded
from rrg.rank.kept_orders import KeptOrder, Spans, find_order, keep_order, order_key
from rrg.rank.lifted import asked_first
from rrg.rank.named_files import MAX_NAMED_FILES, NamedFile, wholly_named
from rrg.rank.passage_order import line_spans
from rrg.rank.passage_tier import tier_fused_order
from rrg.rank.passages import (
    Encode,
    Passages,
    ScoredPassages,
    file_texts,
    passage_name,
    query_key,
)
from rrg.rank.pasted import first_line_holding
from rrg.rank.query import Query
from rrg.rank.root_cache import passage_tag, query_seen
from rrg.rank.scoring import order_by
from rrg.rank.stage import Staged, staged_order
from rrg.rank.tuning import TUNING, Tuning
from rrg.rank.warm_passages import embedding_pending, needs_warming
from rrg.rg.chosen_lines import LineSpans


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
    #: The root's passages wait to be computed ahead, or its embedding ahead never ended
    #: (``rrg.rank.warm_passages``): the caller may start the job in the background.
    ahead_wanted: bool = False
    #: The passages the stage and the passage tier scored (when the order was ranked, if
    #: it was kept), as line spans of their files (paths as printed), each file's best
    #: first: a capped search prints its lines of a file from them (``rrg.rg.chosen_lines``).
    spans: LineSpans = field(default_factory=dict)
    #: The order as kept for the next asking (None: not kept), which more spans join.
    kept: KeptOrder | None = None

    @property
    def unread(self) -> list[bytes]:
        """The files at the order's tail the index has not read yet (a first search that
        stopped indexing at RRG_INDEX_WAIT_S), in rg's order."""
        return self.ordered[self.ranked :]


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
    #: The caller prints lines of the files from their best passages (a search with a
    #: pattern, and the scope a recall writes): ``Ranking.spans`` is filled. A search of the
    #: order alone fills them too, as its kept order serves the searches after it.
    line_spans: bool = False


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
    by_score, staged, fast, spans, kept = _kept_or_ordered(
        asked, served, view, rows[rankable], settings, report
    )
    stage = None
    if staged is not None:
        stage = StagePassages([printed[i] for i in rankable[staged.paths_at]], staged.scored)
    spans_of: LineSpans = {}
    for candidate, first, last in spans:
        spans_of.setdefault(printed[rankable[candidate]], []).append((first, last))
    order = rankable[by_score]
    ranked = [printed[i] for i in order]
    whole = report is None or not report.left
    if asked.pasted and ranked and not _holds_pasted(asked, served, ranked):
        # A first search ranks what its index read in the time it waits: the file that
        # holds the text may not be read yet.
        which = "file" if whole else "file indexed so far"
        words = " ".join(asked.pasted[0].words)
        settings.warn(
            f'no {which} holds the text the question pastes ("{words}"): ranked by its words'
        )
    unranked = np.ones(len(printed), bool)
    unranked[order] = False
    rest = [printed[i] for i in np.nonzero(unranked)[0].tolist()]
    if asked.named and not whole:
        ranked, rest = _named_unread_first(asked, ranked, rest, binary)
    for name in _named_nowhere(asked, ranked):
        which = "file searched" if whole else "file indexed so far"
        settings.warn(
            f'no {which} has a path that ends as "{name}", which the '
            "question names with a line: ranked by its words"
        )
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
        ahead_wanted=whole
        and (needs_warming(served, view, tuning) or embedding_pending(served, tuning)),
        spans=spans_of,
        kept=kept,
    )


def _named_nowhere(query: Query, ranked: list[bytes]) -> list[NamedFile]:
    """The names the query gives with a line (a diagnostic's, a traceback's: a file the
    agent meant, not a dotted word) that no file at the order's head ends as: the order
    puts the files a name names first, read or not (``_named_unread_first``). An agent in
    the wrong folder learns it; a name without a line (``e.g.``, ``Ecto.Schema``) says
    nothing."""
    lined = [name for name in query.named if name.line is not None]
    if not lined:
        return []
    head = [os.fsdecode(path) for path in ranked[: MAX_NAMED_FILES * len(query.named)]]
    found = {str(n) for n in query.named if any(n.matched_parts(path) for path in head)}
    # One text read two ways (``app.models:12``, a file's name and a module's) is found
    # where either is, and said once where neither is.
    missing = {str(name): name for name in lined if str(name) not in found}
    return list(missing.values())


def _named_unread_first(
    query: Query, ranked: list[bytes], rest: list[bytes], binary: set[bytes]
) -> tuple[list[bytes], list[bytes]]:
    """The files the query names that its index has not read yet (a first search of a
    large tree, in the time it waits) put first too, where their paths end as a name does
    whole: ranked by nothing, they would follow every ranked file in rg's order."""
    text = [path for path in rest if path not in binary]
    found = wholly_named(query.named, [os.fsdecode(path) for path in text])
    if not found:
        return ranked, rest
    named = [text[k] for k in found]
    lifted = set(named)
    return named + ranked, [path for path in rest if path not in lifted]


def _holds_pasted(query: Query, served: ServedRoot, ranked: list[bytes]) -> bool:
    """Whether a file at the order's head (as rg printed it) holds text the query pastes:
    the order puts such files first, after those it names (``rrg.rank.lifted``), so the
    named ones and the first file after them say whether any does. Read here, not kept
    with the order: a query asked again says it again."""
    named = 0
    while named < len(ranked) and any(
        n.matched_parts(os.fsdecode(ranked[named])) for n in query.named
    ):
        named += 1
    head = [os.path.abspath(path) for path in ranked[: named + 1]]
    return any(
        first_line_holding(query.pasted, text) is not None for text in file_texts(served.root, head)
    )


def _kept_or_ordered(
    query: Query,
    served: ServedRoot,
    view: IndexView,
    cand_rows: np.ndarray,
    settings: RankSettings,
    report: RefreshReport | None,
) -> tuple[np.ndarray, Staged | None, bool, Spans, KeptOrder | None]:
    """``_ordered``'s answer and the spans of the passages it scored, read back where
    this query over these files was ranked before and only the order is wanted; kept for
    next time where it is settled (a whole index, a stage that did not fail), and then
    the order as kept."""
    if not settings.order_only or (report is not None and report.left):
        return *_ordered(query, served, view, cand_rows, settings), None
    key = order_key(
        query.text,
        served,
        view,
        cand_rows,
        settings.stage_files,
        settings.tuning,
        embedded_parts(served),
    )
    found = find_order(served, key, len(cand_rows))
    if found is not None:
        order, fast, spans = found
        return order, None, fast, spans, KeptOrder(key, order, fast, spans)
    by_score, staged, fast, spans = _ordered(query, served, view, cand_rows, settings)
    stage_failed = fast and settings.stage_files > 0  # a symbol query's order is not fast
    if stage_failed:
        return by_score, staged, fast, spans, None
    keep_order(served, key, by_score, fast, spans)
    return by_score, staged, fast, spans, KeptOrder(key, by_score, fast, spans)


def _spans_of(
    query: Query,
    view: IndexView,
    cand_rows: np.ndarray,
    files: np.ndarray,
    scored: ScoredPassages,
    taken: Spans,
) -> Spans:
    """``taken`` and, for the files (indices into ``cand_rows``) it holds none of, their
    passages best first as ``-q`` without a pattern shows them, as (candidate, first line,
    last line): what a capped search prints of those files is taken from them
    (``rrg.rg.chosen_lines``), the same whether the query is new or its order is read
    back. The stage's reading of a file comes before the tier's."""
    at = files.tolist()
    paths = [view.path(int(cand_rows[k])) for k in at]
    held = {candidate for candidate, _, _ in taken}
    return taken + [
        (at[owner], first, last)
        for owner, first, last in line_spans(scored, query, paths)
        if at[owner] not in held
    ]


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


#: Said in a pipe before the model's first preparation on a machine.
PREPARING = (
    "preparing the model's static table, once a machine (10-30 s; a search stopped "
    "meanwhile leaves its work to the next)"
)


def _refreshed_index(
    served: ServedRoot, printed: list[bytes], settings: RankSettings, listing: Listing | None
) -> tuple[IndexView, np.ndarray, RefreshReport | None] | None:
    """The index brought up to date for the printed files (within ``index_wait``), or as
    another process left it while that one writes; None, with a warning, where no index
    can serve (then rg's order does)."""
    warn = settings.warn
    rel = listing.paths if listing is not None else relative_to(served.root, printed)
    # Where no bar shows it (a pipe, an agent's tool), the wait of 10-30 s is said as it
    # begins, not after it: a tool that stops the search meanwhile (its timeout) leaves
    # the reader a line that tells what it stopped, and to ask again.
    said = None if draws(settings.show_progress) else lambda: warn(PREPARING)
    try:
        served.prepare_model(settings.show_progress, said)  # once a machine
    except ModelError:
        raise
    except RrgError as err:  # its table cannot be kept (a full disk): the next search tries
        warn(f"{err}; searching in rg's order")
        return None
    wait = settings.index_wait
    deadline = None if wait is None else time.monotonic() + wait
    try:
        return served.refresh(
            rel, warn, settings.show_progress, listing, deadline, read_first=primary_sources
        )
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


def _ordered(
    query: Query, served: ServedRoot, view: IndexView, cand_rows: np.ndarray, settings: RankSettings
) -> tuple[np.ndarray, Staged | None, bool, Spans]:
    """The candidates (rows of the index) best first, as indices into ``cand_rows``, in three
    steps: the cheap tier scores every one (``rrg.rank.cheap``), the stage re-orders its best
    (``rrg.rank.stage``), and in a repository of code the passage tier fuses its order of
    the head's passages in (``rrg.rank.passage_tier``). Also the passages the stage read,
    whether the order is the cheap tier's alone (--fast, or a stage that failed), and the
    spans of the passages the stage and the tier scored (``_spans_of``)."""
    tuning = settings.tuning
    cheap = cheap_order(query, served, view, cand_rows, tuning)
    fused, stage, fast = staged_order(
        query,
        served,
        view,
        cand_rows,
        cheap,
        settings.stage_files,
        settings.warn,
        settings.checkpoint,
        tuning,
    )
    by_score = order_by(fused)
    spans: Spans = []
    # Only a search with a pattern prints lines from them (the others print passages).
    wants_spans = settings.order_only or settings.line_spans
    if stage is not None and wants_spans:
        with timings.phase("line spans"):
            spans = _spans_of(query, view, cand_rows, stage.paths_at, stage.scored, spans)
    # The tier runs in a repository of code: on the prose sets' dev halves it lost (--fast:
    # scifact -.057, nfcorpus -.020, cranfield -.020, hotpotqa +.007; docs/benchmarks.md).
    if cheap.among_code and tuning.passage_tier_weight:
        settings.checkpoint()
        with timings.phase("passage tier"):
            by_score, head, scored = tier_fused_order(
                query, served, view, cand_rows, by_score, cheap.pieces, tuning
            )
        if wants_spans:
            with timings.phase("line spans"):
                if stage is None and not fast:
                    scored = _read_where_held(query, served, view, cand_rows, head, scored, tuning)
                spans = _spans_of(query, view, cand_rows, head, scored, spans)
    by_score = _copies_last(by_score, cheap.copies)
    if query.pasted or query.named:
        with timings.phase("named and pasted"):
            by_score, spans = asked_first(
                query, served, view, cand_rows, by_score, spans, cheap.among_code, wants_spans
            )
    return by_score, stage, fast, spans


def _copies_last(by_score: np.ndarray, copies: np.ndarray) -> np.ndarray:
    """The order with the ``copies`` (pages that repeat another in another language:
    ``rrg.rank.code_order``) after every other file, in the order they had: the stage and
    the passage tier re-order a head that, in a small tree, held them."""
    if not len(copies):
        return by_score
    last = np.isin(by_score, copies)
    return np.concatenate([by_score[~last], by_score[last]])


def _read_where_held(
    query: Query,
    served: ServedRoot,
    view: IndexView,
    cand_rows: np.ndarray,
    files: np.ndarray,
    scored: ScoredPassages,
    tuning: Tuning,
) -> ScoredPassages:
    """The tier's passages with the model's cosine of those whose vectors are at hand, on an
    embedded root: there the stage scores files by their stored passages and keeps no
    reading of them, so a file's lines would be chosen by the cheap scores alone. A vector
    is read from the embedding index, else from the root's vector cache (the stage's
    reading of files not embedded yet, and the query's own vector); no model is run."""
    held = held_vectors(served)
    if held is None:
        return scored
    tag = passage_tag("passage", served.spec, tuning)

    def kept(kind: str, keys: list[str], encode: Encode) -> dict[str, np.ndarray]:
        try:
            return served.vectors.read(tag, keys)[0]
        except (OSError, sqlite3.Error, RrgError):
            return {}

    names = [passage_name(served.root, view.path(int(cand_rows[k]))) for k in files.tolist()]
    keys = Passages(scored.owners, scored.paragraphs, names).keys()
    asked = query_key(served.spec, query.text)
    vectors = reading_embedded(held, kept)("passage", [asked, *keys], _nothing_encoded)
    if asked not in vectors:
        return scored
    cosine = [float(vectors[key] @ vectors[asked]) if key in vectors else np.nan for key in keys]
    return replace(scored, cosine=np.round(np.asarray(cosine, np.float64), 6))


def _nothing_encoded(missing: list[str]) -> np.ndarray:
    """No model runs where only kept vectors are read (``_read_where_held``)."""
    raise AssertionError("kept vectors alone are read")


def model_ready(spec: ModelSpec) -> bool:
    """Whether the model has served here before (its static table is kept): only then is
    it loaded ahead, on another thread. The first use distills the table on this thread,
    and a broken model is reported by it alone."""
    try:
        return static_table_path(spec).is_file()
    except (OSError, RrgError):
        return False
