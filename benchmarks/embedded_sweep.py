"""How many files the stage adds on an embedded root (``rank.files.EMBEDDED_FILES``: the
best by their stored passages, beside the cheap order's 20), and whether a file is scored by
its best stored passage (``STORED_MAXP``), swept in one process on the
dev halves: semble-code's repositories at even places in name order, and sympy's issues
at odd ids (as the other benchmarks split them); the test halves reported beside.

Run: python -m benchmarks.embedded_sweep DATA
DATA: materialize.py's OUT. Every root is embedded first (``rrg --index --embed``, in
RRG_CACHE_DIR, default benchmarks/out/cache-embedding/embedded). Tens of minutes the first
time (the embedding), minutes after.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from statistics import mean

from benchmarks.common import OUT, machine, rg, rrg
from benchmarks.datasets import swebench_repos
from benchmarks.passage_stage import half
from benchmarks.quality import ndcg10
from benchmarks.semble_code import SCORE, queries
from rrg.model.encoder import share_sessions
from rrg.model.registry import default_model
from rrg.rank import files
from rrg.rank.files import RankSettings, rank_files

#: (EMBEDDED_FILES, STORED_MAXP) pairs.
VALUES = ((0, False), (5, False), (10, False), (20, False), (0, True), (5, True), (20, True))


def embed(root: Path) -> None:
    subprocess.run(
        [*rrg(), "--index", "--embed", "--no-progress", "."],
        cwd=root,
        check=True,
        capture_output=True,
    )


def ranked(
    query: str, root: Path, paths: list[bytes], settings: RankSettings
) -> dict[int, list[str]]:
    out = {}
    for value in VALUES:
        files.EMBEDDED_FILES, files.STORED_MAXP = value
        ranking = rank_files(query, os.fsencode(root), paths, settings)
        out[value] = [os.fsdecode(p) for p in ranking.ordered[:10]]
    return out


def main() -> None:
    data = Path(sys.argv[1]).resolve()
    os.environ.setdefault("RRG_CACHE_DIR", str(OUT / "cache-embedding" / "embedded"))
    share_sessions()
    settings = RankSettings(default_model(), 20, lambda message: None)
    scores: dict[tuple[str, str], dict[tuple[int, bool], list[float]]] = {}
    repos = sorted(p.name for p in data.iterdir() if (p / "qrels.tsv").is_file())
    for k, name in enumerate(repos):
        root = (data / name / "corpus").resolve()
        embed(root)
        os.chdir(root)
        paths = sorted(
            subprocess.run([rg(), "--files"], capture_output=True, check=True).stdout.splitlines()
        )
        key = ("semble-code", "dev" if k % 2 == 0 else "test")
        for _, query, labels in queries(data / name):
            for value, top in ranked(query, root, paths, settings).items():
                scores.setdefault(key, {}).setdefault(value, []).append(SCORE.ndcg10(top, labels))  # type: ignore[attr-defined]
    sympy = next(s for s in swebench_repos() if s.name.startswith("sympy"))
    embed(sympy.root)
    os.chdir(sympy.root)
    doc_of = {path: doc for doc, path in sympy.doc_path.items()}
    paths = sorted(os.fsencode(p) for p in doc_of)
    for qid, query in sorted(sympy.queries.items()):
        key = ("sympy", half(qid))
        for value, top in ranked(query, sympy.root, paths, settings).items():
            gold = sympy.qrels.get(qid, {})
            scores.setdefault(key, {}).setdefault(value, []).append(
                ndcg10([doc_of.get(p, p) for p in top], gold)
            )
    print(f"EMBEDDED_FILES on embedded roots, default order; {machine()}\n")
    names = [f"{n} files{', stored MaxP' if maxp else ''}" for n, maxp in VALUES]
    print("| corpus | half | queries | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(VALUES))
    for (corpus, which), by_value in sorted(scores.items()):
        cells = " | ".join(f"{mean(by_value[v]):.3f}" for v in VALUES)
        print(f"| {corpus} | {which} | {len(by_value[VALUES[0]])} | {cells} |")


if __name__ == "__main__":
    main()
