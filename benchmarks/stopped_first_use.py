"""A first search on a fresh machine under a tool's timeout, this checkout against an
earlier one: how many tries until one answers, and their time in all.

Some agents' tools stop a command after a few seconds (10 s is a common default); the first
search on a machine makes the model's static table (10-20 s on this project's machine).
Each side gets folders of its own for the table and the index (a fresh machine's), then runs
``timeout T rrg -q QUERY PATTERN`` over a small tree until a try ends by itself, or TRIES
tries have been stopped.

Run: python -m benchmarks.stopped_first_use OLD_CHECKOUT [T] [TRIES]   (about a minute)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import OUT, machine, needs_arguments

STOPPED = 124  # timeout's exit code for a command it stopped


def tries(code: str | None, scratch: Path, limit: float, most: int) -> tuple[int, float, bool]:
    """Tries until one answered (or ``most`` were stopped), their seconds, and whether one
    answered."""
    tree = scratch / "tree"
    tree.mkdir()
    for k in range(20):
        (tree / f"note{k:02d}.txt").write_text(f"a river flood warning for valley {k}\n")
    env = dict(os.environ, RRG_CACHE_DIR=str(scratch / "cache"))
    env["RRG_PREPARED_DIR"] = str(scratch / "prepared")
    env.pop("RRG_INDEX_WAIT_S", None)
    if code:
        env["PYTHONPATH"] = code
    cmd = ["timeout", str(limit), sys.executable, "-m", "rrg", "-q", "river flood", "river"]
    start = time.perf_counter()
    for attempt in range(1, most + 1):
        done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True)
        if done.returncode != STOPPED:
            return attempt, time.perf_counter() - start, done.returncode == 0
    return most, time.perf_counter() - start, False


def main() -> None:
    needs_arguments(1, __doc__)
    old = str(Path(sys.argv[1]).resolve())
    limit = float(sys.argv[2]) if len(sys.argv) > 2 else 8.0
    most = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    OUT.mkdir(exist_ok=True)
    print(f"{machine()}; a first search under `timeout {limit:g}`, at most {most} tries a side")
    print("| code | tries | seconds in all | answered |")
    print("|---|---|---|---|")
    for label, code in (("before", old), ("after", None)):
        with tempfile.TemporaryDirectory(dir=OUT) as scratch:
            count, seconds, answered = tries(code, Path(scratch), limit, most)
        print(f"| {label} | {count} | {seconds:.1f} | {'yes' if answered else 'no'} |")


if __name__ == "__main__":
    main()
