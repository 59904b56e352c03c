"""The embedding index (``rrg --index --embed``, issue 29) beside the bounded stage, side by
side in one run, every figure from the real command in a fresh process:

- the embedding job: files, passages, seconds, passages a second, bytes a passage on disk;
- a new query (its text never seen by either cache) as a fresh process, p50 and p90, with
  the root embedded and not;
- file NDCG@10 of ``rrg -q Q --files`` with the root embedded and not: semble-code's
  repositories (semble's metric); with --sympy, the sympy tree of swebench-repos (1,875
  files, issue texts as queries); with --prose, scifact (a BEIR set). Test halves.

Run: python -m benchmarks.embedding DATA [--prose] [--sympy] [--no-semble] [NAME ...]
DATA: the OUT folder of ../shared/data/semble-code/materialize.py; NAME: repositories
(default: the test half, the repositories at odd places in name order, as semble_code.py
splits them). Each mode has a cache of its own (the model's files shared).
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import OUT, machine, needs_arguments, rrg
from benchmarks.datasets import LabelledSet, beir, swebench_repos
from benchmarks.passage_stage import half
from benchmarks.quality import ndcg10
from benchmarks.semble_code import SCORE, queries

MODES = ("bounded", "embedded")


def caches() -> dict[str, dict[str, str]]:
    """One RRG_CACHE_DIR a mode, the model's folder shared (its static table is distilled
    once)."""
    shared = OUT / "cache-embedding" / "models"
    shared.mkdir(parents=True, exist_ok=True)
    envs = {}
    for mode in MODES:
        cache = OUT / "cache-embedding" / mode
        cache.mkdir(parents=True, exist_ok=True)
        if not (cache / "models").exists():
            (cache / "models").symlink_to(shared)
        envs[mode] = {**os.environ, "RRG_CACHE_DIR": str(cache)}
    return envs


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(
        [*rrg(), *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if out.returncode not in (0, 1):
        raise SystemExit(f"rrg {' '.join(args)} in {cwd}: {out.stderr.strip()}")
    return time.perf_counter() - start, out.stdout


def prepare(root: Path, envs: dict[str, dict[str, str]]) -> dict[str, float]:
    """Index both, embed one; the embedding job's figures."""
    _run(["--index", "--no-progress", "."], root, envs["bounded"])
    _run(["--index", "--no-progress", "."], root, envs["embedded"])
    seconds, said = _run(["--index", "--embed", "--no-progress", "."], root, envs["embedded"])
    found = re.search(r"^embedded .*: (\d+) files \((\d+) passages", said, re.M)
    assert found, said
    files, passages = int(found[1]), int(found[2])
    folders = (OUT / "cache-embedding" / "embedded" / "index").glob(f"{root.name}-*.sqlite.embed")
    size = sum(f.stat().st_size for d in folders for f in d.rglob("*") if f.is_file())
    return {"files": files, "passages": passages, "seconds": seconds, "bytes": size}


def answers(
    root: Path, texts: list[str], env: dict[str, str]
) -> tuple[list[list[str]], list[float]]:
    """Each query's ten best files and its wall time (the first time the cache sees it)."""
    ranked, times = [], []
    for text in texts:
        seconds, out = _run(["-q", text, "--files", "--limit", "10"], root, env)
        ranked.append(out.splitlines()[:10])
        times.append(seconds)
    return ranked, times


def test_half(
    labelled: LabelledSet, envs: dict[str, dict[str, str]]
) -> tuple[dict[str, float], dict[str, list[float]], dict[str, list[float]]]:
    """A labelled set's embedding job, and its test half's scores and times in each mode."""
    job = prepare(labelled.root, envs)
    ids = [q for q in sorted(labelled.queries) if half(q) == "test"]
    texts = [labelled.queries[q] for q in ids]
    by_path = {path: doc for doc, path in labelled.doc_path.items()}
    scores, times = {}, {}
    for mode in MODES:
        ranked, times[mode] = answers(labelled.root, texts, envs[mode])
        scores[mode] = [
            ndcg10([by_path.get(p, p) for p in files], labelled.qrels.get(q, {}))
            for files, q in zip(ranked, ids, strict=True)
        ]
    return job, scores, times


def main() -> None:
    needs_arguments(1, __doc__)
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    data, names = Path(args[0]).resolve(), args[1:]
    envs = caches()
    repos = sorted(p.name for p in data.iterdir() if (p / "qrels.tsv").is_file())
    chosen = names or [n for k, n in enumerate(repos) if k % 2 == 1]
    if "--no-semble" in sys.argv:
        chosen = []
    rows = []
    totals = {"passages": 0.0, "seconds": 0.0, "bytes": 0.0}
    for name in chosen:
        root = (data / name / "corpus").resolve()
        job = prepare(root, envs)
        for key in totals:
            totals[key] += job[key]
        asked = queries(data / name)
        texts = [query for _, query, _ in asked]
        scores: dict[str, list[float]] = {}
        times: dict[str, list[float]] = {}
        for mode in MODES:
            ranked, times[mode] = answers(root, texts, envs[mode])
            scores[mode] = [
                SCORE.ndcg10(files, labels)  # type: ignore[attr-defined]
                for files, (_, _, labels) in zip(ranked, asked, strict=True)
            ]
        rows.append((name, job, scores, times))
    if "--sympy" in sys.argv:
        sympy = next(s for s in swebench_repos() if s.name.startswith("sympy"))
        rows.append(("sympy (test half)", *test_half(sympy, envs)))
    if "--prose" in sys.argv:
        rows.append(("scifact (test half)", *test_half(beir("scifact"), envs)))
    print(f"embedding index against the bounded stage; {machine()}\n")
    print(
        "| corpus | files | passages | embed s | passages/s | NDCG@10 bounded | embedded "
        "| new query p50 bounded | embedded |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, job, scores, times in rows:
        rate = job["passages"] / job["seconds"] if job["seconds"] else 0
        print(
            f"| {name} | {job['files']:.0f} | {job['passages']:.0f} | {job['seconds']:.1f} "
            f"| {rate:.0f} | {statistics.mean(scores['bounded']):.3f} "
            f"| {statistics.mean(scores['embedded']):.3f} "
            f"| {statistics.median(times['bounded']):.2f} s "
            f"| {statistics.median(times['embedded']):.2f} s |"
        )
    semble = [r for r in rows if "(test half)" not in r[0]]
    if semble:
        for mode in MODES:
            mean = statistics.mean(statistics.mean(r[2][mode]) for r in semble)
            every = [t for r in semble for t in r[3][mode]]
            print(
                f"\nsemble-code mean over {len(semble)} repositories, {mode}: NDCG@10 {mean:.3f}, "
                f"new query p50 {statistics.median(every):.2f} s, "
                f"p90 {statistics.quantiles(every, n=10)[-1]:.2f} s"
            )
    if totals["passages"]:
        print(
            f"\nembedding: {totals['passages']:.0f} passages in {totals['seconds']:.0f} s "
            f"({totals['passages'] / totals['seconds']:.0f} a second), "
            f"{totals['bytes'] / totals['passages']:.0f} bytes a passage on disk"
        )


if __name__ == "__main__":
    main()
