"""The stage's passage budget P, swept again with the model's products in int8: file nDCG@10
on every labelled set (dev and test halves) at P = 20, 24, 28, 32 (as it ships) and 40,
with K = 20 files as shipped.

P was chosen at 32 against 20 alone (K+12 against K+0) with the float graph. The model's
time grows with the passages it reads (a new query's 32 take most of its second on 2
cores), so fewer are worth taking where they cost nothing measurable. The rule, fixed
before the run: the fewest passages whose dev half, every set pooled, loses at most .001
against P=32; int8 already took .004 of the .005 tie against the float stage, and ties
must not stack into a loss no single step showed. The test half is reported after.

The passages a budget reads are the first P of one priority list (``pick``), so a smaller
budget reads a subset of a larger one's: one memo serves every budget, and the model runs
once a passage.

Usage: python -m benchmarks.passage_budget [QUERIES_PER_SET] (0 or none: every query;
writes out/passage_budget.md)
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from benchmarks.common import OUT, machine
from benchmarks.datasets import BEIR_SETS
from benchmarks.quantized_stage import Timed, half_tables, pooled_gap, run_sets
from rrg.model.encoder import Encoder
from rrg.model.registry import default_model
from rrg.rank.tuning import TUNING

BUDGETS = (20, 24, 28, 32, 40)
#: The most a budget's dev half may lose against P=32, pooled (see above).
MOST_LOSS = 0.001


def main() -> None:
    limit = int(sys.argv[1]) if len(sys.argv) > 1 and int(sys.argv[1]) > 0 else None
    encoder = Encoder(default_model())
    memo: dict[str, np.ndarray] = {}
    # The largest budget first: the smaller ones then find every vector in the memo.
    variants = {f"P={b}": Timed(encoder, b, memo) for b in sorted(BUDGETS, reverse=True)}
    write_report(run_sets(limit, variants), variants)


def write_report(per_query: dict[str, Any], variants: dict[str, Timed]) -> None:
    names = list(per_query)
    base = f"P={TUNING.stage_passages}"
    columns = ["rrg --fast", *(f"P={b}" for b in BUDGETS)]
    lines = [f"Machine: {machine()}", "", *half_tables(per_query, base, columns)]
    lines += [
        f"Each budget - {base}, pooled (95% paired bootstrap):",
        "",
        "| budget | dev, prose sets | dev, every set | test, prose sets | test, every set |",
        "|---|---|---|---|---|",
    ]
    chosen = TUNING.stage_passages
    for budget in BUDGETS:
        label = f"P={budget}"
        if label == base:
            continue
        cells = []
        for h in ("dev", "test"):
            for members in ([n for n in names if n in BEIR_SETS], names):
                gap, low, high, _ = pooled_gap(per_query, members, h, label, base)
                cells.append(f"{gap:+.3f} [{low:+.3f}, {high:+.3f}]")
                if h == "dev" and members == names and gap >= -MOST_LOSS:
                    chosen = min(chosen, budget)
        lines.append(f"| {label} | {' | '.join(cells)} |")
    seconds = sum(v.seconds for v in variants.values())
    encoded = sum(v.encoded for v in variants.values())
    per = seconds / max(1, encoded)
    lines += [
        "",
        f"By the dev half, every set pooled (at most {MOST_LOSS} lost against {base}): P={chosen}.",
        f"The model: {encoded} passages, {per * 1000:.1f} ms a passage.",
    ]
    report = "\n".join(lines) + "\n"
    (OUT / "passage_budget.md").write_text(report)
    print(report)


if __name__ == "__main__":
    main()
