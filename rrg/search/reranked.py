"""Step four, with ``--rerank``: up to ``--pool`` matches collected in relevance order,
scored by the model, the best ``--limit`` printed in score order."""

from __future__ import annotations

import time

from rrg import streams
from rrg.output.printer import Printer
from rrg.rank import rerank as scoring
from rrg.rank.keywords import rerank_query
from rrg.rg.args import RgArgs
from rrg.rg.hyperlinks import LineLink, format_of, line_links
from rrg.rg.matches import collect
from rrg.rg.multiline import searches_multi_line
from rrg.rg.ordered import OrderedSearch, StreamResult
from rrg.rg.palette import Palette, painted_paths
from rrg.search.plan import OrderedRun


def rerank(run: OrderedRun, search: OrderedSearch) -> StreamResult | None:
    """Collect up to --pool matches, print the best --limit by score; None when there are
    no more than --limit matches (then the plain ordered search prints them)."""
    started = time.monotonic()
    plan = run.plan
    request, args = plan.request, plan.args
    cap = request.line_cap
    matches, more, messages = collect(search, run.files, request.pool)
    if not more and (cap == 0 or len(matches) <= cap):
        return None
    if messages:
        streams.err(messages)
    served = run.served
    scoring.score(
        matches,
        request.rerank_query or rerank_query(run.query, patterns_of(args)),
        served.encoder,
        served.vectors,
    )
    scoring.add_file_prior(matches, run.files)
    best = scoring.top(matches, cap or len(matches))
    # One match at a time: a long line is re-read from its file to print, never all at once.
    if args.output_mode == "--json":
        for match in best:
            search.write(Printer.json_messages(match))
        search.write(Printer.json_summary(best, time.monotonic() - started))
    else:
        links = _line_links(plan.rg, args, [m.path for m in best], plan.palette)
        multi_line = searches_multi_line(plan.rg, args)
        printer = Printer(
            args, run.with_filename, plan.palette, plan.excerpt, plan.terminal, links, multi_line
        )
        for match in best:
            search.write(printer.lines(match))
    tail = f"; more matches lie beyond --pool {request.pool}" if more else ""
    result = StreamResult(printed=len(best), matched=bool(best), error=bool(messages))
    result.facts.append(f"reranked top {len(best)} of {len(matches)} matches{tail}")
    return result


def patterns_of(args: RgArgs) -> list[str]:
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


def _line_links(
    rg: str, args: RgArgs, paths: list[bytes], palette: Palette | None
) -> dict[bytes, LineLink] | None:
    """Each printed file's line links where a ``--hyperlink-format`` is in force and colour
    is on (rg draws links only then)."""
    format_ = format_of(args)
    if palette is None or not format_:
        return None
    files = list(dict.fromkeys(paths))
    painted = painted_paths(rg, args, files, palette)
    found = {path: line_links(format_, listed) for path, listed in zip(files, painted, strict=True)}
    return {path: link for path, link in found.items() if link is not None}
