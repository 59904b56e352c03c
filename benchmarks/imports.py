"""What the pass-through path imports, in milliseconds: rrg's own modules, measured by
``python -X importtime`` (median of 21 fresh interpreters).

Run: python -m benchmarks.imports [OLD_CHECKOUT]
With OLD_CHECKOUT (an earlier rrg, whose entry module was ``rrg.entry``), both are measured
side by side, interleaved.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile

RUNS = 21


def entry_import_ms(module: str, pythonpath: str | None) -> float:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),  # the cwd comes first on sys.path: keep checkouts off it
    ).stderr
    for line in err.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1]) / 1000  # cumulative microseconds of the entry module
    raise RuntimeError(err[-500:])


def main() -> None:
    old = sys.argv[1] if len(sys.argv) > 1 else None
    new_times, old_times = [], []
    for _ in range(RUNS):
        new_times.append(entry_import_ms("rrg.cli.entry", None))
        if old:
            old_times.append(entry_import_ms("rrg.entry", old))
    print("| code | rrg's imports before exec (median of 21) |\n|---|---|")
    if old:
        print(f"| before ({old}) | {statistics.median(old_times):.1f} ms |")
    print(f"| this checkout | {statistics.median(new_times):.1f} ms |")


if __name__ == "__main__":
    main()
