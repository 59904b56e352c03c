"""The per-root index on disk: one SQLite file.

SQLite gives what several agents in one repository need: atomic commits, readers that never
see a half-written state, and a file whose damage is detected rather than trusted. A refresh
commits in chunks, so a killed build keeps what it finished. Nothing is unpickled: rows hold
numbers and raw little-endian arrays only.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xxhash

#: Bump when the schema or the meaning of stored arrays changes; older files are rebuilt.
FORMAT_VERSION = 7
KIND_TEXT, KIND_BINARY, KIND_UNREADABLE = 0, 1, 2
#: Seconds a reader or writer waits on a lock held inside SQLite before giving up (then the
#: search runs in rg's order); ``RRG_INDEX_BUSY_S`` overrides it.
BUSY_TIMEOUT_S = 60.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path BLOB PRIMARY KEY,     -- path relative to the root, as OS bytes
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,        -- xxh3-64 of the bytes read (the head, up to READ_LIMIT)
    kind INTEGER NOT NULL,
    length INTEGER NOT NULL,   -- number of words, for BM25 length normalisation
    terms BLOB NOT NULL,       -- uint32 hashed word ids, sorted
    tfs BLOB NOT NULL,         -- uint16 counts
    pieces BLOB NOT NULL,      -- uint32 WordPiece ids, sorted
    piece_tfs BLOB NOT NULL,   -- uint16 counts
    vec BLOB                   -- float16 static vector, NULL until the next pack computes it
);
CREATE TABLE IF NOT EXISTS packed (name TEXT PRIMARY KEY, data BLOB NOT NULL,
                                   checksum TEXT NOT NULL);
"""


class IndexCorrupt(Exception):
    """The index file is damaged or of another format; the caller rebuilds it."""


@dataclass
class FileRow:
    path: bytes
    size: int
    mtime_ns: int
    hash: str
    kind: int
    length: int
    terms: np.ndarray
    tfs: np.ndarray
    pieces: np.ndarray
    piece_tfs: np.ndarray
    vec: np.ndarray | None = None


class IndexStore:
    """An open index file. Use :func:`open_store`, which also handles damage."""

    def __init__(self, path: Path) -> None:
        self.path = path
        busy_s = float(os.environ.get("RRG_INDEX_BUSY_S", BUSY_TIMEOUT_S))
        self.db = sqlite3.connect(str(path), timeout=busy_s, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            with self.transaction():
                # One statement at a time (executescript would commit mid-transaction);
                # the schema keeps ";" out of its comments for this split.
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version={FORMAT_VERSION}")
        elif version != FORMAT_VERSION:
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

    # ---- metadata ----------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # ---- files -------------------------------------------------------------------------
    def stats(self) -> dict[bytes, tuple[int, int, str]]:
        """path -> (size, mtime_ns, hash) for every indexed file."""
        return {
            bytes(p): (s, m, h)
            for p, s, m, h in self.db.execute("SELECT path, size, mtime_ns, hash FROM files")
        }

    def put(self, row: FileRow) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?,?,?,?,NULL)",
            (
                row.path,
                row.size,
                row.mtime_ns,
                row.hash,
                row.kind,
                row.length,
                row.terms.astype("<u4").tobytes(),
                row.tfs.astype("<u2").tobytes(),
                row.pieces.astype("<u4").tobytes(),
                row.piece_tfs.astype("<u2").tobytes(),
            ),
        )

    def touch(self, path: bytes, size: int, mtime_ns: int) -> None:
        self.db.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?", (size, mtime_ns, path))

    def delete(self, path: bytes) -> None:
        self.db.execute("DELETE FROM files WHERE path=?", (path,))

    def set_vectors(self, vectors: dict[bytes, np.ndarray]) -> None:
        self.db.executemany(
            "UPDATE files SET vec=? WHERE path=?",
            [(v.astype("<f2").tobytes(), p) for p, v in vectors.items()],
        )

    def rows(self) -> Iterator[FileRow]:
        for p, s, m, h, k, n, t, tf, pc, ptf, vec in self.db.execute(
            "SELECT * FROM files ORDER BY path"
        ):
            yield FileRow(
                bytes(p),
                s,
                m,
                h,
                k,
                n,
                np.frombuffer(t, "<u4"),
                np.frombuffer(tf, "<u2"),
                np.frombuffer(pc, "<u4"),
                np.frombuffer(ptf, "<u2"),
                None if vec is None else np.frombuffer(vec, "<f2"),
            )

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM files").fetchone()[0])

    # ---- packed arrays ------------------------------------------------------------------
    def put_packed(self, arrays: dict[str, np.ndarray]) -> None:
        self.db.execute("DELETE FROM packed")
        for name, arr in arrays.items():
            data = _array_bytes(arr)
            self.db.execute(
                "INSERT INTO packed VALUES (?,?,?)", (name, data, xxhash.xxh3_64_hexdigest(data))
            )

    def get_packed(self) -> dict[str, np.ndarray]:
        out = {}
        for name, data, checksum in self.db.execute("SELECT name, data, checksum FROM packed"):
            if xxhash.xxh3_64_hexdigest(data) != checksum:
                raise IndexCorrupt(f"packed array {name} fails its checksum")
            out[name] = _bytes_array(bytes(data))
        return out


def _array_bytes(arr: np.ndarray) -> bytes:
    # ";" separates: dtype strings themselves may hold "|" (as "|S16" does).
    header = f"{arr.dtype.str};{','.join(map(str, arr.shape))};".encode()
    return len(header).to_bytes(4, "little") + header + np.ascontiguousarray(arr).tobytes()


def _bytes_array(data: bytes) -> np.ndarray:
    size = int.from_bytes(data[:4], "little")
    dtype, shape, _ = data[4 : 4 + size].decode().split(";")
    dims = tuple(int(d) for d in shape.split(",") if d)
    return np.frombuffer(data[4 + size :], np.dtype(dtype)).reshape(dims)


class IndexUnavailable(Exception):
    """The index cannot be used right now (locked past the timeout, disk full, an I/O error):
    nothing is wrong with it, so it is kept and the search runs in rg's order."""


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
        store.db.execute("SELECT COUNT(*) FROM meta").fetchone()
        return store
    except IndexCorrupt as err:
        reason = str(err)
    except sqlite3.Error as err:
        if not is_damage(err):
            raise IndexUnavailable(f"index {path.name}: {err}") from err
        reason = str(err)
    warn(f"index {path.name} is unreadable ({reason}); rebuilding it")
    remove_index(path)
    return IndexStore(path)


def remove_index(path: Path) -> None:
    """Delete an index file and its SQLite side files (the caller holds the writer lock)."""
    for suffix in ("", "-wal", "-shm"):
        with suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


@contextmanager
def writer_lock(path: Path, wait_s: float = 600.0) -> Iterator[bool]:
    """Hold the root's writer lock (index and vector cache); yields False when it could not
    be had in time.

    An flock dies with its process, so a writer killed mid-build leaves no stale lock. The
    lock file may be deleted by ``--index-clear`` while others wait on it: a lock is only
    held once the file locked is still the one at the path.
    """
    lock_path = Path(f"{path}.lock")
    deadline = time.monotonic() + wait_s
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
