"""A search that prints everything it finds (``--limit 0``, a pipeline's use): ``rrg -q Q
--fast`` against ``rg -j1`` (one thread, as rrg runs it) and plain ``rg``, runs interleaved,
and optionally against an earlier checkout of rrg, on sympy's tree. The query is asked
once before the timed runs, so what is timed is the ordered search and its output, not the
ranking's first reading.

Usage: python -m benchmarks.big_output [RUNS] [OLD_CHECKOUT]
(OLD_CHECKOUT: a worktree of an earlier commit, e.g. `git worktree add /tmp/old HEAD~1`.)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import OUT, machine, rg, rrg, timed
from benchmarks.passages_speed import speed_set

QUERY = "matrix determinant of a symbolic expression"
#: rg's arguments: a typical pattern, every line (the most output, one match a character
#: to mark), and other forms of output.
SEARCHES = (
    ["-n", r"def \w+"],
    ["-n", "."],
    ["--heading", "-n", r"def \w+"],
    ["-C1", "-n", r"def \w+"],
    ["-c", "."],
    ["--json", r"def \w+"],
    ["-l", "."],
)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    old = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else None
    labelled, _, _ = speed_set("sympy")
    root = labelled.root
    files = len(subprocess.run([rg(), "--files"], cwd=root, capture_output=True).stdout.split())
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT) as cache:
        env = dict(os.environ, RRG_CACHE_DIR=cache, RRG_INDEX_BACKGROUND="0", RRG_RESIDENT="0")
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode compiled
        sides: dict[str, tuple[list[str], dict[str, str]]] = {}
        for label, path in (("rrg", ""), ("rrg before", str(old) if old else None)):
            if path is not None:
                sides[label] = (
                    [*rrg(), "-q", QUERY, "--fast", "--limit", "0"],
                    {**env, "PYTHONPATH": path},
                )
        sides["rg -j1"] = ([rg(), "-j1"], env)
        sides["rg"] = ([rg()], env)
        command, side_env = sides["rrg"]
        timed([*command, "-n", r"def \w+"], root, side_env)  # the index and the query's order
        print(f"# `--limit 0` output, sympy ({files:,} files), {machine()}, p50 of {runs}")
        print("| rg's arguments | " + " | ".join(sides) + " | rrg / rg -j1 |")
        print("|---" * (len(sides) + 2) + "|")
        for search in SEARCHES:
            times: dict[str, list[float]] = {label: [] for label in sides}
            for _ in range(runs):
                for label, (command, side_env) in sides.items():
                    times[label].append(timed([*command, *search], root, side_env))
            p50 = {label: statistics.median(values) for label, values in times.items()}
            cells = " | ".join(f"{p50[label]:.2f} s" for label in sides)
            ratio = p50["rrg"] / p50["rg -j1"]
            print(f"| `{' '.join(search)}` | {cells} | {ratio:.1f}x |")


if __name__ == "__main__":
    main()
