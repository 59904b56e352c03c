"""A query's order kept (rrg/rank/kept_orders.py, VectorCache's orders): the same query over
the same files reads it back and prints the same bytes; an edited file, another query or
another order is ranked anew; a damaged entry is ranked again; searches that print the
stage's passages keep none. The real command, real files, the cache's real SQLite file."""

from __future__ import annotations

import sqlite3
import time
import zlib
from pathlib import Path

import pytest

from conftest import rrg_cmd, run
from rrg.index.vectors import VectorCache


def _tree(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    topics = {
        "retry": "retry a request after a timeout with backoff",
        "config": "parse the configuration file into settings",
        "cache": "keep results in a cache keyed by the request",
        "log": "write a log line for each request served",
    }
    for name, words in topics.items():
        (root / "src" / f"{name}.py").write_text(
            f"def {name}(request):\n    '''{words.capitalize()}.'''\n    return request\n"
        )


Tree = tuple[Path, Path, dict[str, str]]


@pytest.fixture
def tree(tmp_path: Path, env: dict[str, str]) -> Tree:
    """The tree, its cache folder, and the environment that points rrg at it."""
    root, cache = tmp_path / "tree", tmp_path / "cache"
    _tree(root)
    return root, cache, dict(env, RRG_CACHE_DIR=str(cache))


def _kept(cache: Path) -> int:
    (store,) = (cache / "index").glob("*.vectors.sqlite")
    with sqlite3.connect(store) as db:
        return int(db.execute("SELECT COUNT(*) FROM orders").fetchone()[0])


def test_a_repeated_query_reads_its_order_back(tree: Tree) -> None:
    root, cache, env = tree
    search = [*rrg_cmd(), "-q", "retry after a timeout", "--fast", "-n", "-m1", "request"]
    first = run(search, root, env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(b"src/retry.py:")
    assert _kept(cache) == 1
    status = run([*rrg_cmd(), "--index-status"], root, env).stdout.decode()
    assert "\n    the order of 1 query asked with a pattern, 0.0 MB (up to 16 MB)\n" in status
    again = run(search, root, env)
    assert again.stdout == first.stdout and again.stderr == first.stderr
    assert _kept(cache) == 1
    # The same query, another pattern: the order is the same one, read back.
    other_pattern = run([*search[:-1], "return"], root, env)
    assert other_pattern.stdout.startswith(b"src/retry.py:3:")
    assert _kept(cache) == 1
    # Another order of the same query (the default's), another query: ranked, then kept.
    assert run([x for x in search if x != "--fast"], root, env).returncode == 0
    assert run([*rrg_cmd(), "-q", "the log line", "--fast", "request"], root, env).returncode == 0
    assert _kept(cache) == 3


def test_an_edit_ranks_again(tree: Tree) -> None:
    root, cache, env = tree
    search = [*rrg_cmd(), "-q", "parse the configuration", "--fast", "-l", "request"]
    before = run(search, root, env).stdout.split()
    assert before[0] == b"src/config.py" and before.index(b"src/log.py") > 1, before
    (root / "src" / "log.py").write_text(
        "def log(request):\n    '''Parse the configuration, parse the configuration file.'''"
        "\n    return request  # parse configuration\n"
    )
    edited = run(search, root, env).stdout.split()
    assert edited.index(b"src/log.py") == 1, edited  # ranked anew, not read back
    assert _kept(cache) == 2


def test_a_damaged_kept_order_is_ranked_again(tree: Tree) -> None:
    root, cache, env = tree
    search = [*rrg_cmd(), "-q", "keep results in a cache", "--fast", "-l", "request"]
    first = run(search, root, env)
    (store,) = (cache / "index").glob("*.vectors.sqlite")
    for damage in (b"not zlib", zlib.compress(b"\x00" + b"\xff" * 8)):
        with sqlite3.connect(store) as db:
            db.execute("UPDATE orders SET data=?", (damage,))
        again = run(search, root, env)
        assert again.returncode == 0 and again.stdout == first.stdout, again.stderr
        assert again.stdout.startswith(b"src/cache.py\n")


def test_passages_printed_from_the_stage_keep_no_order(tree: Tree) -> None:
    root, cache, env = tree
    shown = run([*rrg_cmd(), "-q", "retry after a timeout", "--fast"], root, env)
    assert shown.returncode == 0 and b"def retry" in shown.stdout, shown.stderr
    assert _kept(cache) == 0


def test_a_kept_order_marked_read_is_the_last_the_bound_drops(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "root.sqlite")
    assert cache.put_order("k", b"order")
    with sqlite3.connect(cache.path) as db:
        db.execute("UPDATE orders SET used=0")
    assert cache.get_order("k") == (b"order", 0)
    assert cache.mark_order_used("k")
    data, used = cache.get_order("k") or (b"", 0)
    assert data == b"order" and used >= int(time.time()) - 60


def test_a_query_loads_no_masked_arrays(tree: Tree) -> None:
    """numpy.ma costs 9 ms of a query's process, and plain ``np.unique`` imports it (to ask
    whether its array is masked): neither a query naming an identifier (its definers
    looked up) nor the same query asked again (its kept order checked) loads it."""
    import sys

    root, _, env = tree
    code = (
        "import sys; from rrg.cli.argsplit import split_argv; from rrg.cli.entry import run_here;"
        "code = run_here(split_argv(sys.argv[1:])); sys.stdout.flush();"
        "print(code, 'numpy.ma' in sys.modules)"
    )
    search = ["-q", "retry after a timeout, as request_timeout says", "--fast", "-l", "request"]
    env = dict(env, RRG_RESIDENT="0")
    for asked in ("first", "again"):
        shown = run([sys.executable, "-c", code, *search], root, env)
        lines = shown.stdout.splitlines()
        assert lines[0] == b"src/retry.py" and lines[-1] == b"0 False", (asked, shown)
