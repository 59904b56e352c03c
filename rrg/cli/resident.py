"""Hand a search to rrg's resident process, which has Python's modules loaded already.

A search's own work on a small tree takes less time than Python takes to import numpy,
onnxruntime and rrg's ranking (0.2-0.25 s of a 0.4 s ``--fast`` query on 850 files). The
first search of a version of rrg starts a resident process (``rrg.cli.resident_server``)
and runs as before; later searches connect to it, and it forks a child with every module
loaded, which takes this process's standard input, output and error (their descriptors
passed over the socket), its folder, environment, umask and arguments, runs the search
exactly as this process would have, and sends back the exit code. Signals this process
gets (Ctrl-C, ``timeout``'s TERM, Ctrl-Z) are passed on to the child, by its pid; if this
process dies, the child stops.

Only searches go there (``-q``, ``--recall``, ``--scope-file``): the rest gain nothing.
``RRG_RESIDENT=0`` keeps every search in this process. The process serves one user, through
a socket in a folder only that user may enter; it is keyed by the Python that runs rrg, by
rrg's files (their sizes and times), by its site-packages folders' times and by the caller's
niceness and resource limits, so a changed or upgraded rrg, a package installed beside it,
or a search under ``nice`` starts its own; it exits after ``IDLE_S`` without a search or
when its socket is removed.

This module runs before anything heavy loads: the standard library only, and that imported
only once a search is to be handed over.
"""

from __future__ import annotations

import os
import sys

#: For the type checker alone (typing itself costs a handed-over search 3-15 ms to import).
MYPY = False
if MYPY:
    import socket

    from rrg.cli.argsplit import SplitArgs

#: The options whose commands are handed over: searches, where start-up is most of the wait
#: (a scope's search scores the passages of the files its recall did not: 0.1 s of imports).
SEARCH_OPTIONS = frozenset({"--query", "--recall", "--scope-file"})
#: Seconds the resident process waits for a search before it exits.
IDLE_S = 600
#: A Unix socket's path holds at most 107 bytes; a longer one is not used.
MAX_SOCKET_PATH = 100
#: Messages from the child: it has taken the descriptors (``R`` and its pid, a line); the
#: search's exit code.
STARTED, EXITED = b"R", b"X"


def enabled() -> bool:
    """Whether searches may be handed over (``RRG_RESIDENT``: unset or 1; 0 turns it off).
    Any other value keeps the search here, where the environment check says what is wrong."""
    return os.environ.get("RRG_RESIDENT", "1").strip() in ("", "1")


def hand_over(argv: list[str], split: SplitArgs) -> int | None:
    """The exit code of this search run by the resident process, or None where none ran it
    (it is off, not started yet, or unusable): the caller then runs it itself. Starts the
    resident process for the next search where none answers."""
    if not enabled() or not any(opt.long in SEARCH_OPTIONS for opt, _ in split.rrg):
        return None
    if not all(_is_open(fd) for fd in (0, 1, 2)):
        return None  # a closed descriptor cannot be passed; this process runs as started
    path = socket_path()
    if path is None:
        return None
    import socket

    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        conn.close()
        start_server(path)
        return None
    try:
        return _run_there(conn, argv)
    finally:
        conn.close()


def socket_path() -> str | None:
    """The resident process's socket for this Python and this rrg, in a folder of this
    user's alone (made where missing); None where no such folder can be had."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    folder = os.path.join(base, f"rrg-{os.getuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        found = os.lstat(folder)
    except OSError:
        return None
    # Another user's folder, or one others may enter, could hold a socket that is not ours.
    if found.st_uid != os.getuid() or found.st_mode & 0o077 or not os.path.isdir(folder):
        return None
    path = os.path.join(folder, f"{_code_key()}.sock")
    return path if len(path) <= MAX_SOCKET_PATH else None


def _code_key() -> str:
    """What the resident process's modules and files depend on: the interpreter,
    ``PYTHONPATH``, every file of the rrg package (path, size, time), the time of each
    site-packages folder on the path (a ``pip install`` or upgrade there, of numpy say,
    changes it), the file system this process sees (its root, its mount namespace) and
    its pid namespace; a change to any starts another process, so none runs a search over
    a mix of old modules in memory and new ones on disk, or in another container's folder
    of the same name. And this process's niceness and resource limits, which its server's
    children keep."""
    import contextlib
    import zlib

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = [sys.executable, sys.version, package, os.environ.get("PYTHONPATH", "")]
    # The files this process sees: a container sharing /tmp with its host, or a chroot,
    # may name the same folder and mean other files.
    root = os.stat("/")
    parts.append(f"/ {root.st_dev} {root.st_ino}")
    for space in ("mnt", "pid"):  # the pid's too: the caller signals its child by pid
        with contextlib.suppress(OSError):  # no such namespaces here
            parts.append(os.readlink(f"/proc/self/ns/{space}"))
    # A search runs at its server's priority and within its limits, and no process may
    # lower its own niceness or raise a hard limit: a search under `nice` or `ulimit` gets
    # a server of its own, and one without them never a niced or limited server.
    import resource

    parts.append(f"nice {os.getpriority(os.PRIO_PROCESS, 0)}")
    for name in ("AS", "DATA", "RSS", "CPU", "FSIZE", "NOFILE", "STACK", "CORE"):
        parts.append(f"{name} {resource.getrlimit(getattr(resource, f'RLIMIT_{name}'))}")
    for folder in sys.path:
        if folder.endswith("-packages"):
            try:
                parts.append(f"{folder} {os.stat(folder).st_mtime_ns}")
            except OSError:
                continue
    todo = [package]
    while todo:
        with os.scandir(todo.pop()) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        todo.append(entry.path)
                elif entry.is_file():
                    stat = entry.stat()
                    parts.append(f"{entry.path} {stat.st_size} {stat.st_mtime_ns}")
    text = "\n".join(parts).encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(text):08x}{zlib.adler32(text):08x}"


def start_server(path: str) -> None:
    """Start the resident process for ``path`` in a session of its own; it outlives this
    search. A second one started meanwhile finds the first's lock and exits."""
    from rrg.detached import start_detached

    env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
    # Where it cannot start, every search runs in its own process, as without it.
    start_detached([sys.executable, "-m", "rrg.cli.resident_server", path], "/", env)


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _run_there(conn: socket.socket, argv: list[str]) -> int | None:
    import json
    import socket
    import struct

    try:
        cwd = os.getcwd()
    except FileNotFoundError:
        return None  # said by this process, in its words
    umask = os.umask(0)
    os.umask(umask)
    request = json.dumps(
        {"argv": argv, "cwd": cwd, "env": dict(os.environ), "umask": umask},
        ensure_ascii=False,
    ).encode("utf-8", "surrogateescape")
    try:
        socket.send_fds(conn, [struct.pack("!I", len(request)) + request], [0, 1, 2])
        reply = conn.recv(64)
        while reply.startswith(STARTED) and b"\n" not in reply:
            more = conn.recv(64)
            if not more:
                break
            reply += more
    except OSError:
        return None
    started, newline, rest = reply.partition(b"\n")
    if not (newline and started.startswith(STARTED) and started[1:].isdigit()):
        return None  # the child did not take the search: nothing of it ran
    return _wait(conn, int(started[1:]), rest)


def _signal_search(child: int, signum: int) -> None:
    """Signal the search: the child and the rg processes it runs, its process group (as a
    terminal's Ctrl-C or ``timeout`` signals a search run alone with its rg processes);
    the child alone where it leads no group of its own."""
    import contextlib

    try:
        os.killpg(child, signum)
    except OSError:
        with contextlib.suppress(OSError):  # it has ended
            os.kill(child, signum)


def _wait(conn: socket.socket, child: int, reply: bytes) -> int:
    """The exit code of the child (its pid: ``child``; ``reply``: what it sent after its
    pid), passing it the signals this process gets meanwhile; Ctrl-Z stops it with this
    process, and going on resumes both. A child killed by a signal sends no code: this
    process then ends by the same signal where it got one (``timeout`` sees what it would
    have seen), or says so."""
    import signal

    got: list[int] = []

    def pass_on(signum: int, _frame: object) -> None:
        got.append(signum)
        _signal_search(child, signum)

    def stop_both(_signum: int, _frame: object) -> None:
        _signal_search(child, signal.SIGSTOP)
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTSTP)  # returns once this process is continued
        signal.signal(signal.SIGTSTP, stop_both)
        _signal_search(child, signal.SIGCONT)

    # A signal this process ignores (HUP under nohup; INT and QUIT in a script's background
    # job) stays ignored: the search run alone would not have seen it either.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        if signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, pass_on)
    if signal.getsignal(signal.SIGTSTP) != signal.SIG_IGN:
        signal.signal(signal.SIGTSTP, stop_both)
    while True:
        try:
            chunk = conn.recv(64)
        except OSError:
            chunk = b""
        if not chunk:
            break
        reply += chunk
    if reply.startswith(EXITED):
        try:
            return int(reply[1:])
        except ValueError:
            pass
    if got:
        signal.signal(got[-1], signal.SIG_DFL)
        os.kill(os.getpid(), got[-1])
    sys.stderr.write("rrg: the resident process ended without an exit code\n")
    return 2
