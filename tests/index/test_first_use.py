"""Safe from the first search (issue 34): what a new user, or several agents in a new
checkout, meet before any index exists. Real rg, real files, the installed rrg."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import (
    ROOT,
    flock_waited_for,
    make_tree,
    model_that_fails_on_long_inputs,
    outcome,
    q,
    rrg_cmd,
    run,
)
from rrg.index.served import ServedRoot
from rrg.index.store import IndexStore
from rrg.model.registry import default_model
from rrg.search.background import background_targets


def _index_of(tree: Path, cache: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RRG_CACHE_DIR", cache)
    return ServedRoot(os.fsencode(tree), default_model()).index_path


def test_a_search_beside_a_first_build_that_registered_nothing_yet_answers(
    tmp_path: Path, rg: str, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34, item 1: the first build holds the lock and its registry is still empty; a
    search beside it crashed on the empty index (IndexError, exit 2, nothing printed)."""
    tree = make_tree(tmp_path / "new-checkout", 30)
    index = _index_of(tree, env["RRG_CACHE_DIR"], monkeypatch)
    IndexStore(index).close()  # the registry a first build creates before any segment
    fd = os.open(f"{index}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        out = run(
            q("needle", "-l", "--limit", "0", "needle"), tree, {**env, "RRG_INDEX_BUSY_S": "0.3"}
        )
    finally:
        os.close(fd)
    want = run([rg, "-l", "needle"], tree, env)
    assert out.returncode == want.returncode == 0, out.stderr
    assert sorted(out.stdout.splitlines()) == sorted(want.stdout.splitlines())
    assert b"internal error" not in out.stderr and b"searching in rg's order" in out.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["needle", "nosuch/"],
        ["needle", "nosuch"],
        ["-l", "needle", "nosuch"],
        ["--json", "needle", "nosuch/"],
        ["-c", "needle", "f00001.txt", "nosuch"],
        ["needle", "nosuch", "f00002.txt"],
        ["--no-messages", "needle", "nosuch"],
    ],
)
def test_a_missing_path_is_said_as_rg_says_it(
    tmp_path: Path, rg: str, env: dict[str, str], args: list[str]
) -> None:
    """Issue 34, item 2: the same message, stdout and exit code as rg, said once."""
    tree = make_tree(tmp_path / "tree", 5)
    got = run(q("needle", *args), tree, env)
    want = run([rg, *args], tree, env)
    assert got.returncode == want.returncode == 2, got.stderr
    assert got.stderr == want.stderr
    if "--json" in args:
        assert got.stdout.count(b'"type":"summary"') == 1 and want.stdout.count(b"summary") == 1
    else:
        assert got.stdout == want.stdout


def test_recall_of_a_missing_path_prints_nothing_on_stdout(
    tmp_path: Path, env: dict[str, str]
) -> None:
    tree = make_tree(tmp_path / "tree", 5)
    out = run([*rrg_cmd(), "--recall", "needle", "nosuch/"], tree, env)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr == b"rg: nosuch/: No such file or directory (os error 2)\n"
    both = run([*rrg_cmd(), "--recall", "needle", "f00001.txt", "nosuch"], tree, env)
    assert both.returncode == 2 and b"(1 docs)" in both.stdout
    assert both.stderr == b"rg: nosuch: No such file or directory (os error 2)\n"
    # The last of --no-messages and --messages decides, as in rg (a config file's flag
    # turned off on the command line).
    for flags, said in ((["--no-messages", "--messages"], True), (["--no-messages"], False)):
        out = run([*rrg_cmd(), "--recall", "needle", *flags, "nosuch/"], tree, env)
        assert out.returncode == 2 and (b"nosuch/" in out.stderr) is said, flags


def test_a_bad_regex_is_refused_before_any_ranking(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Issue 34, item 3: rg's message at once; no index is built for a search that fails."""
    tree = make_tree(tmp_path / "tree", 5)
    got = run(q("needle", "a(b"), tree, env)
    want = run([rg, "a(b"], tree, env)
    assert got.returncode == want.returncode == 2
    assert got.stderr == want.stderr and got.stdout == b""
    status = run([*rrg_cmd(), "--index-status", "."], tree, env)
    assert b"not indexed" in status.stdout, status.stdout


@pytest.mark.parametrize(
    "extra", [[], ["--max-columns-preview"], ["-A1"], ["--excerpt", "20"], ["-n", "--column"]]
)
def test_max_columns_in_a_pipe_is_rgs_text(
    tmp_path: Path, rg: str, env: dict[str, str], extra: list[str]
) -> None:
    """Issue 34, item 4: the excerpt's pass runs rg with colours, which words -M's notices
    another way ("[Omitted long line with 1 matches]")."""
    tree = tmp_path / "long"
    tree.mkdir()
    (tree / "a.txt").write_text(
        "short needle\n"
        + "a" * 80
        + " needle\n"
        + "context "
        + "c" * 90
        + "\n"
        + "x" * 1500
        + " needle "
        + "y" * 50
        + "\n"
    )
    flags = [f for f in extra if f not in ("--excerpt", "20")]
    got = run(q("needle", *extra, "-M", "50", "needle"), tree, env)
    want = run([rg, *flags, "-M", "50", "needle"], tree, env)
    assert got.returncode == want.returncode == 0, got.stderr
    assert got.stdout == want.stdout
    if not extra:
        assert b"[Omitted long matching line]" in got.stdout


def test_the_readme_names_installable_commands() -> None:
    """Issue 34, item 10: rrg is installed from its checkout (no such package on PyPI),
    and a scope file's path is the one --recall prints, not a fixed one. The same in
    the docs and in rrg's own messages (--import-model's named the package)."""
    readme = (ROOT / "README.md").read_text()
    assert "pip install 'rrg[" not in readme and "pip install '.[mcp]'" in readme
    for path in [*(ROOT / "docs").glob("*.md"), *(ROOT / "rrg").rglob("*.py")]:
        assert "rrg[" not in path.read_text(), path
    assert "scopes/scope-1.txt" not in readme


def test_pass_through_is_untouched_by_the_checks(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    tree = make_tree(tmp_path / "tree", 3)
    for args in (["needle", "nosuch"], ["a(b"]):
        got = subprocess.run([*rrg_cmd(), *args], cwd=tree, env=env, capture_output=True)
        want = subprocess.run([rg, *args], cwd=tree, env=env, capture_output=True)
        assert outcome(got) == outcome(want)


def test_a_fresh_cache_dir_prepares_nothing_and_holds_no_model_files(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Issue 34, item 7: the model's static table and int8 graph are made once a machine
    (every fresh RRG_CACHE_DIR made them again: 15 s to minutes, 123 MB a folder)."""
    tree = make_tree(tmp_path / "tree", 10)
    assert run(q("needle", "-l", "needle"), tree, env).returncode == 0  # prepared by now
    fresh = tmp_path / "fresh-cache"
    out = run(q("needle", "-l", "needle"), tree, {**env, "RRG_CACHE_DIR": str(fresh)})
    assert out.returncode == 0, out.stderr
    files = [p for p in fresh.rglob("*") if p.is_file()]
    model_files = [
        p for p in files if p.suffix in (".onnx", ".data") or p.name.startswith("static-")
    ]
    assert not model_files, model_files
    assert sum(p.stat().st_size for p in files) < 2_000_000


@pytest.mark.slow
def test_index_says_the_preparation_apart_from_the_indexing(
    tmp_path: Path, env: dict[str, str]
) -> None:
    tree = make_tree(tmp_path / "tree", 10)
    prepared = tmp_path / "prepared"
    out = run([*rrg_cmd(), "--index", "."], tree, {**env, "RRG_PREPARED_DIR": str(prepared)})
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.decode().splitlines()
    assert first.startswith("prepared the model's static table in ") and first.endswith("(once)")
    assert second.startswith("indexed ") and ": 10 files, 10 read" in second
    again = run([*rrg_cmd(), "--index", "."], tree, {**env, "RRG_PREPARED_DIR": str(prepared)})
    assert again.stdout.decode().startswith("indexed ") and b"prepared" not in again.stdout


def test_a_first_search_beside_another_preparing_the_model_reads_its_table(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Agents started together on a fresh machine: a first search that finds another rrg
    preparing the model's table waits for it and reads the table it made, instead of
    distilling its own beside it (three at once took 57 s each, one alone 20)."""
    from rrg.model.static_table import static_table_path

    made = static_table_path(default_model())  # this machine's, made before any test
    prepared = tmp_path / "prepared"
    prepared.mkdir()
    lock = prepared / f".{made.name}.lock"
    held = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)  # as the process preparing it holds it
    tree = make_tree(tmp_path / "tree", 3)
    search = subprocess.Popen(
        [*rrg_cmd(), "-q", "needle", "needle"],
        cwd=tree,
        env={**env, "RRG_PREPARED_DIR": str(prepared)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while not flock_waited_for(lock) and search.poll() is None:
            assert time.monotonic() < deadline, "the search neither waited nor ended in 120 s"
            time.sleep(0.1)
        assert flock_waited_for(lock), "the search made its own table beside the other's"
        (prepared / made.name).write_bytes(made.read_bytes())  # the other's table, kept
        kept = (prepared / made.name).stat().st_ino
    finally:
        os.close(held)
    out, err = search.communicate(timeout=120)
    assert search.returncode == 0, err
    assert len(out.splitlines()) == 3
    assert (prepared / made.name).stat().st_ino == kept  # read, not made again
    # Its wait is said as it begins (in a pipe: no bar), once.
    assert err.startswith(b"rrg: preparing the model's static table") and err.count(b"\n") == 1


def _wordy_tree(root: Path, files: int) -> Path:
    """Files long enough that indexing them takes seconds on any machine."""
    words = ["water", "quality", "river", "basin", "nitrogen", "station", "sample", "pump"]
    root.mkdir(parents=True)
    for k in range(files):
        text = " ".join(words[(k * 7 + i * 3) % len(words)] + str(i % 97) for i in range(500))
        (root / f"f{k:05d}.txt").write_text(f"{text}\nneedle {k}\n")
    return root


def _status(tree: Path, env: dict[str, str]) -> str:
    status = run([*rrg_cmd(), "--index-status", "."], tree, env)
    assert status.returncode == 0, status.stderr
    return status.stdout.decode()


def _indexed(tree: Path, env: dict[str, str]) -> int:
    """Files the index holds now (0 before its first chunk is registered)."""
    status = _status(tree, env)
    return int(status.split("files indexed: ")[1].split()[0]) if "files indexed" in status else 0


@pytest.mark.slow
def test_a_first_search_in_a_pipe_says_why_it_took_long(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The model's table is made by the first search on a machine (15-30 s for the default
    model): on a terminal a bar shows it; in a pipe (an agent's tool) nothing did, so the
    reader waited unsaid. Now one line says it, once, before it: a tool that stops the
    search meanwhile (its timeout) leaves the reader that line."""
    model = tmp_path / "model"
    model_that_fails_on_long_inputs(model, positions=256)  # its table is made in a second
    tree = make_tree(tmp_path / "tree", 5)
    env = {**env, "RRG_PREPARED_DIR": str(tmp_path / "prepared")}
    args = ["--model", str(model), "--fast", "needle"]
    first = run(q("needle", *args), tree, env)
    assert first.returncode == 0 and first.stdout.count(b"needle") == 5
    assert first.stderr.startswith(b"rrg: preparing the model's static table, once a machine")
    assert first.stderr.count(b"\n") == 1 and b"leaves its work to the next" in first.stderr
    again = run(q("needle", *args), tree, env)
    assert again.returncode == 0 and again.stderr == b"", again.stderr


def test_an_interrupted_first_build_keeps_what_it_did_before_a_full_chunk(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Issue 34, item 8: a build registered a segment every 4,096 files only; Ctrl-C before
    kept nothing. Its first chunk is smaller (FIRST_CHUNK_FILES, about a second or two of
    work), so Ctrl-C after that keeps it."""
    import signal

    from test_reliability import _start_build_and_wait

    from rrg.index.refresh import CHUNK_FILES

    total = CHUNK_FILES - 96
    # A name of its own: the build is watched through the index files named after it.
    tree = _wordy_tree(tmp_path / "interrupted-first-build", total)
    proc = _start_build_and_wait(tree, env, 1)  # a first chunk registered, still going
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert 0 < _indexed(tree, env) < total


@pytest.mark.slow
def test_a_first_search_waits_a_bounded_time_then_the_index_fills(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Issue 34, item 9: a first search on a big tree waited for the whole index (41 s on
    20,000 files). It indexes for RRG_INDEX_WAIT_S, answers with every file rg would
    search (the unindexed in rg's order), says so once; the index is finished by a
    background build, and a search after it is ranked in full."""
    tree = _wordy_tree(tmp_path / "tree", 3000)
    want = sorted(run([rg, "-l", "needle"], tree, env).stdout.splitlines())
    bounded = {**env, "RRG_INDEX_WAIT_S": "0.3", "RRG_INDEX_BACKGROUND": "0"}
    first = run(q("water quality", "-l", "--limit", "0", "needle"), tree, bounded)
    assert first.returncode == 0, first.stderr
    assert sorted(first.stdout.splitlines()) == want
    notice = first.stderr.decode()
    assert notice.count("\n") == 1 and "RRG_INDEX_WAIT_S" in notice, notice
    assert "of 3,000 files" in notice and "each search indexes more" in notice
    assert "source first" not in notice  # a tree of prose: nothing is read first
    # Without a background build, each search goes on where the last one stopped.
    second = run(q("water quality", "-l", "--limit", "0", "needle"), tree, bounded)
    done = [
        int(t.split(" of")[0].split()[-1].replace(",", ""))
        for t in (notice, second.stderr.decode())
    ]
    assert done[0] < done[1] or b"indexed" not in second.stderr

    background = {**env, "RRG_INDEX_WAIT_S": "0.3", "RRG_INDEX_BACKGROUND": "1"}
    third = run(q("water quality", "-l", "--limit", "0", "needle"), tree, background)
    assert sorted(third.stdout.splitlines()) == want
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and _indexed(tree, env) < 3000:
        time.sleep(0.2)
    while time.monotonic() < deadline and _background_build_running(tree, env):
        time.sleep(0.1)
    full = run(q("water quality", "-l", "--limit", "0", "needle"), tree, background)
    assert full.returncode == 0 and full.stderr == b"", full.stderr
    assert sorted(full.stdout.splitlines()) == want


@pytest.mark.parametrize(
    "mode",
    [
        ["--files-without-match"],
        ["-c", "--include-zero"],
        ["--files-without-match", "-z"],
        ["--rerank", "--limit", "450"],
    ],
)
def test_a_first_search_prints_no_binary_file_rgs_walk_would_skip(
    mode: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """A first search that stops indexing at RRG_INDEX_WAIT_S knows nothing of the other
    files' NULs, and where no walk of rg's counts the matches (--files-without-match,
    --include-zero, --rerank, the library) nothing left binary files out: rrg named them
    to rg, which searched them whole (exposed's gradle-wrapper.jar files). rg's walk
    prints nothing of them."""
    tree = _wordy_tree(tmp_path / "tree", 400)
    for k in range(8):  # half of them hold the pattern, after their NUL
        (tree / f"z{k}.bin").write_bytes(b"water\0quality" + b" needle" * (k % 2) + b"\n")
    (tree / "f00001.txt").write_text("no match here\n")
    for k in range(8):  # NULs behind a UTF-16 byte order mark: text to rg, which decodes it
        (tree / f"u{k}.txt").write_bytes("\ufeffno match here either\n".encode("utf-16-le"))
    for k in range(2):  # a NUL past rg's first 64 KiB read ends its walk of a file too
        (tree / f"late{k}.bin").write_bytes(b"water\n" * 12_000 + b"\0" + b"needle\n" * k)
    bounded = {**env, "RRG_INDEX_WAIT_S": "0.01", "RRG_INDEX_BACKGROUND": "0"}
    args = [*mode, "needle"]
    ours = run(q("water quality", "--limit", "0", *args), tree, bounded)
    theirs = run([rg, *(["needle"] if "--rerank" in mode else args)], tree, env)
    assert b"indexed" in ours.stderr, ours.stderr  # the index was not whole
    assert ours.returncode == theirs.returncode == 0
    assert b".bin" not in ours.stdout
    if "--rerank" in mode:
        lines = ours.stdout.splitlines()
        assert len(lines) == 399 and set(lines) <= set(theirs.stdout.splitlines())
    else:
        assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


def test_a_first_library_search_holds_no_binary_file_rgs_walk_would_skip(
    tmp_path: Path, rg: str, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library's search counts no walk of rg's either: on a first search its lines
    held each binary file rrg had not indexed yet, searched whole."""
    import rrg.api

    tree = _wordy_tree(tmp_path / "tree", 400)
    for k in range(4):
        (tree / f"z{k}.bin").write_bytes(b"water\0quality needle\n")
    for name, value in {**env, "RRG_INDEX_WAIT_S": "0.01", "RRG_INDEX_BACKGROUND": "0"}.items():
        monkeypatch.setenv(name, value)
    found = rrg.api.open_project(tree).search("water quality", "needle", limit=0)
    assert any("indexed" in notice for notice in found.notices), found.notices
    assert {m.path for m in found.matches} == {f"f{k:05d}.txt" for k in range(400)}


def test_a_background_build_finishes_the_paths_searched_not_their_common_folder(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """A search over PATHs in two places is served by their common folder; the build it
    left to the background read every file below that folder (``rrg -q Q PAT .
    /usr/include`` started ``rrg --index /``): it finishes the PATHs searched."""
    top = tmp_path / "top"
    _wordy_tree(top / "asked" / "one", 400)
    _wordy_tree(top / "asked-too", 400)
    make_tree(top / "not-asked", 300)
    background = {**env, "RRG_INDEX_WAIT_S": "0.05", "RRG_INDEX_BACKGROUND": "1"}
    first = run(
        q("water quality", "-l", "--limit", "0", "needle", "asked/one", "asked-too"),
        top,
        background,
    )
    want = run([rg, "-l", "needle", "asked/one", "asked-too"], top, env)
    assert first.returncode == 0, first.stderr
    assert sorted(first.stdout.splitlines()) == sorted(want.stdout.splitlines())
    assert b"while the index is finished in the background" in first.stderr, first.stderr
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and _indexed(top, env) < 800:
        time.sleep(0.2)
    while time.monotonic() < deadline and _background_build_running(top, env):
        time.sleep(0.1)
    assert _indexed(top, env) == 800
    again = run(
        q("water quality", "-l", "--limit", "0", "needle", "asked/one", "asked-too"),
        top,
        background,
    )
    assert again.returncode == 0 and again.stderr == b"", again.stderr


def test_a_background_build_of_a_served_root_is_the_roots() -> None:
    """Where the search named its root, or ran in it, or was served by an index above
    what it named, the build finishes the root, as before."""
    root = os.getcwd()
    at_root = ServedRoot(os.fsencode(root), default_model())
    assert background_targets(at_root, []) == [root]
    assert background_targets(at_root, ["."]) == [root]
    above = ServedRoot(b"/", default_model(), asked=os.fsencode(os.path.join(root, "tests")))
    assert background_targets(above, ["tests"]) == ["/"]  # served from above
    both = [os.path.join(root, "rrg"), os.path.join(root, "tests")]
    common = ServedRoot(os.fsencode(root), default_model(), asked=os.fsencode(root))
    assert background_targets(common, ["rrg", "tests"]) == both


def _background_build_running(tree: Path, env: dict[str, str]) -> bool:
    from rrg.index.store import builder_running

    return builder_running(Path(_status(tree, env).split("file: ")[1].splitlines()[0]))


@pytest.mark.skipif(
    not Path("/proc/self/autogroup").exists(), reason="no scheduler autogroups on this kernel"
)
def test_a_background_build_lowers_its_own_sessions_group_alone() -> None:
    """With autogroups each session shares one group's CPU, whatever its processes' nice:
    the build started in a session of its own lowers that group (its searches' come first),
    and a process that leads no session (a shell's ``rrg --index``) leaves its group be."""
    script = (
        "from rrg.search.background import yield_to_searches\n"
        "yield_to_searches()\n"
        "print(open('/proc/self/autogroup').read().strip())\n"
    )
    alone = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, start_new_session=True
    )
    assert alone.stdout.strip().endswith(" nice 10"), alone.stderr
    # The boot session's default group reads as nothing (CI's runner may sit in it); either
    # way the text is this session's group as it was, if the build left it be.
    own = Path("/proc/self/autogroup").read_text().strip()
    beside = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert beside.stdout.strip() == own, beside.stderr


def test_a_search_that_indexes_part_of_a_tree_indexes_its_source_first(
    tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first search indexes for its 3 s and ranks what it read by then. Read in path order,
    those were a repository's changelog, build files and docs (exposed's first search
    showed its CHANGELOG.md and API pages as the best passages): code outside the folders
    of tests, docs and examples is read first now, by the search and by ``rrg --index``
    alike, so the index is the same whoever built it."""
    from rrg.index import refresh
    from rrg.rank.code_priors import primary_sources

    tree = tmp_path / "tree"
    for name in ("CHANGELOG.md", "README.md", "build.gradle", "docs/a.md", "docs_src/b.py"):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text("session transaction notes\n")
    for name in ("tests/test_session.py", "src/session.py", "src/transaction.py"):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text("def session_transaction():\n    pass\n")
    monkeypatch.setattr(refresh, "READ_BATCH", 2)  # the deadline is looked at every 2 files
    served = ServedRoot(os.fsencode(tree), default_model())
    monkeypatch.setenv("RRG_CACHE_DIR", env["RRG_CACHE_DIR"])
    rel = sorted(str(p.relative_to(tree)).encode() for p in tree.rglob("*") if p.is_file())
    # A deadline already past: the first files read, and no more.
    view, rows, report = served.refresh(
        rel, lambda _: None, False, deadline=time.monotonic() - 1, read_first=primary_sources
    )
    indexed = sorted(path for path, row in zip(rel, rows.tolist(), strict=True) if row >= 0)
    assert indexed == [b"src/session.py", b"src/transaction.py"], indexed
    assert report.left == len(rel) - 2 and report.ahead == 2
    # The rest follow in path order.
    view, rows, report = served.refresh(rel, lambda _: None, False, read_first=primary_sources)
    assert [view.path(row) for row in sorted(rows.tolist())] == [
        b"src/session.py",
        b"src/transaction.py",
        *[p for p in rel if not p.startswith(b"src/")],
    ]


def test_a_first_search_of_a_large_tree_ranks_its_source_and_says_so(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The command as a new user meets it: a first search that indexes part of a tree
    (docs sort before the source) ranks the source it read first, and its one notice says
    the source was read first."""
    tree = tmp_path / "tree"
    (tree / "docs").mkdir(parents=True)
    (tree / "src").mkdir()
    for k in range(400):
        (tree / "docs" / f"page{k:03}.md").write_text(f"How to parse the config, part {k}.\n")
        (tree / "src" / f"config{k:03}.py").write_text(f"def parse_config_{k}(text):\n    pass\n")
    bounded = {**env, "RRG_INDEX_WAIT_S": "0.01", "RRG_INDEX_BACKGROUND": "0"}
    first = run(q("parse the config", "--files", "--limit", "3"), tree, bounded)
    assert first.returncode == 0, first.stderr
    notice = first.stderr.decode()
    assert "of 800 files, the source first, in the" in notice, notice
    assert all(path.startswith(b"src/") for path in first.stdout.splitlines()), first.stdout
