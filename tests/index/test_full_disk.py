"""A cache on a full disk or a read-only one: one ``rrg:`` line saying why, exit 2 where
the command must write (``--index``, ``--embed``, ``--recall``'s scope), rg's order where a
search cannot use the index, and nothing half-written for when room comes back.

The disks are small tmpfs mounts, which only root can make: elsewhere these tests skip
(CI runs as root); the unit tests at the top run everywhere."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from conftest import make_tree, model_that_fails_on_long_inputs, q, rrg_cmd, run
from rrg.atomic import LOW_SPACE, save_array, write_failure
from rrg.errors import RrgError


def test_an_array_is_saved_as_np_save_writes_it_and_a_full_disk_says_so(tmp_path: Path) -> None:
    """np.save's bytes; where the disk is full, the system's ENOSPC (np.save on a real file
    raises an OSError with no errno: "38260 requested and 17904 written")."""
    for array in (
        np.arange(12, dtype=np.int64).reshape(3, 4),
        np.zeros(0, np.float32),
        np.ones((2, 0)),
        np.array(5, np.int32),
        np.array([True, False]),
        np.arange(10, dtype=np.float16)[::2],  # not contiguous: saved as its copy would be
    ):
        expected = io.BytesIO()
        np.save(expected, np.ascontiguousarray(array), allow_pickle=False)
        save_array(tmp_path / "a.npy", array)
        assert (tmp_path / "a.npy").read_bytes() == expected.getvalue()
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with pytest.raises(OSError) as raised:
        save_array(Path("/dev/full"), np.arange(100_000, dtype=np.int64))
    assert raised.value.errno == errno.ENOSPC


def test_a_failed_write_names_the_space_left_where_it_is_the_cause(tmp_path: Path) -> None:
    full = write_failure(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), tmp_path / "new")
    assert full.startswith("No space left on device; the disk holding ")
    assert full.endswith(" free") and str(tmp_path / "new") in full
    denied = write_failure(PermissionError(errno.EACCES, os.strerror(errno.EACCES)), tmp_path)
    if os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize >= LOW_SPACE:
        assert denied == "Permission denied"
    # SQLite's own words, which carry no errno.
    said = write_failure(sqlite3.OperationalError("disk I/O error"), tmp_path)
    assert said.startswith("disk I/O error")


@contextlib.contextmanager
def small_disk(folder: Path, kib: int) -> Iterator[Path]:
    """A tmpfs of ``kib`` KiB mounted at ``folder``; the test skips where none can be."""
    folder.mkdir(parents=True, exist_ok=True)
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={kib}k,mode=0700", "tmpfs", str(folder)],
        capture_output=True,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small disk here: {made.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def _resize(folder: Path, kib: int) -> None:
    subprocess.run(["mount", "-o", f"remount,size={kib}k", str(folder)], check=True)


def _fill(folder: Path) -> None:
    """Every free byte of ``folder``'s disk taken by one file."""
    with contextlib.suppress(OSError), open(folder / "filler", "wb", buffering=0) as fh:
        while True:
            fh.write(b"\0" * 4096)


def test_a_full_cache_disk_is_one_line_and_the_index_is_whole_when_room_comes_back(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    tree = make_tree(tmp_path / "tree", 20)
    with small_disk(tmp_path / "disk", 96) as disk:
        env = {**env, "RRG_CACHE_DIR": str(disk / "cache")}
        built = run([*rrg_cmd(), "--index", "."], tree, env)
        assert built.returncode == 2 and built.stderr.count(b"\n") == 1, built.stderr
        assert built.stderr.startswith(b"rrg: cannot update the index of ")
        assert b" free\n" in built.stderr and b"internal error" not in built.stderr
        # A search still answers, in rg's order: rg's lines, said once why.
        searched = run(q("needle", "needle"), tree, env)
        plain = subprocess.run([rg, "needle"], cwd=tree, capture_output=True)
        assert searched.returncode == 0
        assert sorted(searched.stdout.splitlines()) == sorted(plain.stdout.splitlines())
        assert searched.stderr.count(b"\n") == 1, searched.stderr
        assert b"searching in rg's order" in searched.stderr
        # Room again: what the full disk left is read as it is, no rebuild said.
        _resize(disk, 64 * 1024)
        again = run([*rrg_cmd(), "--index", "."], tree, env)
        assert again.returncode == 0 and again.stderr == b"", again.stderr
        assert b": 20 files" in again.stdout
        ranked = run(q("needle", "needle"), tree, env)
        assert ranked.returncode == 0 and ranked.stderr == b"", ranked.stderr


def test_a_new_index_file_on_a_full_disk_is_whole_or_absent(tmp_path: Path) -> None:
    """However little room there is, a reader finds no file or a whole one: on a full disk
    SQLite's close leaves the log unfolded, and the log used to be deleted, so that the file
    renamed into place read "database disk image is malformed"."""
    from rrg.index.sqlitefile import create_once
    from rrg.index.store import FORMAT_VERSION, _statements

    outcomes = set()
    for kib in range(16, 100, 4):
        with small_disk(tmp_path / f"disk{kib}", kib) as disk:
            path = disk / "index.sqlite"
            try:
                create_once(path, _statements(), FORMAT_VERSION)
            except (OSError, sqlite3.Error):
                assert not path.exists()
                outcomes.add("refused")
                continue
            db = sqlite3.connect(path)
            try:
                assert db.execute("PRAGMA user_version").fetchone() == (FORMAT_VERSION,)
                assert db.execute("SELECT COUNT(*) FROM segments").fetchone() == (0,)
            finally:
                db.close()
            outcomes.add("made")
    assert outcomes == {"refused", "made"}  # both sides of the edge were reached


def test_an_embedding_on_a_full_disk_is_one_line(tmp_path: Path, env: dict[str, str]) -> None:
    """The index written, its embedding's folder on a full disk: one line, exit 2; with
    room again the embedding is made whole."""
    model = tmp_path / "model"
    model_that_fails_on_long_inputs(model, positions=256)
    tree = make_tree(tmp_path / "tree", 40)
    env = {**env, "RRG_CACHE_DIR": str(tmp_path / "cache")}
    indexing = [*rrg_cmd(), "--model", str(model), "--index", "."]
    assert run(indexing, tree, env).returncode == 0
    status = run([*rrg_cmd(), "--model", str(model), "--index-status", "."], tree, env)
    index = status.stdout.decode().split("file: ")[1].splitlines()[0]
    with small_disk(Path(f"{index}.embed"), 16) as disk:
        _fill(disk)
        embedded = run([*indexing, "--embed"], tree, env)
        assert embedded.returncode == 2 and embedded.stderr.count(b"\n") == 1, embedded.stderr
        assert embedded.stderr.startswith(b"rrg: cannot write the embedding index of ")
        assert b"No space left on device" in embedded.stderr
        os.unlink(disk / "filler")
        _resize(disk, 4096)
        again = run([*indexing, "--embed"], tree, env)
        assert again.returncode == 0 and b"embedded " in again.stdout, again.stderr
        assert b": 40 files" in again.stdout.splitlines()[-1]


def test_a_static_table_that_cannot_be_kept_leaves_rg_order(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The model's table (once a machine) on a full disk: the search says so in one line,
    before it spends the seconds of making a table it could not keep, and answers in rg's
    order; --index fails, exit 2."""
    model = tmp_path / "model"
    model_that_fails_on_long_inputs(model)  # an 8-wide table: 0.5 MB, made in a second
    tree = make_tree(tmp_path / "tree", 5)
    with small_disk(tmp_path / "disk", 128) as disk:
        env = {**env, "RRG_PREPARED_DIR": str(disk / "prepared")}
        args = ["--model", str(model), "--fast"]
        searched = run(q("needle", *args, "needle"), tree, env)
        assert searched.returncode == 0 and searched.stdout.count(b"needle") == 5
        assert searched.stderr.count(b"\n") == 1, searched.stderr
        assert searched.stderr.startswith(b"rrg: cannot keep the model's static table in ")
        assert searched.stderr.endswith(b"; searching in rg's order\n")
        assert b"No space left" not in searched.stderr  # refused before it was made
        built = run([*rrg_cmd(), *args, "--index", "."], tree, env)
        assert built.returncode == 2 and built.stderr.count(b"\n") == 1, built.stderr
        left = [p.name for p in (disk / "prepared").iterdir() if not p.name.endswith(".lock")]
        assert left == []  # no half table left (the lock it was made under stays)


def test_a_scope_that_cannot_be_written_leaves_no_empty_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--recall`` claims scope-N.txt before writing it: where the write fails, the claim
    goes too, or a later ``--scope-file`` would read a scope of nothing."""
    from rrg.index.scopes import scope_folder, write_scope

    with small_disk(tmp_path / "disk", 64) as disk:
        monkeypatch.setenv("RRG_CACHE_DIR", str(disk / "cache"))
        folder = scope_folder()
        _fill(disk)
        with pytest.raises(RrgError, match="No space left on device"):
            write_scope("a query", [b"a.txt", b"b.txt"])
        assert list(folder.iterdir()) == []


def test_a_read_only_cache_still_ranks(tmp_path: Path, env: dict[str, str]) -> None:
    """A cache mounted read-only (a container's, a CI runner's restored one) whose index is
    up to date ranks as before, one behind the tree from its last state; what must write
    says why in one line."""
    tree = make_tree(tmp_path / "tree", 20)
    cache = tmp_path / "cache"
    env = {**env, "RRG_CACHE_DIR": str(cache)}
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    before = run(q("needle seven", "needle"), tree, env)
    bound = subprocess.run(["mount", "--bind", str(cache), str(cache)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {bound.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(cache)], check=True)
        after = run(q("needle seven", "needle"), tree, env)
        assert after.returncode == 0 and after.stderr == b"", after.stderr
        assert after.stdout == before.stdout
        cleared = run([*rrg_cmd(), "--index-clear", "."], tree, env)
        assert cleared.returncode == 2
        assert cleared.stderr.startswith(b"rrg: cannot clear index ")
        assert cleared.stderr.endswith(b": Read-only file system\n")
        # A file added since: the index as it stands ranks, the new file follows.
        (tree / "added.txt").write_text("needle seven, added\n")
        behind = run(q("needle seven", "needle"), tree, env)
        assert behind.returncode == 0 and behind.stderr.count(b"\n") == 1, behind.stderr
        assert behind.stderr.endswith(
            b": Read-only file system; ranking from its last state: 20 of 21 files indexed, "
            b"the others follow in rg's order\n"
        )
        assert behind.stdout.splitlines()[:-1] == after.stdout.splitlines()
        assert behind.stdout.splitlines()[-1] == b"added.txt:needle seven, added"
    finally:
        subprocess.run(["umount", "-l", str(cache)], check=True)
