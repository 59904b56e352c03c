"""A root's passages computed ahead (rrg/rank/warm_passages.py): the first search of a whole
index of 200 text files or more starts the background job, which cuts every file,
computes every passage's static vector and counts its words, once a root; a new query then
computes none, and ranks exactly as a root without the job does. A root of at most
RRG_EMBED_AHEAD passages is then embedded too, and a new query runs the model on its own
text alone. Below the bound, or with RRG_INDEX_BACKGROUND=0, no job starts. The real
command, real files, the real cache."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from conftest import flock_waited_for, flock_waiters, rrg_cmd, run
from rrg.environment import EMBED_AHEAD
from rrg.index.store import builder_running
from rrg.model.static_table import static_vectors, static_vectors_alone
from rrg.rank.warm_passages import WARM_FROM_FILES
from rrg.search.background import EMBEDDING_TURN

TOPICS = ("retry", "config", "cache", "log", "parse", "render", "queue", "token", "route")


def _tree(root: Path, files: int) -> None:
    """``files`` modules of three short definitions, a few long ones, and a README."""
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    for k in range(files):
        topic = TOPICS[k % len(TOPICS)]
        body = "".join(
            f"def {topic}_{k}_{n}(request):\n    '''{topic.capitalize()} step {n} of {k}.'''\n"
            f"    return request.{topic}({n})\n\n\n"
            for n in range(3 if k % 20 else 40)  # every 20th long enough to keep its cut
        )
        folder = root / ("tests" if k % 7 == 0 else "src")
        (folder / f"{topic}_{k}.py").write_text(body)
    (root / "README.md").write_text("# Demo\n\nRetry a request, parse a config, render.\n")


def _count(cache: Path, query: str) -> int:
    (store,) = (cache / "index").glob("*.vectors.sqlite")
    with sqlite3.connect(store) as db:
        try:
            return int(db.execute(query).fetchone()[0])
        except sqlite3.OperationalError:
            return 0  # no such table yet


def _statics(cache: Path) -> int:
    return _count(cache, "SELECT COUNT(*) FROM vectors WHERE model LIKE 'static-%'")


def _wait_for_job(cache: Path) -> None:
    (index,) = [p for p in (cache / "index").glob("*.sqlite") if ".vectors." not in p.name]
    deadline = time.monotonic() + 180
    time.sleep(0.5)  # the job takes its lock as it starts
    while builder_running(index) and time.monotonic() < deadline:
        time.sleep(0.25)
    assert not builder_running(index), "the background job did not finish in 180 s"


def _indexed_twice(root: Path, env: dict[str, str], plain: Path) -> dict[str, str]:
    """The root indexed in env's cache, and the environment of a copy of that index whose
    passages are never computed ahead: the root as it ranked before the job."""
    quiet = {**env, "RRG_INDEX_BACKGROUND": "0"}
    assert run([*rrg_cmd(), "--index"], root, quiet).returncode == 0
    shutil.copytree(env["RRG_CACHE_DIR"], plain)
    for vectors in (plain / "index").glob("*.vectors.sqlite*"):
        vectors.unlink()
    return {**quiet, "RRG_CACHE_DIR": str(plain)}


@pytest.fixture
def big(tmp_path: Path, env: dict[str, str]) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "tree"
    _tree(root, WARM_FROM_FILES + 10)
    # Not embedded ahead (env's RRG_EMBED_AHEAD=0): these tests compare with a root the
    # job never ran for, and an embedded root's stage reads stored vectors.
    return root, {**env, "RRG_CACHE_DIR": str(tmp_path / "cache"), "RRG_INDEX_BACKGROUND": "1"}


def test_the_first_search_computes_the_passages_ahead_and_ranks_alike(
    big: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, env = big
    cache = Path(env["RRG_CACHE_DIR"])
    unwarmed = _indexed_twice(root, env, tmp_path / "plain")

    first = run([*rrg_cmd(), "-q", "render a page", "--fast", "--files"], root, env)
    assert first.returncode == 0, first.stderr
    _wait_for_job(cache)
    assert _count(cache, "SELECT COUNT(*) FROM marks") == 1
    status = run([*rrg_cmd(), "--index-status"], root, env).stdout.decode()
    assert (
        "\n  passages computed ahead: yes (changed files: by the queries that read them)\n"
        in status
    )
    assert (
        "passages computed ahead: not yet"
        in run([*rrg_cmd(), "--index-status"], root, unwarmed).stdout.decode()
    )
    statics = _statics(cache)
    # Every text file's passages: three definitions a short module, at least one a file.
    assert statics >= 3 * (WARM_FROM_FILES + 10)
    assert _count(cache, "SELECT COUNT(*) FROM terms") == statics  # each one's words counted
    assert _count(cache, "SELECT COUNT(*) FROM cuts") >= (WARM_FROM_FILES + 10) // 20

    for query in ("retry a request after it failed", "parse the config", "queue tokens"):
        for fast in (["--fast"], []):
            search = [*rrg_cmd(), "-q", query, *fast, "--files"]
            warmed = run(search, root, env)
            assert warmed.returncode == 0, warmed.stderr
            assert warmed.stdout == run(search, root, unwarmed).stdout
    # New queries read every passage's vector back; the first search started the only job.
    assert _statics(cache) == statics
    assert _count(cache, "SELECT COUNT(*) FROM marks") == 1


def test_an_edit_starts_no_second_job_and_its_reader_computes_it(
    big: tuple[Path, dict[str, str]],
) -> None:
    """An agent edits between its searches: the job is not run again for each edit; the
    first query that reads the changed file computes its passages, as without the job."""
    root, env = big
    cache = Path(env["RRG_CACHE_DIR"])
    assert run([*rrg_cmd(), "-q", "render a page", "--files"], root, env).returncode == 0
    _wait_for_job(cache)
    statics = _statics(cache)
    (root / "src" / "render_5.py").write_text(
        'def paint_the_canvas(page):\n    """Paint the canvas of a page in colours."""\n'
    )
    search = [*rrg_cmd(), "-q", "paint the canvas in colours", "--fast", "--files"]
    found = run(search, root, env)
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines()[0] == b"src/render_5.py"
    time.sleep(1)
    (index,) = [p for p in (cache / "index").glob("*.sqlite") if ".vectors." not in p.name]
    assert not builder_running(index)
    assert _count(cache, "SELECT COUNT(*) FROM marks") == 1
    assert _statics(cache) > statics  # the new passage, computed by the query


@pytest.mark.parametrize("off", ["RRG_INDEX_BACKGROUND", "RRG_PASSAGES_AHEAD"])
def test_no_job_where_it_is_turned_off(big: tuple[Path, dict[str, str]], off: str) -> None:
    root, env = big
    quiet = {**env, off: "0"}
    assert run([*rrg_cmd(), "-q", "render a page", "--files"], root, quiet).returncode == 0
    time.sleep(1)
    cache = Path(env["RRG_CACHE_DIR"])
    assert _count(cache, "SELECT COUNT(*) FROM marks") == 0
    assert _statics(cache) < 3 * WARM_FROM_FILES  # the query's own files, not the root's
    if off == "RRG_PASSAGES_AHEAD":
        status = run([*rrg_cmd(), "--index-status"], root, quiet).stdout.decode()
        assert "passages computed ahead: no (RRG_PASSAGES_AHEAD=0)" in status
    bad = run([*rrg_cmd(), "-q", "render", "--files"], root, {**env, off: "x"})
    if off == "RRG_PASSAGES_AHEAD":
        assert bad.returncode == 2 and bad.stdout == b""
        assert bad.stderr == b"rrg: RRG_PASSAGES_AHEAD must be a whole number >= 0, not 'x'\n"


def test_no_job_for_a_small_root(tmp_path: Path, env: dict[str, str]) -> None:
    root = tmp_path / "tree"
    _tree(root, WARM_FROM_FILES // 4)
    env = {**env, "RRG_CACHE_DIR": str(tmp_path / "cache"), "RRG_INDEX_BACKGROUND": "1"}
    assert run([*rrg_cmd(), "-q", "render a page", "--files"], root, env).returncode == 0
    time.sleep(1)
    assert _count(tmp_path / "cache", "SELECT COUNT(*) FROM marks") == 0
    status = run([*rrg_cmd(), "--index-status"], root, env).stdout.decode()
    assert f"passages computed ahead: no (a root of fewer than {WARM_FROM_FILES} text" in status


def test_a_passage_vector_does_not_depend_on_its_company() -> None:
    rng = np.random.default_rng(7)
    table = rng.standard_normal((500, 16)).astype(np.float32)
    idf = rng.random(500).astype(np.float32) + 0.5
    pieces = [np.unique(rng.integers(0, 500, size)) for size in (5, 40, 300, 12)]
    tfs = [rng.integers(1, 4, len(p)) for p in pieces]
    together = static_vectors_alone(pieces, tfs, idf, table)
    for k in range(len(pieces)):
        alone = static_vectors_alone([pieces[k]], [tfs[k]], idf, table)[0]
        assert together[k].tobytes() == alone.tobytes()
    # The same vectors as the block formula the index uses, to float32's precision.
    np.testing.assert_allclose(together, static_vectors(pieces, tfs, idf, table), atol=1e-5)


def test_searches_beside_the_job_answer_as_without_it(
    big: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """Several agents search while the job writes: each answers, and as a root without
    the job does (reads never wait on the job; its writes are brief)."""
    root, env = big
    cache = Path(env["RRG_CACHE_DIR"])
    unwarmed = _indexed_twice(root, env, tmp_path / "plain")
    quiet = {**env, "RRG_INDEX_BACKGROUND": "0"}
    queries = ("retry a request after it failed", "parse the config", "queue tokens")
    expected = [
        run([*rrg_cmd(), "-q", q, "--fast", "-n", "return"], root, unwarmed).stdout for q in queries
    ]
    assert run([*rrg_cmd(), "-q", "render a page", "--files"], root, env).returncode == 0
    searches = [
        subprocess.Popen(
            [*rrg_cmd(), "-q", q, "--fast", "-n", "return"],
            cwd=root,
            env=quiet,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for q in queries
    ]
    answers = [search.communicate(timeout=120) for search in searches]
    assert [search.returncode for search in searches] == [0, 0, 0], answers
    assert [out for out, _ in answers] == expected
    _wait_for_job(cache)
    assert _count(cache, "SELECT COUNT(*) FROM marks") == 1


def test_source_code_is_computed_first_and_each_kind_bounded(
    tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rrg.index.refresh import open_view
    from rrg.index.served import ServedRoot
    from rrg.model.registry import default_model
    from rrg.model.static_table import static_table
    from rrg.rank.warm_passages import warm_order

    root = tmp_path / "tree"
    for rel in ("docs/guide.md", "tests/test_b.py", "src/b.py", "README.md", "src/a.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"retry the request in {rel}\n")
    env = {**env, "RRG_CACHE_DIR": str(tmp_path / "cache")}
    assert run([*rrg_cmd(), "--index"], root, env).returncode == 0
    monkeypatch.setenv("RRG_CACHE_DIR", env["RRG_CACHE_DIR"])
    served = ServedRoot(bytes(root), default_model())
    view = open_view(served.index_path, static_table(served.encoder).shape[0])
    assert view is not None
    order = [path.decode() for path in warm_order(view)]
    assert sorted(order[:2]) == ["src/a.py", "src/b.py"]
    assert order[2] == "tests/test_b.py"
    assert sorted(order[3:]) == ["README.md", "docs/guide.md"]
    # At most one of each kind; the walk ends at the first source file.
    bounded = [path.decode() for path in warm_order(view, most=1)]
    assert bounded[0].startswith("src/") and len(bounded) <= 3
    assert sum(path.startswith("src/") for path in bounded) == 1


def _passage_vectors(cache: Path) -> int:
    return _count(cache, "SELECT COUNT(*) FROM vectors WHERE model LIKE 'passage-%'")


def test_a_root_within_the_bound_is_embedded_ahead(
    big: tuple[Path, dict[str, str]],
) -> None:
    """Every passage computed, the job embeds the root (as --index --embed would); a new
    query then runs the model on its own text alone and ranks from the stored vectors."""
    root, env = big
    env = {**env, "RRG_EMBED_AHEAD": str(EMBED_AHEAD)}
    cache = Path(env["RRG_CACHE_DIR"])
    assert run([*rrg_cmd(), "-q", "render a page", "--files"], root, env).returncode == 0
    _wait_for_job(cache)
    status = run([*rrg_cmd(), "--index-status"], root, env).stdout.decode()
    files = WARM_FROM_FILES + 11  # the modules and the README
    assert f"embedded: {files} of {files} indexed files" in status, status

    before = _passage_vectors(cache)
    found = run([*rrg_cmd(), "-q", "retry a request after it failed", "--files"], root, env)
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines()[0].startswith(b"src/retry_")
    assert _passage_vectors(cache) == before + 1  # the query's vector, no passage's


@contextlib.contextmanager
def _searched_while_another_root_embeds(
    root: Path, env: dict[str, str]
) -> Iterator[tuple[dict[str, str], Path, Path]]:
    """The root searched, embedding ahead on, while another root's job holds the cache
    dir's turn to embed (held until the block ends): the environment, the cache dir and
    the turn's lock file."""
    env = {**env, "RRG_EMBED_AHEAD": str(EMBED_AHEAD)}
    cache = Path(env["RRG_CACHE_DIR"])
    cache.mkdir(parents=True, exist_ok=True)
    turn = cache / EMBEDDING_TURN
    held = os.open(turn, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert run([*rrg_cmd(), "-q", "render a page", "--files"], root, env).returncode == 0
        yield env, cache, turn
    finally:
        os.close(held)


def test_roots_are_embedded_ahead_one_at_a_time(big: tuple[Path, dict[str, str]]) -> None:
    """Another root's job holds the cache dir's turn to embed: this root's job computes its
    passages, then waits for the turn with the root not embedded, and embeds it once the
    turn is free. It waits as a new rrg (its process replaced: none of its modules or its
    passages held for the minutes of the wait), the same pid, still holding the builder
    lock (no second job starts meanwhile)."""
    root, env = big
    with _searched_while_another_root_embeds(root, env) as (env, cache, turn):
        (index,) = [p for p in (cache / "index").glob("*.sqlite") if ".vectors." not in p.name]
        deadline = time.monotonic() + 180
        time.sleep(0.5)  # the job takes its builder lock as it starts
        while not flock_waited_for(turn) and builder_running(index):
            assert time.monotonic() < deadline, "the job neither waited nor ended in 180 s"
            time.sleep(0.25)
        assert flock_waited_for(turn), "the job embedded without waiting for the turn"
        assert _count(cache, "SELECT COUNT(*) FROM marks WHERE key LIKE 'warm:%'") == 1
        # Its embedding: decided on, not ended (what a search takes up if the job dies).
        assert _count(cache, "SELECT COUNT(*) FROM marks WHERE key LIKE 'embed-ahead:%'") == 1
        assert not list((cache / "index").glob("*.embed"))
        [waiter] = flock_waiters(turn)
        builder = Path(f"{index}.builder").read_text().split()[0]
        assert int(builder) == waiter and builder_running(index)
        environ = Path(f"/proc/{waiter}/environ").read_bytes().split(b"\0")
        assert b"RRG_BACKGROUND_BUILD=embed" in environ
    _wait_for_job(cache)
    status = run([*rrg_cmd(), "--index-status"], root, env).stdout.decode()
    files = WARM_FROM_FILES + 11
    assert f"embedded: {files} of {files} indexed files" in status, status
    assert _count(cache, "SELECT COUNT(*) FROM marks WHERE key LIKE 'embed-ahead:%'") == 0


def test_an_embedding_ahead_whose_job_was_killed_is_taken_up_by_a_later_search(
    big: tuple[Path, dict[str, str]],
) -> None:
    """The job computes the passages (marked done) and waits for the turn; killed then (a
    reboot, a logout), the root was never embedded ahead, as no later search started a job
    for passages already computed. A later search now starts one, which embeds it."""
    root, env = big
    with _searched_while_another_root_embeds(root, env) as (env, cache, turn):
        deadline = time.monotonic() + 180
        while not flock_waiters(turn):
            assert time.monotonic() < deadline, "the job did not wait for the turn in 180 s"
            time.sleep(0.25)
        [waiter] = flock_waiters(turn)
        os.kill(waiter, signal.SIGKILL)
        _wait_for_job(cache)
    status = run([*rrg_cmd(), "--index-status"], root, env).stdout.decode()
    assert "embedded: no" in status and "passages computed ahead: yes" in status, status
    assert run([*rrg_cmd(), "-q", "render a page", "--files"], root, env).returncode == 0
    _wait_for_job(cache)
    status = run([*rrg_cmd(), "--index-status"], root, env).stdout.decode()
    files = WARM_FROM_FILES + 11
    assert f"embedded: {files} of {files} indexed files" in status, status
    # Embedded, the root starts no further job.
    assert run([*rrg_cmd(), "-q", "render a page", "--files"], root, env).returncode == 0
    time.sleep(0.5)
    (index,) = [p for p in (cache / "index").glob("*.sqlite") if ".vectors." not in p.name]
    assert not builder_running(index)


def test_no_embedding_above_the_bound(big: tuple[Path, dict[str, str]]) -> None:
    root, env = big
    env = {**env, "RRG_EMBED_AHEAD": "100"}  # the tree has over 600 passages
    cache = Path(env["RRG_CACHE_DIR"])
    assert run([*rrg_cmd(), "-q", "render a page", "--files"], root, env).returncode == 0
    _wait_for_job(cache)
    assert _count(cache, "SELECT COUNT(*) FROM marks") == 1  # the passages were computed
    assert not list((cache / "index").glob("*.embed"))
    bad = run([*rrg_cmd(), "-q", "render", "--files"], root, {**env, "RRG_EMBED_AHEAD": "-1"})
    assert bad.returncode == 2 and bad.stdout == b""
    assert bad.stderr == b"rrg: RRG_EMBED_AHEAD must be a whole number >= 0, not '-1'\n"


def test_the_job_is_started_without_a_warning_where_warnings_show(
    big: tuple[Path, dict[str, str]],
) -> None:
    """The job outlives the search that starts it, on purpose; Python's warning for a child
    still running when its ``Popen`` is dropped (meant for one forgotten by mistake) was
    printed on the search's stderr where warnings show, and is an error under ``-W
    error``."""
    root, env = big
    shown = {**env, "PYTHONWARNINGS": "default"}
    first = run([*rrg_cmd(), "-q", "render a page", "--fast", "--files"], root, shown)
    _wait_for_job(Path(env["RRG_CACHE_DIR"]))
    assert first.returncode == 0 and b"Warning" not in first.stderr, first.stderr
    assert _count(Path(env["RRG_CACHE_DIR"]), "SELECT COUNT(*) FROM marks") == 1  # it ran
