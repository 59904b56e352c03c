"""Faults, hostile trees and security: nothing lost, nothing half-written, no way in."""

from __future__ import annotations

import os
import random
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import (
    ROOT,
    as_at_a_terminal,
    make_tree,
    model_that_fails_on_long_inputs,
    outcome,
    q,
    rrg_cmd,
    run,
    without_root_powers,
)
from rrg.index.refresh import CHUNK_FILES, FIRST_CHUNK_FILES


def _indexed_rows(index_dir: Path, name: str) -> int:
    """Files committed so far by a running build (0 before its first chunk is registered)."""
    import sqlite3

    for path in index_dir.glob(f"{name}-*.sqlite"):
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.1)
            try:
                row = db.execute("SELECT COALESCE(SUM(docs), 0) FROM segments").fetchone()
                return int(row[0])
            finally:
                db.close()
        except sqlite3.Error:
            return 0
    return 0


def _start_build_and_wait(tree: Path, env: dict[str, str], rows: int) -> subprocess.Popen[bytes]:
    """A cold ``rrg --index`` that has committed at least ``rows`` files and is still going
    (the tree holds many more): a signal sent now lands mid-build, whatever the machine."""
    proc = subprocess.Popen(
        [*rrg_cmd(), "--index", "."],
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=as_at_a_terminal,
    )
    index_dir = Path(env["RRG_CACHE_DIR"]) / "index"
    deadline = time.monotonic() + 120
    while _indexed_rows(index_dir, tree.name) < rows and time.monotonic() < deadline:
        assert proc.poll() is None, "the build ended before it was interrupted"
        time.sleep(0.01)
    assert proc.poll() is None, "the build ended before it was interrupted"
    return proc


@pytest.mark.slow
def test_kill_9_during_builds_then_same_as_fresh(tmp_path: Path, env: dict[str, str]) -> None:
    """kill -9 at several points of cold builds (after one chunk, then two, each build
    starting again from where the last was killed); afterwards a normal run succeeds and
    ranks exactly as a fresh index does."""
    tree = make_tree(tmp_path / "killtree", CHUNK_FILES * 2 + 1500)
    # The index's first chunk is FIRST_CHUNK_FILES, then CHUNK_FILES each: killed after
    # one, then (resumed) after the next.
    for rows in (FIRST_CHUNK_FILES, FIRST_CHUNK_FILES + CHUNK_FILES):
        proc = _start_build_and_wait(tree, env, rows)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        assert proc.returncode == -signal.SIGKILL
    after = run(q("omega sigma needle", "--files"), tree, env)
    fresh_env = {**env, "RRG_CACHE_DIR": str(tmp_path / "fresh")}
    (tmp_path / "fresh").mkdir()
    os.symlink(Path(env["RRG_CACHE_DIR"]) / "models", tmp_path / "fresh" / "models")
    fresh = run(q("omega sigma needle", "--files"), tree, fresh_env)
    assert after.returncode == fresh.returncode == 0
    assert after.stdout == fresh.stdout
    assert b"rebuilding" not in after.stderr


def test_ctrl_c_during_a_build_exits_130_and_leaves_a_usable_index(
    tmp_path: Path, env: dict[str, str]
) -> None:
    total = CHUNK_FILES + 3000
    tree = make_tree(tmp_path / "ctrlc-tree", total)
    index_dir = Path(env["RRG_CACHE_DIR"]) / "index"
    err = b""
    for _ in range(3):
        proc = _start_build_and_wait(tree, env, FIRST_CHUNK_FILES)
        # On a loaded machine this test may be descheduled until the build has registered
        # every file, or between that check and the signal: the signal then lands in the
        # exit of a finished build (which says "indexed") and proves nothing. Start again.
        if _indexed_rows(index_dir, tree.name) < total:
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
            if not (proc.returncode == 0 and out.startswith(b"indexed")):
                break
        else:
            proc.kill()
            proc.communicate()
        shutil.rmtree(index_dir)
    assert proc.returncode == 130 and b"Traceback" not in err
    out = run(q("needle", "-l", "--limit", "0", "needle"), tree, env)
    assert out.returncode == 0 and len(out.stdout.splitlines()) == CHUNK_FILES + 3000


@pytest.mark.parametrize(
    "args", [["needle"], ["--excerpt", "0", "needle"], ["--json", "needle"], ["-n", "needle"]]
)
def test_broken_pipe_is_quiet_and_exits_0_as_rg(
    args: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """`rrg -q ... | head -1`: rg walking a tree takes a reader that left for a graceful end
    (exit 0), so a pipeline under `set -o pipefail` holds; rrg must not die of SIGPIPE
    (status 141). (rg -j1 exits 1 there: the search it was in counts as unfinished.)"""
    import shlex

    tree = tmp_path / "tree"
    tree.mkdir()
    for k in range(20):  # 2 MB of matching lines: far past what a pipe holds
        (tree / f"f{k:02d}.txt").write_text(f"needle {k} in a line of its own\n" * 4000)

    def status(cmd: list[str]) -> tuple[bytes, bytes]:
        line = " ".join(shlex.quote(part) for part in cmd)
        out = subprocess.run(
            ["bash", "-c", f"{line} | head -1; echo status=${{PIPESTATUS[0]}}"],
            cwd=tree,
            env=env,
            capture_output=True,
        )
        return out.stdout.splitlines()[-1], out.stderr

    ours, said = status([*rrg_cmd(), "-q", "needle", "--limit", "0", *args, "."])
    theirs, _ = status([rg, *(a for a in args if a not in ("--excerpt", "0")), "."])
    assert ours == theirs == b"status=0"
    assert b"Traceback" not in said and b"Broken pipe" not in said, said


def test_cache_dir_is_private(tmp_path: Path, env: dict[str, str]) -> None:
    cache = tmp_path / "new" / "cache"
    out = run([*rrg_cmd(), "--index-status", "."], tmp_path, {**env, "RRG_CACHE_DIR": str(cache)})
    assert out.returncode == 1 and b"not indexed" in out.stdout
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE((cache / "index").stat().st_mode) == 0o700


def test_the_searched_tree_is_never_written(tmp_path: Path, env: dict[str, str]) -> None:
    tree = make_tree(tmp_path / "tree", 20)
    before = sorted((p.name, p.stat().st_mtime_ns) for p in tree.rglob("*"))
    assert run(q("needle", "needle"), tree, env).returncode == 0
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    assert sorted((p.name, p.stat().st_mtime_ns) for p in tree.rglob("*")) == before


@pytest.mark.slow
def test_a_planted_pickle_is_never_loaded(tmp_path: Path, env: dict[str, str]) -> None:
    """The static table cache is read with allow_pickle=False: a pickle there is data,
    rejected and rebuilt, never run."""
    import pickle

    from rrg.model.registry import default_model
    from rrg.model.static_table import static_table_path

    cache, prepared = tmp_path / "cache", tmp_path / "prepared"
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Exploit(str(marker)))
    for folder in (prepared, cache / "models"):  # where tables live, and lived before
        folder.mkdir(parents=True)
        (folder / static_table_path(default_model()).name).write_bytes(payload)
    env = {**env, "RRG_CACHE_DIR": str(cache), "RRG_PREPARED_DIR": str(prepared)}
    tree = make_tree(tmp_path / "tree", 5)
    out = run(q("needle", "needle"), tree, env)
    assert out.returncode == 0
    assert not marker.exists()


def test_a_cache_dir_that_cannot_be_made(tmp_path: Path, env: dict[str, str]) -> None:
    """A search runs in rg's order, saying why in one line; --recall, whose scope file
    lives there, says so in one line before any work, exit 2."""
    taken = tmp_path / "a-file"
    taken.write_text("not a folder\n")
    env = {**env, "RRG_CACHE_DIR": str(taken)}
    tree = make_tree(tmp_path / "tree", 5)
    search = run(q("needle", "needle"), tree, env)
    assert search.returncode == 0 and search.stdout
    assert search.stderr.count(b"\n") == 1 and b"searching in rg's order" in search.stderr
    # Files listed in rg's order are not said to be the best.
    listed = run(q("needle", "--files", "--limit", "2"), tree, env)
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 2
    assert listed.stderr.endswith(b"[rrg: printed the first 2 of 5 files, in rg's order]\n")
    recall = run([*rrg_cmd(), "--recall", "needle"], tree, env)
    assert recall.returncode == 2 and recall.stdout == b""
    assert recall.stderr == f"rrg: cannot create the cache dir {taken}: File exists\n".encode()


class _Exploit:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.path}",))


def test_hostile_names_and_unreadable_files(tmp_path: Path, rg: str, env: dict[str, str]) -> None:
    tree = tmp_path / "hostile"
    tree.mkdir()
    (tree / "new\nline.txt").write_text("needle in a file with a newline in its name\n")
    (tree / "-rf").write_text("needle behind a dash\n")
    (tree / os.fsdecode(b"bad\xffname.txt")).write_text("needle with a non-UTF-8 name\n")
    (tree / "loop").symlink_to(tree)
    locked = tree / "locked.txt"
    locked.write_text("needle you cannot read\n")
    locked.chmod(0)
    (tree / "empty").mkdir()
    for k in range(50):
        (tree / "empty" / f"e{k}").write_text("")
    try:
        for extra in ([], ["-L"]):
            ours = run(q("needle", "--limit", "0", "--excerpt", "0", *extra, "needle"), tree, env)
            theirs = run([rg, *extra, "needle"], tree, env)
            assert ours.returncode == theirs.returncode
            assert sorted(ours.stdout.split(b"\n")) == sorted(theirs.stdout.split(b"\n"))
            assert sorted(ours.stderr.splitlines()) == sorted(theirs.stderr.splitlines())
    finally:
        locked.chmod(0o600)


def test_files_that_vanish_between_listing_and_search(tmp_path: Path, env: dict[str, str]) -> None:
    tree = make_tree(tmp_path / "tree", 400)
    proc = subprocess.Popen(
        q("needle", "--limit", "0", "needle"),
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    for k in range(0, 400, 2):
        (tree / f"f{k:05d}.txt").unlink()
    out, err = proc.communicate(timeout=120)
    # Skipped silently, as rg skips a file deleted during its walk.
    assert proc.returncode == 0 and err == b"", err
    for line in out.splitlines():
        name, _, text = line.partition(b":")
        assert text.startswith(b"needle ") and int(text.split()[1]) == int(name[1:6])


def _index_file(tree: Path, env: dict[str, str]) -> Path:
    assert run([*rrg_cmd(), "--index", "."], tree, env).returncode == 0
    status = run([*rrg_cmd(), "--index-status", "."], tree, env).stdout.decode()
    return Path(status.split("file: ")[1].splitlines()[0])


@pytest.mark.parametrize("damage", ["truncated", "zeroed", "random", "older-format"])
def test_damaged_index_is_reported_once_and_rebuilt(
    damage: str, tmp_path: Path, env: dict[str, str]
) -> None:
    import sqlite3

    tree = make_tree(tmp_path / "tree", 300)
    expected = run(q("omega needle", "--files"), tree, env).stdout
    path = _index_file(tree, env)
    size = path.stat().st_size
    if damage == "truncated":
        with open(path, "r+b") as fh:
            fh.truncate(size // 3)
    elif damage == "zeroed":
        path.write_bytes(b"\0" * size)
    elif damage == "random":
        path.write_bytes(random.Random(5).randbytes(size))
    else:
        db = sqlite3.connect(path)
        db.execute("PRAGMA user_version=1")
        db.commit()
        db.close()
    for side in ("-wal", "-shm"):
        Path(f"{path}{side}").unlink(missing_ok=True)
    out = run(q("omega needle", "--files"), tree, env)
    assert out.returncode == 0 and out.stdout == expected
    assert out.stderr.startswith(b"rrg: ") and out.stderr.count(b"\n") == 1, out.stderr
    assert b"rebuilding" in out.stderr and b"Traceback" not in out.stderr
    again = run(q("omega needle", "--files"), tree, env)
    assert again.stderr == b"" and again.stdout == expected


def test_a_newer_rrgs_index_is_kept_and_the_search_runs_in_rgs_order(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Two rrg installs of different index formats sharing a cache dir: the older one
    rebuilt the newer one's index in its own format, which the newer one then rebuilt
    again, each run of either undoing the other's. The older one now leaves it be."""
    import sqlite3

    from rrg.index.store import FORMAT_VERSION

    tree = make_tree(tmp_path / "tree", 30)
    path = _index_file(tree, env)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={FORMAT_VERSION + 1}")
    db.commit()
    db.close()
    for _ in range(2):
        out = run(q("omega needle", "-l", "--limit", "0", "needle"), tree, env)
        want = run([rg, "-l", "needle"], tree, env).stdout
        assert out.returncode == 0 and sorted(out.stdout.split()) == sorted(want.split())
        assert out.stderr.count(b"\n") == 1 and b"is of a newer rrg" in out.stderr, out.stderr
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == FORMAT_VERSION + 1
    db.close()
    status = run([*rrg_cmd(), "--index-status", "."], tree, env)
    assert b"not readable by this rrg" in status.stdout, status.stdout


def test_broken_model_folder_is_one_line_exit_2(tmp_path: Path, env: dict[str, str]) -> None:
    model = tmp_path / "broken-model"
    model.mkdir()
    (model / "model.onnx").write_bytes(b"this is not an onnx graph")
    (model / "tokenizer.json").write_text(
        (ROOT / "rrg" / "data" / "minilm-tokenizer.json").read_text()
    )
    tree = make_tree(tmp_path / "tree", 5)
    out = run(q("needle", "--model", str(model), "needle"), tree, env)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.startswith(b"rrg: cannot load model") and out.stderr.count(b"\n") == 1


@pytest.mark.parametrize(
    ("meta", "said"),
    [
        ('{"dims": "x"}', b"dims must be a whole number >= 0, not 'x'"),
        ('{"max_tokens": 0}', b"max_tokens must be a whole number >= 2, not 0"),
        ('{"pooling": "max"}', b"pooling must be one of mean, cls, last, not 'max'"),
        ("[384]", b"must hold one JSON object"),
        ("not json", b"is not valid JSON"),
    ],
)
def test_a_bad_model_description_is_one_line_exit_2(
    tmp_path: Path, env: dict[str, str], meta: str, said: bytes
) -> None:
    """rrg-model.json, beside an imported model, written or edited by hand."""
    model = tmp_path / "model"
    model_that_fails_on_long_inputs(model)
    (model / "rrg-model.json").write_text(meta)
    tree = make_tree(tmp_path / "tree", 5)
    out = run(q("needle", "--model", str(model), "needle"), tree, env)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.startswith(b"rrg: ") and out.stderr.count(b"\n") == 1, out.stderr
    assert said in out.stderr, out.stderr


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("RRG_THREADS", "abc", b"rrg: RRG_THREADS must be a whole number >= 0, not 'abc'\n"),
        ("RRG_THREADS", "1.5", b"rrg: RRG_THREADS must be a whole number >= 0, not '1.5'\n"),
        ("RRG_INDEX_BUSY_S", "-1", b"rrg: RRG_INDEX_BUSY_S must be a number >= 0, not '-1'\n"),
        ("RRG_INDEX_BUSY_S", "nan", b"rrg: RRG_INDEX_BUSY_S must be a number >= 0, not 'nan'\n"),
    ],
)
def test_a_bad_number_in_the_environment_is_one_line_exit_2(
    tmp_path: Path, env: dict[str, str], name: str, value: str, said: bytes
) -> None:
    tree = make_tree(tmp_path / "tree", 5)
    out = run(q("needle", "needle"), tree, {**env, name: value})
    assert outcome(out) == (2, b"", said)
    plain = run([*rrg_cmd(), "needle"], tree, {**env, name: value})  # rg's alone: unread
    assert plain.returncode == 0 and plain.stderr == b""


def test_a_current_directory_deleted_is_one_line_exit_2(
    tmp_path: Path, env: dict[str, str]
) -> None:
    import shlex

    gone = tmp_path / "gone"
    gone.mkdir()
    rrg = " ".join(shlex.quote(part) for part in rrg_cmd())
    script = f'cd {shlex.quote(str(gone))} && rmdir "$PWD" && exec {rrg} -q doctor Watson .'
    out = run(["sh", "-c", script], tmp_path, env)
    assert out.returncode == 2 and out.stdout == b""
    said = out.stderr.splitlines()[-1]  # dash itself may warn that getcwd() failed
    assert said == b"rrg: the current directory no longer exists: cd to one that does"


def test_eight_cold_clients_while_files_change(tmp_path: Path, env: dict[str, str]) -> None:
    """Eight rrg at once on a tree never indexed while another process edits, adds and
    deletes files: each exits 0, prints only lines some version of a file held, and
    the index is consistent afterwards (a refresh with no change reads nothing)."""
    import threading

    tree = make_tree(tmp_path / "tree", 800)
    stop = threading.Event()

    def edit() -> None:
        k = 0
        while not stop.is_set():
            # Renamed into place: a file rewritten in place is empty for a moment, and a
            # run reading it then rightly finds no needle in it.
            edited = tree / f".edit{k}"
            edited.write_text(f"edited needle {k % 800}\n")
            os.replace(edited, tree / f"f{k % 800:05d}.txt")
            (tree / f"new{k}.txt").write_text(f"added needle {k}\n")
            (tree / f"new{k - 3}.txt").unlink(missing_ok=True)
            k += 1
            time.sleep(0.01)

    editor = threading.Thread(target=edit)
    editor.start()
    cmd = q("needle omega", "--limit", "0", "--excerpt", "0", "needle")
    try:
        procs = [
            subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(8)
        ]
        outs = [p.communicate(timeout=300) for p in procs]
    finally:
        stop.set()
        editor.join()
    for p, (out, err) in zip(procs, outs, strict=True):
        # Every one of the 800 first files holds a needle, edited or not, and none is
        # deleted: each run prints a line of each (an empty output would pass the loop).
        assert p.returncode == 0, err
        assert len(out.splitlines()) >= 800, (len(out.splitlines()), err)
        assert b"Traceback" not in err and b"internal error" not in err
        assert b"cannot use the index" not in err, err  # the builder is waited for
        for line in out.splitlines():
            name, _, text = line.partition(b":")
            k = name.removeprefix(b"new").removeprefix(b"f").removesuffix(b".txt")
            assert text.endswith(b"needle " + str(int(k)).encode()), line
    run([*rrg_cmd(), "--index", "."], tree, env)
    report = run([*rrg_cmd(), "--index", "."], tree, env).stdout
    assert b" 0 read, 0 unchanged content, 0 removed" in report


_FIRST_LOOK = """
import os, sqlite3, sys, time
path = sys.argv[1]
print("ready", flush=True)
deadline = time.monotonic() + 30
while not os.path.exists(path) and time.monotonic() < deadline:
    pass
db = sqlite3.connect(path, isolation_level=None)
try:
    looks = [db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("journal_mode", "user_version")]
    print(*looks)
except sqlite3.Error as err:
    print("error", err)
"""


def test_a_new_index_file_is_whole_when_a_reader_first_sees_it(tmp_path: Path) -> None:
    """A reader that opens the index the moment it appears finds it finished: in WAL mode
    and of this format. A half-made file once made the writer fail with "database is
    locked" when several agents started on a new root together (a reader's journal-mode
    switch held the lock the writer's needed)."""
    import sys

    from rrg.index.store import FORMAT_VERSION, open_store

    for attempt in range(10):  # the window of a half-made file was short: look often
        folder = tmp_path / str(attempt)
        folder.mkdir()
        path = folder / "index.sqlite"
        reader = subprocess.Popen(
            [sys.executable, "-c", _FIRST_LOOK, str(path)], stdout=subprocess.PIPE, text=True
        )
        assert reader.stdout is not None and reader.stdout.readline() == "ready\n"
        time.sleep(0.05)  # the reader is polling now
        open_store(path, lambda message: pytest.fail(message)).close()
        out, _ = reader.communicate(timeout=60)
        assert out.split() == ["wal", str(FORMAT_VERSION)], attempt
        assert sorted(p.name for p in folder.iterdir()) == ["index.sqlite"]


def test_a_2gb_file_is_handled_as_rg_does(tmp_path: Path, rg: str, env: dict[str, str]) -> None:
    """A sparse 2 GB file: text first, then NUL bytes. rg skips it as binary while walking;
    rrg reads only its first MiB to index it, and skips it too."""
    tree = make_tree(tmp_path / "tree", 5)
    big = tree / "big.log"
    with open(big, "wb") as fh:
        fh.write(b"needle at the start of a huge file\n")
        fh.truncate(2 * 1024**3)
    ours = run(q("needle", "--limit", "0", "needle"), tree, env)
    theirs = run([rg, "needle"], tree, env)
    assert ours.returncode == theirs.returncode == 0
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())
    listed = run(q("needle", "--files"), tree, env).stdout.splitlines()
    assert listed[-1] == b"big.log"  # unranked files come last, none dropped


def test_many_empty_files(tmp_path: Path, rg: str, env: dict[str, str]) -> None:
    tree = tmp_path / "empties"
    tree.mkdir()
    for k in range(20000):
        (tree / f"e{k:05d}").touch()
    (tree / "one.txt").write_text("needle\n")
    ours = run(q("needle", "needle"), tree, env)
    assert ours.returncode == 0 and ours.stdout == run([rg, "needle"], tree, env).stdout


def test_unreadable_file_is_reported_as_rg_reports_it(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    prefix = without_root_powers()
    if prefix is None:
        pytest.skip("running as root without setpriv able to drop capabilities")
    tree = make_tree(tmp_path / "perm", 20)
    locked = tree / "locked.txt"
    locked.write_text("needle you cannot read\n")
    locked.chmod(0)
    try:
        ours = run([*prefix, *q("needle", "--limit", "0", "needle")], tree, env)
        theirs = run([*prefix, rg, "needle"], tree, env)
        assert theirs.returncode == 2 and b"Permission denied" in theirs.stderr
        assert ours.returncode == theirs.returncode
        assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())
        assert ours.stderr.splitlines() == theirs.stderr.splitlines()
    finally:
        locked.chmod(0o600)


def test_a_model_failing_mid_query_leaves_the_cheap_order(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The transformer stage fails: one rrg: warning, the cheap order, rg's exit code."""
    model = tmp_path / "model"
    model_that_fails_on_long_inputs(model)
    tree = make_tree(tmp_path / "tree", 30)
    # Its table made first: a search that makes it says so (on a fresh machine, this one).
    assert run([*rrg_cmd(), "--model", str(model), "--index", "."], tree, env).returncode == 0
    args = ["--model", str(model), "--limit", "0", "needle"]
    staged = run(q("omega needle in the text", *args), tree, env)
    fast = run(q("omega needle in the text", "--fast", *args), tree, env)
    assert staged.returncode == 0 and staged.stdout == fast.stdout
    assert staged.stderr.startswith(b"rrg: the transformer stage failed (model ")
    assert staged.stderr.count(b"\n") == 1, staged.stderr


def test_a_query_asked_again_loads_no_tokenizer(tmp_path: Path, env: dict[str, str]) -> None:
    """A query's WordPiece ids are kept with the root's vectors: asked again, the query
    needs no tokenizer (loading it is 13-18 ms of a repeated query); a new one still does."""
    model = tmp_path / "model"
    model_that_fails_on_long_inputs(model)
    tree = make_tree(tmp_path / "tree", 30)
    args = ["--model", str(model), "--fast", "--limit", "0", "needle"]
    first = run(q("omega needle in the text", *args), tree, env)
    assert first.returncode == 0 and not first.stderr, first.stderr
    (model / "tokenizer.json").write_text("not a tokenizer")
    again = run(q("omega needle in the text", *args), tree, env)
    assert again.returncode == 0 and again.stdout == first.stdout, again.stderr
    new = run(q("another query about needles", *args), tree, env)
    assert new.returncode == 2 and b"cannot load tokenizer" in new.stderr, new.stderr


def test_a_log_left_beside_a_deleted_index_is_not_replayed_into_a_new_one(tmp_path: Path) -> None:
    """A writer killed between deleting the registry and its write-ahead log leaves the log;
    the next registry made at that path must not take the old log's pages as its own."""
    import shutil
    import sqlite3

    from rrg.index.store import FORMAT_VERSION, open_store

    old = tmp_path / "old.sqlite"
    db = sqlite3.connect(old, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE planted (x)")
    db.execute("INSERT INTO planted VALUES (1)")
    path = tmp_path / "index.sqlite"
    shutil.copy(f"{old}-wal", f"{path}-wal")  # the log, its pages never folded back
    db.close()
    store = open_store(path, lambda message: pytest.fail(message))
    try:
        tables = {row[0] for row in store.db.execute("SELECT name FROM sqlite_master")}
        assert "planted" not in tables and "segments" in tables
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == FORMAT_VERSION
    finally:
        store.close()


def test_a_slow_build_and_a_fast_one_give_one_index(
    tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a build's chunks end shapes its static vectors (each chunk weighs WordPieces
    by the idf of the files registered so far), so chunks end at counts of rows, never by
    the clock: one tree indexed by a slow build (3 s of reading) and by a fast one
    gives the same vector for every file. (When a chunk ended after 2 s of work, the slow
    build cut its chunks elsewhere.)"""
    import time as clock

    import numpy as np

    from rrg.api import open_project
    from rrg.index import refresh
    from rrg.index.served import ServedRoot
    from rrg.model.static_table import static_table

    tree = tmp_path / "tree"
    tree.mkdir()
    words = "alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega".split()
    for k in range(60):
        picked = " ".join(words[(k * j) % len(words)] for j in range(1, 40))
        (tree / f"doc{k:02}.txt").write_text(f"{picked} unique{k}\n" * (1 + k % 5))
    monkeypatch.setenv("RRG_INDEX_WAIT_S", "0")
    # Several chunks of this small tree.
    monkeypatch.setattr(refresh, "FIRST_CHUNK_FILES", 8)
    monkeypatch.setattr(refresh, "CHUNK_FILES", 8)
    monkeypatch.setattr(refresh, "READ_BATCH", 4)
    read_head = refresh.read_head

    def slowly(root: Path, rel: bytes, limit: int = refresh.READ_LIMIT) -> bytes | None:
        clock.sleep(0.05)
        return read_head(root, rel, limit)

    vectors = []
    for name, reader in (("fast", read_head), ("slow", slowly)):
        monkeypatch.setenv("RRG_CACHE_DIR", str(tmp_path / name))
        os.makedirs(tmp_path / name)
        os.symlink(Path(env["RRG_CACHE_DIR"]) / "models", tmp_path / name / "models")
        monkeypatch.setattr(refresh, "read_head", reader)
        project = open_project(tree)
        assert project.index().files == 60
        served = ServedRoot(os.fsencode(tree), project.model)
        vocab = static_table(served.encoder).shape[0]
        view = refresh.open_view(served.index_path, vocab)
        # Segments are numbered as written (chunks, then merges of them): several chunks.
        assert view is not None and int(view.segments[-1].name[1:10]) > 4
        paths = [f"doc{k:02}.txt".encode() for k in range(60)]
        rows = view.rows_of(paths)
        dims = view.segments[0].a["static"].shape[1]
        probe = np.random.default_rng(7).standard_normal(dims)
        vectors.append(view.cosines(probe)[rows])
    assert np.array_equal(vectors[0], vectors[1])


@pytest.mark.slow
def test_a_limit_of_the_process_is_said_as_the_system_says_it(
    corpus: Path, env: dict[str, str]
) -> None:
    """A sandbox's ``ulimit -n``, at each limit from one that stops the search to one it
    passes in rg's order: never an internal error; a search that gives up says the limit
    in its last line, exit 2; one whose index could not be opened says the limit in its
    warning and answers in rg's order. The index is left whole (a passing fault, not
    damage). Where the run stops moves by an open file or two as rrg changes (the pipes
    it closes, the segments it holds), so the limits are swept, not one chosen."""
    assert run([*rrg_cmd(), "--index", "."], corpus, env).returncode == 0
    outcomes = set()
    for limit in range(11, 25):

        def few_files(limit: int = limit) -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

        out = subprocess.run(
            [sys.executable, "-m", "rrg", "-q", "Holmes", "Watson"],
            cwd=corpus,
            env={**env, "RRG_RESIDENT": "0"},
            capture_output=True,
            preexec_fn=few_files,
            timeout=120,
        )
        said = out.stderr.decode()
        hint = f"Too many open files (this process may open {limit} files: ulimit -n)"
        assert "internal error" not in said, (limit, said)
        ours = [line for line in said.splitlines() if line.startswith("rrg: ")]
        assert all(hint in line for line in ours if "Too many open files" in line), said
        if out.returncode == 2:
            assert said.endswith(f"rrg: {hint}\n"), (limit, said)
        else:
            assert out.returncode == 0 and b"Watson" in out.stdout, (limit, said)
        outcomes.add(out.returncode)
    assert outcomes == {0, 2}  # both ways were met within the sweep
    status = run([*rrg_cmd(), "--index-status", "."], corpus, env).stdout.decode()
    assert "unreadable" not in status and "files indexed:" in status


def test_a_search_that_waited_on_a_build_ranks_what_the_build_registered(
    tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Searches started at once on a new tree wait for the first one's build. One that
    waited in vain ranked from the index as it stood before its wait (none at all, so rg's
    order for every file) although the build had registered its first chunk meanwhile: it
    now reads the index again after the wait and ranks those files."""
    import threading

    from rrg.index import refresh
    from rrg.index.served import ServedRoot
    from rrg.model.registry import default_model

    tree = tmp_path / "tree"
    tree.mkdir()
    for k in range(20):
        (tree / f"doc{k:02}.txt").write_text(f"alpha beta unique{k}\n")
    monkeypatch.setenv("RRG_CACHE_DIR", env["RRG_CACHE_DIR"])
    monkeypatch.setattr(refresh, "FIRST_CHUNK_FILES", 8)
    monkeypatch.setattr(refresh, "CHUNK_FILES", 8)
    monkeypatch.setattr(refresh, "READ_BATCH", 4)
    builder_holds_lock, waiter_began, waiter_done = (threading.Event() for _ in range(3))
    read_head, open_view = refresh.read_head, refresh.open_view
    reads = []

    def paced(root: Path, rel: bytes, limit: int = refresh.READ_LIMIT) -> bytes | None:
        reads.append(rel)
        if len(reads) == 1:  # the builder has the lock: let the waiter look, then write
            builder_holds_lock.set()
            assert waiter_began.wait(30)
        if len(reads) == 9:  # the first chunk (8 files) is registered: hold the lock
            assert waiter_done.wait(30)
        return read_head(root, rel, limit)

    def seen(index_path: Path, vocab: int) -> object:
        view = open_view(index_path, vocab)
        if threading.current_thread() is threading.main_thread():
            waiter_began.set()
        return view

    monkeypatch.setattr(refresh, "read_head", paced)
    monkeypatch.setattr(refresh, "open_view", seen)
    served = ServedRoot(os.fsencode(tree), default_model())
    rel = sorted(p.name.encode() for p in tree.iterdir())
    served.prepare_model(False)
    builder = threading.Thread(target=served.refresh, args=(rel, lambda _: None, False))
    builder.start()
    try:
        assert builder_holds_lock.wait(60)
        with pytest.raises(refresh.IndexBusy) as busy:
            served.refresh(rel, lambda _: None, False, deadline=time.monotonic() + 2)
    finally:
        waiter_began.set()
        waiter_done.set()
        builder.join(60)
    assert busy.value.view is not None and busy.value.rows is not None
    assert int((busy.value.rows >= 0).sum()) == 8
