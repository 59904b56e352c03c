"""The per-root index on disk: a SQLite registry beside a folder of immutable segments.

SQLite gives what several agents in one repository need: atomic commits, readers that never
see a half-written state, and a file whose damage is detected rather than trusted. It holds
only the registry: which segments (rrg.index.segment) are live and which of their rows are
dead (a file edited or removed since). A build registers each finished chunk as a segment
in one transaction with the rows it replaces, so a killed build keeps what it finished and
an index is always one registry state, never a mix. Nothing is unpickled: segments are
plain ``.npy`` arrays loaded with ``allow_pickle=False``.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np

from rrg.atomic import write_failure
from rrg.environment import index_busy_s
from rrg.index.sqlitefile import connect, create_once

#: Bump when the schema or the meaning of stored arrays changes; older files are rebuilt.
FORMAT_VERSION = 19
KIND_TEXT, KIND_BINARY, KIND_UNREADABLE = 0, 1, 2
#: A row whose file was edited or removed since its segment was written.
KIND_DEAD = -1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS segments (
    name TEXT PRIMARY KEY,     -- folder name under the segments folder
    seq INTEGER NOT NULL,      -- order written
    docs INTEGER NOT NULL      -- rows in it, dead ones included
);
CREATE TABLE IF NOT EXISTS dead (
    name TEXT NOT NULL,        -- segment
    row INTEGER NOT NULL,      -- its row whose file was edited or removed since
    PRIMARY KEY (name, row)
) WITHOUT ROWID;
"""


def _statements() -> list[str]:
    # The schema keeps ";" out of its comments for this split.
    return [statement for statement in _SCHEMA.split(";") if statement.strip()]


class IndexCorrupt(Exception):
    """The index file is damaged or of another format; the caller rebuilds it."""


def segments_dir(index_path: Path) -> Path:
    """The folder of a root's segments, beside its registry."""
    return Path(f"{index_path}.segments")


class IndexStore:
    """An open registry. Use :func:`open_store`, which also handles damage."""

    def __init__(self, path: Path, create: bool = True) -> None:
        """``create``: make the file if it is missing (the caller holds the writer lock);
        without it a missing file raises FileNotFoundError and nothing is written."""
        self.path = path
        self.segment_dir = segments_dir(path)
        if create:
            create_once(path, _statements(), FORMAT_VERSION)
        elif not path.exists():
            raise FileNotFoundError(path)
        self.db = connect(path, index_busy_s())
        self.db.execute("PRAGMA synchronous=NORMAL")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > FORMAT_VERSION:
            # A newer rrg's (two installs sharing one cache dir): rebuilt in the format
            # this one reads, the newer one would rebuild it again, each run of either
            # undoing the other's.
            self.db.close()
            raise IndexUnavailable(
                f"index {path.name} is of a newer rrg (format {version}; this rrg reads "
                f"{FORMAT_VERSION}), kept as it is: upgrade this rrg, or give it a cache of "
                "its own (RRG_CACHE_DIR)"
            )
        if version != FORMAT_VERSION:
            self.db.close()
            if 0 < version < FORMAT_VERSION:  # 0: a file of another kind, or half made
                raise IndexCorrupt(
                    f"written by an older rrg: index format {version}, this rrg reads "
                    f"{FORMAT_VERSION}"
                )
            raise IndexCorrupt(f"index format {version}, this rrg reads {FORMAT_VERSION}")

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ---- the registry --------------------------------------------------------------------
    def snapshot(self) -> tuple[list[tuple[str, int]], dict[str, np.ndarray]]:
        """Live segments (name, docs) in the order written, and each one's dead rows, read
        in one transaction so that both describe the same state."""
        self.db.execute("BEGIN")
        try:
            segments = [
                (str(name), int(docs))
                for name, docs in self.db.execute("SELECT name, docs FROM segments ORDER BY seq")
            ]
            dead: dict[str, list[int]] = {}
            for name, row in self.db.execute("SELECT name, row FROM dead ORDER BY name, row"):
                dead.setdefault(str(name), []).append(int(row))
        finally:
            self.db.execute("COMMIT")
        return segments, {k: np.asarray(v, np.int64) for k, v in dead.items()}

    def next_seq(self) -> int:
        return int(self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM segments").fetchone()[0])

    def add_segment(self, name: str, seq: int, docs: int) -> None:
        self.db.execute("INSERT INTO segments VALUES (?,?,?)", (name, seq, docs))

    def mark_dead(self, rows: list[tuple[str, int]]) -> None:
        self.db.executemany("INSERT OR IGNORE INTO dead VALUES (?,?)", rows)

    def drop_segments(self, names: list[str]) -> None:
        for name in names:
            self.db.execute("DELETE FROM segments WHERE name=?", (name,))
            self.db.execute("DELETE FROM dead WHERE name=?", (name,))

    def live_count(self) -> int:
        docs = self.db.execute("SELECT COALESCE(SUM(docs), 0) FROM segments").fetchone()[0]
        return int(docs) - int(self.db.execute("SELECT COUNT(*) FROM dead").fetchone()[0])

    def remove_orphans(self) -> None:
        """Delete segment folders the registry does not name: left by a writer killed
        between writing a segment and registering it, or after a merge replaced them.
        Call with the writer lock held."""
        if not self.segment_dir.is_dir():
            return
        live = {name for name, _ in self.snapshot()[0]}
        for entry in os.scandir(self.segment_dir):
            if entry.name not in live:
                shutil.rmtree(entry.path, ignore_errors=True)


class IndexUnavailable(Exception):
    """The index cannot be used right now (locked past the timeout, disk full, an I/O error):
    nothing is wrong with it, so it is kept and the search runs in rg's order."""


def busy_reason(path: Path, waited: float | None = None) -> str:
    """Why the lock on index ``path`` could not be had, and what sets the wait (``waited``:
    a search's shorter wait, bounded by ``RRG_INDEX_WAIT_S``)."""
    if waited == 0:
        return f"index {path.name} is being built in the background"
    if waited is not None and waited < index_busy_s():
        return (
            f"index {path.name} is being written by another rrg (waited {waited:.1f} s; "
            "RRG_INDEX_WAIT_S sets the wait)"
        )
    return (
        f"index {path.name} is locked by another rrg (waited {index_busy_s():g} s; "
        "RRG_INDEX_BUSY_S sets the wait)"
    )


#: SQLite's result codes for a damaged file (SQLITE_CORRUPT, SQLITE_NOTADB): only these
#: lead to a rebuild; any other error may pass (a lock, a full disk) and deletes nothing.
_DAMAGE_CODES = {11, 26}


def is_damage(err: sqlite3.Error) -> bool:
    code = getattr(err, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _DAMAGE_CODES
    # Python 3.10 has no error codes: a DatabaseError that is not operational is damage.
    return isinstance(err, sqlite3.DatabaseError) and not isinstance(err, sqlite3.OperationalError)


def open_store(path: Path, warn: Callable[[str], None]) -> IndexStore:
    """Open the index at path; a damaged or foreign-format file is reported once and rebuilt.

    Call with the writer lock held: a rebuild deletes the file.
    """
    try:
        store = IndexStore(path)
        store.db.execute("SELECT COUNT(*) FROM segments").fetchone()
        return store
    except IndexCorrupt as err:
        reason = str(err)
    except sqlite3.Error as err:
        if not is_damage(err):
            raise IndexUnavailable(f"index {path.name}: {write_failure(err, path.parent)}") from err
        reason = str(err)
    warn(f"index {path.name} cannot be read as it is ({reason}); rebuilding it")
    remove_index(path)
    return IndexStore(path)


def remove_index(path: Path) -> None:
    """Delete an index's registry, its SQLite side files and its segments (the caller
    holds the writer lock)."""
    for suffix in ("", "-wal", "-shm"):
        with suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")
    shutil.rmtree(segments_dir(path), ignore_errors=True)


def writer_lock_path(path: Path) -> Path:
    """The file ``writer_lock(path)`` locks."""
    return Path(f"{path}.lock")


@contextmanager
def writer_lock(path: Path, wait_s: float | None = None) -> Iterator[bool]:
    """Hold the root's writer lock (index and vector cache); yields False when it could not
    be had within ``wait_s`` seconds (None: ``RRG_INDEX_BUSY_S``).

    An flock dies with its process, so a writer killed mid-build leaves no stale lock. The
    lock file may be deleted by ``--index-clear`` while others wait on it: a lock is only
    held once the file locked is still the one at the path.
    """
    lock_path = writer_lock_path(path)
    deadline = time.monotonic() + (index_busy_s() if wait_s is None else wait_s)
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() > deadline:
                yield False
                return
            time.sleep(0.05)
            continue
        try:
            current = os.stat(lock_path)
        except FileNotFoundError:
            current = None
        if current is None or current.st_ino != os.fstat(fd).st_ino:
            os.close(fd)  # deleted while we waited: lock the new file instead
            continue
        break
    try:
        yield True
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def builder_lock_path(path: Path) -> Path:
    """The lock a background build of index ``path`` holds for its whole run."""
    return Path(f"{path}.builder")


#: Set by a build that replaced its own process image (``rrg.search.background``,
#: ``rest_until_turn``): the descriptor of its builder lock, still held across the exec.
BUILDER_FD_ENV = "RRG_BUILDER_FD"

#: The builder lock each index's build holds in this process, by index path.
_HELD_BUILDERS: dict[Path, int] = {}


@contextmanager
def builder_lock(path: Path) -> Iterator[bool]:
    """Hold the lock of the one background build of index ``path``; yields False at once
    where another process holds it (several searches of a new tree each start a build,
    and all but one leave). Apart from the writer lock, which the build takes only once
    the build before it (a search's) let go of it. A build that replaced its process image
    to wait lightly takes back the lock it held (``BUILDER_FD_ENV``): never let go, so no
    other build starts meanwhile."""
    fd = _inherited_builder_fd(path)
    if fd is None:
        fd = os.open(builder_lock_path(path), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        os.ftruncate(fd, 0)
        # Which process builds (--index-clear asks), from the file's start: a descriptor
        # kept across an exec has written it once already.
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _HELD_BUILDERS[path] = fd
        yield True
    finally:
        _HELD_BUILDERS.pop(path, None)
        os.close(fd)


def held_builder_fd(path: Path) -> int | None:
    """The descriptor of the builder lock of index ``path`` this process holds, if any."""
    return _HELD_BUILDERS.get(path)


def _inherited_builder_fd(path: Path) -> int | None:
    """The builder lock's descriptor kept across this process's exec, where it is the lock
    file of ``path`` (checked by its inode: a stray number in the environment is not)."""
    raw = os.environ.pop(BUILDER_FD_ENV, "")
    if not raw.isdigit():
        return None
    fd = int(raw)
    try:
        held, wanted = os.fstat(fd), os.stat(builder_lock_path(path))
    except OSError:
        return None
    if (held.st_dev, held.st_ino) != (wanted.st_dev, wanted.st_ino):
        return None
    os.set_inheritable(fd, False)
    return fd


def stop_builder(path: Path) -> bool:
    """Stop the background build of index ``path`` (TERM to the process its lock names),
    where one holds the lock now and is rrg's ``--index``; whether one was asked to stop."""
    if not builder_running(path):
        return False
    try:
        pid = int(builder_lock_path(path).read_text().split()[0])
        # The pid is checked to be an rrg --index before it is signalled: never another
        # process that took a dead builder's pid.
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if b"rrg" not in command or b"--index" not in command:
            return False
        os.kill(pid, signal.SIGTERM)
    except (OSError, ValueError, IndexError):
        return False
    return True


def builder_running(path: Path) -> bool:
    """Whether a background build of index ``path`` holds its lock now."""
    return exclusively_held(builder_lock_path(path))


def writer_busy(path: Path) -> bool:
    """Whether another process holds ``writer_lock(path)`` now."""
    return exclusively_held(writer_lock_path(path))


def exclusively_held(lock_path: Path) -> bool:
    """Whether a process holds an exclusive flock on ``lock_path`` now."""
    try:
        fd = os.open(lock_path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # which lets go of a lock it took
    return False
