"""How many of the passages ``rrg -q Q`` prints (no pattern) are a file's preamble: its
imports and licence alone (``rrg.rank.preamble``), which tell a reader nothing the path did
not. Counted by place: the first 3 (what a screen shows, and ``evidence.py`` counts), 4-20,
21-30 (the rounds past each file's best passage). The questions of semble-code's
repositories, symbol queries left out; each passage as ``rrg.api``'s ``passages`` gives it,
the command line's passages.

Run: python -m benchmarks.preambles DATA [NAME ...]
DATA: materialize.py's OUT (``--whole`` for whole repositories). A fresh cache dir is made
unless RRG_CACHE_DIR is set; background jobs are off. --paths prints each query's passages.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from benchmarks.common import machine, needs_arguments

BANDS = ((0, 3, "1-3"), (3, 20, "4-20"), (20, 30, "21-30"))


def main() -> None:
    needs_arguments(1, __doc__)
    show = "--paths" in sys.argv
    argv = [a for a in sys.argv[1:] if a != "--paths"]
    data = Path(argv[0])
    names = argv[1:] or sorted(p.name for p in data.iterdir() if (p / "tree").is_dir())
    os.environ.setdefault("RRG_CACHE_DIR", tempfile.mkdtemp(prefix="rrg-preambles-"))
    os.environ["RRG_INDEX_BACKGROUND"] = "0"
    os.environ["RRG_EMBED_AHEAD"] = "0"
    import rrg.api as api
    from rrg.rank.preamble import is_preamble

    counts = {band: [0, 0] for *_, band in BANDS}
    print(f"preambles among rrg -q Q's passages, {data}; {machine()}")
    for name in names:
        project = api.open_project(str(data / name / "tree"))
        mine = {band: [0, 0] for *_, band in BANDS}
        for line in (data / name / "queries.jsonl").read_text().splitlines():
            query = json.loads(line)
            if query.get("category") == "symbol":
                continue
            passages = project.passages(query["query"], limit=30).passages
            for lo, hi, band in BANDS:
                for passage in passages[lo:hi]:
                    mine[band][0] += is_preamble(passage.text)
                    mine[band][1] += 1
            if show:
                print(" ", query["qid"], [f"{p.path}:{p.start_line}" for p in passages])
        for band, (found, total) in mine.items():
            counts[band][0] += found
            counts[band][1] += total
        print(f"{name:20s}", "  ".join(f"{b} {f}/{t}" for b, (f, t) in mine.items()))
    print("all".ljust(20), "  ".join(f"{b} {f}/{t}" for b, (f, t) in counts.items()))


if __name__ == "__main__":
    main()
