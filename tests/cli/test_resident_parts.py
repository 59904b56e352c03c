"""The resident process's parts, in-process: when a search is handed over, where its socket
lives and who may use it, and the streams a child opens on the caller's descriptors."""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path

import pytest

from rrg.cli import resident, resident_server
from rrg.cli.argsplit import split_argv
from rrg.detached import start_detached


def test_on_unless_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    for value, on in (("", True), ("1", True), ("0", False), (" 0 ", False), ("2", False)):
        monkeypatch.setenv("RRG_RESIDENT", value)
        assert resident.enabled() is on, value
    monkeypatch.delenv("RRG_RESIDENT")
    assert resident.enabled()


def test_only_searches_are_handed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RRG_RESIDENT", "1")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    for argv in (["--index", "."], ["--index-status"], ["--version"]):
        assert resident.hand_over(argv, split_argv(argv)) is None
    assert not list(tmp_path.iterdir())  # no folder made, no process started


def test_the_socket_lives_in_a_folder_of_the_users_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    path = resident.socket_path()
    assert path is not None
    folder = Path(path).parent
    assert folder == tmp_path / f"rrg-{os.getuid()}"
    assert folder.stat().st_mode & 0o777 == 0o700
    assert path == resident.socket_path()  # one name for this Python and this rrg
    folder.chmod(0o755)  # others may enter: not used
    assert resident.socket_path() is None
    folder.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / ("x" * 120)))
    assert resident.socket_path() is None  # past what a Unix socket's path may hold


def test_the_name_follows_rrgs_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A changed module (its time or size) gives another name: an edited or upgraded rrg
    never hands a search to a process that runs the old code."""
    before = resident._code_key()
    module = Path(resident.__file__)
    stat = module.stat()
    try:
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        assert resident._code_key() != before
    finally:
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert resident._code_key() == before
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    assert resident._code_key() != before
    # A package installed or upgraded beside rrg (numpy, which the process holds loaded).
    packages = tmp_path / "site-packages"
    packages.mkdir()
    monkeypatch.syspath_prepend(str(packages))
    with_packages = resident._code_key()
    (packages / "numpy-9.9.dist-info").mkdir()
    assert resident._code_key() != with_packages


def test_a_childs_streams_write_through_the_callers_descriptor() -> None:
    read_end, write_end = os.pipe()
    try:
        stream = resident_server._stream(write_end, "w", "utf-8", "surrogateescape", False)
        stream.write("café " + os.fsdecode(b"\xff") + "\n")
        stream.flush()
        assert os.read(read_end, 100) == "café ".encode() + b"\xff\n"
    finally:
        os.close(read_end)
        os.close(write_end)


def test_the_process_serves_while_its_socket_is_its_own(tmp_path: Path) -> None:
    sock = tmp_path / "s.sock"
    sock.write_text("")
    ours = resident_server._identity(str(sock))
    assert resident_server._still_ours(str(sock), ours)
    sock.unlink()
    sock.write_text("another")  # another process's socket in its place (the same inode, it may be)
    assert not resident_server._still_ours(str(sock), ours)
    sock.unlink()
    assert not resident_server._still_ours(str(sock), ours)


def test_a_detached_process_starts_in_its_own_session_without_a_warning(
    tmp_path: Path,
) -> None:
    """The resident process and a background build outlive their starter on purpose:
    Python's warning for a child still running when its ``Popen`` is dropped (an error
    under ``-W error``) is not raised for them, and they run in a session of their own."""
    said = tmp_path / "said"
    script = 'echo "$(ps -o sid= -p $$) $$" > said.tmp && mv said.tmp said'
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert start_detached(["/bin/sh", "-c", script], str(tmp_path), dict(os.environ))
    assert [str(w.message) for w in seen] == []
    for _ in range(500):
        if said.exists():
            break
        time.sleep(0.01)
    session, pid = said.read_text().split()
    assert session == pid != str(os.getsid(0))  # the leader of a session of its own
    assert not start_detached([str(tmp_path / "no-such-program")], str(tmp_path), {})
