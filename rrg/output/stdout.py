"""Standard output, written from one place: the pipeline's stages hand their bytes here.

rrg's own lines interleave with output that rg's processes write straight to the same
descriptor, so every write goes out at once (Python's buffer flushed first, then the bytes
written to fd 1 whole), never left in a buffer behind rg's.
"""

from __future__ import annotations

import os
import sys


def write(data: bytes) -> None:
    """Write bytes to standard output now, after whatever Python still buffered."""
    sys.stdout.flush()
    view = memoryview(data)
    while view:
        written = os.write(1, view)
        view = view[written:]


def say(text: str) -> None:
    """One line of rrg's own report (``--index``, ``--recall``'s scope line)."""
    write(os.fsencode(text if text.endswith("\n") else text + "\n"))
