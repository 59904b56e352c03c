"""Index and query speed, side by side with rg, with corpus sizes stated.

- scifact as files (5,183): one-time static table, cold index, warm `rrg -q` against `rg`
  on the same pattern, and `--cascade 20` warm.
- generated corpora of 20,000 files: refresh with nothing changed, and after 1% changed,
  against the cold build.
- 100,000 files: build time, index size on disk, peak memory, warm query time.

Usage: python -m benchmarks.speed [scifact|20k|100k ...]   (writes benchmarks/out/speed.md)
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from benchmarks.common import OUT, machine, measured, median, rg, rrg, word_corpus
from benchmarks.datasets import beir


def fresh_env(name: str) -> dict[str, str]:
    """A cache dir of its own; what rrg prepares once from the model (its static table, its
    int8 graph) is shared by all, in a folder of the benchmark's own (``RRG_PREPARED_DIR``)."""
    cache = OUT / "speed-cache" / name
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    prepared = OUT / "speed-cache" / "prepared"
    return {**os.environ, "RRG_CACHE_DIR": str(cache), "RRG_PREPARED_DIR": str(prepared)}


def index_size(env: dict[str, str]) -> float:
    folder = Path(env["RRG_CACHE_DIR"]) / "index"
    return sum(p.stat().st_size for p in folder.iterdir()) / 1e6


def bench_scifact(lines: list[str]) -> None:
    s = beir("scifact")
    env = fresh_env("static")
    shutil.rmtree(env["RRG_PREPARED_DIR"], ignore_errors=True)  # the one-time table, timed
    t = measured([*rrg(), "--index", "."], s.root, env).wall
    env = fresh_env("scifact")
    build = measured([*rrg(), "--index", "."], s.root, env)
    cold, peak = build.wall, build.peak_mb
    lines.append(
        f"| scifact cold index (5,183 files), static table ready | {cold:.2f} s | "
        f"{peak} MB peak | first build with the one-time table: {t:.1f} s |"
    )
    query = ["-q", "vitamin D deficiency and bone fractures"]
    pattern = ["-i", "vitamin|fracture"]
    warm, rg_t, deep = [], [], []
    for _ in range(7):
        warm.append(measured([*rrg(), *query, *pattern], s.root, env).wall)
        rg_t.append(measured([rg(), "-j1", *pattern], s.root, env).wall)
        deep.append(measured([*rrg(), "--cascade", "20", *query, *pattern], s.root, env).wall)
    lines.append(
        f"| scifact warm `rrg -q` (30 lines) | {median(warm):.3f} s | "
        f"rg -j1 full scan {median(rg_t):.3f} s | `--cascade 20`: {median(deep):.3f} s |"
    )


def bench_refresh(lines: list[str], files: int) -> None:
    root = word_corpus(OUT / f"gen-{files}", files=files, words_per_file=150)
    env = fresh_env(f"gen-{files}")
    build = measured([*rrg(), "--index", "."], root, env)
    cold, peak = build.wall, build.peak_mb
    nochange = median([measured([*rrg(), "--index", "."], root, env).wall for _ in range(5)])
    changed = sorted(root.rglob("*.txt"))[::100]
    for p in changed:
        p.write_text(p.read_text() + "an edit\n")
    refreshed = measured([*rrg(), "--index", "."], root, env)
    one_pct, report = refreshed.wall, refreshed.stdout
    q = median(
        [measured([*rrg(), "-q", "zebra river", "-l", "zebra"], root, env).wall for _ in range(5)]
    )
    lines.append(
        f"| {files:,} files: cold build | {cold:.1f} s | {peak} MB peak | "
        f"index {index_size(env):.0f} MB on disk |"
    )
    lines.append(
        f"| {files:,} files: refresh, nothing changed | {nochange:.2f} s | "
        f"{nochange / cold:.3f} of cold | |"
    )
    lines.append(
        f"| {files:,} files: refresh after 1% ({len(changed)}) changed | {one_pct:.2f} s | "
        f"{one_pct / cold:.3f} of cold | {report.strip()} |"
    )
    lines.append(f"| {files:,} files: warm `rrg -q ... -l` | {q:.2f} s | | |")


def main() -> None:
    wanted = sys.argv[1:] or ["scifact", "20k", "100k"]
    lines = [
        f"Machine: {machine()}.",
        "",
        "| what | time | beside | note |",
        "|---|---|---|---|",
    ]
    if "scifact" in wanted:
        bench_scifact(lines)
    if "20k" in wanted:
        bench_refresh(lines, 20_000)
    if "100k" in wanted:
        bench_refresh(lines, 100_000)
    (OUT / "speed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
