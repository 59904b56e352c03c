"""An agent's session on one repository, this checkout against an earlier one: every labelled
query of a semble-code repository asked once, each in a fresh process, one after another in
one cache dir per checkout (the index built first; nothing else kept), the two checkouts
interleaved query by query (which runs first alternates) so that a machine that speeds up or
slows down moves both columns alike. What one query leaves (vectors, kept cuts) serves the
next ones, as in a real session; the first query of each shows the cold case.

Usage: python -m benchmarks.session_queries OLD_CHECKOUT DATA NAME [NAME...] [--fast]
(OLD_CHECKOUT: a worktree of the earlier commit, `git worktree add /tmp/old HEAD~1`; DATA:
the OUT of ../shared/data/semble-code/materialize.py, source folders or --whole.)
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.common import OUT, machine, needs_arguments, rrg, side_env, timed


def main() -> None:
    needs_arguments(3, __doc__)
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = ["--fast"] if "--fast" in sys.argv else []
    old, data, names = Path(args[0]).resolve(), Path(args[1]), args[2:]
    OUT.mkdir(exist_ok=True)
    order = "--fast" if flags else "default order"
    print(f"{machine()}; before = {old}; `rrg -q Q {' '.join(flags)} --files`, {order}\n")
    print("| repository | files | queries | first query, before / after | p50, before / after |")
    print("|---|---|---|---|---|")
    for name in names:
        corpus = data / name / "corpus"
        queries = [
            json.loads(line)["query"]
            for line in (data / name / "queries.jsonl").read_text().splitlines()
        ]
        files = sum(1 for p in corpus.rglob("*") if p.is_file())
        with tempfile.TemporaryDirectory(dir=OUT) as scratch:
            envs = {}
            for side, pythonpath in (("before", str(old)), ("after", "")):
                env = side_env(Path(scratch), side, pythonpath)
                timed([*rrg(), "--index", "."], corpus, env)
                envs[side] = env
            walls: dict[str, list[float]] = {"before": [], "after": []}
            for k, query in enumerate(queries):
                sides = ["before", "after"] if k % 2 == 0 else ["after", "before"]
                for side in sides:
                    command = [*rrg(), "-q", query, *flags, "--files"]
                    walls[side].append(timed(command, corpus, envs[side]))
        print(
            f"| {name} | {files:,} | {len(queries)} | {walls['before'][0]:.2f} / "
            f"{walls['after'][0]:.2f} s | {statistics.median(walls['before']):.2f} / "
            f"{statistics.median(walls['after']):.2f} s |",
            flush=True,
        )


if __name__ == "__main__":
    main()
