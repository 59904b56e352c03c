"""The candidate files of a search: exactly those rg itself would search."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

from rrg.rg.args import RgArgs


@dataclass
class Candidates:
    paths: list[bytes]  # as rg prints them, in rg's walk order
    error: bool  # rg reported a problem (a missing path, a permission error)


def list_candidates(rg: str, args: RgArgs) -> Candidates:
    """``rg --files`` with the user's file-selection flags and paths; rg's own messages
    (a missing path, say) go straight to the user's stderr."""
    cmd = [rg, "--files", "--null", *args.file_selection_args(), "--", *args.paths]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    paths = [p for p in proc.stdout.split(b"\0") if p]
    return Candidates(paths, proc.returncode == 2)


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
    """Paths as rg printed them, relative to root (string work: relpath costs 20 us a path)."""
    cwd = os.fsencode(os.getcwd())
    prefix = root.rstrip(b"/") + b"/"
    out = []
    for p in printed:
        full = p if p.startswith(b"/") else cwd + b"/" + p
        if b"/." in full:  # "./x", "a/../b": rare, so normalise only then
            full = os.path.normpath(full)
        out.append(full[len(prefix) :] if full.startswith(prefix) else os.path.relpath(full, root))
    return out
