"""Step three of a query: rg streamed over the files in the chosen order, stopped at the cap."""

from __future__ import annotations

from collections.abc import Callable

from rrg.output import reports
from rrg.output.notices import COMMAND_LINE, CapWords, cap_reached, lines_cut
from rrg.rg.args import RECORD_MODES
from rrg.rg.ordered import OrderedSearch, StreamResult, StreamSettings
from rrg.search.plan import OrderedRun
from rrg.search.reranked import rerank


def search_in_order(
    run: OrderedRun,
    write: Callable[[bytes], None] = reports.passed_on,
    words: CapWords = COMMAND_LINE,
) -> StreamResult:
    """Run rg over files in this order with the cap (the pattern checked before: see
    ``rrg.rg.preflight``); what it prints goes to ``write`` (the library collects it), and
    the cap's notice names the settings in the caller's ``words``."""
    plan = run.plan
    args, cap, excerpt = plan.args, plan.request.line_cap, plan.excerpt
    settings = StreamSettings(
        cap,
        run.with_filename,
        excerpt,
        plan.terminal,
        args.paths if run.all_listed else None,
        run.early_walk,
        run.spans,
        run.more_spans,
        plan.palette.of_marks() if excerpt and plan.palette is not None else None,
        run.named_filter,
        run.late_nul,
        run.walked_to,
    )
    search = OrderedSearch(plan.rg, args, settings, write)
    if plan.request.rerank:
        reranked = rerank(run, search)
        if reranked is not None:
            return reranked
    mode = args.output_mode
    if mode == "--quiet":
        result = search.run_quiet(run.files)
    elif mode in RECORD_MODES:
        result = search.run_records(run.files)
    else:
        result = search.run_lines(run.files)
    search.write_stats()
    if result.capped:
        result.facts.append(cap_reached(cap, result.held, words))
    if search.lines_cut:
        said = lines_cut(search.lines_cut, excerpt)
        result.facts.append(f"{said} (--excerpt 0 prints them whole)")
    return result
