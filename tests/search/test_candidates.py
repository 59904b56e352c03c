"""The candidate listing: exactly rg's own `--files` output, read in blocks by a thread
while the caller stats them, and paths made relative to the serving root."""

from __future__ import annotations

import gzip
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


def test_rg_walks_the_doubtful_files_at_their_own_paths(
    tmp_path: Path, rg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files asked about are linked into a folder rg walks, each at its own path: two
    of one name each keep it (it decides what -z decompresses), a --pre-glob naming a
    folder matches as in the user's walk, a name holding a line end is read back whole,
    and a file rg cannot read (a preprocessor that fails) is no binary file."""
    from rrg.rg.binary_files import binary_to_walk

    for folder in ("a", "b", "c"):
        (tmp_path / folder).mkdir()
    (tmp_path / "a" / "x.gz").write_bytes(gzip.compress(b"text\0 with a NUL\n"))
    (tmp_path / "b" / "x.gz").write_bytes(gzip.compress(b"plain text\n"))
    (tmp_path / "c" / "new\nline.bin").write_bytes(b"text\n" * 20_000 + b"\0")
    (tmp_path / "c" / "failing.bin").write_bytes(b"\0")
    hook = tmp_path / "pre.sh"
    hook.write_text('#!/bin/sh\ncase "$1" in *failing*) exit 3;; esac\nexec cat -- "$1"\n')
    hook.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    files = [b"a/x.gz", b"b/x.gz", b"c/new\nline.bin", b"c/failing.bin"]
    assert binary_to_walk(rg, parse_rg_args(["-z", "text"]), files) == {
        b"a/x.gz",
        b"c/new\nline.bin",
        b"c/failing.bin",
    }
    pre = parse_rg_args(["--pre", str(hook), "-g", "!*.gz", "text"])
    assert binary_to_walk(rg, pre, files) == {b"a/x.gz", b"b/x.gz", b"c/new\nline.bin"}
    unzip = tmp_path / "unzip.sh"
    unzip.write_text('#!/bin/sh\nexec gzip -dc -- "$1"\n')
    unzip.chmod(0o755)
    some = parse_rg_args(["--pre", str(unzip), "--pre-glob", "b/*.gz", "text"])
    assert binary_to_walk(rg, some, files) == {b"a/x.gz", b"c/new\nline.bin", b"c/failing.bin"}
    # Flags that shape rg's printed paths leave its counts read back as they are.
    for printed in (["-I"], ["--path-separator=%"], ["--json"]):
        shaped = parse_rg_args(["-z", *printed, "text"])
        assert binary_to_walk(rg, shaped, files) == {
            b"a/x.gz",
            b"c/new\nline.bin",
            b"c/failing.bin",
        }, printed
    # Under --null-data a NUL ends a line, no file is binary, and rg ends each count
    # record with a NUL too: every file is read back.
    assert binary_to_walk(rg, parse_rg_args(["-z", "--null-data", "text"]), files) == set()
    assert binary_to_walk(rg, parse_rg_args(["text"]), []) == set()


def test_first_lines_read_alone_are_looked_for_in_the_first_binary_files_of_the_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search reads 3 bytes of each binary file for a first line rg reads alone, but of
    the first ``FIRST_LINES_READ`` of them in the order only: a tree may hold a hundred
    thousand images, and every search would pay."""
    from rrg.rg import searched_files

    monkeypatch.chdir(tmp_path)
    for name in ("a.c", "b.c", "c.c"):
        (tmp_path / name).write_bytes(b"/*\nx\0y\n")
    (tmp_path / "long.c").write_bytes(b"abc\nx\0y\n")  # its first read holds the NUL
    order = [b"long.c", b"c.c", b"text.txt", b"a.c", b"b.c"]
    binary = {b"a.c", b"b.c", b"c.c", b"long.c"}
    assert searched_files._first_lines_read_alone(order, binary) == {b"a.c", b"b.c", b"c.c"}
    monkeypatch.setattr(searched_files, "FIRST_LINES_READ", 3)
    assert searched_files._first_lines_read_alone(order, binary) == {b"c.c", b"a.c"}
    assert searched_files._first_lines_read_alone(order, set()) == set()
