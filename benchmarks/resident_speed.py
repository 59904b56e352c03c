"""New queries handed to the resident process (rrg/cli/resident.py) against the same queries
run in their own process (RRG_RESIDENT=0), interleaved; and a session's first query, which
starts the resident process, against one that does not.

Two cache folders hold the same index (built once, then copied), so that every query is
new to both sides; each query runs as a fresh `rrg` process in each, the order of the two
alternating. The resident side has a socket folder of its own, its process started (and
waited for) before the first timed query; it is stopped at the end.

Usage: python -m benchmarks.resident_speed TARGET [QUERIES] [--embed | --ahead]
TARGET: sympy (the swebench-repos tree, issue texts cut to 40 words), or a semble-code
repository folder built by materialize.py (its corpus/ and the labelled natural-language
queries of its queries.jsonl). --embed: the index is embedded first
(`rrg --index --embed`). --ahead: the job a first search starts is run and waited for
first, as a root of 200 text files or more gets it (its passages computed ahead, and
embedded where it has at most RRG_EMBED_AHEAD passages: set RRG_EMBED_AHEAD=0 for the
passages alone).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import OUT, machine, measured, needs_arguments, rrg, timed
from benchmarks.passages_speed import speed_set
from rrg.index.store import builder_running


def _target(name: str) -> tuple[Path, list[str]]:
    if name == "sympy":
        labelled, queries, _ = speed_set("sympy")
        return labelled.root, queries
    folder = Path(name)
    written = folder / "queries.jsonl"
    if written.exists():
        lines = written.read_text().splitlines()
        queries = [q["query"] for q in map(json.loads, lines) if q.get("category") != "symbol"]
        return (folder / "corpus").resolve(), queries
    raise SystemExit(f"{folder}: no queries.jsonl (build it with materialize.py)")


def _index_file(cache: Path) -> Path:
    (index,) = [p for p in (cache / "index").glob("*.sqlite") if ".vectors." not in p.name]
    return index


def _wait_for_socket(runtime: Path) -> None:
    deadline = time.monotonic() + 60
    while not list(runtime.glob("rrg-*/*.sock")):
        if time.monotonic() > deadline:
            raise SystemExit("the resident process did not start")
        time.sleep(0.1)


def main() -> None:
    needs_arguments(1, __doc__)
    embed, ahead = "--embed" in sys.argv, "--ahead" in sys.argv
    argv = [a for a in sys.argv if a not in ("--embed", "--ahead")]
    root, queries = _target(argv[1])
    count = int(argv[2]) if len(argv) > 2 else 10
    files = sum(1 for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT) as scratch:
        base = dict(os.environ, RRG_INDEX_BACKGROUND="0", RRG_RESIDENT="0")
        base.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode compiled
        alone, handed = Path(scratch) / "alone", Path(scratch) / "handed"
        runtime = Path(scratch) / "run"
        runtime.mkdir(mode=0o700)
        env = dict(base, RRG_CACHE_DIR=str(alone))
        timed([*rrg(), "--index", *(["--embed"] if embed else []), "."], root, env)
        timed([*rrg(), "-q", queries[-1], "--files"], root, env)  # the model's own files
        if ahead:
            starting = dict(env, RRG_INDEX_BACKGROUND="1", RRG_PASSAGES_AHEAD="1")
            timed([*rrg(), "-q", queries[-1], "--files"], root, starting)
            time.sleep(0.5)
            while builder_running(_index_file(alone)):
                time.sleep(0.2)
        shutil.copytree(alone, handed)
        envs = {
            "own process": env,
            "resident": dict(
                base, RRG_CACHE_DIR=str(handed), RRG_RESIDENT="1", XDG_RUNTIME_DIR=str(runtime)
            ),
        }
        # A session's first query: it starts the resident process (its imports then share
        # the machine with the query), against one that starts none.
        first = {
            side: measured([*rrg(), "-q", queries[-2], "--files"], root, envs[side]).wall
            for side in ("own process", "resident")
        }
        _wait_for_socket(runtime)
        timed([*rrg(), "-q", queries[-3], "--files"], root, envs["resident"])
        commands: tuple[tuple[str, list[str]], ...] = (
            ("`rrg -q Q --files --limit 10`", []),
            ("`rrg -q Q --fast --files --limit 10`", ["--fast"]),
        )
        rows = []
        for number, (label, extra) in enumerate(commands):
            walls: dict[str, list[float]] = {side: [] for side in envs}
            chosen = queries[number * count : (number + 1) * count]
            for k, q in enumerate(chosen):
                sides = list(envs) if k % 2 == 0 else list(reversed(envs))
                for side in sides:
                    cmd = [*rrg(), "-q", q, *extra, "--files", "--limit", "10"]
                    walls[side].append(measured(cmd, root, envs[side]).wall)
            ratios = [a / b for a, b in zip(walls["resident"], walls["own process"], strict=True)]
            rows.append(
                f"| {label} | {statistics.median(walls['own process']):.2f} s | "
                f"{statistics.median(walls['resident']):.2f} s | {statistics.median(ratios):.2f}x |"
            )
        for sock in runtime.glob("rrg-*/*.sock"):
            sock.unlink()  # the resident process exits within a second
    name = argv[1].rstrip("/").rsplit("/", 1)[-1]
    state = ", embedded" if embed else ", the job ahead run" if ahead else ""
    print(f"{name}: {files:,} files{state}; {machine()}; {count} new queries a command")
    print(
        f"A session's first query (`-q Q --files`): {first['own process']:.2f} s in its own "
        f"process, {first['resident']:.2f} s starting the resident process"
    )
    print("| command | own process, p50 | resident, p50 | median ratio |")
    print("|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
