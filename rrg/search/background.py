"""Finishing a first index in the background, after a search answered from part of it;
computing a whole index's passages ahead, after the first search of it.

A search waits at most ``RRG_INDEX_WAIT_S`` for indexing (``rrg.environment``): a first
index of a large tree takes minutes, and the bash tools of agents and MCP hosts give up
long before. What it registered by then is ranked, the rest follows in rg's order, and
``rrg --index`` of the root, started here on its own (its own session, lower priority,
nothing printed), finishes the index, so that the searches after it are ranked in full.
Searches beside it rank from what it has registered so far; one build runs a root at a
time (``rrg.index.store.builder_lock``). The same build, once the index is whole, cuts the
root's files into passages and computes their static vectors (``rrg.rank.warm_passages``),
once a root: a search whose index was whole from the start starts it too.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from rrg.cachedir import cache_dir, waited_lock
from rrg.detached import start_detached
from rrg.errors import RrgError

if TYPE_CHECKING:
    from rrg.index.served import ServedRoot

#: Set in the environment of the build started here: ``--index`` then leaves at once where
#: another such build of the root is running.
BACKGROUND_ENV = "RRG_BACKGROUND_BUILD"
#: ``BACKGROUND_ENV``'s value in a build that waits for the embedding turn first.
EMBEDS_NEXT = "embed"


#: The file in the cache dir whose lock a job holds while it embeds a root ahead.
EMBEDDING_TURN = "embedding-ahead.lock"


def background_allowed() -> bool:
    """``RRG_INDEX_BACKGROUND=0`` keeps searches from starting builds: each search then
    indexes for its own wait and the index fills over the next searches, and computes the
    passages of the files it reads (none are computed ahead)."""
    return os.environ.get("RRG_INDEX_BACKGROUND", "1").strip() != "0"


def is_background_build() -> bool:
    return os.environ.get(BACKGROUND_ENV) in ("1", EMBEDS_NEXT)


def yield_to_searches() -> None:
    """Lower this build's share of the CPU below the searches'. ``nice`` alone does not: on
    Linux with autogroups (most desktops' kernels), each session is a group whose processes
    share one group's share, so a build in a session of its own took as much of a 2-core
    machine as the user's search, whatever its nice (a new query on tokio beside it: p50
    docs/benchmarks.md, "A background job beside searches"). The group's own nice, set here,
    lowers the group: this build's session alone (it leads one of its own), never the
    group of a shell that ran ``--index`` itself. Elsewhere this does nothing."""
    if os.getsid(0) != os.getpid():
        return
    try:
        with open("/proc/self/autogroup", "w") as group:
            group.write("10")
    except OSError:
        pass  # no autogroups here (nice then does it), or not allowed


def finish_in_background(served: ServedRoot, searched: list[str], model: str | None) -> bool:
    """Start ``rrg --index`` of what a search over ``searched`` (its PATHs) left to index
    (``background_targets``) detached from this process and its terminal (it leaves at
    once where another such build of the root runs); whether it was started."""
    if not background_allowed():
        return False
    cmd = [sys.executable, "-m", "rrg", "--index", "--no-progress"]
    if model:
        cmd += ["--model", model]
    cmd += ["--", *background_targets(served, searched)]
    nice = shutil.which("nice")
    if nice:  # the user's next searches come first
        cmd = [nice, "-n", "10", *cmd]
    # Where it cannot start, the next search indexes for its own wait, as without one.
    return start_detached(cmd, served.root, {**os.environ, BACKGROUND_ENV: "1"})


def background_targets(served: ServedRoot, searched: list[str]) -> list[str]:
    """The PATHs a background build is given: the served root where the search named it
    (or nothing: the folder it ran in) or was served by an index above what it named;
    else the PATHs themselves. A search over PATHs in two places is served by their common
    folder, and a build of that folder read every file below it: ``rrg -q Q PAT .
    /usr/include`` started ``rrg --index /``, the whole file system, and two sibling
    folders their parent (/usr/lib/python3 and python3.11: 4,310 files asked, 59,106
    indexed). The index keeps what it holds of files not listed."""
    given = [os.path.abspath(path) for path in searched]
    if not given or served.root in map(os.fsencode, given) or served.above_what_was_asked:
        return [os.fsdecode(served.root)]
    return given


def embeds_next() -> bool:
    """Whether this build was started anew (``rest_until_turn``) to wait for the embedding
    turn, then embed the root: its passages were computed by its former self."""
    return os.environ.get(BACKGROUND_ENV) == EMBEDS_NEXT


def rest_until_turn(index_path: Path) -> None:
    """Where another root holds the embedding turn, replace this process with a new rrg that
    waits for it before loading anything: a build that computed a root's passages holds
    140 MB (sympy), its modules, the model's table and what the passages left, where a new
    one waiting holds about 40 MB, for the minutes another root's embedding takes. The
    same pid, nice and session; the builder lock is kept across (``BUILDER_FD_ENV``).
    Returns where the turn is free now, or the process cannot be replaced: the caller then
    waits itself."""
    from rrg.index.store import BUILDER_FD_ENV, held_builder_fd

    fd = held_builder_fd(index_path)
    if fd is None or not _turn_taken():
        return
    os.set_inheritable(fd, True)
    env = {**os.environ, BACKGROUND_ENV: EMBEDS_NEXT, BUILDER_FD_ENV: str(fd)}
    try:
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)
    except OSError:
        os.set_inheritable(fd, False)


def _turn_taken() -> bool:
    """Whether another process holds the embedding turn now."""
    from rrg.index.store import exclusively_held

    try:
        return exclusively_held(cache_dir() / EMBEDDING_TURN)
    except RrgError:  # no usable cache dir: no turn to wait for
        return False


@contextmanager
def embedding_turn() -> Iterator[None]:
    """Wait for the cache dir's one turn to embed a root ahead, and hold it. A job that
    embeds a root takes both cores and about 240 MB for minutes (sphinx's 1,433 files: 6
    minutes, 238 MB at its peak), and each root an agent searches starts one (a harness
    searching a fresh clone for each task, several at once): in turn they take the same
    CPU time with one job's memory. Where the lock cannot be had at all (no usable cache
    dir), the job embeds without it."""
    with waited_lock(cache_dir, EMBEDDING_TURN):
        yield
