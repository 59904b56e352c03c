"""First searches started together on a machine that has never run rrg (agents started
at once in a fresh container): each one's time and peak memory, in an empty
``RRG_PREPARED_DIR`` where the model's table and graph are still to be made; optionally
beside an earlier checkout (run with PYTHONPATH), one side after the other.

Run: python -m benchmarks.first_use_at_once [N] [OLD_CHECKOUT]   (N: 3 by default)
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks.common import OUT, machine
from benchmarks.first_use import _env, _peak_run, _rrg


def side(label: str, code: str | None, searches: int) -> str:
    with tempfile.TemporaryDirectory(dir=OUT) as scratch:
        tmp = Path(scratch)
        trees = []
        for k in range(searches):
            tree = tmp / f"tree{k}"
            tree.mkdir()
            (tree / "retry.py").write_text("def retry_request(request):\n    return request\n")
            trees.append(tree)
        env = _env(
            code,
            tmp / "cache",
            RRG_PREPARED_DIR=str(tmp / "prepared"),
            RRG_RESIDENT="0",
            RRG_INDEX_BACKGROUND="0",
        )
        command = _rrg("-q", "retry a failed request", "retry")
        with ThreadPoolExecutor(searches) as pool:
            runs = list(pool.map(lambda tree: _peak_run(command, tree, env), trees))
    seconds = [run[0] for run in runs]
    peaks = [run[1] / 1024 for run in runs]
    return (
        f"| {label} | {searches} | {statistics.median(seconds):.1f} s "
        f"({min(seconds):.1f}-{max(seconds):.1f}) | {sum(peaks):.0f} MB |"
    )


def main() -> None:
    searches = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    old = sys.argv[2] if len(sys.argv) > 2 else None
    OUT.mkdir(exist_ok=True)
    print(f"# First searches at once, nothing prepared, {machine()}")
    print("| rrg | searches at once | each (p50, range) | each one's peak memory, summed |")
    print("|---|---|---|---|")
    print(side("this checkout", None, 1))
    print(side("this checkout", None, searches))
    if old:
        print(side(f"before ({Path(old).name})", old, searches))


if __name__ == "__main__":
    main()
