"""Scope files (``--recall`` writes them, ``--scope-file`` reads them): ranked paths, one a
line, best first, with a JSON sidecar that remembers the query and where it was asked.

Numbered files under the cache dir, so that an agent can hold several scopes at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from rrg.atomic import atomic_write_bytes, write_failure
from rrg.cachedir import cache_dir
from rrg.errors import RrgError

#: Scope files kept: the newest ones; older ones are pruned when a new one is written.
MAX_SCOPES = 100


@dataclass
class Scope:
    path: Path
    query: str | None
    cwd: str | None
    paths: list[bytes]


def scope_folder() -> Path:
    """The folder of the scope files, made if need be (RrgError where it cannot be)."""
    folder = cache_dir() / "scopes"
    try:
        folder.mkdir(exist_ok=True, mode=0o700)
    except OSError as err:  # a file in its place, a read-only or full disk
        raise RrgError(f"cannot use the scope folder {folder}: {err.strerror or err}") from err
    return folder


def _numbered(folder: Path) -> list[tuple[int, Path]]:
    return sorted((int(p.stem[6:]), p) for p in folder.glob("scope-*.txt") if p.stem[6:].isdigit())


def scope_files() -> list[Path]:
    """Every scope file and sidecar, oldest first."""
    out = []
    for _, path in _numbered(scope_folder()):
        out += [path, path.with_suffix(".json")]
    return [p for p in out if p.exists()]


def prune_scopes(keep: int = MAX_SCOPES) -> None:
    """Delete all but the ``keep`` newest scopes, one pruner at a time."""
    folder = scope_folder()
    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        numbered = _numbered(folder)
        for _, path in numbered[: max(0, len(numbered) - keep)]:
            for doomed in (path.with_suffix(".json"), path):
                with contextlib.suppress(FileNotFoundError):
                    doomed.unlink()
    finally:
        os.close(fd)


def write_scope(query: str, paths: list[bytes]) -> Path:
    """Write paths to the next free scope-N.txt (and its sidecar); return its path."""
    folder = scope_folder()
    number = 1 + max((n for n, _ in _numbered(folder)), default=0)
    claimed = None
    try:
        while True:
            target = folder / f"scope-{number}.txt"
            try:
                # O_EXCL claims the number: two agents recalling at once get two files.
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                number += 1
                continue
            os.close(fd)
            claimed = target
            break
        sidecar = {"query": query, "cwd": os.getcwd(), "created": time.time(), "count": len(paths)}
        atomic_write_bytes(target.with_suffix(".json"), json.dumps(sidecar).encode())
        atomic_write_bytes(target, b"".join(p + b"\n" for p in paths))
        prune_scopes()
    except OSError as err:
        if claimed is not None:  # a later --scope-file would read it as a scope of nothing
            for doomed in (claimed.with_suffix(".json"), claimed):
                with contextlib.suppress(FileNotFoundError):
                    doomed.unlink()
        reason = write_failure(err, folder)
        raise RrgError(f"cannot write a scope file in {folder}: {reason}") from err
    return target


def read_scope(file: str) -> Scope:
    """Read a scope file: a text file of paths, one a line (any such file will do)."""
    path = Path(file)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise RrgError(f"cannot read scope file {file}: {err.strerror}") from err
    if b"\0" in data:
        raise RrgError(f"{file} is not a scope file: it holds binary data, not one path a line")
    query = cwd = None
    sidecar = path.with_suffix(".json")
    if sidecar.is_file():
        try:
            meta = json.loads(sidecar.read_text())
            query, cwd = meta.get("query"), meta.get("cwd")
        except (OSError, ValueError):
            pass  # a scope without its query still orders a search
    paths = [line for line in data.split(b"\n") if line]
    if cwd and cwd != os.getcwd():
        base = os.fsencode(cwd)
        paths = [p if p.startswith(b"/") else os.path.join(base, p) for p in paths]
    return Scope(path, query, cwd, paths)
