"""The counting walk of a plain ``-q`` search, started before the rest of rrg loads.

A walk's counts do not depend on the order (see rrg.rg.walk), so it may start as soon as
argv is split: it then runs on the other core while rrg imports numpy, lists and ranks,
and where nothing matches rrg exits when it ends, about as soon as rg itself would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rrg.cli.argsplit import SplitArgs

if TYPE_CHECKING:
    from rrg.rg.walk import CountWalk

# rrg options that leave a search a plain ordered one (query_command, no rerank): any other
# option makes it another command, which starts no walk.
_PLAIN_QUERY = frozenset(
    {"--query", "--limit", "--fast", "--excerpt", "--model", "--no-progress", "--cascade"}
)


def start_walk(split: SplitArgs) -> CountWalk | None:
    """The walk query_command would start for this command line, or None."""
    longs = {opt.long for opt, _ in split.rrg}
    if "--query" not in longs or not longs <= _PLAIN_QUERY:
        return None
    from rrg.cli.options import BY_SPELLING

    limits = [value for opt, value in split.rrg if opt.long == "--limit"]
    try:
        cap = int(limits[-1] or "") if limits else BY_SPELLING["--limit"].default
    except ValueError:
        return None  # said in its place, by the options parser
    if cap is None or cap < 0:
        return None
    from rrg.errors import RrgError
    from rrg.rg.args import reads_stdin, streamed_paths
    from rrg.rg.binary import find_rg
    from rrg.rg.config import parse_rg_command
    from rrg.rg.walk import start_query_walk

    try:
        args = parse_rg_command(split.rg)
        rg = find_rg()
    except RrgError:
        return None  # said in its place, after rrg's own options are read
    if reads_stdin(args) or streamed_paths(args):
        return None
    return start_query_walk(rg, args, reranking=False, cap=cap)
