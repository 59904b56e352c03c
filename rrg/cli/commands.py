"""What each rrg command does, wiring the modules together (the CLI only parses)."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rrg.errors import RrgError
from rrg.model.registry import ModelSpec, installed_models, resolve_model
from rrg.rg.args import RECORD_MODES, RgArgs, parse_rg_args
from rrg.rg.candidates import Candidates, list_candidates, relative_to, search_root
from rrg.rg.ordered import OrderedSearch, StreamResult

if TYPE_CHECKING:
    from rrg.rank.files import Ranking

Warn = Callable[[str], None]
DEFAULT_LIMIT = 30
DEFAULT_EXCERPT = 1000
DEFAULT_SCOPE_SIZE = 10_000
DEFAULT_PARAGRAPHS = 10
DEFAULT_POOL = 500


def rank_candidates(
    rg: str, args: RgArgs, query: str, opts: dict[str, Any], warn: Warn
) -> tuple[Candidates, Ranking, ModelSpec]:
    """The files rg would search for these arguments, ranked against the query."""
    from rrg.rank.files import rank_files

    spec = resolve_model(opts["model"])
    candidates = list_candidates(rg, args)
    ranking = rank_files(
        query,
        search_root(args.paths),
        candidates.paths,
        spec,
        warn,
        not opts["no_progress"],
        cascade=opts["cascade"] or 0,
    )
    return candidates, ranking, spec


def query_action(rg: str, rg_args: list[str], opts: dict[str, Any], warn: Warn) -> int:
    args = parse_rg_args(rg_args)
    breaker = args.order_breaker()
    if breaker:
        raise RrgError(
            f"{breaker} cannot be used with -q: rrg runs rg with one thread in "
            "relevance order, and it would undo that order"
        )
    candidates, ranking, spec = rank_candidates(rg, args, opts["query"], opts, warn)
    opts["_query"] = opts["query"]
    if args.files_mode:
        end = b"\0" if args.has("--null") else b"\n"
        sys.stdout.buffer.write(b"".join(p + end for p in ranking.ordered))
        sys.stdout.flush()
        return 2 if candidates.error else (0 if ranking.ordered else 1)
    cap = DEFAULT_LIMIT if opts["limit"] is None else opts["limit"]
    if not args.has_pattern:
        from rrg.rank.entry_points import paragraph_search

        return paragraph_search(opts["query"], ranking, spec, cap or DEFAULT_LIMIT)
    files = ranking.ordered
    if not args.binary_ok:
        files = [p for p in files if p not in ranking.binary]
    result = search_in_order(rg, args, files, opts, warn, _with_filename(args.paths))
    if result is None:
        return 2
    report_facts(result.facts, args.output_mode == "--json")
    result.error |= candidates.error
    return result.exit_code


def search_in_order(
    rg: str,
    args: RgArgs,
    files: list[bytes],
    opts: dict[str, Any],
    warn: Warn,
    with_filename: bool,
) -> StreamResult | None:
    """Run rg over files in this order with the cap; None when rg refused the pattern."""
    cap = DEFAULT_LIMIT if opts["limit"] is None else opts["limit"]
    excerpt = opts["excerpt"]
    if opts["rerank"]:
        from rrg.rank import rerank

        flag = rerank.unsupported_with_rerank(args)
        if flag:
            raise RrgError(
                f"{flag} cannot be used with --rerank: it prints matching lines, "
                "one at a time, in score order"
            )
    if excerpt is None:
        # Agents read pipes: a 50 kB minified line costs them a context window. A person at
        # a terminal, or anyone asking for colour, gets rg's lines whole.
        excerpt = 0 if args.colour_wanted(os.isatty(1)) else DEFAULT_EXCERPT
    search = OrderedSearch(rg, args, cap, with_filename=with_filename, excerpt=excerpt)
    mode = args.output_mode
    if not search.preflight():
        return None
    if opts["rerank"]:
        reranked = _rerank(rg, args, files, opts, warn, search, with_filename, excerpt)
        if reranked is not None:
            return reranked
    if mode == "--quiet":
        result = search.run_quiet(files)
    elif mode in RECORD_MODES:
        result = search.run_records(files)
    else:
        result = search.run_lines(files)
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


def _rerank(
    rg: str,
    args: RgArgs,
    files: list[bytes],
    opts: dict[str, Any],
    warn: Warn,
    search: OrderedSearch,
    with_filename: bool,
    excerpt: int,
) -> StreamResult | None:
    """Collect up to --pool matches, print the best --limit by score; None when there are
    no more than --limit matches (then the plain ordered search prints them)."""
    from rrg.model.encoder import Encoder
    from rrg.output.printer import Renderer
    from rrg.rank import rerank
    from rrg.rank.keywords import rerank_query

    cap = DEFAULT_LIMIT if opts["limit"] is None else opts["limit"]
    pool = opts["pool"] or DEFAULT_POOL
    matches, more, error = rerank.collect(rg, search.user_flags, search.patterns, files, pool)
    if not more and (cap == 0 or len(matches) <= cap):
        return None
    query = opts["rerank_query"] or rerank_query(opts["_query"], _patterns(args))
    spec = resolve_model(opts["model"])
    rerank.score(matches, query, Encoder(spec))
    rerank.add_file_prior(matches, files)
    best = rerank.top(matches, cap or len(matches))
    out = sys.stdout.buffer
    if args.output_mode == "--json":
        for match in best:
            out.write(Renderer.json_messages(match))
        out.write(Renderer.json_summary(best))
    else:
        renderer = Renderer(args, with_filename, args.colour_wanted(os.isatty(1)), excerpt)
        for match in best:
            out.write(renderer.lines(match))
    out.flush()
    tail = f"; more matches lie beyond --pool {pool}" if more else ""
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


def recall_action(rg: str, rg_args: list[str], opts: dict[str, Any], warn: Warn) -> int:
    """RARG's embed_recall: rank the candidates, write the scope, show the entry points."""
    from rrg.index.scopes import write_scope
    from rrg.rank.entry_points import best_paragraphs, print_entry_points

    query = opts["recall"]
    if not query.strip():
        raise RrgError("the --recall query is empty: give it a few words saying what you look for")
    args = parse_rg_args(["--files", *rg_args])
    candidates, ranking, spec = rank_candidates(rg, args, query, opts, warn)
    size = opts["scope_size"] or DEFAULT_SCOPE_SIZE
    scope = ranking.ordered[:size]
    target = write_scope(query, scope)
    sys.stdout.write(f'"{query}" \u2192 {target} ({len(scope)} docs)\n')
    sys.stdout.flush()
    paragraphs = DEFAULT_PARAGRAPHS if opts["paragraphs"] is None else opts["paragraphs"]
    if paragraphs:
        print_entry_points(best_paragraphs(query, ranking, spec, paragraphs))
    return 2 if candidates.error else (0 if scope else 1)


def scope_action(rg: str, rg_args: list[str], opts: dict[str, Any], warn: Warn) -> int:
    """Search the files of a scope file in its order, as -q searches its ranking."""
    from rrg.index.scopes import read_scope

    args = parse_rg_args(rg_args)
    breaker = args.order_breaker()
    if breaker:
        raise RrgError(f"{breaker} cannot be used with --scope-file: it would undo the order")
    if args.paths:
        raise RrgError("--scope-file takes its paths from the scope file: give no PATH")
    if not args.has_pattern:
        raise RrgError("--scope-file needs a PATTERN to search for")
    scope = read_scope(opts["scope_file"])
    opts["_query"] = opts["query"] or scope.query
    if opts["rerank"] and not opts["_query"] and not opts["rerank_query"]:
        raise RrgError(f"--rerank needs a query: {scope.path.name} has none remembered; give -q")
    files = [p for p in scope.paths if os.path.lexists(p)]
    result = search_in_order(rg, args, files, opts, warn, with_filename=True)
    if result is None:
        return 2
    if len(files) < len(scope.paths):
        result.facts.insert(
            0,
            f"{len(scope.paths) - len(files)} paths of {scope.path.name} no longer exist; skipped",
        )
    report_facts(result.facts, args.output_mode == "--json")
    return result.exit_code


def _with_filename(paths: list[str]) -> bool:
    """rg prints file names unless it was given exactly one path and that path is a file."""
    return not (len(paths) == 1 and not os.path.isdir(paths[0]))


def report_facts(facts: list[str], json_mode: bool) -> None:
    """Every cap, cut, skip and rerank as one bracketed stderr line; with --json also as a
    final ``rrg`` message, so a reader of either stream alone misses nothing."""
    if not facts:
        return
    sys.stdout.flush()
    if json_mode:
        message = {"type": "rrg", "data": {"notices": facts}}
        sys.stdout.buffer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        sys.stdout.flush()
    sys.stderr.write("".join(f"[rrg: {fact}]\n" for fact in facts))
    sys.stderr.flush()


def index_action(rg: str, rg_args: list[str], opts: dict[str, Any], warn: Warn) -> int:
    from rrg.index.store import IndexStore, remove_index
    from rrg.rank.files import index_path_for, refresh_index

    args = parse_rg_args(["--files", *rg_args])
    spec = resolve_model(opts["model"])
    root = search_root(args.paths)
    path = index_path_for(root, spec)
    where = os.fsdecode(root)
    if opts["index_clear"]:
        existed = path.exists()
        remove_index(path, with_lock=True)
        print(f"removed the index of {where}" if existed else f"no index for {where}")
        return 0
    if opts["index_status"]:
        if not path.exists():
            print(f"{where}: not indexed (rrg --index {where} builds it)")
            return 1
        try:
            store = IndexStore(path)
            files = store.count()
            store.close()
        except (sqlite3.Error, Exception) as err:  # noqa: BLE001 - any damage is reported
            print(f"{where}: index unreadable ({err}); the next search rebuilds it")
            return 1
        size = sum(
            os.path.getsize(f"{path}{s}") for s in ("", "-wal") if os.path.exists(f"{path}{s}")
        )
        age = time.time() - os.path.getmtime(path)
        print(
            f"{where}\n  files indexed: {files}\n  size on disk: {size / 1e6:.1f} MB\n"
            f"  last written: {age:.0f} s ago\n  model: {spec.name}\n  file: {path}"
        )
        return 0
    candidates = list_candidates(rg, args)
    start = time.monotonic()
    _, report = refresh_index(
        root, relative_to(root, candidates.paths), spec, warn, not opts["no_progress"]
    )
    print(
        f"indexed {where}: {report.listed} files, {report.read} read, "
        f"{report.touched} unchanged content, {report.deleted} removed "
        f"in {time.monotonic() - start:.2f} s"
    )
    return 2 if candidates.error else 0


def list_models() -> int:
    for spec in installed_models():
        print(f"{spec.name}\tdims={spec.dims or '?'}\tsource={spec.source}\tlicence={spec.licence}")
    return 0
