"""What rrg keeps on disk: bounded, listed by --index-status, removed by --index-clear, and
never deleted for a passing fault."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import make_tree, rrg_cmd, run
from rrg.index.caches import bytes_by_root
from rrg.index.scopes import MAX_SCOPES
from rrg.index.vectors import MAX_AGE_DAYS, VectorCache, cached_vectors


def _status(tree: Path, env: dict[str, str]) -> str:
    out = run([*rrg_cmd(), "--index-status", "."], tree, env)
    assert out.returncode == 0, out.stderr
    return out.stdout.decode()


def test_status_lists_every_cache_file_and_clear_removes_them(
    tmp_path: Path, env: dict[str, str]
) -> None:
    tree = make_tree(tmp_path / "cached", 40)
    out = run([*rrg_cmd(), "-q", "omega", "--cascade", "5", "--files"], tree, env)
    assert out.returncode == 0, out.stderr
    status = _status(tree, env)
    index = Path(status.split("file: ")[1].splitlines()[0])
    vectors = index.with_name(index.stem + ".vectors.sqlite")
    # 5 files of one passage each, and the query; the cheap tier's static vectors beside.
    assert "vector cache: 6 model vectors, 5 static passage vectors" in status
    for path in (index, vectors, Path(f"{index}.lock")):
        assert f"    {path} (" in status, status
    cleared = run([*rrg_cmd(), "--index-clear", "."], tree, env)
    assert cleared.returncode == 0 and b"removed the index" in cleared.stdout
    assert not [p for p in index.parent.iterdir() if p.name.startswith(index.stem)]


def test_status_lines_of_words_fit_a_terminal(tmp_path: Path, env: dict[str, str]) -> None:
    """Every line but a path's fits 80 columns (some ran to 127), a folded line's rest
    indented under its name."""
    tree = make_tree(tmp_path / "folded", 40)
    assert run([*rrg_cmd(), "-q", "omega", "--files"], tree, env).returncode == 0
    status = _status(tree, env)
    paths = (env["RRG_CACHE_DIR"], str(tree))
    worded = [line for line in status.splitlines() if not any(p in line for p in paths)]
    assert "  every root kept: " in status and "RRG_CACHE_MAX_MB" in status
    assert len(worded) > 10 and max(len(line) for line in worded) <= 80, status


def test_a_damaged_vector_cache_is_reported_then_made_anew_by_a_search(
    tmp_path: Path, env: dict[str, str]
) -> None:
    tree = make_tree(tmp_path / "damaged", 40)
    search = [*rrg_cmd(), "-q", "omega", "--cascade", "5", "--files"]
    assert run(search, tree, env).returncode == 0
    status = _status(tree, env)
    index = Path(status.split("file: ")[1].splitlines()[0])
    index.with_name(index.stem + ".vectors.sqlite").write_bytes(b"\x07" * 3000)

    assert "vector cache: unreadable (file is not a database)" in _status(tree, env)
    out = run(search, tree, env)
    assert out.returncode == 0 and out.stderr == b"", out.stderr
    assert "vector cache: 6 model vectors, 5 static passage vectors" in _status(tree, env)


def test_a_path_that_is_not_there_touches_no_index(tmp_path: Path, env: dict[str, str]) -> None:
    """A typo for PATH must not stand for the folder it was typed in: --index-clear would
    remove that folder's index."""
    tree = make_tree(tmp_path / "typo", 10)
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    for command in ("--index-clear", "--index", "--index-status"):
        out = run([*rrg_cmd(), command, "no-such-dir"], tree, env)
        assert (out.returncode, out.stdout) == (2, b""), (command, out.stdout)
        assert out.stderr == b"rrg: no-such-dir: no such file or directory\n"
    assert "files indexed: 10" in _status(tree, env)


def test_files_limit_prints_the_best_n(tmp_path: Path, env: dict[str, str]) -> None:
    tree = make_tree(tmp_path / "best", 40)
    every = run([*rrg_cmd(), "-q", "omega needle", "--files"], tree, env).stdout.splitlines()
    best = run([*rrg_cmd(), "-q", "omega needle", "--files", "--limit", "7"], tree, env)
    assert len(every) == 40 and best.stdout.splitlines() == every[:7]
    assert best.stderr == b"[rrg: printed the 7 best of 40 files]\n"


def test_a_locked_index_is_kept_and_the_search_runs_in_rg_order(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """A lock held past the busy timeout is no damage: one warning, rg's order, nothing
    deleted."""
    tree = make_tree(tmp_path / "locked", 30)
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    index = Path(_status(tree, env).split("file: ")[1].splitlines()[0])
    before = index.stat().st_size
    holder = sqlite3.connect(index, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        out = run(
            [*rrg_cmd(), "-q", "needle", "--limit", "0", "needle"],
            tree,
            {**env, "RRG_INDEX_BUSY_S": "0.2"},
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert out.returncode == 0
    assert out.stderr.count(b"\n") == 1 and b"searching in rg's order" in out.stderr, out.stderr
    assert sorted(out.stdout.splitlines()) == sorted(
        run([rg, "needle"], tree, env).stdout.splitlines()
    )
    assert index.exists() and index.stat().st_size == before
    again = run([*rrg_cmd(), "-q", "needle", "needle"], tree, env)
    assert again.returncode == 0 and b"rebuilding" not in again.stderr


def test_scopes_keep_the_newest(tmp_path: Path, env: dict[str, str]) -> None:
    env = {**env, "RRG_CACHE_DIR": str(tmp_path / "cache")}
    (tmp_path / "cache" / "scopes").mkdir(parents=True)
    for k in range(1, MAX_SCOPES + 6):
        (tmp_path / "cache" / "scopes" / f"scope-{k}.txt").write_text("a\n")
    tree = make_tree(tmp_path / "sc", 5)
    out = run([*rrg_cmd(), "--recall", "needle", "--paragraphs", "0"], tree, env)
    assert out.returncode == 0, out.stderr
    kept = sorted(int(p.stem[6:]) for p in (tmp_path / "cache" / "scopes").glob("scope-*.txt"))
    assert len(kept) == MAX_SCOPES and kept[-1] == MAX_SCOPES + 6 and kept[0] == 7


def test_a_scope_folder_that_cannot_be_made_is_one_line_exit_2(
    tmp_path: Path, env: dict[str, str]
) -> None:
    env = {**env, "RRG_CACHE_DIR": str(tmp_path / "cache")}
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "scopes").write_text("a file where the scope folder goes")
    tree = make_tree(tmp_path / "sc", 5)
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    out = run([*rrg_cmd(), "--recall", "needle", "--paragraphs", "0", "--fast"], tree, env)
    assert out.returncode == 2 and out.stdout == b""
    assert (
        out.stderr.startswith(b"rrg: cannot use the scope folder ") and out.stderr.count(b"\n") == 1
    ), out.stderr
    status = _status(tree, env)  # the rest of the status is still told
    assert "files indexed: 5" in status and "scope files: cannot use the scope folder" in status


def test_vector_cache_drops_the_least_recently_used(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "root.sqlite", max_bytes=200 * 1024)
    calls: list[list[str]] = []

    def encode(keys: list[str]) -> np.ndarray:
        calls.append(keys)
        return np.ones((len(keys), 384), np.float32) / np.sqrt(384)

    for batch in range(4):  # 4 x 100 vectors of 768 bytes, against a 200 KB bound
        cached_vectors(cache, "m", [f"{batch}-{k}" for k in range(100)], encode)
        time.sleep(1.1)  # "used" is kept in seconds
    count, size = cache.stats()
    assert size <= 200 * 1024 and 0 < count < 400
    kept = cache.get("m", [f"3-{k}" for k in range(100)])
    assert len(kept) == 100  # the newest survive
    assert not cache.get("m", ["0-0"])
    calls.clear()
    cached_vectors(cache, "m", [f"3-{k}" for k in range(100)], encode)
    assert calls == []  # hits are not encoded again


def test_a_read_vector_is_marked_used_at_most_once_a_day(tmp_path: Path) -> None:
    """Marking every read rewrote a query's 1,200 rows: a read marks only what was last
    marked a day ago or more, which is all the bound's order needs."""
    cache = VectorCache(tmp_path / "root.sqlite")

    def encode(keys: list[str]) -> np.ndarray:
        return np.ones((len(keys), 8), np.float32) / np.sqrt(8)

    cached_vectors(cache, "m", ["a", "b"], encode)
    hour_ago, days_ago = int(time.time()) - 3600, int(time.time()) - 2 * 86400
    with sqlite3.connect(cache.path) as db:
        db.execute("UPDATE vectors SET used=? WHERE key='a'", (hour_ago,))
        db.execute("UPDATE vectors SET used=? WHERE key='b'", (days_ago,))
    assert sorted(cached_vectors(cache, "m", ["a", "b"], encode)) == ["a", "b"]
    with sqlite3.connect(cache.path) as db:
        used = dict(db.execute("SELECT key, used FROM vectors"))
    assert used["a"] == hour_ago
    assert used["b"] >= int(time.time()) - 60


def test_a_damaged_vector_cache_is_made_anew(tmp_path: Path) -> None:
    """A vector cache that is no database any more must not fail every write for good (each
    query would then pay the model for what it read before): the next write makes it anew."""
    cache = VectorCache(tmp_path / "root.sqlite")
    calls: list[list[str]] = []

    def encode(keys: list[str]) -> np.ndarray:
        calls.append(keys)
        return np.ones((len(keys), 384), np.float32) / np.sqrt(384)

    cached_vectors(cache, "m", ["a", "b"], encode)
    for damage in (b"not a database at all " * 100, b"SQLite format 3\0" + bytes(20_000)):
        cache.path.write_bytes(damage)
        calls.clear()
        cached_vectors(cache, "m", ["a", "b"], encode)  # read nothing, so encoded again
        assert calls == [["a", "b"]]
        calls.clear()
        assert sorted(cached_vectors(cache, "m", ["a", "b"], encode)) == ["a", "b"]
        assert calls == []  # kept this time
        assert cache.put_pieces("q", "k", np.arange(3))
        assert cache.get_pieces("q", "k").tolist() == [0, 1, 2]


_WRITER = """
import os, sys, time
import numpy as np
import pytest
from pathlib import Path
from rrg.index.vectors import MAX_AGE_DAYS, VectorCache, cached_vectors

index, go, first = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
keys = [f"k{k}" for k in range(first, first + 120)]

def encode(missing):
    return np.stack([np.full(8, int(k[1:]) / 256, np.float32) for k in missing])

while not go.exists():
    time.sleep(0.001)
got = cached_vectors(VectorCache(index), "m", keys, encode)
assert sorted(got) == sorted(keys)
assert all(np.allclose(got[k], int(k[1:]) / 256, atol=0.01) for k in keys)
"""


def test_writers_meeting_on_a_new_vector_cache_store_each_vector_once(tmp_path: Path) -> None:
    """Six processes that encode overlapping passages at once, the cache file not yet made:
    each gets its vectors, and the file holds each key once with the right vector."""
    import sys

    index = tmp_path / "root.sqlite"
    go = tmp_path / "go"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(index), str(go), str(40 * k)],
            stderr=subprocess.PIPE,
        )
        for k in range(6)
    ]
    time.sleep(0.5)  # all of them waiting on the go file
    go.touch()
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err.decode()
    db = sqlite3.connect(VectorCache(index).path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = db.execute("SELECT key, vec FROM vectors").fetchall()
    finally:
        db.close()
    keys = [key for key, _ in rows]
    assert keys and len(keys) == len(set(keys))  # stored, each once
    for key, vec in rows:
        assert np.allclose(np.frombuffer(vec, "<f2"), int(key[1:]) / 256, atol=0.01), key


def test_rg_of_another_version_is_named_once(tmp_path: Path, rg: str, env: dict[str, str]) -> None:
    fake = tmp_path / "old-rg"
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --version ]; then echo "ripgrep 13.0.0"; exit 0; fi\n'
        f'exec {rg} "$@"\n'
    )
    fake.chmod(0o755)
    tree = make_tree(tmp_path / "v", 5)
    env = {**env, "RRG_RG": str(fake)}
    first = run([*rrg_cmd(), "-q", "needle", "needle"], tree, env)
    assert first.returncode == 0
    assert first.stderr.startswith(b"rrg: ") and b"ripgrep 13.0.0" in first.stderr
    assert b"15.2.0" in first.stderr and first.stderr.count(b"\n") == 1
    second = run([*rrg_cmd(), "-q", "needle", "needle"], tree, env)
    assert second.returncode == 0 and second.stderr == b""
    passthrough = subprocess.run([*rrg_cmd(), "needle"], cwd=tree, env=env, capture_output=True)
    assert passthrough.stderr == b""


@pytest.mark.parametrize("program", ["/bin/echo", "/bin/false"])
def test_a_program_that_is_not_ripgrep_is_refused(
    tmp_path: Path, env: dict[str, str], program: str
) -> None:
    """RRG_RG set to the wrong file (or another tool named rg on PATH): every search
    printed nothing and exited 1, as if nothing matched; a warning said "ripgrep unknown"
    once. Now one line says what it is, exit 2, on every search."""
    tree = make_tree(tmp_path / "v", 5)
    env = {**env, "RRG_RG": program}
    for _ in range(2):  # the second run reads the verdict kept from the first
        out = run([*rrg_cmd(), "-q", "needle", "needle"], tree, env)
        assert out.returncode == 2 and out.stdout == b"", out.stderr
        assert out.stderr.startswith(f"rrg: {program} is not ripgrep (its --version".encode())
        assert out.stderr.count(b"\n") == 1, out.stderr


def test_a_subdirectory_uses_its_indexed_ancestor(tmp_path: Path, env: dict[str, str]) -> None:
    """cd into an indexed repository: no second index, the root's corpus statistics, and the
    order of the root's search restricted to that folder."""
    tree = make_tree(tmp_path / "repo", 60)
    sub = make_tree(tree / "subdir", 30)
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    from_root = run([*rrg_cmd(), "-q", "omega needle", "--files", "subdir"], tree, env)
    from_sub = run([*rrg_cmd(), "-q", "omega needle", "--files"], sub, env)
    assert from_sub.returncode == from_root.returncode == 0
    assert from_sub.stdout.splitlines() == [
        p.removeprefix(b"subdir/") for p in from_root.stdout.splitlines()
    ]
    searched = run([*rrg_cmd(), "-q", "needle", "--limit", "2", "needle"], sub, env)
    assert searched.returncode == 0 and len(searched.stdout.splitlines()) == 2
    index_dir = Path(env["RRG_CACHE_DIR"]) / "index"
    assert not list(index_dir.glob("subdir-*.sqlite"))
    status = run([*rrg_cmd(), "--index-status", "."], sub, env).stdout.decode()
    assert f"(served by the index of {tree})" in status


def test_the_climb_to_an_indexed_ancestor_stays_within_a_project(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A folder above a repository serves no search inside it: the repository (the folder
    holding .git) gets an index of its own, while a plain folder beside it is served by
    the indexed folder above both."""
    work = tmp_path / "work"
    repo = make_tree(work / "repo", 20)
    (repo / ".git").mkdir()
    plain = make_tree(work / "plain", 20)
    assert run([*rrg_cmd(), "--index", "."], work, env).returncode == 0
    status = run([*rrg_cmd(), "--index-status", "."], plain, env).stdout.decode()
    assert f"(served by the index of {work})" in status
    status = run([*rrg_cmd(), "--index-status", "."], repo, env)
    assert status.stdout.decode().startswith(f"{repo}: not indexed")
    searched = run([*rrg_cmd(), "-q", "needle", "--files", "--limit", "3"], repo, env)
    assert searched.returncode == 0 and len(searched.stdout.splitlines()) == 3
    assert list((Path(env["RRG_CACHE_DIR"]) / "index").glob("repo-*.sqlite"))


def test_an_index_at_the_top_of_the_disk_or_home_serves_no_project_below(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A search over PATHs whose common folder is / (a project and a file elsewhere)
    indexes / for itself; it does not then serve every later search below it (a project's
    own --index went into it). Likewise an index of the home folder."""
    project = make_tree(tmp_path / "project", 10)
    elsewhere = "/etc/passwd"  # any file outside tmp_path: the common folder is /
    both = run([*rrg_cmd(), "-q", "needle", "--files", ".", elsewhere], project, env)
    assert both.returncode == 0 and b"f00000.txt" in both.stdout
    status = run([*rrg_cmd(), "--index-status", "."], project, env).stdout.decode()
    assert status.startswith(f"{project}: not indexed"), status
    home = tmp_path / "home"
    mine = make_tree(home / "mine", 10)
    at_home = {**env, "HOME": str(home)}
    assert run([*rrg_cmd(), "--index", "."], home, at_home).returncode == 0
    status = run([*rrg_cmd(), "--index-status", "."], mine, at_home).stdout.decode()
    assert status.startswith(f"{mine}: not indexed"), status
    # The same index serves below a folder that is not the home folder.
    status = run([*rrg_cmd(), "--index-status", "."], mine, env).stdout.decode()
    assert f"(served by the index of {home})" in status


def _hold_writer_lock(index: Path) -> int:
    """Take the root's writer lock as another rrg's long build would hold it."""
    fd = os.open(f"{index}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _search_a_new_root_while_held(tmp_path: Path, env: dict[str, str], busy: Path) -> None:
    """A first search of a new root (which removes the stale roots) while another rrg's
    build holds index ``busy``'s writer lock."""
    held = _hold_writer_lock(busy)
    try:
        new = make_tree(tmp_path / "new", 5)
        assert run([*rrg_cmd(), "-q", "needle", "needle"], new, env).returncode == 0
    finally:
        os.close(held)


def test_the_files_of_a_root_whose_folder_is_gone_go_with_the_next_new_root(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A temporary clone searched and removed leaves no index behind for good: the next
    search of a new root deletes every file kept for it (and for no root that still
    exists); one whose lock is held (a build running) is left for a later pass."""
    index_dir = Path(env["RRG_CACHE_DIR"]) / "index"
    trees = {name: make_tree(tmp_path / name, 5) for name in ("clone", "kept", "busy")}
    for tree in trees.values():
        assert run([*rrg_cmd(), "-q", "needle", "needle"], tree, env).returncode == 0
    for name in trees:
        assert len(list(index_dir.glob(f"{name}-*"))) >= 4  # registry, segments, vectors...
    # The registry, not the vector cache beside it (busy-HASH.vectors.sqlite).
    [busy_index] = [p for p in index_dir.glob("busy-*.sqlite") if ".vectors." not in p.name]
    shutil.rmtree(trees["clone"])
    shutil.rmtree(trees["busy"])
    _search_a_new_root_while_held(tmp_path, env, busy_index)
    assert not list(index_dir.glob("clone-*"))
    assert len(list(index_dir.glob("kept-*"))) >= 4 and list(index_dir.glob("new-*"))
    assert busy_index.exists()
    later = make_tree(tmp_path / "later", 5)
    assert run([*rrg_cmd(), "-q", "needle", "needle"], later, env).returncode == 0
    assert not list(index_dir.glob("busy-*"))
    status = run([*rrg_cmd(), "--index-status", "."], trees["kept"], env).stdout.decode()
    assert ".sqlite.root (" in status and "files indexed: 5" in status


def test_a_root_unused_for_a_month_goes_with_the_next_new_root(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A project searched once and never again keeps no index for good: its record's time is
    when a search last used it (marked at most once a day), and the next search of a new
    root deletes the files of a root unused for MAX_AGE_DAYS; a root used since, or in use
    (its lock held), stays."""
    index_dir = Path(env["RRG_CACHE_DIR"]) / "index"
    trees = {name: make_tree(tmp_path / name, 5) for name in ("old", "used", "busy")}
    for tree in trees.values():
        assert run([*rrg_cmd(), "-q", "needle", "needle"], tree, env).returncode == 0
    records = {name: next(index_dir.glob(f"{name}-*.sqlite.root")) for name in trees}
    month = time.time() - (MAX_AGE_DAYS + 1) * 86400
    for record in records.values():
        os.utime(record, (month, month))
    # A search marks its root used: a day's grain, so a record marked an hour ago stays.
    assert run([*rrg_cmd(), "-q", "needle", "needle"], trees["used"], env).returncode == 0
    assert records["used"].stat().st_mtime > time.time() - 600
    hour = time.time() - 3600
    os.utime(records["used"], (hour, hour))
    assert run([*rrg_cmd(), "-q", "needle", "needle"], trees["used"], env).returncode == 0
    assert records["used"].stat().st_mtime == pytest.approx(hour)
    assert "last used by a search: today (its files go after 30 days unused)" in _status(
        trees["used"], env
    )
    assert "last used by a search: 31 days ago" in _status(trees["old"], env)
    [busy_index] = [p for p in index_dir.glob("busy-*.sqlite") if ".vectors." not in p.name]
    _search_a_new_root_while_held(tmp_path, env, busy_index)
    assert not list(index_dir.glob("old-*"))
    assert len(list(index_dir.glob("used-*"))) >= 4 and busy_index.exists()
    assert (trees["old"] / "f00000.txt").exists()  # the project itself is untouched
    again = run([*rrg_cmd(), "-q", "needle", "needle"], trees["old"], env)
    assert again.returncode == 0 and b"needle" in again.stdout  # indexed anew


def test_past_the_cache_bound_a_new_root_removes_the_roots_used_longest_ago(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Thirty days bound a root's files by time; many projects within a month need a bound
    by size too. Past RRG_CACHE_MAX_MB, the first search of a new root removes the roots
    used longest ago until the rest fit, and never one used within the last day, however
    big (it would be rebuilt at once); 0 keeps them all."""
    env = {**env, "RRG_CACHE_DIR": str(tmp_path / "cache")}
    index_dir = tmp_path / "cache" / "index"
    names = ("oldest", "older", "today")
    trees = {name: make_tree(tmp_path / name, 5) for name in names}
    for tree in trees.values():
        assert run([*rrg_cmd(), "-q", "needle", "needle"], tree, env).returncode == 0
    records = {name: next(index_dir.glob(f"{name}-*.sqlite.root")) for name in names}
    for name, days in (("oldest", 5), ("older", 3)):
        then = time.time() - days * 86400
        os.utime(records[name], (then, then))
    sizes = bytes_by_root(index_dir)
    size = {name: sizes[Path(str(records[name])[: -len(".root")])] for name in names}
    assert all(size.values())
    status = _status(trees["today"], env)
    assert "every root kept: 3 roots" in status and "RRG_CACHE_MAX_MB" in status
    # Room for all but half of the oldest root: it alone goes.
    room = (size["older"] + size["today"] + size["oldest"] / 2) / 2**20

    def first_search(name: str, max_mb: float) -> None:
        tree = make_tree(tmp_path / name, 5)
        out = run(
            [*rrg_cmd(), "-q", "needle", "needle"], tree, {**env, "RRG_CACHE_MAX_MB": str(max_mb)}
        )
        assert out.returncode == 0, out.stderr

    first_search("new1", room)
    assert not list(index_dir.glob("oldest-*"))
    assert records["older"].exists() and records["today"].exists()
    assert (trees["oldest"] / "f00000.txt").exists()  # the project itself is untouched
    first_search("new2", 0)  # no bound but age: nothing goes
    assert records["older"].exists()
    first_search("new3", 0.000001)  # far past it: all but the roots used within a day go
    assert not list(index_dir.glob("older-*"))
    assert records["today"].exists() and len(list(index_dir.glob("new*.sqlite.root"))) == 3
    bad = run(
        [*rrg_cmd(), "-q", "needle", "needle"], trees["today"], {**env, "RRG_CACHE_MAX_MB": "5GB"}
    )
    assert bad.returncode == 2 and bad.stderr == (
        b"rrg: RRG_CACHE_MAX_MB must be a number >= 0, not '5GB'\n"
    )


def test_index_that_cannot_get_the_lock_exits_2_naming_the_index_and_the_variable(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Issue 27: the writer lock's wait was 600 s whatever RRG_INDEX_BUSY_S said, and the
    lock that could not be had ended as an internal error."""
    tree = make_tree(tmp_path / "held", 20)
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    index = Path(_status(tree, env).split("file: ")[1].splitlines()[0])
    (tree / "new.txt").write_text("needle in a new file\n")
    fd = _hold_writer_lock(index)
    try:
        out = run(
            [*rrg_cmd(), "--index", "."], tree, {**env, "RRG_INDEX_BUSY_S": "0.5"}, timeout=30
        )
    finally:
        os.close(fd)
    assert out.returncode == 2, out.stderr
    assert out.stdout == b""
    line = out.stderr.decode()
    assert line.count("\n") == 1 and line.startswith("rrg: "), line
    assert index.name in line and "RRG_INDEX_BUSY_S" in line and "internal" not in line


def test_a_search_that_cannot_refresh_answers_from_the_index_and_says_so(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Issue 27: a search after a change waited a minute on another rrg's lock. It now
    waits RRG_INDEX_BUSY_S, then ranks from the index as it stands; the changed and the
    new file are still searched."""
    tree = make_tree(tmp_path / "stale", 20)
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    index = Path(_status(tree, env).split("file: ")[1].splitlines()[0])
    (tree / "new.txt").write_text("a needle in a file the index has not seen\n")
    changed = sorted(p for p in tree.rglob("*.txt") if p.name != "new.txt")[0]
    changed.write_text(changed.read_text() + "one more needle\n")
    fd = _hold_writer_lock(index)
    try:
        out = run(
            [*rrg_cmd(), "-q", "needle", "--limit", "0", "needle"],
            tree,
            {**env, "RRG_INDEX_BUSY_S": "0.5"},
            timeout=30,
        )
    finally:
        os.close(fd)
    assert out.returncode == 0, out.stderr
    warning = out.stderr.decode()
    assert warning.count("\n") == 1 and "ranking from its last state" in warning, warning
    assert "RRG_INDEX_BUSY_S" in warning
    expected = run([rg, "needle"], tree, env).stdout.splitlines()
    assert sorted(out.stdout.splitlines()) == sorted(expected)
    assert any(line.startswith(b"new.txt:") for line in expected)


def test_sizes_count_what_is_there_and_nothing_for_what_went(tmp_path: Path) -> None:
    """--index-status sums the sizes of a root's files while other processes use them:
    SQLite removes a -wal file with its last connection, a merge removes old segments. A
    file that went counts nothing; it is not an internal error (it was, under load)."""
    from rrg.index.caches import bytes_on_disk

    folder = tmp_path / "x.sqlite.segments"
    (folder / "s1").mkdir(parents=True)
    (folder / "s1" / "docs").write_bytes(b"a" * 100)
    (folder / "s2").mkdir()
    (folder / "s2" / "docs").write_bytes(b"b" * 20)
    wal = tmp_path / "x.sqlite-wal"
    wal.write_bytes(b"c" * 7)
    assert bytes_on_disk(folder) == 120
    assert bytes_on_disk(wal) == 7
    wal.unlink()
    assert bytes_on_disk(wal) == 0
    assert bytes_on_disk(tmp_path / "never.sqlite.embed") == 0


def test_clear_waits_for_an_embedding_and_leaves_all_while_one_runs(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """An embedding writes its parts under the embedding lock alone: --index-clear took the
    writer lock only and removed the folder under it (the embedding then failed with an
    internal error). Now it waits for the embedding lock, and fails in one line, removing
    nothing, where it cannot have it."""
    tree = make_tree(tmp_path / "embedding", 20)
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    index = Path(_status(tree, env).split("file: ")[1].splitlines()[0])
    fd = _hold_writer_lock(Path(f"{index}.embed"))
    try:
        out = run([*rrg_cmd(), "--index-clear", "."], tree, {**env, "RRG_INDEX_BUSY_S": "0.5"})
    finally:
        os.close(fd)
    assert out.returncode == 2 and out.stderr.count(b"\n") == 1, out.stderr
    assert b"cannot clear it while it is embedded" in out.stderr and index.exists()
    cleared = run([*rrg_cmd(), "--index-clear", "."], tree, env)
    assert cleared.returncode == 0 and not index.exists(), cleared.stderr


def test_a_clear_waiting_for_an_embedding_holds_up_no_build(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """--index-clear waited for the embedding lock holding the root's writer lock: for that
    minute every build of the root waited too, and an `rrg --index` failed. Now the
    embedding lock comes first, as an embedder takes it."""
    tree = make_tree(tmp_path / "embedding", 20)
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    index = Path(_status(tree, env).split("file: ")[1].splitlines()[0])
    fd = _hold_writer_lock(Path(f"{index}.embed"))
    try:
        clearing = subprocess.Popen(
            [*rrg_cmd(), "--index-clear", "."],
            cwd=tree,
            env={**env, "RRG_INDEX_BUSY_S": "60"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        time.sleep(1.0)  # the clear waits on the embedding lock by now
        (tree / "new.txt").write_text("needle in a new file\n")
        built = run([*rrg_cmd(), "--index", "."], tree, {**env, "RRG_INDEX_BUSY_S": "3"})
        assert built.returncode == 0 and b"1 read" in built.stdout, built.stderr
        assert clearing.poll() is None
    finally:
        os.close(fd)
    out, err = clearing.communicate(timeout=60)
    assert clearing.returncode == 0 and not index.exists(), err


def test_clear_stops_the_background_job_embedding_it(tmp_path: Path, env: dict[str, str]) -> None:
    """The job a search started ahead embeds for minutes: --index-clear stops it (it holds
    the root's builder lock, naming its pid) rather than wait for it, and says so."""
    tree = make_tree(tmp_path / "job", 20)
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    index = Path(_status(tree, env).split("file: ")[1].splitlines()[0])
    held = tmp_path / "held"
    job_code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from rrg.index.store import builder_lock, writer_lock\n"
        "index = Path(sys.argv[1])\n"
        "with builder_lock(index), writer_lock(Path(f'{index}.embed')):\n"
        f"    Path({str(held)!r}).write_text('1')\n"
        "    time.sleep(60)\n"
    )
    # Named as the job is (python -m rrg --index ...): only such a process is stopped.
    job = subprocess.Popen([sys.executable, "-c", job_code, str(index), "rrg", "--index"])
    try:
        deadline = time.monotonic() + 30
        while not held.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        out = run([*rrg_cmd(), "--index-clear", "."], tree, {**env, "RRG_INDEX_BUSY_S": "20"})
        assert job.wait(timeout=10) == -signal.SIGTERM
    finally:
        job.kill()
        job.wait()
    assert out.returncode == 0, out.stderr
    assert b"stopped the background job that was embedding it" in out.stdout
    assert not index.exists()


def test_a_scope_keeps_where_its_files_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recall's scope keeps each file's best spans beside its paths, a path that is not
    UTF-8 included; a sidecar whose spans are not as written keeps the paths and the query,
    and no spans (its searches print first lines)."""
    from rrg.index.scopes import read_scope, write_scope

    monkeypatch.setenv("RRG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    odd = b"caf\xe9.py"
    target = write_scope("q", [b"a.py", odd], {b"a.py": [(11, 17), (1, 3)], odd: [(2, 2)]})
    scope = read_scope(str(target))
    assert scope.paths == [b"a.py", odd] and scope.query == "q"
    assert scope.spans == {b"a.py": [(11, 17), (1, 3)], odd: [(2, 2)]}
    sidecar = target.with_suffix(".json")
    meta = json.loads(sidecar.read_text())
    meta["spans"] = {"a.py": [[1, "x"]], "b.py": "no"}
    sidecar.write_text(json.dumps(meta))
    tampered = read_scope(str(target))
    assert tampered.spans == {} and tampered.query == "q" and tampered.paths == scope.paths


def test_a_scopes_searches_add_their_spans_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spans a scope's search scored (files its recall held none of) are added to its
    sidecar as the recall wrote its paths, read from another folder too (where
    ``read_scope`` gives them as absolute paths); a sidecar that is not JSON is left be."""
    from rrg.index.scopes import keep_spans, read_scope, write_scope

    monkeypatch.setenv("RRG_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    target = write_scope("q", [b"a.py", b"b.py", b"c.py"], {b"a.py": [(1, 3)]})
    keep_spans(read_scope(str(target)), {b"b.py": [(4, 9), (1, 2)]})
    assert read_scope(str(target)).spans == {b"a.py": [(1, 3)], b"b.py": [(4, 9), (1, 2)]}
    monkeypatch.chdir(tmp_path)
    elsewhere = read_scope(str(target))
    c_path = os.fsencode(project / "c.py")
    assert c_path in elsewhere.paths
    keep_spans(elsewhere, {c_path: [(7, 7)]})
    monkeypatch.chdir(project)
    assert read_scope(str(target)).spans[b"c.py"] == [(7, 7)]
    target.with_suffix(".json").write_text("{not json")
    keep_spans(read_scope(str(target)), {b"a.py": [(2, 2)]})
    assert target.with_suffix(".json").read_text() == "{not json"
