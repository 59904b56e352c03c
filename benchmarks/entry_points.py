"""Entry points (RARG+): share of queries whose 10 entry paragraphs (from the top 20 files)
include a gold document, against the top-10 files of the order alone.

Usage: python benchmarks/entry_points.py [QUERIES_PER_SET]   (writes out/entry_points.md)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import OUT, machine  # noqa: E402
from datasets import beir  # noqa: E402

from rrg.model.registry import default_model  # noqa: E402
from rrg.rank.entry_points import best_paragraphs  # noqa: E402
from rrg.rank.files import rank_files  # noqa: E402

SETS = ["scifact", "hotpotqa-distractor-100", "nfcorpus", "cranfield"]


def main() -> None:
    per_set = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    os.environ["RRG_CACHE_DIR"] = str(OUT / "cache")
    spec = default_model()
    lines = [
        f"Machine: {machine()}.",
        "",
        "| set | queries | gold in top-10 files (order alone) | gold in the 10 entry paragraphs |",
        "|---|---|---|---|",
    ]
    for name in SETS:
        s = beir(name)
        os.chdir(s.root)
        doc_of = {os.fsencode(p): d for d, p in s.doc_path.items()}
        paths = sorted(doc_of)
        files_hit = paragraphs_hit = 0
        queries = list(s.queries.items())[:per_set]
        for qid, query in queries:
            gold = s.qrels[qid]
            ranking = rank_files(query, os.fsencode(s.root), paths, spec, lambda m: None, False)
            files_hit += any(doc_of[p] in gold for p in ranking.ordered[:10])
            found = best_paragraphs(query, ranking, spec, 10)
            paragraphs_hit += any(doc_of[p] in gold for p, _ in found)
        n = len(queries)
        lines.append(f"| {name} | {n} | {files_hit / n:.3f} | {paragraphs_hit / n:.3f} |")
        print(lines[-1], flush=True)
    (OUT / "entry_points.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
