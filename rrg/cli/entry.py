"""Console entry point: exec rg when no rrg option is present, else hand over to rrg.cli.app.

Keep imports here to the standard library and rrg's plain-data modules: this path runs on
every pass-through call, and its start-up time is what rrg costs over rg.
"""

from __future__ import annotations

# The C module behind `signal`: the same calls without importing enum (5 ms at start-up).
import _signal
import os
import sys

from rrg.cli.argsplit import SplitArgs, split_argv
from rrg.errors import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_MATCH, RrgError
from rrg.rg.binary import find_rg


def main() -> None:
    argv = sys.argv[1:]
    shell = _completion_asked(argv)
    if shell is not None:
        os._exit(flushed(_print_completion(shell)))
    try:
        split = split_argv(argv)
        if not split.rrg:
            _exec_rg(find_rg(), split.rg)
    except RrgError as err:
        _open_closed_descriptors()
        from rrg.streams import encoded  # an argument's bytes as they came

        try:
            sys.stderr.buffer.write(encoded(f"rrg: {err}\n"))
            sys.stderr.flush()
        except BrokenPipeError:
            sys.exit(_reader_left())
        sys.exit(EXIT_ERROR)
    _open_closed_descriptors()
    from rrg.cli.resident import hand_over

    try:
        code = hand_over(argv, split)  # None: no resident process ran it
        if code is None:
            code = run_here(split)
    except KeyboardInterrupt:  # Ctrl-C before a search took its signals: no traceback
        code = EXIT_INTERRUPTED
    os._exit(flushed(code))


#: The shells whose completions rrg writes itself: rg's own with rrg's options added.
_SHELLS = ("bash", "zsh", "fish")


def _completion_asked(argv: list[str]) -> str | None:
    """The shell of ``rrg --generate complete-SHELL`` (the whole command line), where rrg
    has completions for it. rg's answer would complete the ``rg`` command, not ``rrg``: a
    user who installs it as rg's users do gets no completion of rrg at all. Other kinds
    (``man``, ``complete-powershell``) and any other command line stay rg's."""
    if len(argv) == 2 and argv[0] == "--generate":
        kind = argv[1]
    elif len(argv) == 1 and argv[0].startswith("--generate="):
        kind = argv[0].removeprefix("--generate=")
    else:
        return None
    shell = kind.removeprefix("complete-")
    return shell if kind.startswith("complete-") and shell in _SHELLS else None


def _warn(message: str) -> None:
    sys.stderr.write(f"rrg: {message}\n")


def _print_completion(shell: str) -> int:
    from rrg.cli.completions import GENERATORS
    from rrg.rg.version import check_version

    try:
        rg = find_rg()
        # Completions made from what another program prints would complete nothing.
        check_version(rg, _warn)
        text = GENERATORS[shell](rg)
    except RrgError as err:
        _warn(str(err))
        return EXIT_ERROR
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        return _reader_left()
    return EXIT_MATCH


def _open_closed_descriptors() -> None:
    """Open a standard descriptor the caller closed (``>&-``, a daemon's child) on /dev/null,
    as SQLite does below its own files: the first file rrg opened took its number, and
    what rrg printed went into it, or failed as an internal error (Python makes such a
    stream None). What rrg prints there goes nowhere, as the caller asked; rg's exit codes
    stay (it prints to /dev/null as it would to nothing)."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:  # 0, 1 and 2 are filled in order: the lowest free number is fd
            os.dup2(null, fd)
            os.close(null)
        if getattr(sys, name) is None:
            errors = "backslashreplace" if fd == 2 else "surrogateescape"
            # The process's own standard stream, for as long as it runs: never closed here.
            stream = open(fd, "r" if fd == 0 else "w", errors=errors, closefd=False)  # noqa: SIM115
            setattr(sys, name, stream)


def run_here(split: SplitArgs) -> int:
    """Run a command line that holds rrg options in this process; its exit code."""
    # Before numpy loads: OpenBLAS otherwise starts a thread per core, which spin while
    # idle. rrg's products are small matrix-vector ones that one thread does as fast, and
    # the spinning took 0.1 s of CPU from rg's walk on the other core (20,000 files: a
    # query 0.225 -> 0.20 s). A user's own setting wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from rrg.cli.stdin_patterns import patterns_to_file

    try:
        split.rg, patterns = patterns_to_file(split.rg)
    except RrgError:
        patterns = None  # said in its place, once rrg's own options are read
    try:
        # Ctrl-C while the modules load (a third of a second): exit 130 as rrg.cli.app
        # does once it runs, not with a traceback.
        from rrg.rg.children import stopped_with_this_process

        with stopped_with_this_process():
            from rrg.cli.prestart import start_walk

            walk = start_walk(split)
            from rrg.cli.app import run

            return run(split, walk)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # in saying an error, after rrg.cli.app's own catch
        return _reader_left()
    finally:
        if patterns is not None:
            os.unlink(patterns)


def flushed(code: int) -> int:
    """The exit code once the output is out (EXIT_ERROR where flushing failed). The caller
    then exits with ``os._exit``, skipping the interpreter's teardown: unloading numpy,
    onnxruntime and their threads costs 20-30 ms, a tenth of a query on 20,000 files.
    Every command has closed its files, databases and child processes by now."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: started with that descriptor closed
                stream.flush()
    except BrokenPipeError:
        return _reader_left()
    except OSError:
        code = EXIT_ERROR  # a full disk under a redirect, say: rg says so too
    return code


def _reader_left() -> int:
    """The exit code once a reader of standard output or error left: rg's graceful 0,
    whatever it was about to say (its ``eprintln_locked`` exits 0 on a broken pipe)."""
    from rrg import streams

    streams.leave_gone_readers()
    return EXIT_MATCH


def _exec_rg(rg: str, args: list[str]) -> None:
    # Python ignores SIGPIPE and SIGXFSZ; ignored signals survive exec, and rg must see
    # the defaults to exit exactly as it would when started by the shell.
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(_signal, name):
            _signal.signal(getattr(_signal, name), _signal.SIG_DFL)
    try:
        os.execv(rg, ["rg", *args])
    except OSError as err:
        raise RrgError(f"cannot run {rg}: {err.strerror}") from err
