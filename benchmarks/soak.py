"""Soak: concurrent clients issuing random `rrg -q` searches over a corpus being edited.

Every printed line is checked against the files: it must be a line some version of its
file held. Reports runs, failures (must be 0), lines checked and latency under load.

Usage: python -m benchmarks.soak [CLIENTS] [ROUNDS]
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from benchmarks.common import OUT, machine, rrg

WORDS = "alpha beta gamma delta kappa omega sigma theta zeta river stone cloud".split()


def main() -> None:
    clients = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    root = OUT / "soak-tree"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    rnd = random.Random(1)
    for k in range(2000):
        (root / f"f{k:05d}.txt").write_text(
            " ".join(rnd.choice(WORDS) for _ in range(40)) + f"\nmarker {k} v0\n"
        )
    env = {**os.environ, "RRG_CACHE_DIR": str(OUT / "soak-cache")}
    shutil.rmtree(OUT / "soak-cache", ignore_errors=True)
    models = OUT / "speed-cache" / "models"
    if models.exists():
        shutil.copytree(models, OUT / "soak-cache" / "models")
    stop = threading.Event()
    edits = [0]

    def editor() -> None:
        k = 0
        while not stop.is_set():
            n = k % 2000
            (root / f"f{n:05d}.txt").write_text(f"{' '.join(WORDS[:5])}\nmarker {n} v{k}\n")
            (root / f"added{k}.txt").write_text(f"marker {k} added\n")
            (root / f"added{k - 5}.txt").unlink(missing_ok=True)
            edits[0] += 1
            k += 1
            time.sleep(0.005)

    def client(seed: int) -> tuple[int, int, list[float], list[str]]:
        r = random.Random(seed)
        runs, checked, lat, failures = 0, 0, [], []
        for _ in range(rounds):
            query = " ".join(r.sample(WORDS, 3))
            start = time.perf_counter()
            out = subprocess.run(
                [*rrg(), "-q", query, "--limit", str(r.choice([5, 30, 0])), "marker"],
                cwd=root,
                env=env,
                capture_output=True,
                stdin=subprocess.DEVNULL,
            )
            lat.append(time.perf_counter() - start)
            runs += 1
            if out.returncode not in (0, 1) or b"Traceback" in out.stderr:
                failures.append(f"rc={out.returncode} {out.stderr[:200]!r}")
            for line in out.stdout.splitlines():
                name, _, text = line.partition(b":")
                parts = text.split()
                num = name.removeprefix(b"added").removeprefix(b"f").removesuffix(b".txt")
                if not (parts[:1] == [b"marker"] and int(parts[1]) == int(num)):
                    failures.append(f"bad line {line[:120]!r}")
                checked += 1
        return runs, checked, lat, failures

    thread = threading.Thread(target=editor)
    thread.start()
    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(client, range(clients)))
    stop.set()
    thread.join()
    wall = time.perf_counter() - started
    runs = sum(r[0] for r in results)
    checked = sum(r[1] for r in results)
    lat = sorted(x for r in results for x in r[2])
    failures = [f for r in results for f in r[3]]
    after = subprocess.run([*rrg(), "--index", "."], cwd=root, env=env, capture_output=True)
    again = subprocess.run([*rrg(), "--index", "."], cwd=root, env=env, capture_output=True)
    consistent = b" 0 read, 0 unchanged content, 0 removed" in again.stdout
    print(f"machine: {machine()}; corpus: 2,000 files, edited {edits[0]} times during the run")
    print(
        f"clients {clients}, rounds {rounds}: runs {runs}, failures {len(failures)}, "
        f"lines checked {checked}, p50 {lat[len(lat) // 2]:.2f} s, "
        f"p95 {lat[int(len(lat) * 0.95)]:.2f} s, wall {wall:.0f} s; "
        f"index consistent afterwards: {consistent} ({after.returncode})"
    )
    for f in failures[:10]:
        print("  ", f)


if __name__ == "__main__":
    main()
