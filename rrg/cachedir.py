"""Where rrg keeps its files: the user cache dir (platformdirs), or ``RRG_CACHE_DIR``."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import xxhash

from rrg.errors import RrgError


def cache_dir() -> Path:
    """The cache root, created private to the user (0700): it holds what was read of files."""
    override = os.environ.get("RRG_CACHE_DIR")
    if override:
        root = Path(override).absolute()
    else:
        import platformdirs

        root = Path(platformdirs.user_cache_dir("rrg"))
    try:
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as err:
        raise RrgError(f"cannot create the cache dir {root}: {err.strerror}") from err
    return root


def index_file(root: Path, model_key: str) -> Path:
    """The index of one searched root and model: named by a hash of both, plus the root's name."""
    digest = xxhash.xxh64_hexdigest(os.fsencode(root) + b"\0" + model_key.encode())
    safe_name = "".join(c if c.isalnum() or c in "-_." else "_" for c in root.name)[:40]
    folder = cache_dir() / "index"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder / f"{safe_name or 'root'}-{digest}.sqlite"


def models_dir() -> Path:
    """Models the user imported (``--import-model``), under the cache dir."""
    folder = cache_dir() / "models"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def prepared_dir() -> Path:
    """What rrg prepares once from an installed model (its static token table, its int8
    graph): ``RRG_PREPARED_DIR``, else the user's cache dir, shared by every
    ``RRG_CACHE_DIR``. They depend on the model alone, and preparing them takes 15 s on an
    idle machine (minutes on a loaded one): a fresh cache dir (a CI run, a container's,
    a test run's, an agent sandbox's) must not pay it again. The cache dir's own folder
    serves where that one cannot be made (a read-only home)."""
    override = os.environ.get("RRG_PREPARED_DIR")
    if override:
        folder = Path(override).absolute()
    else:
        import platformdirs

        folder = Path(platformdirs.user_cache_dir("rrg")) / "prepared"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if os.access(folder, os.W_OK | os.X_OK):
            return folder
    except OSError:
        if override:
            raise RrgError(f"cannot create RRG_PREPARED_DIR {folder}") from None
    fallback = cache_dir() / "prepared"
    fallback.mkdir(parents=True, exist_ok=True, mode=0o700)
    return fallback


@contextmanager
def preparing(name: str, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the machine's lock for preparing ``name`` in the prepared dir, waiting for it.
    Several first searches at once (agents started together on a fresh machine or
    container) each distilled the model's table: three took 54-57 s each, where one alone
    takes 18-20, and 650 MB each. The caller looks again once it holds the lock: another
    process may have made the file meanwhile. Where no lock can be had (a read-only
    folder), each prepares its own, as before."""
    with waited_lock(prepared_dir, f".{name}.lock", on_wait):
        yield


@contextmanager
def waited_lock(
    folder: Callable[[], Path], name: str, on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold the flock of the file ``name`` in ``folder()``, waiting for it as long as it
    takes (``on_wait`` is told first, where another process holds it); where the file
    cannot be had at all (no usable folder, a read-only one), go on without it: the lock
    spares work or memory, it guards no file."""
    try:
        fd = os.open(folder() / name, os.O_RDWR | os.O_CREAT, 0o600)
    except (OSError, RrgError):
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)  # released with the descriptor, or the process
        yield
    finally:
        os.close(fd)
