"""The transformer vector cache of one root: vectors by content hash and model, so that a
text the model has read once (a file's head, a match excerpt) is never encoded again; each
query's WordPiece ids, so that a query asked again loads no tokenizer; and each file's
passages as cut (``cuts``), so that a file read by a query before is not parsed again;
each query's order where only the order was wanted (``orders``); passages' word counts
(``terms``); and what was done once for the root (``marks``: its passages computed ahead).

One SQLite file beside the root's index, written under the root's writer lock, and bounded:
entries unused for MAX_AGE_DAYS go, and past MAX_BYTES the least recently used go first.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from rrg.environment import index_busy_s
from rrg.index.sqlitefile import connect, create_once
from rrg.index.store import is_damage, writer_lock

#: Bounds a user should never notice: 256 MB holds about 330,000 MiniLM vectors (float16).
MAX_BYTES = 256 * 1024 * 1024
MAX_AGE_DAYS = 30
#: Seconds a writer waits for the lock; past that the new vectors serve this call only.
LOCK_WAIT_S = 0.5
#: A vector read is marked used at most once in this long: the bound drops the least
#: recently used a day apart at the finest, and marking every read rewrote 1,200 rows a
#: query on sympy (70 ms of a new query's 100 ms in the cache, and a write behind the lock).
MARK_AFTER_S = 86400

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    key TEXT NOT NULL,      -- xxh3-64 of the text the model read
    model TEXT NOT NULL,    -- the model key, with the token limit the text was cut at
    vec BLOB NOT NULL,      -- float16, L2-normalised
    used INTEGER NOT NULL,  -- unix time of the last write or hit
    PRIMARY KEY (key, model)
)
"""
_PRUNE_SCHEMA = "CREATE TABLE IF NOT EXISTS prune (key TEXT PRIMARY KEY, value INTEGER)"
_PIECES_SCHEMA = """
CREATE TABLE IF NOT EXISTS pieces (
    key TEXT NOT NULL,      -- xxh3-64 of a query
    model TEXT NOT NULL,    -- the tokenizer's model key, with the token limit
    ids BLOB NOT NULL,      -- int32 WordPiece ids
    used INTEGER NOT NULL,  -- unix time written (not refreshed by hits: reads stay reads)
    PRIMARY KEY (key, model)
)
"""
_CUTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS cuts (
    key TEXT PRIMARY KEY,   -- xxh3-64 of the file's text, its path and the cutter's make
    data BLOB NOT NULL,     -- its passages, packed (rrg.rank.kept_cuts)
    used INTEGER NOT NULL   -- unix time of the last write or hit
)
"""
_ORDERS_SCHEMA = """
CREATE TABLE IF NOT EXISTS orders (
    key TEXT PRIMARY KEY,   -- xxh3-128 of a query and all its ranking read (rrg.rank.kept_orders)
    data BLOB NOT NULL,     -- the order, packed
    used INTEGER NOT NULL   -- unix time of the last write or hit
)
"""
_MARKS_SCHEMA = """
CREATE TABLE IF NOT EXISTS marks (
    key TEXT PRIMARY KEY,   -- what was done once for a state of the root (rrg.rank.warm_passages)
    used INTEGER NOT NULL   -- unix time written
)
"""
_TERMS_SCHEMA = """
CREATE TABLE IF NOT EXISTS terms (
    key TEXT PRIMARY KEY,   -- xxh3-64 of a passage's text, as its vectors' key
    data BLOB NOT NULL,     -- its words' counts, packed (rrg.rank.kept_terms)
    used INTEGER NOT NULL   -- unix time of the last write or mark
)
"""
_TABLES = (
    _SCHEMA,
    _PRUNE_SCHEMA,
    _PIECES_SCHEMA,
    _CUTS_SCHEMA,
    _ORDERS_SCHEMA,
    _MARKS_SCHEMA,
    _TERMS_SCHEMA,
)
#: Bound of the kept cuts, apart from the vectors' (about 3,000 files of 20 KB, packed).
MAX_CUT_BYTES = 32 * 1024 * 1024
#: Bound of the kept orders (a query's order over 2,000 files packs to about 4 KB).
MAX_ORDER_BYTES = 16 * 1024 * 1024
#: Bound of the kept word counts of passages (sympy's 50,700 passages: about 20 MB).
MAX_TERM_BYTES = 64 * 1024 * 1024


def vectors_path(index_path: Path) -> Path:
    return index_path.with_name(index_path.stem + ".vectors.sqlite")


class VectorCache:
    """Content-hash keyed vectors; reads never block, writes take the writer lock briefly."""

    def __init__(self, index_path: Path, max_bytes: int = MAX_BYTES) -> None:
        self.index_path = index_path
        self.path = vectors_path(index_path)
        self.max_bytes = max_bytes

    def _connect(self) -> sqlite3.Connection:
        """The open file; a reader never writes to it (see ``rrg.index.sqlitefile``)."""
        return connect(self.path, min(10, index_busy_s()))

    def get(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        return self.read(model, keys)[0]

    def read(self, model: str, keys: list[str]) -> tuple[dict[str, np.ndarray], list[str]]:
        """The vectors held for these keys, and those of them last marked used more than
        MARK_AFTER_S ago (``put`` marks them)."""
        if not self.path.exists():
            return {}, []
        out: dict[str, np.ndarray] = {}
        stale: list[str] = []
        before = time.time() - MARK_AFTER_S
        db = self._connect()
        try:
            select = "SELECT key, vec, used FROM vectors WHERE model=? AND key"
            for key, vec, used in _rows_in(db, select, keys, model):
                out[key] = np.frombuffer(vec, "<f2").astype(np.float32)
                if used < before:
                    stale.append(key)
        finally:
            db.close()
        return out, stale

    def put(self, model: str, fresh: dict[str, np.ndarray], hits: list[str]) -> bool:
        """Store new vectors, mark hits as used, prune; False when the lock was busy."""
        if not fresh and not hits:
            return True
        now = int(time.time())
        return self._store(
            "INSERT OR REPLACE INTO vectors VALUES (?,?,?,?)",
            [(k, model, v.astype("<f2").tobytes(), now) for k, v in fresh.items()],
            "UPDATE vectors SET used=? WHERE key=? AND model=?",
            [(now, k, model) for k in hits],
            now,
            LOCK_WAIT_S,
        )

    def _store(
        self,
        insert: str,
        rows: list[tuple[object, ...]],
        mark: str,
        marks: list[tuple[object, ...]],
        now: int,
        wait_s: float,
    ) -> bool:
        """New rows written and read ones marked used, in one transaction that prunes;
        False when the lock was busy past ``wait_s``."""

        def write(db: sqlite3.Connection) -> None:
            db.execute("BEGIN IMMEDIATE")
            for statement in _TABLES:  # a file an older rrg made, or left half-made
                db.execute(statement)
            if rows:
                db.executemany(insert, rows)
            if marks:
                db.executemany(mark, marks)
            self._prune(db, now)
            db.execute("COMMIT")

        return self._write(write, wait_s)

    def _write(self, work: Callable[[sqlite3.Connection], None], wait_s: float) -> bool:
        """Run ``work`` on the file under the writer lock; False when the lock was busy.

        A damaged file (not a database, or malformed) is made anew and written again: it
        holds nothing that cannot be computed again, and left in place it would fail every
        write, so that every later query paid the model for what it had read before.
        """
        with writer_lock(self.index_path, wait_s=wait_s) as got:
            if not got:
                return False
            for attempt in range(2):
                create_once(self.path, _TABLES)
                db = self._connect()
                try:
                    # No fsync: a write cost 20-24 ms on a VM's disk, two fsyncs (the log at
                    # commit, the file at the checkpoint of the last close), against 0.8 ms,
                    # and a new query writes several times. The cache holds nothing that
                    # cannot be computed again; SQLite's log keeps it whole when a process
                    # dies, and a power cut that damages it has it made anew (below).
                    db.execute("PRAGMA synchronous=OFF")
                    work(db)
                    return True
                except sqlite3.DatabaseError as err:
                    if attempt or not is_damage(err):
                        raise
                finally:
                    db.close()
                for part in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
                    with contextlib.suppress(FileNotFoundError):
                        part.unlink()
        return True

    def get_pieces(self, model: str, key: str) -> np.ndarray | None:
        """A query's WordPiece ids as kept by ``put_pieces``; None when not kept."""
        if not self.path.exists():
            return None
        db = self._connect()
        try:
            row = db.execute(
                "SELECT ids FROM pieces WHERE key=? AND model=?", (key, model)
            ).fetchone()
        except sqlite3.OperationalError:
            return None  # a file an older rrg made: no table of pieces yet
        finally:
            db.close()
        return None if row is None else np.frombuffer(row[0], "<i4").astype(np.int32)

    def put_pieces(self, model: str, key: str, ids: np.ndarray) -> bool:
        """Keep a query's WordPiece ids; False when the lock was busy. It never waits for
        the lock: keeping them saves the next run 13-18 ms, less than a wait behind
        another rrg's refresh could cost this one."""

        def write(db: sqlite3.Connection) -> None:
            db.execute(_PIECES_SCHEMA)
            db.execute(
                "INSERT OR REPLACE INTO pieces VALUES (?,?,?,?)",
                (key, model, np.asarray(ids, "<i4").tobytes(), int(time.time())),
            )

        return self._write(write, wait_s=0)

    def reader(self) -> sqlite3.Connection | None:
        """A connection for a series of reads (``get_cuts``'s ``db``: opening one costs
        0.5 ms, a read of a kept cut 0.01 ms); None where the file is not made yet."""
        return self._connect() if self.path.exists() else None

    def get_cuts(
        self, keys: list[str], db: sqlite3.Connection | None = None
    ) -> dict[str, tuple[bytes, int]]:
        """Files' passages as kept by ``put_cuts``, and when each was last marked used, by
        key; none where none is kept (or the file is an older rrg's, with no table of cuts
        yet). ``db``: the caller's connection from ``reader`` (else one for this call)."""
        if not keys or (db is None and not self.path.exists()):
            return {}
        own = db is None
        conn = self._connect() if db is None else db
        try:
            marks = ",".join("?" * len(keys))
            query = f"SELECT key, data, used FROM cuts WHERE key IN ({marks})"
            return {
                str(key): (bytes(data), int(used)) for key, data, used in conn.execute(query, keys)
            }
        except sqlite3.OperationalError:
            return {}
        finally:
            if own:
                conn.close()

    def put_cuts(self, fresh: dict[str, bytes], hits: list[str]) -> bool:
        """Keep new cuts, mark those read as used; False when the lock was busy. It never
        waits for the lock: a cut not kept is only made again by the next query."""
        return self._put_keyed("cuts", fresh, hits, wait_s=0)

    def get_terms(self, keys: list[str]) -> dict[str, tuple[bytes, int]]:
        """Passages' word counts as kept by ``put_terms``, and when each was last marked
        used, by key; none where none is kept (or the file is older, with no such table)."""
        if not keys or not self.path.exists():
            return {}
        out: dict[str, tuple[bytes, int]] = {}
        db = self._connect()
        try:
            for key, data, used in _rows_in(
                db, "SELECT key, data, used FROM terms WHERE key", keys
            ):
                out[str(key)] = (bytes(data), int(used))
        except sqlite3.OperationalError:
            return {}
        finally:
            db.close()
        return out

    def put_terms(self, fresh: dict[str, bytes], hits: list[str], wait_s: float = 0) -> bool:
        """Keep passages' word counts, mark those read as used; False when the lock was
        busy past ``wait_s``."""
        return self._put_keyed("terms", fresh, hits, wait_s)

    def _put_keyed(
        self, table: str, fresh: dict[str, bytes], hits: list[str], wait_s: float
    ) -> bool:
        """New rows of a table of (key, data, used) written and read ones marked used."""
        if not fresh and not hits:
            return True
        now = int(time.time())
        return self._store(
            f"INSERT OR REPLACE INTO {table} VALUES (?,?,?)",
            [(key, data, now) for key, data in fresh.items()],
            f"UPDATE {table} SET used=? WHERE key=?",
            [(now, key) for key in hits],
            now,
            wait_s,
        )

    def get_order(self, key: str) -> tuple[bytes, int] | None:
        """A query's order as kept by ``put_order``, and when it was last marked used; None
        where none is kept (or the file is an older rrg's, with no table of orders yet)."""
        if not self.path.exists():
            return None
        db = self._connect()
        try:
            row = db.execute("SELECT data, used FROM orders WHERE key=?", (key,)).fetchone()
        except sqlite3.OperationalError:
            return None
        finally:
            db.close()
        return None if row is None else (bytes(row[0]), int(row[1]))

    def put_order(self, key: str, data: bytes) -> bool:
        """Keep a query's order; False when the lock was busy. It never waits for the lock:
        an order not kept is only ranked again."""
        now = int(time.time())
        insert = "INSERT OR REPLACE INTO orders VALUES (?,?,?)"
        return self._store(insert, [(key, data, now)], "", [], now, wait_s=0)

    def mark_order_used(self, key: str) -> bool:
        """Mark a kept order read now (the bound drops the least recently used first)."""
        now = int(time.time())
        mark = "UPDATE orders SET used=? WHERE key=?"
        return self._store("", [], mark, [(now, key)], now, wait_s=0)

    def has_mark(self, key: str) -> bool:
        """Whether ``put_mark`` marked this key (False where the file or table is not made)."""
        if not self.path.exists():
            return False
        db = self._connect()
        try:
            return db.execute("SELECT 1 FROM marks WHERE key=?", (key,)).fetchone() is not None
        except sqlite3.OperationalError:
            return False  # a file an older rrg made: no table of marks yet
        finally:
            db.close()

    def put_mark(self, key: str) -> bool:
        """Mark a key as done; False when the lock was busy."""

        def write(db: sqlite3.Connection) -> None:
            db.execute(_MARKS_SCHEMA)
            db.execute("INSERT OR REPLACE INTO marks VALUES (?,?)", (key, int(time.time())))

        return self._write(write, wait_s=LOCK_WAIT_S)

    def drop_mark(self, key: str) -> bool:
        """Unmark a key; False when the lock was busy."""

        def write(db: sqlite3.Connection) -> None:
            db.execute(_MARKS_SCHEMA)
            db.execute("DELETE FROM marks WHERE key=?", (key,))

        return self._write(write, wait_s=LOCK_WAIT_S)

    def _prune(self, db: sqlite3.Connection, now: int) -> None:
        """Drop what is old or over the bound. Both scan the table, so they run only when
        the file has grown past the bound or a day has passed since the last prune."""
        last = db.execute("SELECT value FROM prune WHERE key='last'").fetchone()
        size = self.path.stat().st_size if self.path.exists() else 0
        if last is not None and now - int(last[0]) < 86400 and size <= self.max_bytes:
            return
        db.execute("INSERT OR REPLACE INTO prune VALUES ('last', ?)", (now,))
        db.execute("DELETE FROM vectors WHERE used < ?", (now - MAX_AGE_DAYS * 86400,))
        db.execute("DELETE FROM pieces WHERE used < ?", (now - MAX_AGE_DAYS * 86400,))
        db.execute("DELETE FROM cuts WHERE used < ?", (now - MAX_AGE_DAYS * 86400,))
        db.execute("DELETE FROM orders WHERE used < ?", (now - MAX_AGE_DAYS * 86400,))
        db.execute("DELETE FROM marks WHERE used < ?", (now - MAX_AGE_DAYS * 86400,))
        db.execute("DELETE FROM terms WHERE used < ?", (now - MAX_AGE_DAYS * 86400,))
        _bound(db, "vectors", "vec", self.max_bytes)
        _bound(db, "cuts", "data", MAX_CUT_BYTES)
        _bound(db, "orders", "data", MAX_ORDER_BYTES)
        _bound(db, "terms", "data", MAX_TERM_BYTES)

    def stats(self) -> tuple[int, int]:
        """(vectors, bytes of vector data)."""
        counts, size = self.counts()
        return sum(counts.values()), size

    def counts(self) -> tuple[dict[str, int], int]:
        """Vectors of each kind (the model tag's first word: ``passage``, ``static``,
        ``excerpt``) and the bytes of all vector data."""
        if not self.path.exists():
            return {}, 0
        db = self._connect()
        try:
            counts = {
                str(kind): int(n)
                for kind, n in db.execute(
                    "SELECT substr(model, 1, instr(model || '-', '-') - 1), COUNT(*) "
                    "FROM vectors GROUP BY 1"
                )
            }
            size = db.execute("SELECT COALESCE(SUM(LENGTH(vec)), 0) FROM vectors").fetchone()[0]
        finally:
            db.close()
        return counts, int(size)

    def cut_counts(self) -> tuple[int, int]:
        """Files whose passages are kept, and the bytes they take."""
        return self._kept("cuts")

    def term_counts(self) -> tuple[int, int]:
        """Passages whose word counts are kept, and their bytes."""
        return self._kept("terms")

    def order_counts(self) -> tuple[int, int]:
        """Queries whose order is kept, and the bytes they take."""
        return self._kept("orders")

    def _kept(self, table: str) -> tuple[int, int]:
        if not self.path.exists():
            return 0, 0
        db = self._connect()
        try:
            rows, size = db.execute(
                f"SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0) FROM {table}"
            ).fetchone()
        except sqlite3.OperationalError:
            return 0, 0  # an older rrg's file: no such table yet
        finally:
            db.close()
        return int(rows), int(size)


def _rows_in(
    db: sqlite3.Connection, select: str, keys: list[str], *first: object
) -> Iterator[tuple[Any, ...]]:
    """The rows of ``select`` (ending in the column the keys are of) for these keys, 500 a
    statement (SQLite's bound on a statement's parameters was 999 until 3.32); ``first``:
    the parameters before the keys."""
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        marks = ",".join("?" * len(chunk))
        yield from db.execute(f"{select} IN ({marks})", (*first, *chunk))


def _bound(db: sqlite3.Connection, table: str, column: str, max_bytes: int) -> None:
    """A table's rows down to 90% of ``max_bytes`` when over it, least recently used first,
    so that pruning is rare."""
    size = f"LENGTH({column}) + 64"
    total = db.execute(f"SELECT COALESCE(SUM({size}), 0) FROM {table}").fetchone()[0]
    if total <= max_bytes:
        return
    excess = total - int(max_bytes * 0.9)
    doomed = []
    rows = db.execute(f"SELECT rowid, {size} FROM {table} ORDER BY used, rowid").fetchall()
    for rowid, row_size in rows:
        if excess <= 0:
            break
        doomed.append((rowid,))
        excess -= row_size
    db.executemany(f"DELETE FROM {table} WHERE rowid=?", doomed)


def cached_vectors(
    cache: VectorCache, model: str, keys: list[str], encode: Callable[[list[str]], np.ndarray]
) -> dict[str, np.ndarray]:
    """Vectors for keys: cached ones read (and marked used, where last marked MARK_AFTER_S
    ago or more), the rest computed by ``encode(missing_keys)`` (returning one row per key)
    and stored; an unwritable cache only costs re-encoding."""
    try:
        found, stale = cache.read(model, sorted(set(keys)))
    except sqlite3.Error:
        found, stale = {}, []
    missing = sorted(set(keys) - set(found))
    fresh: dict[str, np.ndarray] = {}
    if missing:
        rows = encode(missing)
        fresh = {k: np.asarray(v, np.float32) for k, v in zip(missing, rows, strict=True)}
    # A full or read-only disk only costs re-encoding: the vectors still serve this call.
    with contextlib.suppress(OSError, sqlite3.Error):
        cache.put(model, fresh, stale)
    # Rounded as stored, so that a first call ranks exactly as the repeats do.
    for key, vec in fresh.items():
        found[key] = vec.astype(np.float16).astype(np.float32)
    return found
