"""Speed of the commands that put paragraphs through the transformer, on a real repository
(the sympy tree of ../shared/data/swebench-repos) or a prose set, index warm: each query new
(its paragraphs never encoded), then the same query again.

Usage: python benchmarks/passages_speed.py [QUERIES] [sympy|scifact|nfcorpus|...]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import OUT, machine, measured, rrg, timed  # noqa: E402
from datasets import beir, swebench_repos  # noqa: E402


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    name = sys.argv[2] if len(sys.argv) > 2 else "sympy"
    if name == "sympy":
        labelled = next(s for s in swebench_repos() if s.name.startswith("sympy"))
    else:
        labelled = beir(name)
    # Each command gets queries of its own, so that "new" means no passage of it was read.
    issues = [" ".join(q.split()[:40]) for q in labelled.queries.values()]
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT) as cache:
        env = dict(os.environ, RRG_CACHE_DIR=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode compiled
        build = timed([*rrg(), "--index", "."], labelled.root, env)
        rows = []
        for label, before, after in (
            ("`rrg --recall Q`", ["--recall"], []),
            ("`rrg -q Q` (no pattern)", ["-q"], []),
            ("`rrg -q Q -i 'def \\w+'`", ["-q"], ["-i", r"def \w+"]),
            ("`rrg -q Q --fast -i 'def \\w+'`", ["--fast", "-q"], ["-i", r"def \w+"]),
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
        f"{name}: {len(labelled.doc_path)} files; {machine()}; first build {build:.1f} s "
        "(the model's static table and optimised graph included)"
    )
    print(
        "| command | new query p50 | new query max | new query peak | same query again p50 "
        "| again peak |"
    )
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
