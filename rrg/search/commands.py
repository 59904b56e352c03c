"""What each search command does, step by step (the CLI only parses and picks the mode;
``rrg.output`` words and writes what a command found)."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rrg import streams, timings
from rrg.errors import EXIT_ERROR, EXIT_MATCH, EXIT_NO_MATCH, RrgError
from rrg.model.registry import installed_models, resolve_model
from rrg.output import reports
from rrg.output.notices import files_printed, pattern_names_a_path, report_facts
from rrg.paths import search_root
from rrg.rg.args import RgArgs, as_printed
from rrg.rg.config import parse_rg_command
from rrg.rg.ordered import summary_message
from rrg.rg.preflight import check_search, flags_refusal, missing_paths, rg_over
from rrg.rg.searched_files import late_nul_filter, searched_files, unread_binary_filter
from rrg.rg.stats import StatsTally
from rrg.rg.walk import CountWalk, start_query_walk
from rrg.search.as_written import as_written
from rrg.search.candidates import (
    NothingMatches,
    more_scope_spans,
    more_spans_of,
    rank_candidates,
)
from rrg.search.plan import OrderedRun, QueryPlan, SearchRequest
from rrg.search.stream import search_in_order

if TYPE_CHECKING:
    import numpy as np

    from rrg.index.served import ServedRoot
    from rrg.index.view import IndexView

Warn = Callable[[str], None]
#: Every passage the stage read (``--limit 0`` without a pattern).
ALL = 1 << 30


def _refuse_what_cannot_apply(plan: QueryPlan) -> None:
    """An ``--excerpt`` asked for where rrg cannot print rg's bytes for the lines it would
    not cut (the flags that would undo the order: ``check_search``)."""
    if plan.request.excerpt and plan.args.crlf_ended:
        raise RrgError(
            "--excerpt cannot be used with --crlf: the lines it marks come back from rg "
            "ending in CRLF whatever their file ends them with; -M/--max-columns bounds long "
            "lines"
        )


#: Said where a passage query had no file to read.
NOTHING_LISTED = (
    "no file to read: rg lists none for these PATHs and flags (hidden, ignored or "
    "filtered out: rg --files --debug says why)"
)


def query_command(plan: QueryPlan, warn: Warn, walk: CountWalk | None = None) -> int:
    """``rrg -q QUERY [PATTERN]``: the files in relevance order, rg over them to the cap."""
    args = plan.args
    _refuse_what_cannot_apply(plan)
    if not args.has_pattern and not args.files_mode:
        # Passages have no such form (nor a count of what rg searched, nor a match to
        # shape): the flag would be dropped in silence, and an agent that parses
        # --vimgrep's lines would read a passage's as garbage.
        mode = args.output_mode if args.output_mode != "lines" else None
        stats = "--stats" if args.stats_block else None
        wanted = mode or stats or next(iter(args.match_shapes), None)
        if wanted:
            # rg keeps the last mode given: `--files --json` searches, as in rg.
            listing = "--files after it" if args.has("--files") else "--files"
            raise RrgError(
                f"{wanted} needs a PATTERN: without one, -q prints the most relevant "
                f"passages ({listing} lists the files, best first)"
            )
    checked = check_search(plan.rg, args, "-q", plan.request.rerank)
    if checked.refusal is not None:
        streams.err(checked.refusal.messages)
        return checked.refusal.code
    if checked.nothing_there:
        # Nothing to rank: rg's own run says what it says of these PATHs, in its words.
        return _rg_itself(plan)
    missing = checked.missing
    if missing:
        streams.err(checked.said)
        plan = replace(plan, args=checked.args)
        args = plan.args
    if walk is None:
        # Its counts do not depend on the order: it runs on the other core while rrg
        # ranks, and where nothing matches rrg stops as soon as it ends.
        walk = start_query_walk(plan.rg, args, plan.request.rerank, plan.request.line_cap)
    try:
        code = _ordered_query(plan, warn, walk)
        # rg's exit code where a PATH was missing: 2, unless --quiet found a match.
        return EXIT_ERROR if missing and not (code == EXIT_MATCH and args.has("--quiet")) else code
    except NothingMatches:
        if missing:
            return EXIT_ERROR
        if args.output_mode == "--json":
            reports.passed_on(summary_message(None))
        elif args.stats_block:
            reports.passed_on(StatsTally().block())
        report_facts(_pattern_as_path(plan.request.query, args), args.output_mode == "--json")
        return EXIT_NO_MATCH
    finally:
        if walk is not None:
            walk.stop()


def _pattern_as_path(query: str, args: RgArgs) -> list[str]:
    """Where nothing matched a PATTERN that names a file or folder, how to get that path's
    passages: other search tools take ``QUERY PATH``, and rg (so rrg) reads the first word
    after the options as the pattern, so ``rrg -q QUERY src/`` searched for "src/"."""
    pattern = args.pattern
    if pattern is None or args.has("--quiet") or not os.path.lexists(pattern):
        return []
    return [pattern_names_a_path(query, pattern, os.path.isdir(pattern))]


def _rg_itself(plan: QueryPlan) -> int:
    """rg run over the plan's own arguments, its output and exit code passed on."""
    done = subprocess.run(
        rg_over(plan.rg, plan.args, plan.args.paths),
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    reports.passed_on(done.stdout)
    streams.err(done.stderr)
    return done.returncode


def _ordered_query(plan: QueryPlan, warn: Warn, walk: CountWalk | None) -> int:
    args, request = plan.args, plan.request
    order_only = args.has_pattern or args.files_mode  # without one, the stage's passages print
    candidates, ranking = rank_candidates(plan, warn, walk, order_only)
    if candidates.none_listed and args.has_pattern and not args.files_mode:
        # No file to order (an empty folder, globs that leave none): rg says what it says
        # of a search that searched nothing, with its exit code.
        return _rg_itself(plan)
    if args.files_mode:
        end = b"\0" if args.has("--null") else b"\n"
        limit = request.file_limit
        files = ranking.ordered[:limit] if limit else ranking.ordered
        sep = args.path_separator
        shown = [as_printed(path, sep) for path in files]
        if plan.palette is not None:  # rg colours the paths it lists, as a match's path
            from rrg.rg.palette import painted_paths

            shown = painted_paths(plan.rg, args, files, plan.palette)
        if not args.has("--quiet"):  # rg lists nothing then, and exits as if it had
            reports.file_list(shown, end)
        if len(files) < len(ranking.ordered):
            said = files_printed(len(files), len(ranking.ordered), ranking.ranked)
            report_facts([said], False)
        return EXIT_ERROR if candidates.error else (EXIT_MATCH if files else EXIT_NO_MATCH)
    if not args.has_pattern and candidates.none_listed:
        # rg says why a search searched nothing; a passage query that read nothing said
        # nothing at all (exit 1, an empty output: the wrong folder looks like no answer).
        report_facts([NOTHING_LISTED], False)
        return EXIT_NO_MATCH
    if not args.has_pattern:
        from rrg.output.passages import PassageStyle, most_relevant, passage_blocks
        from rrg.rank.entry_points import best_paragraphs

        limit = request.passage_limit
        with timings.phase("passages"):
            # One more than printed: whether the cap held any back.
            found = best_paragraphs(ranking, limit + 1 if limit else ALL)
            best = as_written(found[:limit] if limit else found)
            sep = args.path_separator
            painted = None
            if plan.palette is not None:  # each path as rg prints it: its colour, its link
                from rrg.rg.palette import painted_paths

                files = list(dict.fromkeys(path for path, _ in best))
                listed = painted_paths(plan.rg, args, files, plan.palette)
                painted = dict(zip([as_printed(p, sep) for p in files], listed, strict=True))
            style = PassageStyle(
                args.heading(plan.terminal),
                args.line_numbers(plan.terminal),
                plan.palette,
                null=args.has("--null"),
                painted=painted,
            )
            printed = [(as_printed(path, sep), p) for path, p in best]
            reports.passed_on(passage_blocks(printed, style))
        if limit and len(found) > limit:
            report_facts(
                [
                    f"printed the {most_relevant(limit)} (--limit); more follow: raise --limit "
                    "(0 = all)"
                ],
                False,
            )
        # As --files and the searches: rg's listing met an error (a bad glob, a missing
        # PATH beside others), so the exit code says so whatever was printed.
        return EXIT_ERROR if candidates.error else (EXIT_MATCH if found else EXIT_NO_MATCH)
    # Where the search has rg walk to a file whose NUL lies past rg's first read itself.
    # (--files-without-match and --include-zero print nothing of such a file, but --stats
    # counts what rg's walk read of it.)
    direct = args.lists_files_without_match or args.counts_zeros
    walks_late = (
        walk is not None
        or args.output_mode == "--quiet"
        or request.rerank
        or (direct and args.stats_block)
    )
    searched = searched_files(plan.rg, args, ranking, walk is not None, walks_late, candidates.long)
    files = searched.files
    # The files are all that rg lists (binary ones aside): one walk may count them.
    run = OrderedRun(
        plan,
        files,
        request.query,
        ranking.served,
        plan.filenames,
        True,
        walk,
        ranking.spans,
        more_spans_of(ranking),
        unread_binary_filter(plan.rg, args, ranking.unread) if walk is not None else None,
        searched.late_nul,
        searched.walked_to,
    )
    with timings.phase("search"):
        result = search_in_order(run)
    if args.lists_files_without_match and len(files) < len(ranking.ordered):
        # rg's walk stops reading a binary file at its first NUL, before any match: the
        # file goes unprinted, yet counts as one without a match, so rg exits 0 whatever
        # else it printed. rrg leaves such files out of its runs; its exit code says so.
        result.matched = True
    if not result.matched and not result.error:
        result.facts += _pattern_as_path(request.query, args)
    report_facts(result.facts, args.output_mode == "--json")
    result.error |= candidates.error
    return result.exit_code


def recall_command(rg: str, rg_args: list[str], request: SearchRequest, warn: Warn) -> int:
    """RARG's embed_recall: rank the candidates, write the scope, show the entry points."""
    from rrg.index.scopes import scope_folder, write_scope
    from rrg.output.passages import entry_points
    from rrg.rank.entry_points import best_paragraphs

    query = request.query
    if not query.strip():
        raise RrgError("the --recall query is empty: give it a few words saying what you look for")
    scope_folder()  # where the scope is written: if it cannot be, say so before any work
    args = _listing_args(rg_args, "--recall")
    missing = missing_paths(args)
    for path in missing if not args.turned_on("--no-messages") else []:
        streams.err(os.fsencode(f"rg: {path}: No such file or directory (os error 2)\n"))
    if missing and len(missing) == len(args.paths):
        return EXIT_ERROR  # nothing to rank, and no scope written
    args = args.with_paths([p for p in args.paths if p not in missing])
    refused = flags_refusal(rg, args)
    if refused is not None:  # a flag rg does not know: said before the ranking
        streams.err(refused.messages)
        return refused.code
    plan = QueryPlan.make(rg, rg_args, args, request)
    candidates, ranking = rank_candidates(plan, warn, line_spans=True)
    # The scope holds what -q would search: a --scope-file search reads its files by name,
    # where rg would print "binary file matches" for the ones it skips while walking; a file
    # whose NUL lies past rg's first read stays, since that search walks to it alone.
    best = searched_files(rg, args, ranking, walks_late=True, long=candidates.long).files
    best = best[: request.scope_size]
    # A scope file holds one path a line: a path holding a newline cannot stand in it (read
    # back, it would be two paths that do not exist).
    scope = [p for p in best if b"\n" not in p]
    target = write_scope(query, scope, ranking.spans)
    reports.scope_written(query, target, len(scope))
    if candidates.none_listed:
        # An empty scope said only "(0 docs)": the wrong folder looks like no answer.
        report_facts([NOTHING_LISTED], False)
    if len(scope) < len(best):
        left = len(best) - len(scope)
        report_facts(
            [f"{left} path{'s' * (left > 1)} holding a newline left out of the scope"], False
        )
    if request.paragraphs:
        sep = args.path_separator
        found = as_written(best_paragraphs(ranking, request.paragraphs))
        reports.passed_on(entry_points([(as_printed(path, sep), p) for path, p in found]))
    if candidates.error or missing:
        return EXIT_ERROR
    return EXIT_MATCH if scope else EXIT_NO_MATCH


def scope_command(rg: str, rg_args: list[str], request: SearchRequest) -> int:
    """Search the files of a scope file in its order, as -q searches its ranking."""
    from rrg.index.scopes import read_scope
    from rrg.index.served import ServedRoot

    args = parse_rg_command(rg_args)
    plan = QueryPlan.make(rg, rg_args, args, request)
    _refuse_what_cannot_apply(plan)
    if args.paths:
        raise RrgError("--scope-file takes its paths from the scope file: give no PATH")
    if not args.has_pattern:
        raise RrgError("--scope-file needs a PATTERN to search for")
    refused = check_search(rg, args, "--scope-file", request.rerank).refusal
    if refused is not None:
        streams.err(refused.messages)
        return refused.code
    scope = read_scope(request.scope_file or "")
    query = request.query or scope.query or ""
    if request.rerank and not query and not request.rerank_query:
        raise RrgError(f"--rerank needs a query: {scope.path.name} has none remembered; give -q")
    files = [p for p in scope.paths if os.path.lexists(p)]
    served = ServedRoot(os.fsencode(scope.cwd or os.getcwd()), plan.spec)
    # Where each file answers the recall's question best, kept with the scope; a file it
    # holds none of (below the recall's head), or a query of its own (-q, another question),
    # by the cheap scores of the cut files' passages.
    spans = scope.spans if query == scope.query else {}
    more = more_scope_spans(scope, served, query) if query else None
    run = OrderedRun(
        plan,
        files,
        query,
        served,
        with_filename=True,
        spans=spans,
        more_spans=more,
        # A file whose NUL lies past rg's first read: its lines before it, as -q prints them.
        late_nul=late_nul_filter(args, None, plan.rg),
    )
    result = search_in_order(run)
    gone = len(scope.paths) - len(files)
    if gone:
        paths = "path of" if gone == 1 else "paths of"
        exist = "exists" if gone == 1 else "exist"
        result.facts.insert(0, f"{gone} {paths} {scope.path.name} no longer {exist}; skipped")
    report_facts(result.facts, args.output_mode == "--json")
    return result.exit_code


def _listing_args(rg_args: list[str], what: str) -> RgArgs:
    """rg's arguments of a command that lists files (its positionals are paths); a mode
    flag such as -l would make rg search, and the first path a pattern."""
    args = parse_rg_command(["--files", *rg_args])
    dropped = args.output_mode if not args.files_mode else next(iter(args.match_shapes), None)
    if dropped:
        raise RrgError(f"{dropped} does not apply to {what} (no match is printed there)")
    return args


@dataclass(frozen=True)
class _IndexTarget:
    """What an index command names: rg's listing arguments, the folder asked for, and the
    root that serves it (the folder itself, or an indexed folder above it)."""

    args: RgArgs
    asked: bytes
    served: ServedRoot

    @property
    def where(self) -> str:
        return os.fsdecode(self.asked)

    @property
    def described(self) -> str:
        """The folder, and the root that serves it where that is another."""
        root = self.served.root
        return self.where + (
            "" if root == self.asked else f" (served by the index of {os.fsdecode(root)})"
        )


def _index_target(rg_args: list[str], request: SearchRequest) -> _IndexTarget:
    from rrg.index.served import serve

    args = _listing_args(rg_args, "--index, --index-status and --index-clear")
    # A PATH that is not there would stand for its parent folder: a typo would then clear,
    # build or describe the index of the folder it was typed in.
    for given in args.paths:
        if not os.path.lexists(given):
            raise RrgError(f"{given}: no such file or directory")
    asked = search_root(args.paths)
    served = serve(asked, resolve_model(request.model))
    served.index_path  # noqa: B018 - no usable cache dir: said before anything is done
    return _IndexTarget(args, asked, served)


def index_clear_command(rg_args: list[str], request: SearchRequest) -> int:
    """``--index-clear``: remove the index of the given PATH's folder (not one above it)."""
    from rrg.index import caches

    target = _index_target(rg_args, request)
    root, where = target.served.root, target.where
    if root != target.asked:
        reports.not_its_own_index(where, root)
        return EXIT_MATCH
    existed, stopped = caches.clear_root(target.served.index_path)
    reports.index_cleared(where, existed, stopped)
    return EXIT_MATCH


def index_status_command(rg_args: list[str], request: SearchRequest) -> int:
    """``--index-status``: which index serves the given PATH, and what it holds."""
    from rrg.index import caches
    from rrg.rank.embedding import embed_status
    from rrg.rank.warm_passages import warm_status

    target = _index_target(rg_args, request)
    served, where = target.served, target.where
    if not served.index_path.exists():
        reports.not_indexed(where)
        return EXIT_NO_MATCH
    embedded = embed_status(served)
    warmed = warm_status(served)
    text = caches.index_status(
        target.described, served.index_path, served.spec.name, embedded, warmed
    )
    reports.index_status(text[1])
    return EXIT_MATCH


def index_command(rg: str, rg_args: list[str], request: SearchRequest, warn: Warn) -> int:
    """``--index``: the index of the root that serves the given PATH brought up to date."""
    from rrg.index.store import builder_lock
    from rrg.search.background import (
        embedding_turn,
        embeds_next,
        is_background_build,
        yield_to_searches,
    )

    target = _index_target(rg_args, request)
    build = functools.partial(
        _build, rg, target.args, request, target.served, target.described, warn
    )
    if not is_background_build():
        return build()
    yield_to_searches()
    # Started by a search (rrg.search.background): one such build a root at a time.
    with builder_lock(target.served.index_path) as first:
        if not first:
            return EXIT_MATCH
        if not embeds_next():
            return build(warm=True)
        # Started anew by its former self, which computed the passages, to wait for the
        # embedding turn before the model and the index are loaded.
        with embedding_turn():
            return build(warm=True, turn_held=True)


def _build(
    rg: str,
    args: RgArgs,
    request: SearchRequest,
    served: ServedRoot,
    where: str,
    warn: Warn,
    warm: bool = False,
    turn_held: bool = False,
) -> int:
    """``rrg --index``: the index of ``root`` brought up to date for the files rg lists,
    then embedded where the root is (or is to be); ``warm`` (a build a search started):
    then its passages computed ahead, where no job has done so for this state of it, and
    the root embedded where it is small enough (``embeds_ahead``), in the cache dir's turn;
    ``turn_held``: this build holds the turn, its former self found the root to embed."""
    from rrg.environment import embed_always
    from rrg.rank.embedding import EmbeddingBusy, embed_root, is_embedded
    from rrg.rank.warm_passages import (
        embedding_pending,
        embeds_ahead,
        mark_embedding_wanted,
        needs_warming,
        warm_passages,
    )
    from rrg.search.background import embedding_turn, rest_until_turn
    from rrg.search.indexing import build_index

    show = request.show_progress
    # The model's preparation is said apart: it is once a machine, not this tree's time.
    built = build_index(rg, args, served, warn, show, where, reports.model_prepared)
    reports.index_built(where, built.report, built.seconds)
    asked = request.embed or embed_always()
    if asked or is_embedded(served):
        try:
            embedded = embed_root(served, built.view, built.rows, show, asked, notice=warn)
            reports.embedded(where, embedded)
            mark_embedding_wanted(served, False)  # an embedding ahead left unended: ended now
        except EmbeddingBusy as busy:
            if asked:
                raise
            # Embedded by the job ahead, which may be at it now: the index is what was asked.
            warn(f"{busy}; the index is up to date, the embedding is left to that job")
    embeds = turn_held
    if warm and needs_warming(served, built.view):
        embeds = embeds_ahead(served, warm_passages(served, built.view))
    elif warm and not turn_held:  # a job before this one was stopped before it embedded
        embeds = embedding_pending(served, alone=False)
    if embeds and not turn_held:
        mark_embedding_wanted(served, True)
        rest_until_turn(served.index_path)  # returns where this process waits itself
        with embedding_turn():
            _embed_ahead(served, built.view, built.rows)
    elif embeds:
        _embed_ahead(served, built.view, built.rows)
    return EXIT_ERROR if built.candidates.error else EXIT_MATCH


def _embed_ahead(served: ServedRoot, view: IndexView, rows: np.ndarray) -> None:
    """Embed a root whose passages were computed ahead, in the embedding turn: what is not
    embedded yet (all of it, or what a stopped job left). The turn may have come minutes
    later: the root may be gone (a temporary clone) or embedded since. Nobody reads a
    background build's output; a busy embedding lock is another process embedding the
    root already. Done or failed, the embedding is no longer wanted: a failure that would
    come again is not retried by every search."""
    from rrg.rank.embedding import embed_root
    from rrg.rank.warm_passages import mark_embedding_wanted

    try:
        if os.path.isdir(served.root):
            with contextlib.suppress(RrgError):
                embed_root(served, view, rows, show_progress=False, asked=False)
    finally:
        mark_embedding_wanted(served, False)


def list_models() -> int:
    reports.models(installed_models())
    return EXIT_MATCH
