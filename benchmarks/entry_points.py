"""Entry points (RARG+): share of queries whose 10 entry paragraphs (from the top 20 files)
include a gold document, against the top-10 files of the order alone, for several passage
budgets (how many paragraphs the transformer reads per query).

Queries are split in halves by the parity of the last number in their id: the budget is
chosen on the odd (dev) half and reported on the even (test) half.

Usage: python benchmarks/entry_points.py [QUERIES_PER_PROSE_SET]   (writes out/entry_points.md)
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import OUT, machine  # noqa: E402
from datasets import LabelledSet, beir, swebench_repos  # noqa: E402

from rrg.model.registry import default_model  # noqa: E402
from rrg.rank import entry_points  # noqa: E402
from rrg.rank.files import index_path_for, rank_files  # noqa: E402

PROSE = ["scifact", "hotpotqa-distractor-100", "nfcorpus", "cranfield"]
BUDGETS = [64, 32, 16, 8]  # largest first: smaller budgets then read cached vectors


def half(qid: str) -> str:
    digits = re.findall(r"\d+", qid)
    return "dev" if digits and int(digits[-1]) % 2 else "test"


def run_set(s: LabelledSet, limit: int | None) -> dict[str, dict[str, list[float]]]:
    """half -> measure -> per-query values (1.0 hit / 0.0 miss, or seconds)."""
    spec = default_model()
    os.chdir(s.root)
    doc_of = {os.fsencode(p): d for d, p in s.doc_path.items()}
    paths = sorted(doc_of)
    index = index_path_for(os.fsencode(s.root), spec)
    out: dict[str, dict[str, list[float]]] = {"dev": {}, "test": {}}
    for qid, query in list(s.queries.items())[:limit]:
        gold = s.qrels[qid]
        row = out[half(qid)]
        ranking = rank_files(query, os.fsencode(s.root), paths, spec, lambda m: None, False)
        row.setdefault("files", []).append(
            float(any(doc_of.get(p) in gold for p in ranking.ordered[:10]))
        )
        for budget in BUDGETS:
            entry_points.PASSAGE_BUDGET = budget
            start = time.monotonic()
            found = entry_points.best_paragraphs(query, ranking, spec, 10, index)
            row.setdefault(f"t{budget}", []).append(time.monotonic() - start)
            hit = float(any(doc_of.get(p) in gold for p, _ in found))
            row.setdefault(f"b{budget}", []).append(hit)
    return out


def main() -> None:
    per_set = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    os.environ["RRG_CACHE_DIR"] = str(OUT / "cache")
    sets = [(beir(n), per_set) for n in PROSE] + [(s, None) for s in swebench_repos()]
    head = " | ".join(f"paragraphs, budget {b}" for b in BUDGETS)
    lines = [
        f"Machine: {machine()}. Share of queries with a gold document among the 10 entry "
        "paragraphs; the first query of a budget encodes, later budgets reuse cached vectors "
        "(times are of the largest budget, vectors not yet cached).",
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
