"""This checkout against an earlier one, interleaved: each new query runs under the earlier
code, then under this code, each with a cache dir of its own (index warm, the query's
passages never read), so that a machine that speeds up or slows down during the run moves
both columns alike. Sequential runs of passages_speed.py drifted by 15% on one day.

Usage: python -m benchmarks.side_by_side OLD_CHECKOUT [QUERIES] [sympy|scifact|...]
[--again | --cold | --build]
(OLD_CHECKOUT: a worktree of the earlier commit, e.g. `git worktree add /tmp/old HEAD~1`.)
--again: a query asked again with another pattern (an agent's second grep of one question),
the default order and --fast; the first asking is not timed.
--cold: a root's first questions: before each run the root's passages, cuts and vectors
are deleted (the index kept), so no file's passages were read before, as on a tree just
indexed; the default order and --fast.
--build: the index's cold build (`rrg --index .`, its cache dir emptied before each run),
QUERIES times a side, the two sides alternating, and the index's bytes; in place of the set's
name, a folder builds that tree.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import OUT, machine, measured, needs_arguments, rg, rrg, side_env, timed
from benchmarks.passages_speed import speed_set


def main() -> None:
    needs_arguments(1, __doc__)
    again = "--again" in sys.argv
    cold = "--cold" in sys.argv
    argv = [a for a in sys.argv if a not in ("--again", "--cold", "--build")]
    old = Path(argv[1]).resolve()
    count = int(argv[2]) if len(argv) > 2 else 10
    OUT.mkdir(exist_ok=True)
    if "--build" in sys.argv and len(argv) > 3 and Path(argv[3]).is_dir():
        tree = Path(argv[3]).resolve()
        cold_builds(old, count, tree, f"{tree}: {len(rg_files(tree))} files")
        return
    labelled, queries, pattern = speed_set(argv[3] if len(argv) > 3 else "sympy")
    if "--build" in sys.argv:
        cold_builds(old, count, labelled.root, f"{labelled.name}: {len(labelled.doc_path)} files")
        return
    with tempfile.TemporaryDirectory(dir=OUT) as scratch:
        envs = {}
        for label, pythonpath in (("before", str(old)), ("after", "")):
            env = side_env(Path(scratch), label, pythonpath)
            timed([*rrg(), "--index", "."], labelled.root, env)
            # The model's own files (its optimised graphs) are made by the first query.
            timed([*rrg(), "-q", queries[-1], "-i", pattern], labelled.root, env)
            envs[label] = env
        rows = []
        commands: tuple[tuple[str, list[str], list[str]], ...] = (
            ("`rrg --recall Q`", ["--recall"], []),
            ("`rrg -q Q` (no pattern)", ["-q"], []),
            (f"`rrg -q Q -i '{pattern}'`", ["-q"], ["-i", pattern]),
        )
        if again:
            commands = (
                ("`rrg -q Q -i return`, Q asked before", ["-q"], ["-i", "return"]),
                ("`rrg -q Q --fast -i return`, Q asked before", ["-q"], ["--fast", "-i", "return"]),
            )
        if cold:
            commands = (
                (f"`rrg -q Q -i '{pattern}'`, no passage read before", ["-q"], ["-i", pattern]),
                (
                    f"`rrg -q Q --fast -i '{pattern}'`, no passage read before",
                    ["-q"],
                    ["--fast", "-i", pattern],
                ),
            )
        for number, (label, before, after) in enumerate(commands):
            walls: dict[str, list[float]] = {"before": [], "after": []}
            peaks: dict[str, list[int]] = {"before": [], "after": []}
            for q in queries[number * count : (number + 1) * count]:
                for side, env in envs.items():
                    if again:  # the first asking, with the first pattern, untimed
                        timed([*rrg(), *before, q, *after[:-2], "-i", pattern], labelled.root, env)
                    if cold:
                        for kept in Path(env["RRG_CACHE_DIR"]).glob("index/*.vectors.sqlite*"):
                            kept.unlink()
                    run = measured([*rrg(), *before, q, *after], labelled.root, env)
                    walls[side].append(run.wall)
                    peaks[side].append(run.peak_mb)
            ratios = [a / b for a, b in zip(walls["after"], walls["before"], strict=True)]
            rows.append(
                f"| {label} | {statistics.median(walls['before']):.2f} s | "
                f"{statistics.median(walls['after']):.2f} s | {statistics.median(ratios):.2f}x | "
                f"{max(peaks['before'])} / {max(peaks['after'])} MB |"
            )
    print(
        f"{labelled.name}: {len(labelled.doc_path)} files; {machine()}; before = {old}; "
        + (
            "each query asked again with another pattern"
            if again
            else "new queries, no passage read before"
            if cold
            else "new queries"
        )
    )
    print("| command | before p50 | after p50 | median ratio | peak before / after |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


def cold_builds(old: Path, count: int, root: Path, corpus: str) -> None:
    """``rrg --index .`` from an empty cache dir, ``count`` times a side, alternating."""
    walls: dict[str, list[float]] = {"before": [], "after": []}
    peaks: dict[str, list[int]] = {"before": [], "after": []}
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory(dir=OUT) as scratch:
        for _ in range(count):
            for label, pythonpath in (("before", str(old)), ("after", "")):
                cache = Path(scratch) / label
                shutil.rmtree(cache, ignore_errors=True)
                env = dict(os.environ, RRG_CACHE_DIR=str(cache), PYTHONPATH=pythonpath)
                env["RRG_INDEX_BACKGROUND"] = "0"
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                run = measured([*rrg(), "--index", ".", "--no-progress"], root, env)
                walls[label].append(run.wall)
                peaks[label].append(run.peak_mb)
                sizes[label] = index_bytes(cache)
    ratios = [a / b for a, b in zip(walls["after"], walls["before"], strict=True)]
    print(f"{corpus}; {machine()}; before = {old}; cold builds, {count} a side")
    print(
        "| command | before p50 | after p50 | median ratio | peak before / after |"
        " index before / after |"
    )
    print("|---|---|---|---|---|---|")
    print(
        f"| `rrg --index .`, an empty cache dir | {statistics.median(walls['before']):.2f} s | "
        f"{statistics.median(walls['after']):.2f} s | {statistics.median(ratios):.2f}x | "
        f"{max(peaks['before'])} / {max(peaks['after'])} MB | "
        f"{sizes['before'] / 1e6:.2f} / {sizes['after'] / 1e6:.2f} MB |"
    )


def index_bytes(cache: Path) -> int:
    """The bytes of the index files in a cache dir (its SQLite file and segments; not the
    model's files or a vector cache)."""
    return sum(
        f.stat().st_size
        for pattern in ("*.sqlite", "*.sqlite.segments/**/*")
        for f in (cache / "index").glob(pattern)
        if f.is_file()
    )


def rg_files(tree: Path) -> list[str]:
    """The files rg lists in the tree (what an index reads)."""
    out = subprocess.run([rg(), "--files"], cwd=tree, capture_output=True, text=True)
    return out.stdout.splitlines()


if __name__ == "__main__":
    main()
