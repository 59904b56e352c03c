"""``-f -``: patterns read from standard input, once, for every rg run of one search.

rg reads ``-f -`` from stdin, which only the first of rrg's many rg runs could do: the
early counting walk took the patterns, and every later run searched with none. rrg reads
them itself into a private file that each run is pointed at, and puts /dev/null on stdin,
as rg leaves it: consumed, so never a haystack.
"""

from __future__ import annotations

import os
import sys
import tempfile

from rrg.rg.args import parse_rg_args, with_pattern_file


def patterns_to_file(rg_args: list[str]) -> tuple[list[str], str | None]:
    """``rg_args`` reading their stdin patterns from a file, and that file (None where no
    ``-f -`` is given; the caller removes it when the search ends)."""
    if "-" not in parse_rg_args(rg_args).pattern_files:
        return rg_args, None
    fd, path = tempfile.mkstemp(prefix="rrg-patterns-")
    with os.fdopen(fd, "wb") as out:
        out.write(sys.stdin.buffer.read())
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return with_pattern_file(rg_args, "-", path), path
