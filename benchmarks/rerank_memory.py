"""Peak memory of ``--rerank`` on long matching lines (issue 27: 20 files, 15 lines of 700 KB).

Run: python -m benchmarks.rerank_memory [OLD_CHECKOUT]
With OLD_CHECKOUT (a checkout of an earlier rrg), the same search runs with that code too,
side by side, each with its own cache dir, and both peaks are printed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import OUT, machine

LINES = 300
LINE_BYTES = 700 * 1024
PER_FILE = 15


def make_tree(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    filler = ("lorem ipsum dolor sit amet " * (LINE_BYTES // 27 + 1))[: LINE_BYTES - 40]
    for f in range(LINES // PER_FILE):
        lines = [f"{filler[: k * 7 % 5000]}river mouth {f}-{k} {filler}" for k in range(PER_FILE)]
        (root / f"long{f:03d}.txt").write_text("\n".join(lines) + "\n")
    return root


def measure(label: str, pythonpath: str | None, tree: Path, cache: Path) -> str:
    env = dict(os.environ, RRG_CACHE_DIR=str(cache))
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    cmd = [sys.executable, "-m", "rrg", "-q", "where the river meets the sea", "--rerank"]
    cmd += ["--limit", "30", "river mouth"]
    # One child per measurement process, so ru_maxrss is this run's own peak.
    probe = (
        "import resource, subprocess, sys; "
        "p = subprocess.run(sys.argv[1:], capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode, "
        "len(p.stdout))"
    )
    subprocess.run(cmd + ["--pool", "1"], cwd=tree, env=env, capture_output=True)  # index, warm
    out = subprocess.run(
        [sys.executable, "-c", probe, *cmd], cwd=tree, env=env, capture_output=True, text=True
    ).stdout.split()
    kb, rc, printed = int(out[0]), int(out[1]), int(out[2])
    return f"| {label} | {kb / 1024:.0f} MB | {rc} | {printed:,} |"


def main() -> None:
    old = sys.argv[1] if len(sys.argv) > 1 else None
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        tree = make_tree(Path(tmp) / "tree")
        size = sum(p.stat().st_size for p in tree.iterdir()) / 1e6
        print(
            f"{LINES} matching lines of {LINE_BYTES // 1024} KB in {LINES // PER_FILE} files "
            f"({size:.0f} MB); {machine()}"
        )
        print("| code | peak RSS (rrg process) | exit | bytes printed |\n|---|---|---|---|")
        if old:
            print(measure(f"before ({old})", old, tree, Path(tmp) / "cache-old"))
        print(measure("this checkout", None, tree, Path(tmp) / "cache-new"))


if __name__ == "__main__":
    main()
