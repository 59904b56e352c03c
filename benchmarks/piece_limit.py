"""How many WordPiece tokens of a file shape its static vector (``PIECE_LIMIT``), measured
on the code sets, whose files run past it (the prose sets' documents are shorter): the
cheap order and the chosen stage (K20+12, passages under their paths, W=3), dev and test
halves, each limit with an index of its own (out/cache-pieces-N).

Usage: python -m benchmarks.piece_limit [LIMIT ...]   (default: 1024 8192)
"""

from __future__ import annotations

import os
import sys

import numpy as np

import rrg.index.refresh as refresh
from benchmarks import passage_stage
from benchmarks.common import OUT
from benchmarks.datasets import swebench_repos, swebench_tasks

SHOWN = ("bm25", "rrg", "K20+12 path W3")


def main() -> None:
    limits = [int(a) for a in sys.argv[1:]] or [1024, 8192]
    passage_stage.SWEEP_K, passage_stage.SWEEP_EXTRA = (20,), (12,)
    passage_stage.SWEEP_READ, passage_stage.SWEEP_CUT = (" path",), ("",)
    passage_stage.SWEEP_W = (3.0,)
    groups = [("swebench-lite", swebench_tasks())] + [(s.name, [s]) for s in swebench_repos()]
    for limit in limits:
        refresh.PIECE_LIMIT = limit
        cache = OUT / f"cache-pieces-{limit}"
        cache.mkdir(exist_ok=True)
        if not (cache / "models").exists():  # the model's table, prepared once
            os.symlink(OUT / "cache" / "models", cache / "models")
        os.environ["RRG_CACHE_DIR"] = str(cache)
        for name, sets in groups:
            memo: dict[str, np.ndarray] = {}
            merged: dict[str, dict[str, list[float]]] = {"dev": {}, "test": {}}
            for s in sets:
                part = passage_stage.evaluate(s, None, memo)
                for half in ("dev", "test"):
                    for key, values in part[half].items():
                        merged[half].setdefault(key, []).extend(values)
            for half in ("dev", "test"):
                cells = ", ".join(f"{k} {np.mean(merged[half][k]):.3f}" for k in SHOWN)
                print(f"PIECE_LIMIT {limit} | {name} | {half} | {cells}", flush=True)


if __name__ == "__main__":
    main()
