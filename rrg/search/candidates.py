"""Steps one and two of a query: the files rg would search, ranked against the query."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rrg import timings
from rrg.binary_sniff import BINARY_SNIFF_BYTES
from rrg.environment import index_wait_s
from rrg.paths import relative_to, search_root
from rrg.rg.args import RgArgs
from rrg.rg.candidates import Candidates, list_candidates
from rrg.rg.chosen_lines import LineSpans
from rrg.rg.walk import CountWalk
from rrg.search.background import finish_in_background
from rrg.search.plan import QueryPlan

if TYPE_CHECKING:
    from rrg.index.refresh import Listing
    from rrg.index.scopes import Scope
    from rrg.index.served import ServedRoot
    from rrg.model.registry import ModelSpec
    from rrg.rank.files import Ranking

Warn = Callable[[str], None]


class NothingMatches(Exception):
    """The early walk ended with no match and no message: there is nothing to order."""


def rank_candidates(
    plan: QueryPlan,
    warn: Warn,
    walk: CountWalk | None = None,
    order_only: bool = False,
    line_spans: bool = False,
) -> tuple[Candidates, Ranking]:
    """The files rg would search for these arguments, ranked against the plan's query. With a
    walk counting matches meanwhile: NothingMatches as soon as it found none. ``order_only``:
    the caller reads the order alone, not the passages the stage read (a repeated query may
    then read back the order it kept); ``line_spans``: the caller keeps where each file
    answers best (``Ranking.spans``) for a later search (a recall's scope)."""
    from rrg.rank.files import RankSettings, rank_files

    def check_walk() -> None:
        if walk is not None and walk.found_nothing():
            raise NothingMatches

    request = plan.request
    check_walk()
    with timings.phase("list+stat"):
        candidates, served, listing = list_and_stat(plan.rg, plan.args, plan.spec)
        if listing is not None and len(listing.paths) == len(candidates.paths):
            rows = (listing.size > BINARY_SNIFF_BYTES).nonzero()[0].tolist()
            candidates.long = frozenset(candidates.paths[k] for k in rows)
    settings = RankSettings(
        request.stage_files,
        warn,
        request.show_progress,
        checkpoint=check_walk,
        index_wait=index_wait_s(),
        order_only=order_only,
        line_spans=line_spans,
    )
    ranking = rank_files(request.query, served, candidates.paths, settings, listing)
    report = ranking.report
    if ranking.ahead_wanted:  # a whole index: its passages computed ahead, then embedded
        finish_in_background(served, plan.args.paths, request.model)
    if report is not None and report.left:
        started = finish_in_background(served, plan.args.paths, request.model)
        then = (
            "while the index is finished in the background"
            if started
            else "(each search indexes more; rrg --index builds it all)"
        )
        # Said where the tree has source to read first: in a tree of prose nothing is.
        first = ", the source first," if report.ahead else ""
        warn(
            f"indexed {report.listed - report.left:,} of {report.listed:,} files{first} in "
            f"the {settings.index_wait or 0:g} s a search waits for its index "
            f"(RRG_INDEX_WAIT_S); the others follow in rg's order {then}"
        )
    return candidates, ranking


def list_and_stat(
    rg: str, args: RgArgs, spec: ModelSpec
) -> tuple[Candidates, ServedRoot, Listing | None]:
    """rg's candidates, the root whose index serves them, and each one stat-ed for the
    freshness check while rg was still listing (None where the root cannot be opened: the
    refresh then stats them itself, or says why it cannot)."""
    from rrg.index.refresh import StatPass
    from rrg.index.served import serve

    served = serve(search_root(args.paths), spec)
    try:
        stat_pass = StatPass(served.folder)
    except OSError:
        return list_candidates(rg, args), served, None
    try:
        candidates = list_candidates(
            rg, args, lambda printed: stat_pass.add(relative_to(served.root, printed))
        )
    finally:
        listing = stat_pass.finish()
    return candidates, served, listing


def more_spans_of(ranking: Ranking) -> Callable[[list[bytes]], LineSpans]:
    """Where the files the cap's share cuts below the ranking's head answer best
    (``rrg.rank.cheap_spans``), imported only where a search asks: it loads the passages'
    scoring, 50 ms to a process that read its order back."""

    def spans(printed: list[bytes]) -> LineSpans:
        from rrg.rank.cheap_spans import spans_below_head

        return spans_below_head(ranking, printed)

    return spans


def more_scope_spans(
    scope: Scope, asked: ServedRoot, query: str
) -> Callable[[list[bytes]], LineSpans]:
    """Where the files a scope's search cuts answer ``query`` best, for those the scope
    holds no spans of (``rrg.rank.cheap_spans``, in the index that serves ``asked``); kept
    in the scope's sidecar where the query is the one the scope was recalled for (another
    query's are not the scope's)."""

    def spans(printed: list[bytes]) -> LineSpans:
        from rrg.index.scopes import keep_spans
        from rrg.index.served import serve
        from rrg.rank.cheap_spans import spans_in_root

        found = spans_in_root(serve(asked.root, asked.spec), query, printed)
        if query == scope.query:
            keep_spans(scope, found)
        return found

    return spans
