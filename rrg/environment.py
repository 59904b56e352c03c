"""rrg's numeric environment variables, read and checked in one place.

``RRG_THREADS``: threads the embedding model may use (0 or unset: up to 4, one a core
this process may run on).
``RRG_INDEX_BUSY_S``: seconds rrg waits for another rrg's lock on an index (``INDEX_BUSY_S``):
every wait on a root's files honours it; past it a search answers from what the index
holds, and ``--index`` stops with one line.
``RRG_INDEX_WAIT_S``: seconds a search spends at most indexing (3; 0: no bound); past it
the search ranks what is indexed, the rest follows in rg's order, and the index is
finished in the background (``INDEX_WAIT_S``).
``RRG_EMBED``: 1 makes every ``rrg --index`` embed its root's passages too (``--embed``).
``RRG_EMBED_BATCH``: passages embedded between two saved parts (256): what an interrupted
``--embed`` loses at most.
``RRG_PASSAGES_AHEAD``: 0 keeps searches from starting the job that computes a root's
passages ahead (``rrg.rank.warm_passages``; 1 by default): the vector cache then holds only
what queries read (sympy's is 66 MB with the job, against its 5 MB index).
``RRG_EMBED_AHEAD``: the most passages a root may have for that job to embed it too (as
``--embed`` does; 60,000 by default, at most about 11 minutes of a 2-core machine; 0: never).
``RRG_CACHE_MAX_MB``: the most MiB every root's files may take together (``CACHE_MAX_MB``;
0: no bound but their age): past it the first search of a new root removes the roots
used longest ago (``rrg.index.caches``).
``RRG_RESIDENT``: 0 keeps every search in its own process (``rrg.cli.resident``; 1 by
default: searches are handed to a resident process that has rrg's modules loaded).
A value that is no number is bad input, said in one line, never a traceback.
"""

from __future__ import annotations

import math
import os

from rrg.errors import RrgError


def env_number(name: str, default: float, whole: bool = False) -> float:
    """The variable's value, a number >= 0 (a whole one where ``whole``); ``default`` when
    it is unset or empty."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0 and (not whole or value.is_integer())):
        kind = "a whole number" if whole else "a number"
        raise RrgError(f"{name} must be {kind} >= 0, not {raw!r}")
    return value


#: The default of ``RRG_INDEX_BUSY_S``: long enough for another rrg's refresh of a few
#: changed files, short of making a search wait on a whole build.
INDEX_BUSY_S = 60.0


def index_busy_s() -> float:
    """Seconds to wait for another rrg's lock on an index."""
    return env_number("RRG_INDEX_BUSY_S", INDEX_BUSY_S)


#: The default of ``RRG_INDEX_WAIT_S``: what a search spends at most bringing an index up
#: to date before it answers (a first index of a large tree takes minutes; agents' tools
#: and MCP hosts give up long before).
INDEX_WAIT_S = 3.0


def index_wait_s() -> float | None:
    """Seconds a search spends at most indexing before it answers; None: no bound
    (``RRG_INDEX_WAIT_S=0``, every search waits for the whole index as ``--index`` does)."""
    wait = env_number("RRG_INDEX_WAIT_S", INDEX_WAIT_S)
    return wait or None


def check_environment() -> None:
    """Every numeric variable read once, so that a bad one stops rrg before any work."""
    env_number("RRG_THREADS", 0, whole=True)
    index_busy_s()
    index_wait_s()
    embed_always()
    env_number("RRG_EMBED_BATCH", 0, whole=True)
    passages_ahead()
    cache_max_bytes()
    resident = env_number("RRG_RESIDENT", 1, whole=True)
    if resident > 1:
        raise RrgError(f"RRG_RESIDENT must be 0 or 1, not {os.environ['RRG_RESIDENT']!r}")


def embed_always() -> bool:
    """Whether ``RRG_EMBED=1`` asks every ``--index`` to embed."""
    return env_number("RRG_EMBED", 0, whole=True) > 0


def passages_ahead() -> bool:
    """Whether a root's passages are computed ahead (``RRG_PASSAGES_AHEAD``, 1 unless 0)."""
    return env_number("RRG_PASSAGES_AHEAD", 1, whole=True) > 0


#: The most passages a root may have for the job ahead to embed it (``RRG_EMBED_AHEAD``).
#: A cost, not a tuned constant: a repository of about 2,000 files of code fits (sympy's
#: 1,875 files: 51,298 passages, embedded in 9.3 minutes on 2 cores at 92 a second, 16
#: minutes of CPU, 20 MB), so that a new question there costs the model one run of its own
#: text; past it, the work grows with the tree (docs/benchmarks.md, "Embedded ahead: a
#: 2,000-file repository").
EMBED_AHEAD = 60_000


def embed_ahead_most() -> int:
    """The most passages of a root the job ahead embeds (``RRG_EMBED_AHEAD``; 0: none)."""
    return int(env_number("RRG_EMBED_AHEAD", EMBED_AHEAD, whole=True))


#: The default of ``RRG_CACHE_MAX_MB``: what a month of projects may keep before the ones
#: used longest ago go. A root of 2,000 files that its job embedded keeps about 70 MB
#: (sympy), one not embedded 1-10 MB: about 70 such projects, or one embedding of a
#: monorepo of 500,000 passages. ccache's default bound is of the same size (5 GB).
CACHE_MAX_MB = 5120


def cache_max_bytes() -> int | None:
    """The most bytes every root's files may take together; None: no bound by size
    (``RRG_CACHE_MAX_MB=0``)."""
    mb = env_number("RRG_CACHE_MAX_MB", CACHE_MAX_MB)
    return max(1, int(mb * 2**20)) if mb else None
