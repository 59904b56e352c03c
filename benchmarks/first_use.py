"""First use (issue 34): what a new user, a CI run or an agent in a new checkout pays.

Side by side, this checkout against an earlier one (OLD_CHECKOUT, run with PYTHONPATH):
- a first ``-q`` in a fresh cache folder on a machine that has run rrg before: time, disk
  of the folder, and the process's peak memory (``--rerank`` on 20 files of 15 lines of
  700 KB and 20 small files: the case of the rerank-memory issue);
- a first search on an unindexed tree of 20,000 (and 200,000) generated files: time to the
  first answer, and how soon after it a search is ranked in full (polled once a second).

Run: python -m benchmarks.first_use OLD_CHECKOUT [20k] [200k]   (generated trees are kept in
benchmarks/out/ and reused)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import OUT, machine
from benchmarks.rerank_memory import make_tree as long_lines_tree
from benchmarks.scale import SIZES, nested_corpus

QUERY = "river flood warning"
PATTERN = "river"


def _env(code: str | None, cache: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, RRG_CACHE_DIR=str(cache), **extra)
    env.pop("RRG_INDEX_WAIT_S", None)
    if code:
        env["PYTHONPATH"] = code
    return env


def _rrg(*args: str) -> list[str]:
    return [sys.executable, "-m", "rrg", *args]


def _peak_run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, bytes]:
    """Seconds, peak resident KiB (the command's own process tree) and stderr."""
    probe = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "p = subprocess.run(sys.argv[1:], capture_output=True); "
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
        "sys.stderr.buffer.write(p.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *cmd], cwd=cwd, env=env, capture_output=True
    )
    seconds, kib = done.stdout.split()
    return float(seconds), int(kib), done.stderr


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def fresh_cache(label: str, code: str | None, tmp: Path) -> str:
    """A first -q in a fresh cache folder, the machine warm (the model prepared before)."""
    tree = long_lines_tree(tmp / "tree")
    for k in range(20):
        (tree / f"small{k:02d}.txt").write_text(f"the river mouth meets the sea {k}\n" * 5)
    warm = tmp / f"warm-{label}"
    cmd = _rrg("-q", "where the river meets the sea", "--rerank", "river mouth")
    subprocess.run(cmd, cwd=tree, env=_env(code, warm), capture_output=True)  # prepared
    cache = tmp / f"fresh-{label}"
    seconds, kib, _ = _peak_run(cmd, tree, _env(code, cache))
    return f"| {label} | {seconds:.1f} s | {_size(cache) / 1e6:.1f} MB | {kib / 1024:.0f} MB |"


def first_search(
    label: str, code: str | None, tree: Path, files: int, models: Path | None = None
) -> str:
    """Time to the first answer on a tree never indexed, then how soon a search is ranked
    in full (no notice of a partial index, none of a build in the background). ``models``:
    an older rrg's prepared model files, linked into its fresh cache folder (it kept them
    there), to tell its index time from its one-time preparation."""
    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        env = _env(code, Path(tmp) / "cache")
        if models is not None:
            (Path(tmp) / "cache").mkdir()
            os.symlink(models, Path(tmp) / "cache" / "models")
        cmd = _rrg("-q", QUERY, "-l", "--limit", "10", PATTERN)
        start = time.perf_counter()
        seconds, kib, err = _peak_run(cmd, tree, env)
        notice = b"RRG_INDEX_WAIT_S" in err
        full = seconds
        while notice and time.perf_counter() - start < 3600:
            time.sleep(1.0)
            done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True)
            if b"RRG_INDEX_WAIT_S" not in done.stderr and b"in the background" not in done.stderr:
                full = time.perf_counter() - start
                break
        # Leave no background build writing into a folder about to be removed.
        index = next((Path(tmp) / "cache" / "index").glob("*.builder"), None)
        while index is not None and _held(index):
            time.sleep(0.5)
        return (
            f"| {label} | {files:,} | {seconds:.1f} s | {kib / 1024:.0f} MB | "
            f"{'yes' if notice else 'no'} | {full:.1f} s |"
        )


def _held(lock: Path) -> bool:
    from rrg.index.store import builder_running

    return builder_running(Path(str(lock)[: -len(".builder")]))


def main() -> None:
    old = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] not in SIZES else None
    sizes = [a for a in sys.argv[1:] if a in SIZES] or ["20k"]
    OUT.mkdir(exist_ok=True)
    print(f"{machine()}; {time.strftime('%Y-%m-%d')}")
    print("\nA first -q --rerank in a fresh cache folder (machine warm)\n")
    print("| code | time | folder on disk | peak memory |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        if old:
            print(fresh_cache(f"before ({old})", old, Path(tmp)), flush=True)
        print(fresh_cache("this checkout", None, Path(tmp)), flush=True)
        print("\nA first search of a tree never indexed\n")
        print("| code | files | first answer | peak | partial | ranked in full after |")
        print("|---|---|---|---|---|---|")
        for size in sizes:
            tree = nested_corpus(OUT / f"first-use-{size}", SIZES[size])
            if old:
                print(first_search(f"before ({old})", old, tree, SIZES[size]), flush=True)
                warm = Path(tmp) / f"warm-before ({old})" / "models"
                label = "before, its model prepared in the cache folder"
                print(first_search(label, old, tree, SIZES[size], warm), flush=True)
            print(first_search("this checkout", None, tree, SIZES[size]), flush=True)


if __name__ == "__main__":
    main()
