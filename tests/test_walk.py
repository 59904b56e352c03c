"""Sparse matches in a large listing: after the first files read by name, one rg run that
walks the PATHs counts the rest (rg reads a named file at about 1.5x the cost of a walked
one). Its results must be rg's own, in the order of the ranking."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from conftest import opening_logger, rrg_cmd, run
from rrg.rg.args import parse_rg_args
from rrg.rg.ordered import NAMED_COST, OrderedSearch

QUERY = "river boats on the water"


@pytest.fixture
def sparse(tmp_path: Path) -> Path:
    """300 files in three folders; the word "needle" in six of them, one of them hidden,
    one ignored, one binary."""
    root = tmp_path / "sparse"
    for k in range(300):
        folder = root / f"d{k % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{k:03d}.txt").write_text(f"river boat {k} floats on the water\n" * 2)
    for k in (7, 150, 299):
        path = root / f"d{k % 3}" / f"f{k:03d}.txt"
        path.write_text(path.read_text() + f"a needle here, number {k}\nand a needle again\n")
    (root / "d0" / ".hidden.txt").write_text("a hidden needle\n")
    (root / ".gitignore").write_text("ignored.txt\n")
    (root / "ignored.txt").write_text("an ignored needle\n")
    (root / "d1" / "blob.bin").write_bytes(b"needle\x00\x01\x02" * 10)
    (root / ".git").mkdir()
    return root


def files_in_order(out: bytes) -> list[bytes]:
    seen: list[bytes] = []
    for line in out.splitlines():
        path = re.match(rb"^(.*?\.(?:txt|bin))", line)
        if path and path.group(1) not in seen:
            seen.append(path.group(1))
    return seen


CASES = [
    ["-n", "needle"],
    ["-C1", "needle"],
    ["-l", "needle"],
    ["-c", "needle"],
    ["--count-matches", "needle"],
    ["--hidden", "needle"],
    ["-g", "*.txt", "needle"],
    ["needle", "d0", "d2"],
    ["needle", "d0", "d1/f007.txt"],
    ["-a", "needle"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_walked_counts_give_rgs_lines_in_rank_order(
    args: list[str], sparse: Path, rg: str, env: dict[str, str]
) -> None:
    ours = run([*rrg_cmd(), "-q", QUERY, "--excerpt", "0", *args], sparse, env)
    theirs = run([rg, *args], sparse, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())
    selection = [a for a in args if a not in ("needle", "-n", "-C1", "-l", "-c", "--count-matches")]
    ranked = run([*rrg_cmd(), "-q", QUERY, "--files", *selection], sparse, env).stdout.split()
    printed = files_in_order(ours.stdout)
    assert printed == [p for p in ranked if p in printed]


def test_the_walk_replaces_named_reads_only_when_matches_are_sparse(
    sparse: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    """A --pre hook logs every file rg opens. Sparse matches: the files read by name first
    are read again by the walk. Dense matches: the cap is met by name, nothing twice."""
    hook, log = opening_logger(tmp_path)

    run([*rrg_cmd(), "-q", QUERY, f"--pre={hook}", "-l", "needle"], sparse, env)
    opened = Counter(log.read_text().split())
    twice = [p for p, n in opened.items() if n > 1 and "needle" not in (sparse / p).read_text()]
    assert twice, "no walk: every file was read once"

    log.unlink()
    run([*rrg_cmd(), "-q", QUERY, f"--pre={hook}", "river"], sparse, env)
    opened = Counter(log.read_text().split())
    assert opened and max(opened.values()) <= 2  # the count pass, then the print pass
    assert len(opened) < 100


def test_when_the_walk_pays() -> None:
    search = OrderedSearch("rg", parse_rg_args(["needle"]), 30, False, walk=[])
    assert not search._walk_pays(0, 0, 10_000)  # the best files are always read first
    assert not search._walk_pays(160, 0, 10_000)  # none in 160: 4,800 more may hold 30
    assert search._walk_pays(672, 0, 10_000)  # none in 672: 20,160 more, past the walk
    assert not search._walk_pays(160, 20, 10_000)  # 20 in 160: about 80 more files
    unlimited = OrderedSearch("rg", parse_rg_args(["needle"]), 0, False, walk=[])
    assert unlimited._walk_pays(32, 5, 10_000)  # everything is read: walk at once
    assert not unlimited._walk_pays(32, 5, 40)  # unless few are left
    named_only = OrderedSearch("rg", parse_rg_args(["needle"]), 30, False)
    assert not named_only._walk_pays(160, 0, 10_000)  # a scope's files: never walk
    assert NAMED_COST > 1
