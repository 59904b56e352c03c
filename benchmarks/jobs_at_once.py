"""Several roots' background jobs at once: an agent's harness that searches a fresh clone
for each task starts one job a root (its index finished, its passages computed ahead, the
root embedded). Copies of one or two trees are each searched once, back to back, and the
jobs they start are sampled every half second until all have ended: how many ran at once,
their summed resident memory at its peak, and the wall time until every root was embedded;
optionally against an earlier checkout (its jobs inherit its PYTHONPATH), one after the
other.

Usage: python -m benchmarks.jobs_at_once COPIES TREE [TREE] [OLD_CHECKOUT]
TREE: a folder to copy (e.g. a semble-code corpus built by materialize.py, its tree/).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import OUT, machine, needs_arguments, processes, rrg


def _jobs() -> list[int]:
    """The background jobs running now: rrg's ``--index --no-progress`` processes."""
    return processes(
        lambda args: b"rrg" in args and b"--index" in args and b"--no-progress" in args
    )


def _rss_kb(pid: int) -> int:
    try:
        for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_side(label: str, trees: list[Path], copies: int, pythonpath: str | None) -> str:
    with tempfile.TemporaryDirectory(dir=OUT) as scratch:
        env = dict(os.environ, RRG_CACHE_DIR=str(Path(scratch) / "cache"), RRG_RESIDENT="0")
        env.pop("RRG_PASSAGES_AHEAD", None)  # the job as shipped: passages, then embedding
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        first = Path(scratch) / "first"
        first.mkdir()
        (first / "a.txt").write_text("a word\n")
        quiet = dict(env, RRG_INDEX_BACKGROUND="0")
        subprocess.run([*rrg(), "-q", "a", "--files"], cwd=first, env=quiet, capture_output=True)
        roots = []
        for k in range(copies):
            root = Path(scratch) / f"clone{k}"
            shutil.copytree(trees[k % len(trees)], root, symlinks=True)
            roots.append(root)
        start = time.monotonic()
        for root in roots:
            subprocess.run(
                [*rrg(), "-q", "how is a request handled", "--files", "--limit", "1"],
                cwd=root,
                env=env,
                capture_output=True,
            )
        most = peak = 0
        time.sleep(0.5)
        while jobs := _jobs():
            most = max(most, len(jobs))
            peak = max(peak, sum(_rss_kb(pid) for pid in jobs))
            time.sleep(0.5)
        wall = time.monotonic() - start
        embedded = sum(
            b"embedded: no"
            not in subprocess.run(
                [*rrg(), "--index-status"], cwd=root, env=env, capture_output=True
            ).stdout
            for root in roots
        )
    return f"| {label} | {most} | {peak / 1024:.0f} MB | {wall:.0f} s | {embedded} of {copies} |"


def main() -> None:
    needs_arguments(2, __doc__)
    copies = int(sys.argv[1])
    rest = [Path(a).resolve() for a in sys.argv[2:]]
    old = None
    if len(rest) > 1 and (rest[-1] / "rrg" / "__init__.py").is_file():
        old = rest.pop()
    OUT.mkdir(exist_ok=True)
    names = ", ".join(t.parent.name if t.name == "tree" else t.name for t in rest)
    print(f"# {copies} roots searched back to back ({names}), {machine()}")
    print("| rrg | jobs at once | summed RSS at peak | until all ended | roots embedded |")
    print("|---|---|---|---|---|")
    print(run_side("this checkout", rest, copies, None))
    if old is not None:
        print(run_side(f"before ({old.name})", rest, copies, str(old)))


if __name__ == "__main__":
    main()
