"""Where rrg's output goes: standard output and standard error, or, while the MCP server
answers a call (``rrg.server``), that call's own buffers.

Every byte rrg or its rg runs print passes here, so that a server, whose standard output is
its protocol channel, can answer a call with what the command line would have printed. A
context variable, not a global: calls answered at once on threads each keep their own.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass
class Captured:
    """One call's output: what would have gone to standard output and to standard error."""

    out: bytearray = field(default_factory=bytearray)
    err: bytearray = field(default_factory=bytearray)
    said: set[bytes] = field(default_factory=set)  # rg's messages written (``first_said``)


_capture: ContextVar[Captured | None] = ContextVar("rrg_capture", default=None)


def _in_utf8(err: UnicodeError) -> tuple[bytes, int]:
    """What the file system's encoding cannot write, in UTF-8, as rg writes its own words;
    a character that stands for a byte no encoding read (``surrogateescape``, as Python
    decodes arguments and ``os.fsdecode`` a path) as that byte."""
    assert isinstance(err, UnicodeEncodeError)
    return err.object[err.start : err.end].encode("utf-8", "surrogateescape"), err.end


codecs.register_error("rrg.in_utf8", _in_utf8)


def encoded(text: str) -> bytes:
    """rrg's own words as bytes for a stream: a path or an argument as the bytes it came
    from, the rest (the scope line's arrow, a query's letters) as the locale writes it, or
    in UTF-8 where it cannot. ``str.encode()`` raised on a path that is not UTF-8 (a
    traceback for ``--scope-file $'caf\\xe9'``), and ``os.fsencode`` on any letter an ASCII
    or Latin-1 locale has not (``--recall`` under ``LC_ALL=C PYTHONUTF8=0``)."""
    return text.encode(sys.getfilesystemencoding(), "rrg.in_utf8")


def out(data: bytes) -> None:
    """Write to standard output now, after whatever Python still buffered."""
    held = _capture.get()
    if held is not None:
        held.out += data
        return
    sys.stdout.flush()
    view = memoryview(data)
    while view:
        written = os.write(1, view)
        view = view[written:]


def err(data: bytes) -> None:
    held = _capture.get()
    if held is not None:
        held.err += data
        return
    sys.stderr.flush()
    sys.stderr.buffer.write(data)
    sys.stderr.flush()


#: rg's messages written by this process (one search: a command line's own process, or
#: the child the resident process forks for it).
_SAID: set[bytes] = set()


def first_said(message: bytes) -> bool:
    """Whether rg's ``message`` is said for the first time in this search (a library
    call's: each captures its own). rrg runs rg several times for one search, and each run
    says what rg says once in its own (a config file it cannot read, a file it may not
    open): said as often as runs met it, where rg says it once."""
    held = _capture.get()
    said = held.said if held is not None else _SAID
    if message in said:
        return False
    said.add(message)
    return True


def capturing() -> bool:
    """Whether output is captured: rg's runs must then be piped, never left to write to the
    inherited descriptors."""
    return _capture.get() is not None


@contextmanager
def captured() -> Iterator[Captured]:
    held = Captured()
    token = _capture.set(held)
    try:
        yield held
    finally:
        _capture.reset(token)


def leave_gone_readers() -> None:
    """Where a reader left (``| head``, ``2>&1 | head``), point that standard stream at
    /dev/null, so that what it still holds goes nowhere instead of failing again at exit.

    A stream that failed keeps its bytes in Python's buffer, and each later flush raises
    once more. rg exits 0 once a reader of either of its streams left, and so must rrg:
    Python buffers standard error as well (unless ``PYTHONUNBUFFERED`` is set), so a
    message written after the reader left (the cap's notice) used to fail again at exit,
    and rrg exited 2."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # started with that descriptor closed
            continue
        try:
            stream.flush()
        except BrokenPipeError:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
            os.close(devnull)
