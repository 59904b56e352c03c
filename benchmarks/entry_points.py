"""Entry points (RARG+): share of queries whose 10 entry paragraphs include a gold
document, against the top-10 files of the order, for several passage budgets (how many
paragraphs of the 20 best files the transformer stage reads per query; the entry points are
the best of those by the model's cosine).

Queries are split in halves by the parity of the last number in their id: the budget is
chosen on the odd (dev) half and reported on the even (test) half.

Usage: python -m benchmarks.entry_points [QUERIES_PER_PROSE_SET]   (writes out/entry_points.md)
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import replace

from benchmarks.common import OUT, machine
from benchmarks.datasets import LabelledSet, beir, swebench_repos
from rrg.index.served import ServedRoot
from rrg.model.registry import default_model
from rrg.rank import files as rank
from rrg.rank.entry_points import best_paragraphs
from rrg.rank.tuning import TUNING

PROSE = ["scifact", "hotpotqa-distractor-100", "nfcorpus", "cranfield"]
BUDGETS = [64, 32, 20]  # largest first: smaller budgets then read cached vectors
STAGE_FILES = 20


def half(qid: str) -> str:
    digits = re.findall(r"\d+", qid)
    return "dev" if digits and int(digits[-1]) % 2 else "test"


def run_set(s: LabelledSet, limit: int | None) -> dict[str, dict[str, list[float]]]:
    """half -> measure -> per-query values (1.0 hit / 0.0 miss, or seconds)."""
    spec = default_model()
    os.chdir(s.root)
    doc_of = {os.fsencode(p): d for d, p in s.doc_path.items()}
    paths = sorted(doc_of)
    out: dict[str, dict[str, list[float]]] = {"dev": {}, "test": {}}
    for qid, query in list(s.queries.items())[:limit]:
        gold = s.qrels[qid]
        row = out[half(qid)]
        for budget in BUDGETS:
            start = time.monotonic()
            tuning = replace(TUNING, stage_passages=budget)
            settings = rank.RankSettings(STAGE_FILES, lambda m: None, tuning=tuning)
            served = ServedRoot(os.fsencode(s.root), spec)
            ranking = rank.rank_files(query, served, paths, settings)
            found = best_paragraphs(ranking, 10)
            row.setdefault(f"t{budget}", []).append(time.monotonic() - start)
            hit = float(any(doc_of.get(p) in gold for p, _ in found))
            row.setdefault(f"b{budget}", []).append(hit)
            if budget == 32:
                row.setdefault("files", []).append(
                    float(any(doc_of.get(p) in gold for p in ranking.ordered[:10]))
                )
    return out


def main() -> None:
    per_set = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    os.environ["RRG_CACHE_DIR"] = str(OUT / "cache")
    sets = [(beir(n), per_set) for n in PROSE] + [(s, None) for s in swebench_repos()]
    head = " | ".join(f"paragraphs, budget {b}" for b in BUDGETS)
    lines = [
        f"Machine: {machine()}. Share of queries with a gold document among the 10 entry "
        "paragraphs, and among the 10 best files of the order (stage on, budget 32). Times: "
        "ranking plus entry points at the largest budget, whatever earlier runs cached.",
        "",
        f"| set | half | queries | top-10 files | {head} | s a query (budget {BUDGETS[0]}) |",
        "|---|---|---|---|" + "---|" * len(BUDGETS) + "---|",
    ]
    for s, limit in sets:
        result = run_set(s, limit)
        for name in ("dev", "test"):
            row = result[name]
            if not row:
                continue
            n = len(row["files"])
            cells = " | ".join(f"{sum(row[f'b{b}']) / n:.3f}" for b in BUDGETS)
            secs = sorted(row[f"t{BUDGETS[0]}"])[n // 2]
            lines.append(
                f"| {s.name} | {name} | {n} | {sum(row['files']) / n:.3f} | {cells} | {secs:.2f} |"
            )
            print(lines[-1], flush=True)
    (OUT / "entry_points.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
