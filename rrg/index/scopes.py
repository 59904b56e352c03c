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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
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
    #: Where each file answers the query best (line spans, the best first), as the recall
    #: that wrote the scope ranked them: a capped search of the scope prints those lines.
    spans: dict[bytes, list[tuple[int, int]]] = field(default_factory=dict)


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


@contextlib.contextmanager
def _one_writer(folder: Path) -> Iterator[None]:
    """The scope folder's lock, held: one process at a time prunes it or edits a sidecar."""
    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def prune_scopes(keep: int = MAX_SCOPES) -> None:
    """Delete all but the ``keep`` newest scopes, one pruner at a time."""
    folder = scope_folder()
    with _one_writer(folder):
        numbered = _numbered(folder)
        for _, path in numbered[: max(0, len(numbered) - keep)]:
            for doomed in (path.with_suffix(".json"), path):
                with contextlib.suppress(FileNotFoundError):
                    doomed.unlink()


def write_scope(
    query: str, paths: list[bytes], spans: dict[bytes, list[tuple[int, int]]] | None = None
) -> Path:
    """Write paths to the next free scope-N.txt (and its sidecar, with ``spans``: where each
    of its files answers the query best, as line spans, the best first); return its path."""
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
        held = set(paths)
        kept = {path: found for path, found in (spans or {}).items() if path in held}
        sidecar["spans"] = _as_written(kept, os.fsdecode)
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


def keep_spans(scope: Scope, spans: dict[bytes, list[tuple[int, int]]]) -> None:
    """Add ``spans`` (by path as ``read_scope`` gave it) to the scope's sidecar, so that the
    scope's next search reads them; one writer at a time. A sidecar that cannot be read or
    written costs only their scoring next time."""
    sidecar = scope.path.with_suffix(".json")
    base = os.fsencode(scope.cwd) + b"/" if scope.cwd and scope.cwd != os.getcwd() else None

    def name(path: bytes) -> str:
        if base is not None and path.startswith(base):
            path = path[len(base) :]
        return os.fsdecode(path)

    try:
        with _one_writer(scope.path.parent):
            meta = json.loads(sidecar.read_text())
            if not isinstance(meta, dict) or not isinstance(meta.get("spans", {}), dict):
                return
            meta.setdefault("spans", {}).update(_as_written(spans, name))
            atomic_write_bytes(sidecar, json.dumps(meta).encode())
    except (OSError, ValueError):
        pass


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
    spans: dict[bytes, list[tuple[int, int]]] = {}
    sidecar = path.with_suffix(".json")
    if sidecar.is_file():
        try:
            meta = json.loads(sidecar.read_text())
            query, cwd = meta.get("query"), meta.get("cwd")
            spans = _spans(meta.get("spans"))
        except (OSError, ValueError):
            pass  # a scope without its query still orders a search
    paths = [_named(line) for line in data.split(b"\n") if line]
    if cwd and cwd != os.getcwd():
        base = os.fsencode(cwd)

        def placed(p: bytes) -> bytes:
            return p if p.startswith(b"/") else os.path.join(base, p)

        paths = [placed(p) for p in paths]
        spans = {placed(p): found for p, found in spans.items()}
    return Scope(path, query, cwd, paths, spans)


def _named(line: bytes) -> bytes:
    """The path a scope file's line names: a list made with CRLF line ends (on Windows, by
    an editor or a tool that writes them) names each path without its CR, which read as
    part of the name made every path one that "no longer exists"; a path that does end in
    a CR keeps it."""
    if line.endswith(b"\r") and not os.path.lexists(line) and os.path.lexists(line[:-1]):
        return line[:-1]
    return line


def _as_written(
    spans: dict[bytes, list[tuple[int, int]]], name: Callable[[bytes], str]
) -> dict[str, list[list[int]]]:
    """Spans as a sidecar keeps them (``_spans`` reads them back): each path by ``name``,
    each span a JSON list."""
    return {name(path): [list(span) for span in found] for path, found in spans.items()}


def _spans(kept: object) -> dict[bytes, list[tuple[int, int]]]:
    """The spans a sidecar keeps, by path; none where they are not as written."""
    if not isinstance(kept, dict):
        return {}
    spans: dict[bytes, list[tuple[int, int]]] = {}
    for name, found in kept.items():
        if isinstance(found, list) and all(
            isinstance(span, list) and len(span) == 2 and all(type(n) is int for n in span)
            for span in found
        ):
            spans[os.fsencode(name)] = [(span[0], span[1]) for span in found]
    return spans
