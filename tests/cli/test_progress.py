"""The indexing progress bar: on a terminal it moves with a rate and the time left; in a
pipe nothing is drawn."""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from conftest import make_tree, read_until_closed, rrg_cmd, run
from rrg import progress


def test_bar_on_a_terminal_shows_rate_and_time_left(tmp_path: Path, env: dict[str, str]) -> None:
    """A build on a terminal: every frame drawn holds a rate and the time left, and the bar
    is wiped at the end (whether a frame shows depends on how long the build takes; the
    drawing itself is checked without a clock below)."""
    tree = make_tree(tmp_path / "bar-tree", 20000)
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [*rrg_cmd(), "--index", "."],
        cwd=tree,
        env={**env, "TERM": "xterm"},
        stdout=subprocess.PIPE,
        stderr=slave,
    )
    os.close(slave)
    drawn = read_until_closed(master)
    proc.wait()
    assert proc.returncode == 0
    frames = [f for f in drawn.split(b"\r\x1b[K") if f.startswith(b"rrg: indexing")]
    assert all(b" files/s, " in f and f.endswith(b" left") for f in frames), frames
    if frames:
        assert drawn.endswith(b"\r\x1b[K"), drawn[-200:]  # wiped: the prompt comes back clean


def _drawn_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, label: str, counts: tuple[int, ...], columns: int = 0
) -> bytes:
    """What the redraw thread draws on a pseudo-terminal (``columns`` wide; 0: no width
    set, as a new one has none) while the count moves through ``counts`` of 1000, each
    waited for by what it drew, not by a clock; the bar closed at the end."""
    master, slave = os.openpty()
    if columns:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    terminal = os.fdopen(slave, "w")
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr(progress, "QUIET_START_S", 0.0)
    monkeypatch.setattr(progress, "REDRAW_S", 0.01)
    bar = progress.Progress(label, True)
    assert bar.enabled
    seen = b""
    for done in counts:
        bar(done, 1000)
        while f" {done}/1000 ".encode() not in seen:  # each count is drawn in its turn
            seen += os.read(master, 65536)
    bar.close()
    terminal.close()
    seen += read_until_closed(master)
    os.close(master)
    return seen


def test_the_bar_redraws_as_the_count_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    """The redraw thread on a real terminal, waited on by what it drew, not by a clock."""
    seen = _drawn_on_a_terminal(monkeypatch, "rrg: indexing", (10, 500, 1000))
    frames = [f for f in seen.split(b"\r\x1b[K") if f.startswith(b"rrg: indexing")]
    assert all(b" files/s, " in f and f.endswith(b" left") for f in frames), frames
    assert b"[" + b"#" * 30 + b"]" in seen and b"[" + b"." * 30 + b"]" in seen
    assert seen.endswith(b"\r\x1b[K")


@pytest.mark.parametrize("term", ["dumb", "", None])
def test_no_bar_on_a_terminal_that_cannot_wipe_a_line(
    monkeypatch: pytest.MonkeyPatch, term: str | None
) -> None:
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as terminal:
        monkeypatch.setattr(sys, "stderr", terminal)
        monkeypatch.setenv("TERM", "xterm")
        assert progress.Progress("rrg: indexing", True).enabled  # the same terminal, able
        if term is None:
            monkeypatch.delenv("TERM")
        else:
            monkeypatch.setenv("TERM", term)
        assert not progress.Progress("rrg: indexing", True).enabled
    os.close(master)


def test_no_bar_in_a_pipe(tmp_path: Path, env: dict[str, str]) -> None:
    tree = make_tree(tmp_path / "pipe-tree", 3000)
    out = run([*rrg_cmd(), "--index", "."], tree, env)
    assert out.returncode == 0 and b"indexing" not in out.stderr


@pytest.mark.parametrize("columns", [200, 120, 80, 60, 40, 12])
def test_a_frame_fits_the_terminal(columns: int) -> None:
    """A frame wider than the terminal wraps, and each redraw then left a row behind: the
    model's first preparation drew 40 rows at 80 columns. The bar narrows, then goes, then
    the label is cut; the counts stay while they fit."""
    bar = progress.Progress("rrg: preparing the model's static table (once a machine)", False)
    bar.start, bar.done, bar.total = 0.0, 2048, 30522
    frame = bar.line(5.0, columns)
    assert len(frame) < columns
    assert frame.endswith(" left") or columns < 40, frame
    assert ("[" in frame) == (columns >= 120), frame  # a narrowed bar from 107 columns
    assert len(bar.line(5.0, 0)) > 120  # no width known: nothing cut


def test_frames_drawn_fit_the_terminals_width(monkeypatch: pytest.MonkeyPatch) -> None:
    label = "rrg: preparing the model's static table (once a machine)"
    seen = _drawn_on_a_terminal(monkeypatch, label, (10,), columns=50)
    frames = [f for f in seen.split(b"\r\x1b[K") if f]
    assert frames and all(len(f) < 50 and f.endswith(b" left") for f in frames), frames
