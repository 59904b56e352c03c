"""Speed of the commands that put paragraphs through the transformer, on a real repository
(the sympy tree of ../shared/data/swebench-repos) or a prose set, index warm: each query new
(its paragraphs never encoded), then the same query again.

Usage: python -m benchmarks.passages_speed [QUERIES] [sympy|scifact|nfcorpus|...]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.common import OUT, machine, measured, rrg, timed
from benchmarks.datasets import LabelledSet, beir, swebench_repos


def speed_set(name: str) -> tuple[LabelledSet, list[str], str]:
    """The set by name (sympy: the swebench-repos tree), its queries cut to 40 words, and a
    pattern found in many of its files (a pattern found nowhere ends with rg's walk, before
    any ranking: How -q works, step 5)."""
    if name == "sympy":
        labelled = next(s for s in swebench_repos() if s.name.startswith("sympy"))
    else:
        labelled = beir(name)
    queries = [" ".join(q.split()[:40]) for q in labelled.queries.values()]
    return labelled, queries, r"def \w+" if name == "sympy" else r"the \w+"


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    # Each command gets queries of its own, so that "new" means no passage of it was read.
    labelled, issues, pattern = speed_set(sys.argv[2] if len(sys.argv) > 2 else "sympy")
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT) as cache:
        env = dict(os.environ, RRG_CACHE_DIR=cache)
        # The query path alone: no job computing passages ahead beside the timed runs
        # (benchmarks/warm_speed.py times that job and what it saves).
        env["RRG_INDEX_BACKGROUND"] = "0"
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode compiled
        # The model's static table and optimised graph are made once per machine: made
        # here on a one-file tree, so that the cold figures below are the tree's own.
        prepare = Path(cache) / "prepare"
        prepare.mkdir()
        (prepare / "a.txt").write_text("prepare the model\n")
        timed([*rrg(), "-q", "prepare", "model"], prepare, env)
        # Issue 10: the first query on a cold tree costs the build plus at most 2 s.
        cold = measured([*rrg(), "-q", issues[-1], "-i", pattern], labelled.root, env)
        timed([*rrg(), "--index-clear", "."], labelled.root, env)
        build = timed([*rrg(), "--index", "."], labelled.root, env)
        rows: list[str] = []
        for label, before, after in (
            ("`rrg --recall Q`", ["--recall"], []),
            ("`rrg -q Q` (no pattern)", ["-q"], []),
            (f"`rrg -q Q -i '{pattern}'`", ["-q"], ["-i", pattern]),
            (f"`rrg -q Q --fast -i '{pattern}'`", ["--fast", "-q"], ["-i", pattern]),
        ):
            new, again, new_peak, again_peak = [], [], [], []
            for q in issues[len(rows) * count : (len(rows) + 1) * count]:
                first = measured([*rrg(), *before, q, *after], labelled.root, env)
                second = measured([*rrg(), *before, q, *after], labelled.root, env)
                new.append(first.wall)
                again.append(second.wall)
                new_peak.append(first.peak_mb)
                again_peak.append(second.peak_mb)
            rows.append(
                f"| {label} | {statistics.median(new):.2f} s | {max(new):.2f} s | "
                f"{max(new_peak)} MB | {statistics.median(again):.2f} s | {max(again_peak)} MB |"
            )
    print(
        f"{labelled.name}: {len(labelled.doc_path)} files; {machine()}; cold build {build:.1f} s; "
        f"the first `rrg -q Q -i '{pattern}'` on the cold tree {cold.wall:.1f} s (build "
        f"included, {cold.wall - build:+.1f} s beside the build alone), peak {cold.peak_mb} MB"
    )
    print(
        "| command | new query p50 | new query max | new query peak | same query again p50 "
        "| again peak |"
    )
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
