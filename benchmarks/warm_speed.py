"""New queries on a root whose passages were computed ahead (rrg/rank/warm_passages.py),
and embedded where it has at most RRG_EMBED_AHEAD passages, against the same root without
that job, interleaved; and the job's own time.

Two cache folders hold the same index (built once, then copied). In one, a first search
starts the background job, and this waits for it (its wall time and what it wrote are
reported); the other never runs it (RRG_INDEX_BACKGROUND=0), as a root ranked before.
Then every query, new to both, runs as a fresh process in each, the order of the two
alternating; the second folder fills with the passages of the files its queries read, as
a session without the job does.

Usage: python -m benchmarks.warm_speed TARGET [QUERIES]
TARGET: sympy (the swebench-repos tree, issue texts cut to 40 words, pattern `def \\w+`),
or a semble-code repository folder built by materialize.py (its corpus/ and the labelled
natural-language queries of its queries.jsonl, pattern `\\w+\\(`).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import OUT, machine, measured, needs_arguments, rrg, timed
from benchmarks.passages_speed import speed_set
from rrg.index.store import builder_running


def _target(name: str) -> tuple[Path, list[str], str]:
    if name == "sympy":
        labelled, queries, pattern = speed_set("sympy")
        return labelled.root, queries, pattern
    folder = Path(name)
    lines = (folder / "queries.jsonl").read_text().splitlines()
    queries = [q["query"] for q in map(json.loads, lines) if q.get("category") != "symbol"]
    return (folder / "corpus").resolve(), queries, r"\w+\("


def _index_file(cache: Path) -> Path:
    (index,) = [p for p in (cache / "index").glob("*.sqlite") if ".vectors." not in p.name]
    return index


def main() -> None:
    needs_arguments(1, __doc__)
    root, queries, pattern = _target(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    files = sum(1 for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT) as scratch:
        base = dict(os.environ, RRG_INDEX_BACKGROUND="0")
        base.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode compiled
        warmed, plain = Path(scratch) / "warmed", Path(scratch) / "plain"
        env = dict(base, RRG_CACHE_DIR=str(warmed))
        # The model's own files (its optimised graphs) are made by the first query.
        timed([*rrg(), "--index", "."], root, env)
        timed([*rrg(), "-q", queries[-1], "-i", pattern], root, env)
        shutil.copytree(warmed, plain)
        start = time.monotonic()
        starting = dict(env, RRG_INDEX_BACKGROUND="1", RRG_PASSAGES_AHEAD="1")
        timed([*rrg(), "-q", queries[-2], "--files"], root, starting)
        time.sleep(0.5)
        while builder_running(_index_file(warmed)):
            time.sleep(0.2)
        job = time.monotonic() - start
        status = measured([*rrg(), "--index-status", "."], root, env).stdout
        held = next((line.strip() for line in status.splitlines() if "vector cache" in line), "")
        embedded = next(
            (line.strip() for line in status.splitlines() if line.strip().startswith("embedded:")),
            "",
        )
        envs = {"without": dict(base, RRG_CACHE_DIR=str(plain)), "with": env}
        commands: tuple[tuple[str, list[str]], ...] = (
            (f"`rrg -q Q -i '{pattern}'`", []),
            (f"`rrg -q Q --fast -i '{pattern}'`", ["--fast"]),
        )
        rows = []
        for number, (label, extra) in enumerate(commands):
            walls: dict[str, list[float]] = {"without": [], "with": []}
            chosen = queries[number * count : (number + 1) * count]
            for k, q in enumerate(chosen):
                sides = ("without", "with") if k % 2 == 0 else ("with", "without")
                for side in sides:
                    run = measured([*rrg(), "-q", q, *extra, "-i", pattern], root, envs[side])
                    walls[side].append(run.wall)
            ratios = [a / b for a, b in zip(walls["with"], walls["without"], strict=True)]
            rows.append(
                f"| {label} | {statistics.median(walls['without']):.2f} s | "
                f"{statistics.median(walls['with']):.2f} s | {statistics.median(ratios):.2f}x |"
            )
    name = sys.argv[1].rstrip("/").rsplit("/", 1)[-1]
    print(f"{name}: {files:,} files; {machine()}; {count} new queries a command")
    print(f"The job (index whole, started by a search, waited for): {job:.1f} s; {held}")
    print(embedded)  # a root of at most RRG_EMBED_AHEAD passages is embedded by the job
    print("| command | without the job, p50 | with it, p50 | median ratio |")
    print("|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
