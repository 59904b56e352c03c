"""Helpers shared by the benchmarks: corpora written to disk, timing, the tools' paths."""

from __future__ import annotations

import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
# Resolved, out itself too: a checkout of an older commit whose out is a symlink to this
# one's would otherwise serve its corpora through a path that getcwd() does not give, and
# every path the index and the model read would change (docs/benchmarks.md, "No loss on
# the prose sets").
OUT = (Path(__file__).resolve().parent / "out").resolve()
SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
# Each benchmark times what it timed before the job that computes a root's passages ahead
# (rrg.rank.warm_passages) existed: none starts beside its runs unless it asks
# (benchmarks/warm_speed.py times the job and what it saves).
os.environ.setdefault("RRG_PASSAGES_AHEAD", "0")
# And each search in its own process, as before the resident process existed (an older
# checkout has none): benchmarks/resident_speed.py times the two side by side.
os.environ.setdefault("RRG_RESIDENT", "0")


def needs_arguments(count: int, doc: str | None) -> None:
    """Stop a script given fewer than ``count`` arguments that are not flags with its usage
    (the docstring's ``Run:`` or ``Usage:`` line and the lines that carry it on) and exit
    code 2, as a command line does, rather than with an IndexError from deep in it."""
    if sum(not a.startswith("--") for a in sys.argv[1:]) >= count:
        return
    lines = (doc or "").splitlines()
    start = next((k for k, line in enumerate(lines) if line.startswith(("Run:", "Usage:"))), None)
    if start is None:
        shown = ["arguments are missing: read the script's docstring"]
    else:
        shown = [lines[start].partition(":")[2].strip()]
        shown += [line.strip() for line in lines[start + 1 :] if line.startswith(("[", " "))]
    print("usage: " + " ".join(shown), file=sys.stderr)
    sys.exit(2)


def rg() -> str:
    from rrg.rg.binary import find_rg

    return find_rg()


def rrg() -> list[str]:
    return [str(BIN / "rrg")]


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def processes(wanted: Callable[[list[bytes]], bool]) -> list[int]:
    """The pids of the running processes whose arguments (``/proc/PID/cmdline``, split at
    NUL) ``wanted`` accepts: rrg's background jobs, found from outside."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if wanted(args):
            found.append(int(entry.name))
    return found


def side_env(scratch: Path, label: str, pythonpath: str) -> dict[str, str]:
    """The environment of one side of a comparison with an earlier checkout: a cache dir of
    its own under ``scratch``, no background build beside the timed runs (the query path
    alone; benchmarks/warm_speed.py times that job), each side's modules compiled once (not
    on every run), and ``pythonpath`` (the earlier checkout, or "" for this one) ahead of the
    installed code, which the children inherit."""
    env = dict(os.environ, RRG_CACHE_DIR=str(scratch / label))
    env["RRG_INDEX_BACKGROUND"] = "0"
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = pythonpath
    return env


def index_sides(tree: Path, sides: Iterable[dict[str, str]]) -> None:
    """Each side's index of ``tree`` built before its queries (``side_env``'s cache dirs), so
    that no query waits for one."""
    for env in sides:
        subprocess.run(
            [*rrg(), "--index", ".", "--no-progress"], cwd=tree, env=env, capture_output=True
        )


def listed_files(tree: Path, query: str, env: dict[str, str], took: list[float]) -> list[str]:
    """The first ten files ``rrg -q QUERY --files`` lists in the tree; its time appended
    to ``took``."""
    start = time.perf_counter()
    out = subprocess.run(
        [*rrg(), "-q", query, "--files", "--limit", "10"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    took.append(time.perf_counter() - start)
    return out.stdout.splitlines()


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(
        cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


@dataclass
class Measured:
    wall: float  # seconds
    peak_mb: int  # GNU time's maximum resident set size
    stdout: str
    stderr: str  # the command's own, GNU time's figure taken out


def measured(cmd: list[str], cwd: Path, env: dict[str, str]) -> Measured:
    """Run cmd under GNU time: its wall time, peak memory and output."""
    start = time.perf_counter()
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd], cwd=cwd, env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    own, _, figure = out.stderr.rstrip("\n").rpartition("\n")
    return Measured(wall, int(figure) // 1024, out.stdout, own)


def median(values: list[float]) -> float:
    return statistics.median(values)


def word_corpus(root: Path, files: int, words_per_file: int, seed: int = 7) -> Path:
    """Files of random dictionary-like words; written once, reused while present."""
    marker = root / f".done-{files}-{words_per_file}"
    if marker.exists():
        return root
    root.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(seed)
    vocab = [
        "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 9)))
        for _ in range(20000)
    ]
    for k in range(files):
        sub = root / f"d{k % 50:02d}"
        sub.mkdir(exist_ok=True)
        words = rnd.choices(vocab, k=words_per_file)
        lines = [" ".join(words[i : i + 12]) for i in range(0, len(words), 12)]
        (sub / f"f{k:06d}.txt").write_text("\n".join(lines) + "\n")
    marker.write_text("")
    return root


#: Words too common to make a grep pattern, for the scripted searches of the benchmarks.
STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "how",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "does",
        "do",
        "did",
        "can",
        "not",
        "no",
        "into",
        "than",
        "then",
        "there",
        "these",
        "those",
        "their",
        "they",
        "we",
        "you",
        "your",
        "our",
        "but",
        "if",
        "about",
        "after",
        "before",
        "between",
    ]
)
