"""The rg processes a search starts, stopped with it.

A search run in its own process (``RRG_RESIDENT=0``, or where no resident process starts)
that got SIGTERM or SIGHUP alone (an agent's tool stopping a command by its pid, not its
process group; a closed terminal) died at once and left its rg processes running: one
writing straight to the terminal went on printing there, one walking a large tree walked
on until it first wrote to the pipe nobody read. A search the resident process runs is in
a process group of its own, which the resident process stops whole
(``rrg.cli.resident_server``). The library installs no handler: signals are its caller's."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import weakref
from collections.abc import Iterator, Sequence
from typing import IO

#: rg's processes not yet reaped. Weak: a process reaped and dropped leaves by itself.
_LIVE: weakref.WeakSet[subprocess.Popen[bytes]] = weakref.WeakSet()
#: Whether the main thread is between starting an rg and keeping it in ``_LIVE``, and the
#: signal that came meanwhile: the handler waits for the process to be kept, or the rg
#: started last would run on (a test signalling rrg as soon as its rg appeared left it
#: waiting on a FIFO in 5 of 40 runs on a loaded machine).
_STARTING = False
_DEFERRED: list[int] = []

_Stream = int | IO[bytes] | None


def started(
    cmd: Sequence[str | bytes],
    *,
    stdout: _Stream,
    stderr: _Stream,
    stdin: _Stream = subprocess.DEVNULL,
) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(cmd, ...)``, kept to be stopped with this process."""
    global _STARTING
    main = threading.current_thread() is threading.main_thread()
    if main:
        _STARTING = True  # the handler runs on the main thread, between its steps
    try:
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr, stdin=stdin)
        _LIVE.add(proc)
    finally:
        if main:
            _STARTING = False
            if _DEFERRED:
                _stop_and_die(_DEFERRED[0])
    return proc


def stop_all() -> None:
    """SIGTERM to every rg process started here still running (rg's own way to stop)."""
    for proc in list(_LIVE):
        with contextlib.suppress(OSError):
            proc.send_signal(signal.SIGTERM)  # it checks that the pid is still its child's


def _stop_and_die(signum: int) -> None:
    """Stop rg's processes, then this one by ``signum`` (on the main thread)."""
    stop_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


@contextlib.contextmanager
def stopped_with_this_process() -> Iterator[None]:
    """Within: SIGTERM or SIGHUP stops rg's processes, then this one by that signal, as
    before (``timeout`` and a shell see what they saw). A signal the caller ignores stays
    ignored (``nohup``)."""
    before = {}

    def stop(signum: int, _frame: object) -> None:
        if _STARTING:
            _DEFERRED.append(signum)  # ``started`` stops all once its rg is kept
            return
        _stop_and_die(signum)

    for signum in (signal.SIGTERM, signal.SIGHUP):
        handler = signal.getsignal(signum)
        if handler == signal.SIG_DFL:
            before[signum] = handler
            signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
