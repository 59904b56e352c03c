"""Standard output, written from one place: the pipeline's steps hand their bytes here.

rrg's own lines interleave with output that rg's processes write straight to the same
descriptor, so every write goes out at once (Python's buffer flushed first, then the bytes
written to fd 1 whole), never left in a buffer behind rg's.
"""

from __future__ import annotations

from rrg import streams


def write(data: bytes) -> None:
    """Write bytes to standard output now, after whatever Python still buffered (or to the
    call's buffer while a server answers one: ``rrg.streams``)."""
    streams.out(data)


def say(text: str) -> None:
    """One line of rrg's own report (``--index``, ``--recall``'s scope line)."""
    write(streams.encoded(text if text.endswith("\n") else text + "\n"))
