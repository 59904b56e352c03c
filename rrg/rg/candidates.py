"""The candidate files of a search: exactly those rg itself would search."""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass

from rrg.rg.args import RgArgs
from rrg.rg.children import started
from rrg.rg.replies import StderrFilter, reaped

#: After rg's config file, which rg reads for every run: its ``--color=always`` (or
#: ``--pretty``) painted each listed path, and its ``--path-separator`` rewrote them, so that
#: none named a file and ``-q`` printed nothing, exit 0.
LISTING_FLAGS = ["--null", "--color=never", "--path-separator=/"]


@dataclass
class Candidates:
    paths: list[bytes]  # as rg prints them, in rg's walk order
    error: bool  # rg reported a problem (a missing path, a permission error)
    #: Those longer than rg's first read of a file (64 KiB), as the listing's stat found
    #: them; None: not known (each is stat-ed where it matters).
    long: frozenset[bytes] | None = None

    @property
    def none_listed(self) -> bool:
        """rg listed no file and reported nothing wrong: the PATHs and flags leave none (the
        wrong folder, a glob that matches nothing), which an empty answer alone does not
        tell from "nothing matches"."""
        return not self.paths and not self.error


def list_candidates(
    rg: str, args: RgArgs, on_paths: Callable[[list[bytes]], None] | None = None
) -> Candidates:
    """``rg --files`` with the user's file-selection flags and paths; rg's own messages
    (a missing path, say) go where the call's output goes (``rrg.streams``).

    ``on_paths`` is given the paths as they come, a block at a time: the caller's work on
    them (stat-ing every file) then runs while rg is still listing, on the other core. A
    thread drains rg's output so that rg never waits on a full pipe meanwhile.
    """
    cmd = [rg, "--files", *LISTING_FLAGS, *args.file_selection_args(), "--", *args.paths]
    proc = started(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    messages = StderrFilter(proc, set())
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
    failed = reaped(proc) == 2
    messages.finish()
    return Candidates(paths, failed)
