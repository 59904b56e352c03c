"""Writing a file or a folder so that readers see the old content or the new one, never
half of it."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


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


def save_array(path: Path, array: object) -> None:
    """One ``.npy`` file, synced before the folder holding it is renamed into place."""
    import numpy as np  # a leaf the pass-through path imports: numpy only when called

    with open(path, "wb") as fh:
        np.save(fh, np.ascontiguousarray(array), allow_pickle=False)
        fh.flush()
        os.fsync(fh.fileno())
