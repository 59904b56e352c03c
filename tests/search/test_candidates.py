"""The candidate listing: exactly rg's own `--files` output, read in blocks by a thread
while the caller stats them, and paths made relative to the serving root."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from rrg.paths import relative_to
from rrg.rg.args import parse_rg_args
from rrg.rg.candidates import list_candidates


def test_a_listing_read_in_blocks_is_rgs_own(
    tmp_path: Path, rg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Long names over many folders: rg's output crosses many pipe reads, so paths are cut
    # between blocks and must be joined again.
    for d in range(30):
        folder = tmp_path / f"folder-{d:02d}-{'x' * 60}"
        folder.mkdir()
        for k in range(200):
            (folder / f"file-{k:04d}-{'y' * 80}.txt").write_text("z")
    (tmp_path / ".hidden.txt").write_text("z")
    monkeypatch.chdir(tmp_path)
    blocks: list[list[bytes]] = []
    got = list_candidates(rg, parse_rg_args(["z"]), blocks.append)
    want = subprocess.run([rg, "--files", "--null"], capture_output=True).stdout
    # rg lists on several threads: the same paths, in an order of its own each run.
    assert sorted(got.paths) == sorted(p for p in want.split(b"\0") if p)
    assert len(got.paths) == 6000 and not got.error
    assert len(blocks) > 1 and [p for b in blocks for p in b] == got.paths


def test_paths_relative_to_the_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    root = os.fsencode(tmp_path)
    printed = [b"a.txt", b"./b.txt", b"../c.txt", os.fsencode(tmp_path / "d.txt"), b".e/f"]
    assert relative_to(root, printed) == [
        b"sub/a.txt",
        b"sub/b.txt",
        b"c.txt",
        b"d.txt",
        b"sub/.e/f",
    ]
    monkeypatch.chdir(tmp_path)
    same = [b"a.txt", b"sub/b.txt"]
    out = relative_to(root, same)
    assert out == same and all(x is y for x, y in zip(out, same, strict=True))  # not copied
    assert relative_to(root, [b"./x", b".hidden/y"]) == [b"x", b".hidden/y"]
