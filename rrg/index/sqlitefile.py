"""SQLite files that readers without a lock may open at any moment.

A fresh file is made whole beside its path (write-ahead-log mode, schema, format version)
and renamed into place, so a reader sees no file or a finished one. Readers then never
write: no journal-mode switch, no schema statement. A switch into WAL mode needs an
exclusive lock that SQLite may refuse at once, past its busy timeout, while another
process reads the half-made file: a writer holding the root's lock was seen to fail with
"database is locked" that way when several agents started on a new root together.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterable
from pathlib import Path


def create_once(path: Path, statements: Iterable[str], version: int = 0) -> None:
    """Make ``path`` a WAL-mode SQLite file holding ``statements``' schema and
    ``user_version`` ``version``, unless it exists. Call with the writer lock held."""
    if path.exists():
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN")
            for statement in statements:
                db.execute(statement)
            db.execute(f"PRAGMA user_version={int(version)}")
            db.execute("COMMIT")
            # The log folded into the file here, where a failure raises: at close SQLite
            # folds it or, on a full disk, silently does not, and the log is deleted below
            # (the file renamed into place was then a damaged one).
            busy, logged, folded = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if busy or logged != folded:
                raise sqlite3.OperationalError(f"cannot finish {path.name}: its log stays")
        finally:
            db.close()  # the last connection removes the log
        # No registry, so no reader: a log beside the path is a writer's, killed while
        # deleting the file, and SQLite would replay it into this one.
        for stale in (f"{path}-wal", f"{path}-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(stale)
        os.replace(tmp, path)
    finally:
        for leftover in (tmp, f"{tmp}-wal", f"{tmp}-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)


def connect(path: Path, timeout: float) -> sqlite3.Connection:
    """``path`` opened for the statements of its reader or writer. On a read-only file
    system (a cache mounted read-only: a container's, a CI runner's restored cache) it is
    opened immutable: a WAL-mode file's reader must otherwise make a ``-shm`` file beside
    it, which fails there, and nobody can write the file meanwhile."""
    try:
        read_only = bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    if read_only:
        uri = f"{Path(path).absolute().as_uri()}?mode=ro&immutable=1"
        return sqlite3.connect(uri, timeout=timeout, isolation_level=None, uri=True)
    return sqlite3.connect(str(path), timeout=timeout, isolation_level=None)
