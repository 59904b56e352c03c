"""Scale: rrg beside rg on generated trees of 20K, 200K and 1M files, and on one real
repository (the sympy tree of swebench-repos).

For each corpus: cold build, index size, a warm full-scan query (a pattern found nowhere, so
both tools read every file) beside ``rg -j1`` over the same tree, the same query after one
file is edited, a refresh after 1% of files changed, peak memory, and where the warm query's
time goes (``RRG_TIMINGS``). Every figure of one corpus is taken in one run, side by side.

Trees are generated here (nested folders, about 150 words a file), never committed; they
stay in benchmarks/out/ to be reused.

Usage: python -m benchmarks.scale [20k] [200k] [1m] [sympy]   (writes benchmarks/out/scale.md)
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.common import OUT, Measured, machine, measured, rg, rrg
from benchmarks.datasets import swebench_repos

SIZES = {"20k": 20_000, "200k": 200_000, "1m": 1_000_000}
QUERY = "river flood warning"
MISSING = "zqxjvkwpq"  # found in no file: both tools read every file
#: In sympy, lerchphi is named in a handful of files (fewer than the cap): both tools still
#: read every file, and rrg must order what it found. Generated trees: see sparse_pattern.
SPARSE_SYMPY = "lerchphi"
#: Warm figures are medians of this many runs; rg's and rrg's runs alternate, so that
#: a noisy moment of the machine falls on both sides of a ratio.
REPEAT = 7


def nested_corpus(root: Path, files: int, words: int = 150, seed: int = 11) -> Path:
    """files text files, 100 a folder, folders two levels deep; reused while present."""
    marker = root / f".done-{files}"
    if marker.exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    rnd = random.Random(seed)
    vocab = [
        "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 9)))
        for _ in range(30000)
    ] + ["river", "flood", "warning", "bank", "water"]
    for k in range(files):
        folder = root / f"p{k // 10000:03d}" / f"q{(k // 100) % 100:02d}"
        if k % 100 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        chosen = rnd.choices(vocab, k=words)
        lines = [" ".join(chosen[i : i + 12]) for i in range(0, words, 12)]
        (folder / f"f{k:07d}.txt").write_text("\n".join(lines) + "\n")
    marker.write_text("")
    return root


def sparse_pattern(root: Path, files: int, found_in: int = 5) -> str:
    """The opening three words of ``found_in`` files spread over a generated tree, as one
    alternation: random words make each phrase found in its own file only."""
    phrases = []
    for i in range(found_in):
        k = files * i // found_in + 7
        path = root / f"p{k // 10000:03d}" / f"q{(k // 100) % 100:02d}" / f"f{k:07d}.txt"
        phrases.append(" ".join(path.read_text().split()[:3]))
    return "|".join(phrases)


def median_run(runs: list[Measured]) -> tuple[float, int, str]:
    """The median run's wall time and stderr, and the highest peak of the runs."""
    walls = [r.wall for r in runs]
    mid = runs[walls.index(statistics.median(walls))]
    return mid.wall, max(r.peak_mb for r in runs), mid.stderr


def median_of(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    return median_run([measured(cmd, cwd, env) for _ in range(REPEAT)])


def side_by_side(
    cmd: list[str], rg_cmd: list[str], cwd: Path, env: dict[str, str]
) -> tuple[float, int, str, float]:
    """median_of for cmd and for rg_cmd, their runs alternating: cmd's wall, peak and
    stderr, then rg_cmd's wall."""
    ours, theirs = [], []
    for _ in range(REPEAT):
        theirs.append(measured(rg_cmd, cwd, env).wall)
        ours.append(measured(cmd, cwd, env))
    return (*median_run(ours), statistics.median(theirs))


def once(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    run = measured(cmd, cwd, env)
    return run.wall, run.peak_mb, run.stderr


def timings_of(stderr: str) -> str:
    line = [x for x in stderr.splitlines() if x.startswith("rrg: timings: ")]
    return line[-1].removeprefix("rrg: timings: ") if line else ""


def index_bytes(cache: Path) -> int:
    return sum(p.stat().st_size for p in (cache / "index").rglob("*") if p.is_file())


def bench(name: str, root: Path, files: int, rows: list[str]) -> None:
    cache = OUT / "scale-cache" / name
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    models = OUT / "cache" / "models"
    if models.exists():
        shutil.copytree(models, cache / "models")
    env = {**os.environ, "RRG_CACHE_DIR": str(cache), "RRG_TIMINGS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode compiled
    query = [*rrg(), "-q", QUERY, "-l", MISSING]
    rg_scan = [rg(), "-j1", "-l", MISSING]
    sparse = SPARSE_SYMPY if name == "sympy" else sparse_pattern(root, files)
    sparse_query = [*rrg(), "-q", QUERY, "-l", sparse]
    sparse_files = subprocess.run([rg(), "-l", sparse], cwd=root, capture_output=True)
    n_sparse = sparse_files.stdout.count(b"\n")

    cold, cold_peak, _ = once([*rrg(), "--index", "."], root, env)
    size = index_bytes(cache)
    # One rg run first: both tools then find the tree in the page cache (a build may have
    # evicted part of it; the first of them would pay for reading it from disk).
    measured(rg_scan, root, env)
    # First query: the stage encodes (with a match: where nothing matches, rrg may stop
    # before the stage).
    new_q, new_peak, _ = once(sparse_query, root, env)
    warm, warm_peak, err, rg_t = side_by_side(query, rg_scan, root, env)
    rg_sparse_cmd = [rg(), "-j1", "-l", sparse]
    warm_sparse, sparse_peak, sparse_err, rg_sparse = side_by_side(
        sparse_query, rg_sparse_cmd, root, env
    )
    fast, fast_peak, _ = median_of([*query[:-2], "--fast", "-l", sparse], root, env)

    edited = sorted(root.rglob("f*.txt"))[len(list(root.iterdir())) // 2 :][:1] or []
    target = edited[0] if edited else next(root.rglob("*.py"))
    # An edit the query does not care about: what it costs is the index's upkeep, not the
    # transformer reading a new passage that now matches.
    target.write_text(target.read_text() + "\nan unrelated edit\n")
    # The sparse query: where nothing matches, rrg may stop before it refreshes the index.
    after_edit, edit_peak, edit_err = once(sparse_query, root, env)
    again, _, _ = median_of(sparse_query, root, env)

    changed = sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))
    changed = changed[:: max(1, len(changed) // max(1, files // 100))][: max(1, files // 100)]
    for p in changed:
        with open(p, "a") as fh:
            fh.write("an edit\n")
    one_pct, one_pct_peak, _ = once([*rrg(), "--index", "."], root, env)
    size_after = index_bytes(cache)

    rows.append(
        f"| {name} ({files:,} files) | {cold:.1f} s ({files / cold:,.0f} files/s), "
        f"{cold_peak} MB | {size / 1e6:.1f} MB ({size / files / 1e3:.2f} KB a file) | "
        f"{rg_t:.2f} s | {new_q:.2f} s ({new_q / rg_t:.1f}x), {new_peak} MB | "
        f"{warm:.2f} s (**{warm / rg_t:.1f}x**), {warm_peak} MB | "
        f"{n_sparse} files match: {warm_sparse:.2f} s (**{warm_sparse / rg_sparse:.1f}x** "
        f"rg's {rg_sparse:.2f} s), {sparse_peak} MB | "
        f"{fast:.2f} s ({fast / rg_sparse:.1f}x), {fast_peak} MB | "
        f"{after_edit:.2f} s ({after_edit / warm_sparse:.2f}x warm), {edit_peak} MB; "
        f"then {again:.2f} s | "
        f"{one_pct:.1f} s for {len(changed):,}, {one_pct_peak} MB; "
        f"index {size_after / 1e6:.1f} MB |"
    )
    rows.append(f"| {name}: where the warm query's time goes | {timings_of(err)} |")
    rows.append(f"| {name}: the sparse query's | {timings_of(sparse_err)} |")
    rows.append(f"| {name}: the query after one edit | {timings_of(edit_err)} |")


def main() -> None:
    wanted = sys.argv[1:] or ["20k", "200k"]
    rows = [
        f"Machine: {machine()}. rg {rg()}. Query `rrg -q '{QUERY}' -l {MISSING}` (no file "
        f"matches: both tools read every file); rg is `rg -j1 -l {MISSING}` over the same "
        f"tree, their runs alternating. The sparse query is `rrg -q '{QUERY}' -l PATTERN` "
        "with a pattern found in a few files (fewer than the cap: both tools still read "
        "every file, and rrg orders what it finds) beside `rg -j1 -l PATTERN`. Warm figures "
        f"are medians of {REPEAT}.",
        "",
        "| corpus | cold build, peak | index on disk | rg -j1 | first query (new, sparse) | "
        "warm query, ratio to rg | warm sparse query | warm sparse --fast | "
        "sparse after one edit | "
        "1% changed: refresh |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key in wanted:
        if key == "sympy":
            repo = next(s for s in swebench_repos() if "sympy" in s.name)
            work = OUT / "scale-sympy"  # a copy: the benchmark edits files
            if not work.exists():
                shutil.copytree(repo.root, work, symlinks=True)
            listing = subprocess.run([rg(), "--files"], cwd=work, capture_output=True)
            files = listing.stdout.count(b"\n")
            bench("sympy", work, files, rows)
        else:
            files = SIZES[key]
            root = nested_corpus(OUT / f"scale-{key}", files)
            bench(key, root, files, rows)
        print("\n".join(rows[-4:]), flush=True)
    out = OUT / f"scale-{'-'.join(wanted)}.md"
    out.write_text("\n".join(rows) + "\n")
    print(out)


if __name__ == "__main__":
    main()
