"""The resident process (rrg.cli.resident): a search handed to it prints the bytes, the
messages and the exit code that the same search run in its own process gives, reads its
stdin patterns, and dies by the signal its caller was sent."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import as_at_a_terminal, on_a_terminal, outcome, rrg_cmd, run, without_timings


@pytest.fixture
def resident(tmp_path: Path, env: dict[str, str], rg: str) -> Iterator[dict[str, str]]:
    """An environment whose searches are handed over, to a resident process of the test's
    own (its socket in the test's folder), stopped at the end; rg is run through a wrapper
    that logs which process ran it."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    wrapper = tmp_path / "rg-logged"
    log = tmp_path / "rg-parents.log"
    wrapper.write_text(
        f"#!/bin/sh\nawk '{{print $4}}' /proc/$PPID/stat >> {log}\nexec {rg} \"$@\"\n"
    )
    wrapper.chmod(0o755)
    out = {**env, "RRG_RESIDENT": "1", "XDG_RUNTIME_DIR": str(runtime), "RRG_RG": str(wrapper)}
    yield out
    for sock in runtime.glob("rrg-*/*.sock"):
        sock.unlink()  # the process exits within a second of its socket going


def _server_pid(env: dict[str, str], started: float = 30) -> int:
    """The pid of the resident process serving this environment, once it listens."""
    folder = Path(env["XDG_RUNTIME_DIR"])
    deadline = time.monotonic() + started
    while time.monotonic() < deadline:
        socks = list(folder.glob("rrg-*/*.sock"))
        if socks:
            return int(Path(f"{socks[0]}.lock").read_text())
        time.sleep(0.1)
    raise AssertionError("no resident process started")


def _same(out: bytes) -> bytes:
    """Output with what differs between any two runs made the same: rg's timings, and the
    number of the scope file each --recall writes."""
    return re.sub(rb"scope-\d+", b"scope-N", without_timings(out))


def _rg_parents(env: dict[str, str]) -> list[int]:
    log = Path(env["RRG_RG"]).parent / "rg-parents.log"
    return [int(line) for line in log.read_text().split()] if log.exists() else []


COMMANDS = [
    ["-q", "where does Holmes get his clues", "Watson"],
    ["-q", "Holmes", "-n", "--json", "Watson"],
    ["-q", "Holmes", "--files"],
    ["-q", "Holmes", "nothing-matches-this"],
    ["-q", "Holmes", "(unclosed"],
    ["-q", "Holmes", "Watson", "sub", "no-such-path"],
    ["-q", "detective work and luck", "--fast"],
    ["--recall", "detective work and luck"],
    # A path that is not UTF-8 crosses the socket as the same bytes.
    ["-q", "Holmes", "Watson", os.fsdecode(b"caf\xe9-missing.txt")],
]


def test_a_handed_search_gives_its_own_process_answer(
    corpus: Path, resident: dict[str, str]
) -> None:
    here = {**resident, "RRG_RESIDENT": "0"}
    first = run([*rrg_cmd(), *COMMANDS[0]], corpus, resident)  # starts the process
    assert first.returncode == 0, first.stderr
    server = _server_pid(resident)
    for args in COMMANDS:
        before = len(_rg_parents(resident))
        there = run([*rrg_cmd(), *args], corpus, resident)
        assert server in _rg_parents(resident)[before:], f"not handed over: {args}"
        alone = run([*rrg_cmd(), *args], corpus, here)
        assert there.returncode == alone.returncode, (args, there.stderr, alone.stderr)
        assert _same(there.stdout) == _same(alone.stdout), args
        assert there.stderr == alone.stderr, args
    # A scope's search too (it scores the passages of files its recall did not).
    recalled = run([*rrg_cmd(), "--recall", "Holmes", "--paragraphs", "0"], corpus, here)
    scope = recalled.stdout.decode().split(" \u2192 ")[1].split(" (")[0]
    before = len(_rg_parents(resident))
    there = run([*rrg_cmd(), "--scope-file", scope, "-n", "Watson"], corpus, resident)
    assert server in _rg_parents(resident)[before:], "a scope's search not handed over"
    alone = run([*rrg_cmd(), "--scope-file", scope, "-n", "Watson"], corpus, here)
    assert outcome(there) == outcome(alone)


def test_stdin_patterns_and_a_closed_reader(corpus: Path, resident: dict[str, str]) -> None:
    run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, resident)
    server = _server_pid(resident)
    there = run([*rrg_cmd(), "-q", "Holmes", "-f", "-"], corpus, resident, stdin=b"Watson\n")
    assert server in _rg_parents(resident)
    alone = run(
        [*rrg_cmd(), "-q", "Holmes", "-f", "-"],
        corpus,
        {**resident, "RRG_RESIDENT": "0"},
        stdin=b"Watson\n",
    )
    assert (there.returncode, there.stdout) == (alone.returncode, alone.stdout)
    assert b"Watson" in there.stdout
    # A reader that leaves at once (`| head -1`): rg's graceful exit 0, as in-process.
    shell = subprocess.run(
        " ".join(rrg_cmd()) + ' -q Holmes Watson | head -c 1 >/dev/null; echo "${PIPESTATUS[0]}"',
        shell=True,
        executable="/bin/bash",
        cwd=corpus,
        env=resident,
        capture_output=True,
    )
    assert shell.stdout.strip() == b"0", shell.stderr


@pytest.mark.parametrize("handed", ["1", "0"])
def test_a_closed_reader_of_the_messages_ends_as_rg_ends(
    corpus: Path, resident: dict[str, str], rg: str, handed: str
) -> None:
    """``rrg ... 2>&1 | head``, the reader gone before a message (the cap's notice, rg's
    word on a missing path, rrg's own): exit 0, as rg's ``eprintln_locked`` exits. Python
    buffers standard error unless PYTHONUNBUFFERED is set (as on many CI machines, where
    this passed before the fix): a user's machine is tested here."""
    env = {**resident, "RRG_RESIDENT": handed}
    env.pop("PYTHONUNBUFFERED", None)
    run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, env)  # the resident process, started

    def closed_stderr(cmd: list[str]) -> int:
        read, write = os.pipe()
        os.close(read)
        try:
            return subprocess.run(
                cmd, cwd=corpus, env=env, stdout=subprocess.DEVNULL, stderr=write, timeout=120
            ).returncode
        finally:
            os.close(write)

    assert closed_stderr([rg, "Watson", "no-such-path"]) == 0
    for args in (["--limit", "1", "Watson"], ["Watson", "no-such-path"], ["--limit", "x"]):
        said = run([*rrg_cmd(), "-q", "Holmes", *args], corpus, env)
        assert said.stderr.startswith((b"[rrg: stopped", b"rg: ", b"rrg: ")), said.stderr
        assert closed_stderr([*rrg_cmd(), "-q", "Holmes", *args]) == 0, args


@pytest.mark.parametrize("handed", ["1", "0"])
def test_a_closed_descriptor_is_no_internal_error(
    corpus: Path, resident: dict[str, str], rg: str, handed: str
) -> None:
    """``rrg ... >&-`` (or ``2>&-``): Python makes the stream None, and printing to it was
    an internal error, exit 2 (and the first file rrg opened would take the number). It
    now exits as rg does, saying nothing where nothing can be said."""
    env = {**resident, "RRG_RESIDENT": handed}
    run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, env)  # the resident process, started
    rrg = " ".join(rrg_cmd())

    def in_bash(command: str) -> subprocess.CompletedProcess[bytes]:
        # The shell closes the descriptor for the command alone; its output is read here.
        return subprocess.run(
            command,
            shell=True,
            executable="/bin/bash",
            cwd=corpus,
            env=env,
            capture_output=True,
            timeout=120,
        )

    for closed, args in ((">&-", "Watson"), ("2>&-", "Watson no-such-path"), ("<&-", "Watson")):
        ours = in_bash(f"{rrg} -q Holmes {args} {closed}")
        theirs = in_bash(f"{rg} {args} {closed}")
        assert ours.returncode == theirs.returncode, (closed, ours.stderr)
        assert b"internal error" not in ours.stderr, ours.stderr


def test_the_caller_killed_stops_the_search(
    tmp_path: Path, corpus: Path, resident: dict[str, str], rg: str
) -> None:
    """``timeout`` sends TERM to rrg: the search the resident process runs for it stops,
    and rrg dies by TERM, as a search in its own process does."""
    run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, resident)
    _server_pid(resident)
    slow, started = _slow_rg(tmp_path, f'sleep 10\nexec {rg} "$@"')
    cmd = [*rrg_cmd(), "-q", "Holmes", "Watson"]
    proc = _slow_search(cmd, corpus, resident, slow, stdout=subprocess.DEVNULL)
    searcher = _first_searcher(started, 30)  # the process that runs the search's rg
    assert searcher != proc.pid  # handed over
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == -signal.SIGTERM
    deadline = time.monotonic() + 10
    while Path(f"/proc/{searcher}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{searcher}").exists()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_the_rg_a_handed_search_runs_stops_with_its_caller(
    tmp_path: Path, corpus: Path, resident: dict[str, str], signum: int
) -> None:
    """``timeout`` (TERM, or KILL), Ctrl-C (INT): a search run in its own process stops
    with its rg processes, which share its process group; handed over, the rg processes
    ran on in the resident process's group (a walk of a big tree for minutes, rg over
    ``/dev/zero`` for ever)."""
    run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, resident)
    _server_pid(resident)
    pids = tmp_path / "rg-pids"
    slow, started = _slow_rg(tmp_path, f"echo $$ >> {pids}\nexec sleep 30")
    cmd = [*rrg_cmd(), "-q", "Holmes", "Watson"]
    proc = _slow_search(cmd, corpus, resident, slow, stdout=subprocess.DEVNULL)
    assert _first_searcher(started) != proc.pid  # handed over
    assert _until(lambda: pids.exists() and pids.read_text().strip() != "")
    proc.send_signal(signum)
    proc.wait(timeout=10)
    ran = [int(pid) for pid in pids.read_text().split()]
    assert _until(lambda: not any(Path(f"/proc/{pid}").exists() for pid in ran)), ran


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_search_in_its_own_process_stops_its_rg_when_signalled_alone(
    tmp_path: Path, env: dict[str, str], signum: int
) -> None:
    """A signal to rrg's pid alone (an agent's tool stopping a command, a closed terminal),
    the search run in its own process: its rg processes stop with it. They ran on (one
    waiting on a FIFO for ever, one printing straight to the terminal), and rrg still dies
    by the signal."""
    children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    if not children.exists():
        pytest.skip("needs Linux's /proc children lists")
    tree = tmp_path / "fifo"
    tree.mkdir()
    (tree / "notes.txt").write_text("Holmes and Watson\n")
    os.mkfifo(tree / "pipe")  # rg opens it and waits for a writer that never comes
    cmd = [*rrg_cmd(), "-q", "Holmes", "Watson", "notes.txt", "pipe"]
    proc = subprocess.Popen(
        cmd,
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        # The signal as a caller that does not ignore it has it: under `nohup` (a CI
        # runner's, say) rrg rightly keeps SIGHUP ignored (the test below).
        preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL),
    )
    listed = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")

    def waiting_on_the_fifo() -> list[int]:
        pids = [int(p) for p in listed.read_text().split()]
        return [p for p in pids if b"\0pipe" in _cmdline(p)]

    assert _until(lambda: bool(waiting_on_the_fifo())), proc.stderr
    ran = waiting_on_the_fifo()
    proc.send_signal(signum)
    assert proc.wait(timeout=10) == -signum
    assert _until(lambda: all(_gone(pid) for pid in ran)), ran


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return b""


def _gone(pid: int) -> bool:
    """No such process, or one that has ended and waits to be reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def test_off_and_bad_values(corpus: Path, resident: dict[str, str]) -> None:
    off = run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, {**resident, "RRG_RESIDENT": "0"})
    assert off.returncode == 0
    assert not list(Path(resident["XDG_RUNTIME_DIR"]).glob("rrg-*/*.sock.lock"))
    bad = run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, {**resident, "RRG_RESIDENT": "2"})
    assert bad.returncode == 2
    assert bad.stderr == b"rrg: RRG_RESIDENT must be 0 or 1, not '2'\n"


def test_a_folder_others_may_enter_is_not_used(corpus: Path, resident: dict[str, str]) -> None:
    folder = Path(resident["XDG_RUNTIME_DIR"]) / f"rrg-{os.getuid()}"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    out = run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, resident)
    assert out.returncode == 0
    time.sleep(1)
    assert not list(folder.iterdir())  # no socket made there, no process started


def test_on_a_terminal_the_same_colours_and_headings(
    corpus: Path, resident: dict[str, str]
) -> None:
    """On a terminal rg colours, heads and numbers its output; the child decides that from
    the caller's descriptor, as the caller would have."""
    resident = {**resident, "TERM": "xterm"}  # a terminal that takes colour
    run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, resident)
    server = _server_pid(resident)
    for args in (["-q", "where does Holmes get his clues", "Watson"], ["-q", "detective luck"]):
        before = len(_rg_parents(resident))
        there = on_a_terminal([*rrg_cmd(), *args], corpus, resident)
        assert server in _rg_parents(resident)[before:], args
        alone = on_a_terminal([*rrg_cmd(), *args], corpus, {**resident, "RRG_RESIDENT": "0"})
        assert there == alone, args
    assert b"\x1b[" in there[1]  # coloured: the terminal was seen as one


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def _until(check: Callable[[], bool], seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _slow_rg(tmp_path: Path, then: str) -> tuple[Path, Path]:
    """An rg that writes its parent's pid (the process running the search) to a file, then
    runs ``then``; (the wrapper, that file)."""
    slow = tmp_path / "rg-slow"
    started = tmp_path / "slow-started"
    slow.write_text(f"#!/bin/sh\necho $PPID >> {started}\n{then}\n")
    slow.chmod(0o755)
    return slow, started


def _first_searcher(started: Path, seconds: float = 10) -> int:
    """The pid the slow rg wrote first, once it has written one."""
    assert _until(lambda: started.exists() and started.read_text().strip() != "", seconds)
    return int(started.read_text().split()[0])


def _slow_search(
    cmd: list[str], corpus: Path, resident: dict[str, str], slow: Path, **popen: Any
) -> subprocess.Popen[bytes]:
    """``cmd`` started with the slow rg, its stderr piped, its signals as at a terminal
    (``popen``: the rest)."""
    popen.setdefault("preexec_fn", as_at_a_terminal)
    return subprocess.Popen(
        cmd, cwd=corpus, env={**resident, "RRG_RG": str(slow)}, stderr=subprocess.PIPE, **popen
    )


def test_ctrl_z_stops_the_search_and_going_on_resumes_it(
    tmp_path: Path, corpus: Path, resident: dict[str, str], rg: str
) -> None:
    run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, resident)
    _server_pid(resident)
    slow, started = _slow_rg(tmp_path, f'sleep 1\nexec {rg} "$@"')
    # A process group of its own in this session: the kernel discards a stop signal sent
    # to a group that no parent in the session watches (an orphaned one, as a test run in
    # the background is), and the caller, seeing it discarded, goes on with its child.
    cmd = [*rrg_cmd(), "-q", "Holmes", "--files"]
    proc = _slow_search(cmd, corpus, resident, slow, stdout=subprocess.PIPE, process_group=0)
    searcher = _first_searcher(started)
    proc.send_signal(signal.SIGTSTP)
    assert _until(lambda: _state(proc.pid) == "T" and _state(searcher) == "T")
    proc.send_signal(signal.SIGCONT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert b"sherlock.txt" in out


def test_a_signal_the_caller_ignores_stays_ignored(
    tmp_path: Path, corpus: Path, resident: dict[str, str], rg: str
) -> None:
    """Under nohup a search ignores HUP; handed over, it still does."""
    run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, resident)
    _server_pid(resident)
    slow, started = _slow_rg(tmp_path, f'sleep 1\nexec {rg} "$@"')
    cmd = ["nohup", *rrg_cmd(), "-q", "Holmes", "--files"]
    proc = _slow_search(cmd, corpus, resident, slow, stdout=subprocess.PIPE)
    assert _first_searcher(started) != proc.pid  # handed over
    proc.send_signal(signal.SIGHUP)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert b"sherlock.txt" in out


def test_ctrl_c_stops_a_search_whoever_started_the_resident_process(
    tmp_path: Path, corpus: Path, resident: dict[str, str], rg: str
) -> None:
    """The resident process started by a script's background job (INT and QUIT ignored
    there) serves a later search at a terminal: Ctrl-C stops that search, as it stops one
    run in its own process (exit 130)."""

    def as_a_background_job() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGQUIT, signal.SIG_IGN)

    first = subprocess.run(
        [*rrg_cmd(), "-q", "Holmes", "--files"],
        cwd=corpus,
        env=resident,
        capture_output=True,
        preexec_fn=as_a_background_job,
    )
    assert first.returncode == 0, first.stderr
    _server_pid(resident)
    # rg that takes 30 s: killed, it leaves no process holding the search's pipes.
    slow, started = _slow_rg(tmp_path, "exec sleep 30")
    cmd = [*rrg_cmd(), "-q", "Holmes", "Watson"]
    proc = _slow_search(cmd, corpus, resident, slow, stdout=subprocess.DEVNULL)
    assert _first_searcher(started) != proc.pid  # handed over
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=8) == 130


@pytest.mark.parametrize("handed", ["0", "1"])
def test_ctrl_c_while_rrg_loads_exits_130_without_a_traceback(
    tmp_path: Path, corpus: Path, resident: dict[str, str], handed: str
) -> None:
    """Ctrl-C as soon as the search's first rg starts (rrg's modules still loading in its
    own process): exit 130, as once it runs, not a Python traceback."""
    if handed == "1":
        run([*rrg_cmd(), "-q", "Holmes", "--files"], corpus, resident)
        _server_pid(resident)
    slow, started = _slow_rg(tmp_path, "exec sleep 30")
    proc = subprocess.Popen(
        [*rrg_cmd(), "-q", "Holmes", "Watson"],
        cwd=corpus,
        env={**resident, "RRG_RESIDENT": handed, "RRG_RG": str(slow)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=as_at_a_terminal,
    )
    _first_searcher(started, 30)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=8)
    assert proc.returncode == 130 and b"Traceback" not in err, err


@pytest.mark.parametrize(
    ("starter", "asked"),
    [
        (["nice", "-n", "10"], "nice"),
        (["sh", "-c", 'ulimit -v 8000000; exec "$@"', "sh"], "ulimit -v"),
    ],
)
def test_a_search_keeps_its_own_priority_and_limits(
    tmp_path: Path, corpus: Path, resident: dict[str, str], rg: str, starter: list[str], asked: str
) -> None:
    """A resident process started under ``nice`` or ``ulimit`` never serves a search without
    them (it could not give them back: no process may lower its own niceness or raise a
    hard limit)."""
    first = run([*starter, *rrg_cmd(), "-q", "Holmes", "--files"], corpus, resident)
    assert first.returncode == 0, first.stderr
    _server_pid(resident)
    logged = tmp_path / "rg-logged-setting"
    wrapper = tmp_path / "rg-setting-logged"
    wrapper.write_text(f'#!/bin/sh\n{asked} >> {logged}\nexec {rg} "$@"\n')
    wrapper.chmod(0o755)
    out = run([*rrg_cmd(), "-q", "Holmes", "Watson"], corpus, {**resident, "RRG_RG": str(wrapper)})
    assert out.returncode == 0, out.stderr
    expected = subprocess.run(["sh", "-c", asked], capture_output=True, text=True).stdout
    assert set(logged.read_text().split()) == {expected.strip()}
