"""Paths as rg prints them, and the root folder whose index serves them."""

from __future__ import annotations

import os


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
