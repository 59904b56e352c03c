"""The candidate files of a search: exactly those rg itself would search."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

from rrg.rgargs import RgArgs


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
    cwd = os.fsencode(os.getcwd())
    return [os.path.relpath(os.path.join(cwd, p), root) for p in printed]
