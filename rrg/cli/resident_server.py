"""The resident process: loads rrg's modules once, then forks a child for each search that
``rrg.cli.resident`` hands it.

Run as ``python -m rrg.cli.resident_server SOCKET``, in a session of its own. One a socket:
the first takes a lock beside it, a second exits at once. The parent only accepts and forks
(it holds no model, no index, no thread), so each child starts as a fresh ``rrg`` would,
minus the imports: it loads the model and opens the index itself, as before. It exits after
``IDLE_S`` without a search, or once its socket is removed or replaced.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import select
import signal
import socket
import struct
import sys
import threading
import time
from typing import Any

from rrg.cli.resident import EXITED, IDLE_S, STARTED


def main() -> None:
    path = sys.argv[1]
    lock = os.open(f"{path}.lock", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # another is starting or serving
    os.ftruncate(lock, 0)
    os.write(lock, f"{os.getpid()}\n".encode())  # which process serves, for a person or a test
    _signals_as_at_start()
    _preload()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # a socket its last server left behind
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    ours = _identity(path)
    # Children are reaped by the kernel; each child resets this before it runs a search.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    last = time.monotonic()
    while time.monotonic() - last < IDLE_S and _still_ours(path, ours):
        ready, _, _ = select.select([listener], [], [], 1.0)
        if not ready:
            continue
        conn, _ = listener.accept()
        last = time.monotonic()
        if os.fork() == 0:
            listener.close()
            os.close(lock)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _serve(conn)  # never returns
        conn.close()
    if _still_ours(path, ours):
        os.unlink(path)
        os.unlink(f"{path}.lock")  # held till exit: one started now makes a new one


def _signals_as_at_start() -> None:
    """Signals as a Python started from a terminal meets them, whoever started this one:
    a script's background job ignores INT and QUIT, nohup HUP, and what the starter ignored
    would stay ignored in every search forked from here (Ctrl-C at a terminal did nothing).
    Which signals a search ignores is its caller's to say: the caller passes on only those
    it does not ignore (``rrg.cli.resident._wait``)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for name in ("SIGQUIT", "SIGHUP", "SIGTERM", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGUSR1"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


def _preload() -> None:
    """What a search imports, and the parsers of every language: forking shares them.
    Nothing that starts a thread (the model's session, a tokenizer's pool) is made here."""
    import rrg.cli.app
    import rrg.cli.prestart
    import rrg.cli.stdin_patterns
    import rrg.output.passages
    import rrg.rank.cheap_spans
    import rrg.rank.entry_points
    import rrg.rank.files
    import rrg.rg.walk
    import rrg.search.commands  # noqa: F401 - imported for the children
    from rrg.rank.code_passages import GRAMMARS, _parser

    for extension in GRAMMARS:
        _parser(extension)
    # The default model's tokenizer (0.05 s a query), loaded; not onnxruntime: its import
    # starts a thread, and a fork copies no thread (the child would hold its state without
    # it). The child imports it on its own (0.05 s) when its query runs the model.
    from rrg.errors import RrgError
    from rrg.model.encoder import keep_tokenizer
    from rrg.model.registry import default_model

    with contextlib.suppress(RrgError):  # no default model: the child says so, as rrg does
        keep_tokenizer(default_model().tokenizer_path)


def _identity(path: str) -> tuple[int, int, int] | None:
    """What tells this socket from one another process bound at the same path later (an
    inode number alone may be reused at once)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino, found.st_ctime_ns


def _still_ours(path: str, ours: tuple[int, int, int] | None) -> bool:
    return ours is not None and _identity(path) == ours


def _serve(conn: socket.socket) -> None:
    """In the child: take the search's descriptors, folder and environment, run it as
    ``rrg`` would, send its exit code, and exit."""
    # A process group of its own, which the rg processes it runs join: the caller signals
    # the group (``rrg.cli.resident._signal_search``), so that ``timeout``, Ctrl-C or a
    # closed caller stops them with the search. In the resident process's group they ran
    # on (a walk of a big tree, for minutes, after the caller was killed).
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    try:
        request = _take_over(conn)
        conn.sendall(STARTED + b"%d\n" % os.getpid())  # the caller signals it by its pid
    except Exception:  # noqa: BLE001 - nothing ran: the caller runs the search itself
        os._exit(1)
    threading.Thread(target=_stop_with_the_caller, args=(conn,), daemon=True).start()
    from rrg.cli.argsplit import split_argv
    from rrg.cli.entry import flushed, run_here
    from rrg.errors import EXIT_ERROR, RrgError

    try:
        code = run_here(split_argv(request["argv"]))
    except RrgError as err:  # the caller split the same arguments: not met in practice
        sys.stderr.write(f"rrg: {err}\n")
        code = EXIT_ERROR
    code = flushed(code)
    try:
        conn.sendall(EXITED + str(code).encode())
    finally:
        os._exit(code)


def _take_over(conn: socket.socket) -> dict[str, Any]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    if len(fds) != 3 or len(data) < 4:
        raise ValueError("a request without its descriptors")
    (size,) = struct.unpack("!I", data[:4])
    body = bytearray(data[4:])
    while len(body) < size:
        more = conn.recv(size - len(body))
        if not more:
            raise ValueError("a request cut short")
        body += more
    request = json.loads(body.decode("utf-8", "surrogateescape"))
    os.chdir(request["cwd"])
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    os.umask(request["umask"])
    sys.argv = ["rrg", *request["argv"]]
    # The streams as Python opens them at start-up: a terminal's line by line.
    sys.stdin = _stream(0, "r", sys.stdin.encoding, "surrogateescape", False)
    sys.stdout = _stream(1, "w", sys.stdout.encoding, "surrogateescape", os.isatty(1))
    sys.stderr = _stream(2, "w", sys.stderr.encoding, "backslashreplace", True)
    return dict(request)


def _stream(fd: int, mode: str, encoding: str, errors: str, lines: bool) -> io.TextIOWrapper:
    raw = io.FileIO(fd, mode, closefd=False)
    buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
    return io.TextIOWrapper(buffered, encoding, errors, line_buffering=lines)


def _stop_with_the_caller(conn: socket.socket) -> None:
    """The caller gone (``kill -9``, a closed terminal), this search stops: nothing reads
    its exit code, and its output may go nowhere."""
    while True:
        try:
            chunk = conn.recv(64)
        except OSError:
            chunk = b""
        if not chunk:
            if os.getpgid(0) == os.getpid():  # its rg processes too (never the server's)
                os.killpg(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
            return


if __name__ == "__main__":
    main()
