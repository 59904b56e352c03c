"""--rerank against ordering alone, plain rg and BM25-ordered grep: gold documents in the
first 30 lines, on a slice of each labelled set; and rerank speed on 500 matches.

Usage: python -m benchmarks.rerank [QUERIES_PER_SET]   (writes benchmarks/out/rerank.md)
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from benchmarks.common import OUT, machine, rrg
from benchmarks.datasets import beir
from benchmarks.quality import agent_pattern, first_lines_docs
from rrg.index.textstats import words

SETS = ["scifact", "hotpotqa-distractor-100", "nfcorpus", "cranfield"]


def cli_docs(root: Path, args: list[str], doc_of_path: dict[bytes, str]) -> list[str]:
    out = subprocess.run(
        [*rrg(), *args, "-H", "--null"], cwd=root, capture_output=True, stdin=subprocess.DEVNULL
    ).stdout
    return [doc_of_path[line.split(b"\0", 1)[0]] for line in out.splitlines() if b"\0" in line]


def evidence(per_set: int) -> list[str]:
    lines = [
        "| set | queries | queries with gold: rg / -q / -q --rerank | gold docs seen: rg / "
        "-q / -q --rerank | rerank ÷ order |",
        "|---|---|---|---|---|",
    ]
    for name in SETS:
        s = beir(name)
        os.environ["RRG_CACHE_DIR"] = str(OUT / "cache")
        df: Counter[str] = Counter()
        for text in s.texts.values():
            df.update(set(words(text)))
        doc_of_path = {os.fsencode(p): d for d, p in s.doc_path.items()}
        path_order = sorted(s.doc_path, key=lambda d: s.doc_path[d])
        sums = {k: [0.0, 0.0] for k in ("rg", "order", "rerank")}
        queries = list(s.queries.items())[:per_set]
        for qid, query in queries:
            gold = s.qrels[qid]
            pattern = agent_pattern(query, df, len(s.texts)) or "^$"
            seen = {
                "rg": first_lines_docs(path_order, s.texts, re.compile(pattern, re.I)),
                "order": cli_docs(s.root, ["-q", query, "-i", "-e", pattern], doc_of_path),
                "rerank": cli_docs(
                    s.root, ["-q", query, "--rerank", "-i", "-e", pattern], doc_of_path
                ),
            }
            for key, docs in seen.items():
                sums[key][0] += any(d in gold for d in docs)
                sums[key][1] += sum(d in set(docs) for d in gold) / len(gold)
        n = len(queries)
        q = {k: v[0] / n for k, v in sums.items()}
        g = {k: v[1] / n for k, v in sums.items()}
        lines.append(
            f"| {name} | {n} | {q['rg']:.3f} / {q['order']:.3f} / {q['rerank']:.3f} | "
            f"{g['rg']:.3f} / {g['order']:.3f} / {g['rerank']:.3f} | "
            f"{g['rerank'] / g['order'] if g['order'] else float('nan'):.2f} |"
        )
        print(lines[-1], flush=True)
    return lines


def speed() -> list[str]:
    s = beir("scifact")
    queries = [
        "cell differentiation in stem cells",
        "protein folding disease",
        "immune response to infection",
        "gene expression in cancer cells",
        "brain development in children",
        "drug resistance in bacteria",
    ]
    cache = OUT / "rerank-cache"
    shutil.rmtree(cache, ignore_errors=True)
    shutil.copytree(OUT / "cache", cache)
    (cache / "excerpt-vectors.sqlite").unlink(missing_ok=True)
    env = {**os.environ, "RRG_CACHE_DIR": str(cache)}
    cold: list[float] = []
    warm: list[float] = []
    for query in queries:
        for bucket in (cold, warm):
            start = time.perf_counter()
            out = subprocess.run(
                [*rrg(), "-q", query, "--rerank", "-i", "cell|protein|gene"],
                cwd=s.root,
                env=env,
                capture_output=True,
            )
            bucket.append(time.perf_counter() - start)
            assert b"of 500 matches" in out.stderr, out.stderr
    plain = []
    for query in queries:
        start = time.perf_counter()
        subprocess.run(
            [*rrg(), "-q", query, "-i", "cell|protein|gene"],
            cwd=s.root,
            env=env,
            capture_output=True,
        )
        plain.append(time.perf_counter() - start)

    def p95(v: list[float]) -> float:
        return sorted(v)[max(0, int(round(0.95 * len(v))) - 1)]

    return [
        "",
        f"Rerank of 500 matches on scifact ({len(queries)} queries, whole command timed): "
        f"cold cache p50 {statistics.median(cold):.2f} s, p95 {p95(cold):.2f} s; warm (same "
        f"search again) p50 {statistics.median(warm):.2f} s, p95 {p95(warm):.2f} s; the same "
        f"searches without --rerank p50 {statistics.median(plain):.2f} s.",
    ]


def main() -> None:
    per_set = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    lines = [f"Machine: {machine()}.", "", *evidence(per_set), *speed()]
    (OUT / "rerank.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
