"""Writing a file or a folder so that readers see the old content or the new one, never
half of it."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
import tokenize
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rrg.errors import limit_hint


def atomic_write_bytes(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextmanager
def new_folder(parent: Path, name: str) -> Iterator[Path]:
    """A folder ``parent/name`` that appears whole or not at all: the block fills it under
    a temporary name (``.tmp-NAME``, which a cleaner may remove after a kill), and it is
    renamed into place when the block ends, or removed when the block fails."""
    tmp = parent / f".tmp-{name}"
    tmp.mkdir(mode=0o700)
    try:
        yield tmp
        os.rename(tmp, parent / name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


#: What ``np.load`` raises on a file that is not an array as ``save_array`` left it: cut
#: short (ValueError; EOFError when empty), or a header whose text no longer parses (its
#: dict is read with Python's tokenizer and ``ast``) or names no dtype.
NOT_AN_ARRAY = (ValueError, EOFError, SyntaxError, tokenize.TokenError, TypeError)


def save_array(path: Path, array: object) -> None:
    """One ``.npy`` file (``np.save``'s bytes), synced before the folder holding it is
    renamed into place."""
    import numpy as np  # a leaf the pass-through path imports: numpy only when called

    data = np.ascontiguousarray(array)
    with open(path, "wb") as fh:
        # Not np.save: on a real file it writes with ndarray.tofile, whose failure on a
        # full disk carries no errno ("38260 requested and 17904 written"); a write of
        # the buffer says "No space left on device".
        np.lib.format.write_array_header_1_0(fh, np.lib.format.header_data_from_array_1_0(data))
        if data.size:  # a view with a zero in its shape cannot be cast to bytes
            fh.write(data.data.cast("B"))
        fh.flush()
        os.fsync(fh.fileno())


#: Below this much free space on a write's disk, a failed write names it: SQLite says only
#: "disk I/O error" where the disk is full.
LOW_SPACE = 64 << 20


def size_said(count: int) -> str:
    """A number of bytes as rrg's messages and status write it: MB from 0.1 MB, else KB."""
    return f"{count / 1e6:.1f} MB" if count >= 100_000 else f"{count / 1e3:.1f} KB"


def write_failure(err: Exception, where: Path) -> str:
    """Why a write under ``where`` failed, in the words a person acts on: the system's, and
    the space its disk has left where that is low or the error says so."""
    said = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
    if isinstance(err, OSError):
        said += limit_hint(err.errno)  # ulimit -n: the process's limit, not the disk's
    full = isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)
    folder = where
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # the space of the disk it would have been made on
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return said
    if full or free < LOW_SPACE:
        return f"{said}; the disk holding {where} has {size_said(free)} free"
    return said
