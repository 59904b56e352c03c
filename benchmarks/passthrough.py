"""Pass-through cost: `rrg ARGS` against `rg ARGS` on one corpus, interleaved runs.

Usage: python benchmarks/passthrough.py [RUNS]
"""

from __future__ import annotations

import sys

from common import OUT, machine, median, rg, rrg, timed, word_corpus


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    root = word_corpus(OUT / "passthrough-corpus", files=3000, words_per_file=9000)
    size_mb = sum(p.stat().st_size for p in root.rglob("*.txt")) / 1e6
    args = ["-c", r"\w+zq\w*y"]
    rg_times, rrg_times = [], []
    timed([rg(), *args], root)  # warm the page cache
    for _ in range(runs):
        rg_times.append(timed([rg(), *args], root))
        rrg_times.append(timed([*rrg(), *args], root))
    ratios = sorted(b / a for a, b in zip(rg_times, rrg_times, strict=True))
    print(f"corpus: 3,000 files, {size_mb:.0f} MB; machine: {machine()}; runs: {runs}")
    print(
        f"rg median {median(rg_times) * 1000:.0f} ms, rrg median "
        f"{median(rrg_times) * 1000:.0f} ms, median ratio {median(ratios):.3f}x"
    )


if __name__ == "__main__":
    main()
