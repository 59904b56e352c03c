"""Pass-through cost: `rrg ARGS` against `rg ARGS`, side by side, interleaved runs.

Three commands per search: rg itself, `rrg` (the sh launcher pip installs, which execs rg
when no rrg option is given) and `rrg-py` (the same through Python, as before the launcher).
Two searches: a whole 20,000-file tree, and one small file (a search of a few ms, where a
fixed start-up cost shows most).

Usage: python -m benchmarks.passthrough [RUNS]
"""

from __future__ import annotations

import sys

from benchmarks.common import BIN, OUT, machine, median, rg, timed, word_corpus


def compare(label: str, args: list[str], root_files: int, runs: int) -> None:
    root = word_corpus(OUT / "passthrough-20k", files=root_files, words_per_file=150)
    commands = {"rg": [rg()], "rrg": [str(BIN / "rrg")], "rrg-py": [str(BIN / "rrg-py")]}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for cmd in commands.values():
        timed([*cmd, *args], root)  # warm the page cache and the interpreter's files
    for _ in range(runs):
        for name, cmd in commands.items():
            times[name].append(timed([*cmd, *args], root))
    base = times["rg"]
    cells = []
    for name in commands:
        ratio = median([b / a for a, b in zip(base, times[name], strict=True)])
        cells.append(f"{median(times[name]) * 1000:.1f} ms ({ratio:.3f}x)")
    print(f"| {label} | {' | '.join(cells)} |")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 31
    print(f"machine: {machine()}; runs: {runs}, interleaved; median time (median ratio to rg)")
    print("| search | rg | rrg (launcher) | rrg-py (Python) |\n|---|---|---|---|")
    compare("20,000 files, `-i water`", ["-i", "water"], 20000, runs)
    compare("one folder of 400 files, `-i water d00`", ["-i", "water", "d00"], 20000, runs)
    compare("one file, `-n water d00/f000000.txt`", ["-n", "water", "d00/f000000.txt"], 20000, runs)


if __name__ == "__main__":
    main()
