"""The candidate files of a search: exactly those rg itself would search."""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass

from rrg.rg.args import RgArgs


@dataclass
class Candidates:
    paths: list[bytes]  # as rg prints them, in rg's walk order
    error: bool  # rg reported a problem (a missing path, a permission error)


def list_candidates(
    rg: str, args: RgArgs, on_paths: Callable[[list[bytes]], None] | None = None
) -> Candidates:
    """``rg --files`` with the user's file-selection flags and paths; rg's own messages
    (a missing path, say) go straight to the user's stderr.

    ``on_paths`` is given the paths as they come, a block at a time: the caller's work on
    them (stat-ing every file) then runs while rg is still listing, on the other core. A
    thread drains rg's output so that rg never waits on a full pipe meanwhile.
    """
    cmd = [rg, "--files", "--null", *args.file_selection_args(), "--", *args.paths]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    blocks: queue.SimpleQueue[bytes] = queue.SimpleQueue()
    fd = proc.stdout.fileno()

    def drain() -> None:
        while block := os.read(fd, 1 << 20):
            blocks.put(block)
        blocks.put(b"")

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    paths: list[bytes] = []
    tail = b""
    while block := blocks.get():
        *done, tail = (tail + block).split(b"\0")
        fresh = [p for p in done if p]
        paths.extend(fresh)
        if on_paths is not None and fresh:
            on_paths(fresh)
    if tail:
        paths.append(tail)
        if on_paths is not None:
            on_paths([tail])
    reader.join()
    proc.stdout.close()
    return Candidates(paths, proc.wait() == 2)


def search_root(paths: list[str]) -> bytes:
    """The root whose index serves these paths: their common directory, else the cwd."""
    cwd = os.getcwd()
    if not paths:
        return os.fsencode(cwd)
    dirs = []
    for p in paths:
        full = os.path.abspath(os.path.join(cwd, p))
        dirs.append(full if os.path.isdir(full) else os.path.dirname(full))
    return os.fsencode(os.path.commonpath(dirs))


def relative_to(root: bytes, printed: list[bytes]) -> list[bytes]:
    """Paths as rg printed them, relative to root (string work: relpath costs 20 us a path).

    Searching the root itself, rg prints paths relative to it already: those are kept as
    they are (no copy of a million paths)."""
    cwd = os.fsencode(os.getcwd())
    prefix = root.rstrip(b"/") + b"/"
    at_root = cwd == root
    if at_root:
        # The usual case, tested for the whole block at once (a loop costs 7 ms at 20K):
        # no path starts with "/" or "." and none holds "/.".
        joined = b"\0" + b"\0".join(printed)
        if not any(mark in joined for mark in (b"\0/", b"\0.", b"/.")):
            return printed
    out = []
    for p in printed:
        if at_root and not p.startswith((b"/", b".")) and b"/." not in p:
            out.append(p)
            continue
        full = p if p.startswith(b"/") else cwd + b"/" + p
        if b"/." in full:  # "./x", "a/../b": rare, so normalise only then
            full = os.path.normpath(full)
        out.append(full[len(prefix) :] if full.startswith(prefix) else os.path.relpath(full, root))
    return out
