"""New queries while the background job a first search starts is running (its passages
computed ahead, then the root embedded), with the job's scheduling group at nice 10 (as it
sets itself: rrg.search.background.yield_to_searches) and at nice 0 (as it ran before),
alternating query by query; and the same queries' time with no job.

On Linux with autogroups each session is a scheduling group, and a process's own nice
counts only within its group: the job runs in a session of its own, so `nice -n 10` alone
left it an equal share of the CPU beside the user's search. This flips the running job's
group between the two settings from outside (/proc/PID/autogroup: lowering a group's nice
needs root, which this machine's runs have).

Usage: python -m benchmarks.beside_the_job DATA/NAME [QUERIES]
DATA/NAME: a semble-code repository folder built by materialize.py (its corpus/ and the
natural-language queries of its queries.jsonl); a root of at most RRG_EMBED_AHEAD passages
keeps the job busy for minutes.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import OUT, machine, measured, needs_arguments, processes, rrg, timed
from benchmarks.resident_speed import _index_file, _target
from rrg.index.store import builder_running


def _job_pid(root: Path) -> int | None:
    found = processes(lambda args: b"--index" in args and os.fsencode(root) in args)
    return found[0] if found else None


def _set_group_nice(pid: int, nice: int) -> None:
    (Path("/proc") / str(pid) / "autogroup").write_text(str(nice))


def main() -> None:
    needs_arguments(1, __doc__)
    root, queries = _target(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT) as scratch:
        base = dict(os.environ, RRG_INDEX_BACKGROUND="0", RRG_RESIDENT="0")
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        busy, idle = Path(scratch) / "busy", Path(scratch) / "idle"
        env = dict(base, RRG_CACHE_DIR=str(busy))
        timed([*rrg(), "--index", "."], root, env)
        timed([*rrg(), "-q", queries[-1], "--files"], root, env)
        shutil.copytree(busy, idle)
        starting = dict(env, RRG_INDEX_BACKGROUND="1", RRG_PASSAGES_AHEAD="1")
        timed([*rrg(), "-q", queries[-2], "--files"], root, starting)
        pid = None
        for _ in range(50):
            pid = _job_pid(root)
            if pid:
                break
            time.sleep(0.1)
        if pid is None:
            raise SystemExit("no job started (a root under 200 text files starts none)")
        for _ in range(100):  # it takes its lock once its modules are loaded
            if builder_running(_index_file(busy)):
                break
            time.sleep(0.1)
        walls: dict[str, list[float]] = {"group nice 10": [], "group nice 0": [], "no job": []}
        chosen = queries[:count]
        for k, q in enumerate(chosen):
            order = [10, 0] if k % 2 == 0 else [0, 10]
            for nice in order:
                if not builder_running(_index_file(busy)):
                    break
                _set_group_nice(pid, nice)
                cmd = [*rrg(), "-q", f"{q} ({nice})", "--files", "--limit", "10"]
                walls[f"group nice {nice}"].append(measured(cmd, root, env).wall)
        _set_group_nice(pid, 10)
        while builder_running(_index_file(busy)):
            time.sleep(0.5)
        for q in chosen[: len(walls["group nice 10"])]:
            cmd = [*rrg(), "-q", f"{q} (idle)", "--files", "--limit", "10"]
            walls["no job"].append(measured(cmd, root, dict(base, RRG_CACHE_DIR=str(idle))).wall)
    name = sys.argv[1].rstrip("/").rsplit("/", 1)[-1]
    print(f"{name}; {machine()}; new queries (`rrg -q Q --files --limit 10`, own process)")
    print("| while | queries | p50 | mean |")
    print("|---|---|---|---|")
    for label, values in walls.items():
        if values:
            print(
                f"| {label} | {len(values)} | {statistics.median(values):.2f} s | "
                f"{statistics.mean(values):.2f} s |"
            )


if __name__ == "__main__":
    main()
