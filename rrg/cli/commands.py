"""What each rrg command does, wiring the layers together (the CLI only parses)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rrg.cli.options import BY_SPELLING
from rrg.cli.settings import Options
from rrg.errors import EXIT_ERROR, EXIT_MATCH, EXIT_NO_MATCH, RrgError
from rrg.model.registry import ModelSpec, installed_models, resolve_model
from rrg.output import timings
from rrg.output.notices import report_facts
from rrg.rg.args import RECORD_MODES, RgArgs
from rrg.rg.candidates import Candidates, list_candidates, relative_to, search_root
from rrg.rg.config import parse_rg_command
from rrg.rg.decoded import binary_once_decoded
from rrg.rg.ordered import OrderedSearch, StreamResult, write_summary
from rrg.rg.stats import StatsTally
from rrg.rg.walk import CountWalk, start_query_walk

if TYPE_CHECKING:
    from rrg.rank.files import Ranking

Warn = Callable[[str], None]
#: rrg cuts lines printed to a pipe to this many characters around their match.
PIPE_EXCERPT: int = BY_SPELLING["--excerpt"].default or 0


class _NothingMatches(Exception):
    """The early walk ended with no match and no message: there is nothing to order."""


def rank_candidates(
    rg: str, args: RgArgs, query: str, opts: Options, warn: Warn, walk: CountWalk | None = None
) -> tuple[Candidates, Ranking, ModelSpec]:
    """The files rg would search for these arguments, ranked against the query. With a
    walk counting matches meanwhile: _NothingMatches as soon as it found none."""
    from rrg.rank.files import list_and_stat, rank_files

    def check_walk() -> None:
        if walk is not None and walk.found_nothing():
            raise _NothingMatches

    spec = resolve_model(opts.model)
    check_walk()
    with timings.phase("list+stat"):
        candidates, root, listing = list_and_stat(rg, args, search_root(args.paths), spec)
    ranking = rank_files(
        query,
        root,
        candidates.paths,
        spec,
        warn,
        opts.show_progress,
        opts.stage_files,
        listing,
        check_walk,
    )
    return candidates, ranking, spec


def _refuse_order_breakers(args: RgArgs, what: str) -> None:
    breaker = args.order_breaker()
    if breaker:
        raise RrgError(
            f"{breaker} cannot be used with {what}: rrg runs rg with one thread in "
            "relevance order, and it would undo that order"
        )


def _refuse_unrankable(args: RgArgs, opts: Options) -> None:
    if not opts.reranking:
        return
    from rrg.rank.rerank import unsupported_with_rerank

    flag = unsupported_with_rerank(args)
    if flag:
        raise RrgError(
            f"{flag} cannot be used with --rerank: it prints matching lines, "
            "one at a time, in score order"
        )


def query_command(
    rg: str,
    rg_args: list[str],
    args: RgArgs,
    opts: Options,
    warn: Warn,
    walk: CountWalk | None = None,
) -> int:
    """``args``: rg_args taken apart with rg's config file (``parse_rg_command``), as the
    dispatch already did to tell a query from rg's own reports."""
    _refuse_order_breakers(args, "-q")
    _refuse_unrankable(args, opts)
    if not args.has_pattern and not args.files_mode and args.output_mode != "lines":
        # Paragraphs have no such form: the flag would be dropped in silence.
        raise RrgError(
            f"{args.output_mode} needs a PATTERN: without one, -q prints the most relevant "
            "paragraphs (--files lists the files, best first)"
        )
    query = opts.query or ""
    if walk is None:
        # Its counts do not depend on the order: it runs on the other core while rrg
        # ranks, and where nothing matches rrg stops as soon as it ends.
        walk = start_query_walk(rg, args, opts.reranking, opts.line_cap)
    try:
        return _ordered_query(rg, rg_args, args, query, opts, warn, walk)
    except _NothingMatches:
        if args.output_mode == "--json":
            write_summary(None)
        elif args.stats_block:
            sys.stdout.buffer.write(StatsTally().block())
        return EXIT_NO_MATCH
    finally:
        if walk is not None:
            walk.stop()


def _ordered_query(
    rg: str,
    rg_args: list[str],
    args: RgArgs,
    query: str,
    opts: Options,
    warn: Warn,
    walk: CountWalk | None,
) -> int:
    candidates, ranking, spec = rank_candidates(rg, args, query, opts, warn, walk)
    if not candidates.paths and not candidates.error and args.has_pattern and not args.files_mode:
        # No file to order (an empty folder, globs that leave none): rg says what it says
        # of a search that searched nothing, with its exit code.
        return subprocess.run([rg, *rg_args], stdin=subprocess.DEVNULL).returncode
    if args.files_mode:
        end = b"\0" if args.has("--null") else b"\n"
        files = ranking.ordered[: opts.limit] if opts.limit else ranking.ordered
        sep = args.path_separator
        shown = [p.replace(b"/", sep) for p in files] if sep else files
        if not args.has("--quiet"):  # rg lists nothing then, and exits as if it had
            sys.stdout.buffer.write(b"".join(p + end for p in shown))
        sys.stdout.flush()
        if len(files) < len(ranking.ordered):
            report_facts([f"printed the {len(files)} best of {len(ranking.ordered)} files"], False)
        return EXIT_ERROR if candidates.error else (EXIT_MATCH if files else EXIT_NO_MATCH)
    if not args.has_pattern:
        from rrg.rank.entry_points import paragraph_search

        with timings.phase("passages"):
            return paragraph_search(query, ranking, spec, opts.line_cap or Options().line_cap)
    files = searched_files(rg, args, ranking)
    # The files are all that rg lists (binary ones aside): one walk may count them.
    plan = OrderedRun(
        rg, args, files, opts, query, ranking.root, _with_filename(args.paths), True, walk
    )
    with timings.phase("search"):
        result = search_in_order(plan)
    if result is None:
        return EXIT_ERROR
    report_facts(result.facts, args.output_mode == "--json")
    result.error |= candidates.error
    return result.exit_code


def searched_files(rg: str, args: RgArgs, ranking: Ranking) -> list[bytes]:
    """The ranked files rg would search while walking: not those it skips as binary. rg
    reads a file it is given by name even where it holds NULs ("binary file matches"), so
    rrg names only these. Where rg decompresses or preprocesses files (-z, --pre), their
    bytes here do not say what rg will read (a .gz log is text to rg -z): rg is asked."""
    if args.binary_ok or not ranking.binary:
        return ranking.ordered
    # A file named as a PATH rg searches whatever it holds, as rrg must.
    binary = ranking.binary - {os.fsencode(p) for p in args.paths if not os.path.isdir(p)}
    if args.decodes_files:
        binary = binary_once_decoded(rg, args, [p for p in ranking.ordered if p in binary])
    return [p for p in ranking.ordered if p not in binary]


@dataclass(frozen=True)
class OrderedRun:
    """One search over files in a chosen order: rg, its arguments, the query behind the
    order, and the root whose caches serve it."""

    rg: str
    args: RgArgs
    files: list[bytes]
    opts: Options
    query: str
    root: bytes
    with_filename: bool
    walk: bool = False  # the files are exactly rg's listing under args.paths
    early_walk: CountWalk | None = None  # a walk counting them, started before the ranking


def search_in_order(plan: OrderedRun) -> StreamResult | None:
    """Run rg over files in this order with the cap; None when rg refused the pattern."""
    rg, args, files, opts = plan.rg, plan.args, plan.files, plan.opts
    cap = opts.line_cap
    excerpt = opts.excerpt
    if excerpt is None:
        # Agents read pipes: a 50 kB minified line costs them a context window. A person at
        # a terminal, or anyone asking for colour, gets rg's lines whole; so does
        # --null-data, whose records are not lines (a NUL ends them, newlines lie within).
        whole = args.colour_wanted(os.isatty(1)) or args.nul_ended
        excerpt = 0 if whole else PIPE_EXCERPT
    walk = args.paths if plan.walk else None
    search = OrderedSearch(rg, args, cap, plan.with_filename, excerpt, walk, plan.early_walk)
    if not search.preflight():
        return None
    if opts.reranking:
        reranked = _rerank(plan, search, excerpt)
        if reranked is not None:
            return reranked
    mode = args.output_mode
    if mode == "--quiet":
        result = search.run_quiet(files)
    elif mode in RECORD_MODES:
        result = search.run_records(files)
    else:
        result = search.run_lines(files)
    search.write_stats()
    if result.capped:
        result.facts.append(
            f"stopped at --limit {cap}; more matches may follow: raise --limit (0 = no cap) "
            "or narrow the pattern"
        )
    if search.lines_cut:
        result.facts.append(
            f"{search.lines_cut} long lines cut to {excerpt} characters around their match, "
            "marked [...] (--excerpt 0 prints them whole)"
        )
    return result


def _rerank(plan: OrderedRun, search: OrderedSearch, excerpt: int) -> StreamResult | None:
    """Collect up to --pool matches, print the best --limit by score; None when there are
    no more than --limit matches (then the plain ordered search prints them)."""
    from rrg.model.encoder import Encoder
    from rrg.output.printer import Printer
    from rrg.rank import rerank
    from rrg.rank.keywords import rerank_query
    from rrg.rank.root_cache import index_path_for

    started = time.monotonic()
    rg, args, files, opts = plan.rg, plan.args, plan.files, plan.opts
    cap = opts.line_cap
    matches, more, error = rerank.collect(
        rg, args, search.user_flags, search.patterns, files, opts.pool
    )
    if not more and (cap == 0 or len(matches) <= cap):
        return None
    spec = resolve_model(opts.model)
    rerank.score(
        matches,
        opts.rerank_query or rerank_query(plan.query, _patterns(args)),
        Encoder(spec),
        index_path_for(plan.root, spec),
    )
    rerank.add_file_prior(matches, files)
    best = rerank.top(matches, cap or len(matches))
    out = sys.stdout.buffer
    if args.output_mode == "--json":
        for match in best:
            out.write(Printer.json_messages(match))
        out.write(Printer.json_summary(best, time.monotonic() - started))
    else:
        printer = Printer(args, plan.with_filename, args.colour_wanted(os.isatty(1)), excerpt)
        for match in best:
            out.write(printer.lines(match))
    out.flush()
    tail = f"; more matches lie beyond --pool {opts.pool}" if more else ""
    result = StreamResult(printed=len(best), matched=bool(best), error=error)
    result.facts.append(f"reranked top {len(best)} of {len(matches)} matches{tail}")
    return result


def _patterns(args: RgArgs) -> list[str]:
    """Every pattern of the search: positional, -e, and the lines of -f files."""
    out = list(args.patterns_by_flag)
    if args.pattern is not None:
        out.append(args.pattern)
    for name in args.pattern_files:
        try:
            with open(name, encoding="utf-8", errors="replace") as fh:
                out.extend(line.rstrip("\n") for line in fh if line.strip())
        except OSError:
            continue  # rg reports an unreadable pattern file itself
    return out


def recall_command(rg: str, rg_args: list[str], opts: Options, warn: Warn) -> int:
    """RARG's embed_recall: rank the candidates, write the scope, show the entry points."""
    from rrg.index.scopes import write_scope
    from rrg.rank.entry_points import best_paragraphs, print_entry_points

    query = opts.recall or ""
    if not query.strip():
        raise RrgError("the --recall query is empty: give it a few words saying what you look for")
    args = _listing_args(rg_args, "--recall")
    candidates, ranking, spec = rank_candidates(rg, args, query, opts, warn)
    # The scope holds what -q would search: a --scope-file search reads its files by name,
    # where rg would print "binary file matches" for the ones it skips while walking.
    best = searched_files(rg, args, ranking)[: opts.scope_size]
    # A scope file holds one path a line: a path holding a newline cannot stand in it (read
    # back, it would be two paths that do not exist).
    scope = [p for p in best if b"\n" not in p]
    target = write_scope(query, scope)
    sys.stdout.write(f'"{query}" \u2192 {target} ({len(scope)} docs)\n')
    sys.stdout.flush()
    if len(scope) < len(best):
        left = len(best) - len(scope)
        report_facts(
            [f"{left} path{'s' * (left > 1)} holding a newline left out of the scope"], False
        )
    if opts.paragraphs:
        print_entry_points(best_paragraphs(query, ranking, spec, opts.paragraphs))
    return EXIT_ERROR if candidates.error else (EXIT_MATCH if scope else EXIT_NO_MATCH)


def scope_command(rg: str, rg_args: list[str], opts: Options, warn: Warn) -> int:
    """Search the files of a scope file in its order, as -q searches its ranking."""
    from rrg.index.scopes import read_scope

    args = parse_rg_command(rg_args)
    _refuse_order_breakers(args, "--scope-file")
    _refuse_unrankable(args, opts)
    if args.paths:
        raise RrgError("--scope-file takes its paths from the scope file: give no PATH")
    if not args.has_pattern:
        raise RrgError("--scope-file needs a PATTERN to search for")
    scope = read_scope(opts.scope_file or "")
    query = opts.query or scope.query or ""
    if opts.reranking and not query and not opts.rerank_query:
        raise RrgError(f"--rerank needs a query: {scope.path.name} has none remembered; give -q")
    files = [p for p in scope.paths if os.path.lexists(p)]
    root = os.fsencode(scope.cwd or os.getcwd())
    result = search_in_order(OrderedRun(rg, args, files, opts, query, root, with_filename=True))
    if result is None:
        return EXIT_ERROR
    if len(files) < len(scope.paths):
        result.facts.insert(
            0,
            f"{len(scope.paths) - len(files)} paths of {scope.path.name} no longer exist; skipped",
        )
    report_facts(result.facts, args.output_mode == "--json")
    return result.exit_code


def _listing_args(rg_args: list[str], what: str) -> RgArgs:
    """rg's arguments of a command that lists files (its positionals are paths); a mode
    flag such as -l would make rg search, and the first path a pattern."""
    args = parse_rg_command(["--files", *rg_args])
    if not args.files_mode:
        raise RrgError(f"{args.output_mode} does not apply to {what} (no match is printed there)")
    return args


def _with_filename(paths: list[str]) -> bool:
    """rg prints file names unless it was given exactly one path and that path is a file."""
    return not (len(paths) == 1 and not os.path.isdir(paths[0]))


def index_command(rg: str, rg_args: list[str], opts: Options, warn: Warn) -> int:
    from rrg.index import caches
    from rrg.model.encoder import Encoder
    from rrg.rank.files import refresh_index, serving_root
    from rrg.rank.root_cache import index_path_for

    args = _listing_args(rg_args, "--index, --index-status and --index-clear")
    # A PATH that is not there would stand for its parent folder: a typo would then clear,
    # build or describe the index of the folder it was typed in.
    for given in args.paths:
        if not os.path.lexists(given):
            raise RrgError(f"{given}: no such file or directory")
    spec = resolve_model(opts.model)
    asked = search_root(args.paths)
    root = serving_root(asked, spec)
    path = index_path_for(root, spec)
    where = os.fsdecode(asked)
    served = "" if root == asked else f" (served by the index of {os.fsdecode(root)})"
    if opts.index_clear:
        if root != asked:
            print(
                f"no index of its own for {where}; it is served by the index of "
                f"{os.fsdecode(root)} (rrg --index-clear {os.fsdecode(root)} removes that)"
            )
            return EXIT_MATCH
        removed = caches.clear_root(path)
        print(f"removed the index of {where}" if removed else f"no index for {where}")
        return EXIT_MATCH
    if opts.index_status:
        if not path.exists():
            print(f"{where}: not indexed (rrg --index {where} builds it)")
            return EXIT_NO_MATCH
        sys.stdout.write(caches.status_text(where + served, path, spec.name))
        return EXIT_MATCH
    candidates = list_candidates(rg, args)
    start = time.monotonic()
    _, _, report = refresh_index(
        root, relative_to(root, candidates.paths), Encoder(spec), warn, opts.show_progress
    )
    print(
        f"indexed {where}{served}: {report.listed} files, {report.read} read, "
        f"{report.touched} unchanged content, {report.deleted} removed "
        f"in {time.monotonic() - start:.2f} s"
    )
    return EXIT_ERROR if candidates.error else EXIT_MATCH


def list_models() -> int:
    for spec in installed_models():
        print(f"{spec.name}\tdims={spec.dims or '?'}\tsource={spec.source}\tlicence={spec.licence}")
    return EXIT_MATCH
