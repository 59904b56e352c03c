"""The indexing progress bar: on a terminal it moves with a rate and the time left; in a
pipe nothing is drawn."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from test_reliability import make_tree

from conftest import rrg_cmd, run


def test_bar_on_a_terminal_shows_rate_and_time_left(tmp_path: Path, env: dict[str, str]) -> None:
    tree = make_tree(tmp_path / "bar-tree", 20000)
    master, slave = os.openpty()
    started = time.monotonic()
    proc = subprocess.Popen(
        [*rrg_cmd(), "--index", "."], cwd=tree, env=env, stdout=subprocess.PIPE, stderr=slave
    )
    os.close(slave)
    drawn = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        drawn += chunk
    proc.wait()
    took = time.monotonic() - started
    os.close(master)
    assert proc.returncode == 0
    frames = [f for f in drawn.split(b"\r\x1b[K") if f.startswith(b"rrg: indexing")]
    assert frames, drawn[-600:]
    assert all(b" files/s, " in f and f.endswith(b" left") for f in frames), frames[-1]
    assert frames[-1] != frames[0]
    # Redrawn every 0.2 s once shown after the first second (allow for a slow machine).
    if took > 2.5:
        assert len(frames) >= 3, (took, frames)


def test_no_bar_in_a_pipe(tmp_path: Path, env: dict[str, str]) -> None:
    tree = make_tree(tmp_path / "pipe-tree", 3000)
    out = run([*rrg_cmd(), "--index", "."], tree, env)
    assert out.returncode == 0 and b"indexing" not in out.stderr
