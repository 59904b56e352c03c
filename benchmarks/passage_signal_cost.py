"""What the cheap tier's passage signal (``rrg.rank.passage_lexical``) costs a query at its
worst: the head's 100 files all of 1 MiB, dense with the query's words (each word one in
twelve), with the read and the count bounded as shipped and unbounded, side by side.

Run: python -m benchmarks.passage_signal_cost   (builds 114 MB in a temporary folder)
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from pathlib import Path

from benchmarks.common import machine
from rrg.rank.passage_lexical import MAX_MATCHES, READ_BYTES, best_window_bm25
from rrg.rank.query import Query
from rrg.rank.tuning import TUNING

WORDS = "alpha beta gamma delta retry timeout backoff socket buffer parser token stream".split()
QUERIES = ("retry timeout backoff", "socket buffer", "nothing here at all")


def main() -> None:
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for k in range(100):
            text = " ".join(rng.choice(WORDS) for _ in range(180_000))
            (root / f"f{k:03}.txt").write_text(text)
        rel = [f"f{k:03}.txt".encode() for k in range(100)]
        print(f"passage signal, 100 files of 1 MiB; {machine()}\n")
        print("| query | bounded (as shipped) | unbounded |")
        print("|---|---|---|")
        for query in QUERIES:
            times = []
            for read_bytes, matches in ((READ_BYTES, MAX_MATCHES), (1 << 20, 1 << 40)):
                start = time.perf_counter()
                best_window_bm25(
                    Query.of(query),
                    os.fsencode(root),
                    rel,
                    TUNING.passage_words_window,
                    read_bytes,
                    matches,
                )
                times.append(time.perf_counter() - start)
            print(f"| {query} | {times[0]:.2f} s | {times[1]:.2f} s |")


if __name__ == "__main__":
    main()
