"""Every file rrg keeps for one root, seen and removed together: what ``--index-status``
lists and ``--index-clear`` deletes (under the writer lock, which guards them all), and
what goes by itself once the root's folder is gone, the root is unused for
``MAX_AGE_DAYS``, or the roots together pass ``RRG_CACHE_MAX_MB`` (``remove_stale_roots``)."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import textwrap
import time
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from pathlib import Path

from rrg.atomic import atomic_write_bytes, size_said, write_failure
from rrg.environment import cache_max_bytes
from rrg.errors import RrgError
from rrg.index.embedded import embed_dir
from rrg.index.scopes import scope_files
from rrg.index.store import (
    IndexStore,
    IndexUnavailable,
    builder_lock_path,
    builder_running,
    busy_reason,
    segments_dir,
    stop_builder,
    writer_busy,
    writer_lock,
    writer_lock_path,
)
from rrg.index.vectors import (
    MAX_AGE_DAYS,
    MAX_BYTES,
    MAX_CUT_BYTES,
    MAX_ORDER_BYTES,
    MAX_TERM_BYTES,
    VectorCache,
    vectors_path,
)


def root_files(index_path: Path) -> list[Path]:
    """The index's registry, its SQLite side files, its segments folder, the vector cache and
    its side files, the embedding index and its lock, the file naming the root, the writer
    lock."""
    vectors = vectors_path(index_path)
    names = [
        index_path,
        Path(f"{index_path}-wal"),
        Path(f"{index_path}-shm"),
        segments_dir(index_path),
        vectors,
        Path(f"{vectors}-wal"),
        Path(f"{vectors}-shm"),
        embed_dir(index_path),
        writer_lock_path(embed_dir(index_path)),
        builder_lock_path(index_path),
        root_record_path(index_path),
        writer_lock_path(index_path),
    ]
    return [p for p in names if p.exists()]


def root_record_path(index_path: Path) -> Path:
    """The file beside an index that names the folder it serves (the index's own name holds
    only a hash of it)."""
    return Path(f"{index_path}.root")


#: A root's record is marked used (its time set to now) at most once in this many seconds:
#: a day, the grain of ``MAX_AGE_DAYS``, so that a search writes no more than a stat.
USE_MARK_S = 86400


def record_root(index_path: Path, root: bytes) -> None:
    """Name the folder ``index_path`` serves beside it, once, and mark the root used today
    (the record's time): what lets ``remove_stale_roots`` tell an index whose folder is
    gone, or one unused for ``MAX_AGE_DAYS``. Bookkeeping alone: a cache that cannot be
    written keeps none, and the search goes on."""
    record = root_record_path(index_path)
    with suppress(OSError):
        try:
            marked = record.stat().st_mtime
        except FileNotFoundError:
            atomic_write_bytes(record, root)
            return
        if marked < time.time() - USE_MARK_S:
            os.utime(record)


def remove_stale_roots(index_dir: Path) -> list[bytes]:
    """Delete every file kept for a root whose folder no longer exists, or that no search
    used for ``MAX_AGE_DAYS`` (as its vector cache drops entries unused that long); then,
    while the roots left take more than ``RRG_CACHE_MAX_MB`` together, those used longest
    ago. The folders whose files went.

    An agent's harness clones a repository into a temporary folder for each task and
    removes it after: each clone's index and vector cache (70 MB for sympy's, the vector
    cache up to 256 MB) stayed in the cache dir for good; so did every project searched
    once. A root in use (its writer or embedding lock held, its background build running)
    is left for a later pass, as is a folder that cannot be looked at (a permission, a
    stale mount, a drive not mounted) and is still in use. Never raises: a search calls
    it."""
    removed: list[bytes] = []
    try:
        records = sorted(index_dir.glob("*.sqlite.root"))
    except OSError:
        return removed
    kept: list[tuple[Path, bytes]] = []
    for record in records:
        try:
            root = record.read_bytes()
            if not root.startswith(b"/"):
                continue
            if not _stale(record, root):
                kept.append((record, root))
            elif _remove_while(record, partial(_stale, record, root)):
                removed.append(root)
        except OSError:
            continue
    return removed + _remove_over_budget(index_dir, kept)


def _remove_over_budget(index_dir: Path, kept: list[tuple[Path, bytes]]) -> list[bytes]:
    """The roots used longest ago removed while every root's files together pass
    ``RRG_CACHE_MAX_MB``; a root used within the last day stays, however big (two large
    roots in use by turns would otherwise rebuild each other's files away)."""
    try:
        budget = cache_max_bytes()
        sizes = bytes_by_root(index_dir) if budget is not None else {}
    except (RrgError, OSError):  # a bad value is the command line's to say; a library
        return []  # caller keeps every root
    total = sum(sizes.values())
    removed: list[bytes] = []
    if budget is None or total <= budget:
        return removed
    by_use = sorted(kept, key=lambda kept_root: _marked(kept_root[0]))
    for record, root in by_use:
        if total <= budget:
            break
        if _unused_a_day(record) and _remove_while(record, partial(_unused_a_day, record)):
            total -= sizes.get(_index_of(record), 0)
            removed.append(root)
    return removed


def bytes_by_root(index_dir: Path) -> dict[Path, int]:
    """What each root's files take on disk, by its index's path: one listing of the cache
    dir, its files grouped by the name they share (``NAME-HASH``), where looking up each
    root's files one by one took 0.2 s for 1,000 roots (docs/benchmarks.md)."""
    sizes: dict[Path, int] = {}
    with os.scandir(index_dir) as entries:
        for entry in entries:
            shared = _SHARED_NAME.match(entry.name)
            if shared:
                index_path = index_dir / f"{shared[1]}.sqlite"
                sizes[index_path] = sizes.get(index_path, 0) + _entry_bytes(entry)
    return sizes


#: The part of a file's name every file kept for one root starts with, before its first
#: dot: the root's name and the hash of its path and model (``rrg.cachedir.index_file``).
_SHARED_NAME = re.compile(r"^(.*-[0-9a-f]{16})\.")


def _entry_bytes(entry: os.DirEntry[str]) -> int:
    """A file's size, or a folder's files' summed; what went meanwhile counts nothing."""
    try:
        if entry.is_dir(follow_symlinks=False):
            with os.scandir(entry.path) as inner:
                return sum(_entry_bytes(child) for child in inner)
        return entry.stat(follow_symlinks=False).st_size
    except FileNotFoundError:
        return 0


def _index_of(record: Path) -> Path:
    """The index whose folder ``record`` names."""
    return Path(str(record)[: -len(".root")])


def _marked(record: Path) -> float:
    """When a search last marked the root used (0 where that cannot be read)."""
    try:
        return record.stat().st_mtime
    except OSError:
        return 0.0


def _unused_a_day(record: Path) -> bool:
    """Whether no search used the root within the last day: its mark, set at most once
    in ``USE_MARK_S``, is older than twice that."""
    return _marked(record) < time.time() - 2 * USE_MARK_S


def _stale(record: Path, root: bytes) -> bool:
    """Whether the root's folder is gone or no search used it for ``MAX_AGE_DAYS``."""
    return not _exists(root) or record.stat().st_mtime < time.time() - MAX_AGE_DAYS * 86400


def _exists(folder: bytes) -> bool:
    """Whether ``folder`` may still exist: only a folder the system says is not there is
    gone."""
    try:
        os.stat(folder)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def _remove_while(record: Path, still: Callable[[], bool]) -> bool:
    """The root's files deleted under its locks, had at once, where ``still`` holds once
    they are held (a search may have marked it used meanwhile); whether they went."""
    index_path = _index_of(record)
    embedding = embed_dir(index_path)
    if builder_running(index_path):
        return False
    with writer_lock(embedding, wait_s=0) as embedding_free:
        if not embedding_free:
            return False
        with writer_lock(index_path, wait_s=0) as free:
            if not free or not still():
                return False
            _delete_root_files(index_path)
    return True


def clear_root(index_path: Path) -> tuple[bool, bool]:
    """Delete every file of the root while holding its writer lock; whether any existed,
    and whether the background job a search started was stopped for it.

    The lock file goes last, still held: a process waiting on it notices that the file it
    waited on is gone and locks the new one (see ``writer_lock``).
    """
    try:
        return _clear_root(index_path)
    except OSError as err:  # a cache made read-only: its lock cannot even be opened
        reason = write_failure(err, index_path.parent)
        raise RrgError(f"cannot clear index {index_path.name}: {reason}") from err


def _clear_root(index_path: Path) -> tuple[bool, bool]:
    existed = index_path.exists() or vectors_path(index_path).exists()
    embedding = embed_dir(index_path)
    # An embedding writes its parts under the embedding lock alone: the folder goes once
    # none runs (one that did lost its files as it wrote them: an internal error). The job
    # a search started ahead may embed for minutes: it is stopped, as what it computes is
    # cleared anyway (the next search starts another). The embedding lock is had first, as
    # an embedder has it (then the writer lock, a moment a time): a wait for it holding the
    # writer lock held up every search and build of the root (an `--index` failed so).
    stopped = writer_busy(embedding) and stop_builder(index_path)
    with writer_lock(embedding) as free:
        if not free:
            raise RrgError(f"cannot clear it while it is embedded: {busy_reason(embedding)}")
        with writer_lock(index_path) as got:
            if not got:
                raise RrgError(f"cannot clear it: {busy_reason(index_path)}")
            _delete_root_files(index_path)
    return existed, stopped


def _delete_root_files(index_path: Path) -> None:
    """Every file of the root (the caller holds its locks); the writer lock's file goes
    last, still held."""
    for path in root_files(index_path):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
            continue
        with suppress(FileNotFoundError):
            path.unlink()


def _last_used(index_path: Path) -> str:
    """When a search last used the root (its record's time, marked once a day), and when
    its files go unless one uses it again."""
    try:
        days = int((time.time() - root_record_path(index_path).stat().st_mtime) // 86400)
    except OSError:
        return "not recorded yet (the next search records it)"
    when = "today" if days == 0 else f"{days} day{'' if days == 1 else 's'} ago"
    return f"{when} (its files go after {MAX_AGE_DAYS} days unused)"


def _fitted(line: str) -> str:
    """A status line of words (no path in it) folded to a terminal's 80 columns, its
    continuation indented under its name, as ``--help`` is: some ran past 120."""
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    return textwrap.fill(
        line, 80, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )


def _every_root(index_dir: Path) -> str:
    """What the roots of the cache dir take together, against ``RRG_CACHE_MAX_MB``."""
    try:
        records = list(index_dir.glob("*.sqlite.root"))
        budget = cache_max_bytes()
        total = sum(bytes_by_root(index_dir).values())
    except (OSError, RrgError) as err:
        return f"not known ({err})"
    bound = (
        f"at most {budget / 2**20:,.0f} MB before a new root removes those used longest ago"
        if budget
        else "no bound but age"
    )
    return (
        f"{len(records)} root{'' if len(records) == 1 else 's'}, {total / 1e6:.1f} MB "
        f"together ({bound}: RRG_CACHE_MAX_MB)"
    )


def bytes_on_disk(path: Path) -> int:
    """A file's size, or a folder's files' sizes summed. Another process may remove them
    while they are counted (SQLite removes a -wal file with its last connection, a merge
    its old segments or parts): what went counts nothing."""
    if not path.is_dir():
        with suppress(FileNotFoundError):
            return path.stat().st_size
        return 0
    with suppress(FileNotFoundError), os.scandir(path) as entries:
        return sum(_entry_bytes(entry) for entry in entries)
    return 0


def _size(path: Path) -> str:
    size = bytes_on_disk(path)
    if path.is_dir():
        count = 0
        with suppress(FileNotFoundError):
            count = sum(1 for f in path.iterdir() if f.is_dir())
        kind = "part" if path.name.endswith(".embed") else "segment"
        return f"{size / 1e6:.1f} MB in {count} {kind}{'' if count == 1 else 's'}"
    return size_said(size)


def index_status(
    where: str,
    index_path: Path,
    model: str,
    embedded: str | None = None,
    warmed: str | None = None,
) -> tuple[int | None, str]:
    """The files the index holds (None where it cannot be read), and the status as the
    command line says it: which index serves the root, how big and fresh it is, its
    embedding index (``embedded``: how much of the root, or None when never embedded),
    whether its passages are computed ahead (``warmed``, said as given), and every file
    kept for it."""
    count: int | None = None
    try:
        store = IndexStore(index_path, create=False)
        try:
            count = store.live_count()
        finally:
            store.close()
        files = str(count)
    except IndexUnavailable as err:  # a newer rrg's, or one that cannot be read now
        files = f"not readable by this rrg ({err})"
    except Exception as err:  # noqa: BLE001 - any damage (SQLite or format) is reported
        files = f"unreadable ({err}); the next search rebuilds it"
    age = time.time() - index_path.stat().st_mtime
    try:
        cache = VectorCache(index_path)
        counts, vector_bytes = cache.counts()
        static = counts.pop("static", 0)
        cut_files, cut_bytes = cache.cut_counts()
        orders, order_bytes = cache.order_counts()
        counted, term_bytes = cache.term_counts()
        # One part a line: on one line they ran to 290 characters.
        parts = (
            f"{sum(counts.values())} model vectors, {static} static passage vectors, "
            f"{vector_bytes / 1e6:.1f} MB (up to {MAX_BYTES // 2**20} MB)",
            f"the passages of {cut_files} long file{'' if cut_files == 1 else 's'} as cut, "
            f"{cut_bytes / 1e6:.1f} MB (up to {MAX_CUT_BYTES // 2**20} MB)",
            f"the order of {orders} quer{'y' if orders == 1 else 'ies'} asked with a "
            f"pattern, {order_bytes / 1e6:.1f} MB (up to {MAX_ORDER_BYTES // 2**20} MB)",
            f"the word counts of {counted} passage{'' if counted == 1 else 's'}, "
            f"{term_bytes / 1e6:.1f} MB (up to {MAX_TERM_BYTES // 2**20} MB)",
            f"each kept until {MAX_AGE_DAYS} days unused",
        )
        vectors = [f"  vector cache: {parts[0]}", *(f"    {part}" for part in parts[1:])]
    except sqlite3.Error as err:  # damage is repaired by the next write (VectorCache._write)
        vectors = [f"  vector cache: unreadable ({err}); the next search makes it anew"]
    if builder_running(index_path):
        # The same job then computes passages ahead and may embed the root (minutes):
        # the index may be whole meanwhile.
        files += (
            " (a background build started by a search is running: the files not indexed"
            " yet, then passages ahead)"
        )
    lines = [
        where,
        _fitted(f"  files indexed: {files}"),
        f"  last written: {age:.0f} s ago",
        _fitted(f"  last used by a search: {_last_used(index_path)}"),
        _fitted(f"  every root kept: {_every_root(index_path.parent)}"),
        f"  model: {model}",
        f"  file: {index_path}",
        *map(_fitted, vectors),
        _fitted(f"  embedded: {embedded or 'no (rrg --index --embed embeds every passage once)'}"),
        *([_fitted(f"  passages computed ahead: {warmed}")] if warmed else []),
        "  cache files:",
    ]
    lines += [f"    {path} ({_size(path)})" for path in root_files(index_path) if path.exists()]
    try:
        scopes = scope_files()
        total = sum(p.stat().st_size for p in scopes if p.exists())
        lines.append(
            f"  scope files (shared by every root): {len(scopes)} files, {total / 1e3:.1f} KB "
            f"in {scopes[0].parent if scopes else 'none yet'}"
        )
    except RrgError as err:  # the status still tells the rest
        lines.append(f"  scope files: {err}")
    return count, "\n".join(lines) + "\n"
