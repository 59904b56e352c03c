"""The transformer stage with the model's activations quantised to int8, against the float
graph it replaces: file nDCG@10 on every labelled set (dev and test halves), and the
model's time a passage.

The default model ships int8 weights that onnxruntime turns back into floats, so its matrix
products run in float32. rrg now makes a second graph once per machine whose products run
in int8 (onnxruntime's dynamic quantisation, one scale per output channel;
``rrg.model.graphs.quantize_graph``). The choice is one switch, not a constant: it is
taken where the dev half's pooled nDCG@10 loses no more than the sweeps' tie (.005) and
the test half is reported after. Each variant encodes with a memo of its own; everything
else (index, static vectors, cheap tier, K, P, W, R) is the shipped stage's.

``--tokens`` compares instead the int8 stage reading at most 256 tokens of a passage (as it
ships) with 192 and 128: the model's time grows with the tokens it reads, so fewer are taken
by the same rule (out/passage_tokens.md). Each is a variant of the settings
(``Tuning.passage_tokens``, and a code passage's tokens no more than it), so the static
vectors that pick the passages read the same tokens as the model; the first run (commit
bb4147d and before) capped the model's calls alone, by an encoder of its own.

Usage: python -m benchmarks.quantized_stage [--tokens] [QUERIES_PER_SET] (0 or none: every
query; writes out/quantized_stage.md)
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import replace
from typing import Any

import numpy as np

from benchmarks.common import OUT, machine
from benchmarks.datasets import BEIR_SETS, LabelledSet, beir, swebench_repos, swebench_tasks
from benchmarks.passage_stage import TIE, half, paired_interval
from benchmarks.quality import ndcg10
from rrg.index.served import ServedRoot
from rrg.model.encoder import Encoder
from rrg.model.registry import default_model
from rrg.rank.cheap import signals
from rrg.rank.passages import PassageScorer, score_passages
from rrg.rank.query import Query
from rrg.rank.scoring import fuse, order_by, staged_scores
from rrg.rank.tuning import TUNING, Tuning

#: The files the stage weighs (``--cascade``'s default).
STAGE_FILES = 20


class Timed:
    """One variant's encoder, passage budget, memo and clock: the model's seconds and
    passages read. Variants given one memo share their vectors (one encoder, budgets)."""

    def __init__(
        self,
        encoder: Encoder,
        budget: int = TUNING.stage_passages,
        memo: dict[str, np.ndarray] | None = None,
        tuning: Tuning = TUNING,
    ) -> None:
        self.encoder = encoder
        self.budget = budget
        self.tuning = tuning
        self.memo: dict[str, np.ndarray] = {} if memo is None else memo
        self.seconds = 0.0
        self.encoded = 0

    def vectors_for(self, kind: str, keys: list[str], encode: object) -> dict[str, np.ndarray]:
        missing = sorted({k for k in keys if f"{kind}:{k}" not in self.memo})
        if missing:
            start = time.perf_counter()
            fresh = encode(missing)  # type: ignore[operator]
            if kind == "passage":
                self.seconds += time.perf_counter() - start
                self.encoded += len(missing)
            self.memo.update((f"{kind}:{k}", v) for k, v in zip(missing, fresh, strict=True))
        return {k: self.memo[f"{kind}:{k}"] for k in keys}


def reading(tokens: int) -> Tuning:
    """The shipped settings with the stage reading at most ``tokens`` of a passage."""
    code = min(TUNING.code_passage_tokens, tokens)
    return replace(TUNING, passage_tokens=tokens, code_passage_tokens=code)


def evaluate(s: LabelledSet, limit: int | None, variants: dict[str, Timed]) -> dict[str, Any]:
    """Each query's nDCG@10 by half: the cheap order, and the stage under each variant (the
    first one's encoder indexes and runs the cheap tier)."""
    cheap_encoder = next(iter(variants.values())).encoder
    root = os.fsencode(s.root)
    rel_by_doc = {d: os.fsencode(p) for d, p in s.doc_path.items()}
    served = ServedRoot(root, cheap_encoder.spec)
    view, _, _ = served.refresh(sorted(rel_by_doc.values()), lambda m: None, False)
    docs = list(s.doc_path)
    rows = view.rows_of([rel_by_doc[d] for d in docs])
    out: dict[str, dict[str, list[float]]] = {"dev": {}, "test": {}}
    for qid, query in list(s.queries.items())[:limit]:
        gold = s.qrels[qid]
        asked = Query.of(query)
        lex, sem = signals(asked, view, cheap_encoder, path_weight=TUNING.path_weight)
        lex, sem = lex[rows], sem[rows]
        fused = fuse(lex, sem)
        chosen = order_by(fused)[:STAGE_FILES]
        texts = [s.texts[docs[i]] for i in chosen]
        names = [s.doc_path[docs[i]] for i in chosen]
        scores = {"rrg --fast": fused}
        for name, variant in variants.items():
            scorer = PassageScorer(
                variant.encoder, view.piece_idf, variant.vectors_for, variant.budget, variant.tuning
            )
            scored = score_passages(asked, texts, scorer, names)
            staged = fused.copy()
            best = scored.best_per_file(len(chosen))
            staged[chosen] = staged_scores(lex[chosen], sem[chosen], best, fused)
            scores[name] = staged
        row = out[half(qid)]
        for name, score in scores.items():
            row.setdefault(name, []).append(ndcg10([docs[i] for i in order_by(score)], gold))
    return out


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--tokens"]
    limit = int(args[0]) if args and int(args[0]) > 0 else None
    if "--tokens" in sys.argv[1:]:
        report = "passage_tokens.md"
        encoder = Encoder(default_model())
        timing = {f"int8 {cap}": Timed(encoder, tuning=reading(cap)) for cap in (256, 192, 128)}
    else:
        report = "quantized_stage.md"
        timing = {
            "float": Timed(Encoder(default_model(), exact=True)),
            "int8": Timed(Encoder(default_model())),
        }
    write_report(run_sets(limit, timing), timing, report)


def run_sets(limit: int | None, variants: dict[str, Timed]) -> dict[str, Any]:
    """Each labelled set's per-query nDCG@10 by half and config (``evaluate``), the
    swebench-lite tasks pooled as one set."""
    os.environ["RRG_CACHE_DIR"] = str(OUT / "cache")
    groups: list[tuple[str, list[LabelledSet]]] = [(name, [beir(name)]) for name in BEIR_SETS]
    groups.append(("swebench-lite", swebench_tasks()))
    groups += [(s.name, [s]) for s in swebench_repos()]
    per_query: dict[str, dict[str, dict[str, list[float]]]] = {}
    for name, sets in groups:
        merged: dict[str, dict[str, list[float]]] = {"dev": {}, "test": {}}
        for s in sets:
            part = evaluate(s, limit, variants)
            for h in merged:
                for key, values in part[h].items():
                    merged[h].setdefault(key, []).extend(values)
        for variant in variants.values():
            variant.memo.clear()  # a set's passages never come back in another
        per_query[name] = merged
        print(
            name,
            {h: {k: round(float(np.mean(v)), 3) for k, v in merged[h].items()} for h in merged},
        )
        sys.stdout.flush()
    return per_query


def half_tables(per_query: dict[str, Any], base: str, columns: list[str]) -> list[str]:
    """Each half's table: a row a config, a column a set (its queries counted by ``base``)."""
    names = list(per_query)
    lines = []
    for h in ("dev", "test"):
        counts = " | ".join(f"{n} ({len(per_query[n][h].get(base, []))})" for n in names)
        lines += [f"{h} half:", "", f"| config | {counts} |", "|---|" + "---|" * len(names)]
        for c in columns:
            cells = " | ".join(f"{np.mean(per_query[n][h].get(c, [np.nan])):.3f}" for n in names)
            lines.append(f"| {c} | {cells} |")
        lines.append("")
    return lines


def pooled_gap(
    per_query: dict[str, Any], members: list[str], h: str, config: str, base: str
) -> tuple[float, float, float, int]:
    """config - base over the queries of these sets in half h: the mean gap, its 95% paired
    bootstrap interval, and how many queries."""
    ours = [x for n in members for x in per_query[n][h].get(config, [])]
    theirs = [x for n in members for x in per_query[n][h].get(base, [])]
    low, high = paired_interval(ours, theirs)
    return float(np.mean(ours) - np.mean(theirs)), low, high, len(ours)


def write_report(per_query: dict[str, Any], timing: dict[str, Timed], report_name: str) -> None:
    names = list(per_query)
    base, *others = timing
    columns = ["rrg --fast", *timing]
    lines = [f"Machine: {machine()}", "", *half_tables(per_query, base, columns)]
    for other in others:
        lines += [
            f"{other} - {base}, pooled (95% paired bootstrap):",
            "",
            "| half | the prose sets | every set |",
            "|---|---|---|",
        ]
        verdict = ""
        for h in ("dev", "test"):
            cells = []
            for members in ([n for n in names if n in BEIR_SETS], names):
                gap, low, high, count = pooled_gap(per_query, members, h, other, base)
                cells.append(f"{gap:+.3f} [{low:+.3f}, {high:+.3f}] ({count} queries)")
                if h == "dev" and members == names:
                    verdict = "taken" if gap >= -TIE else "not taken"
            lines.append(f"| {h} | {' | '.join(cells)} |")
        lines += ["", f"By the dev half, every set pooled (tie {TIE}): {other} {verdict}.", ""]
    for name, variant in timing.items():
        per = variant.seconds / max(1, variant.encoded)
        lines.append(
            f"- {name}: {variant.encoded} passages encoded, {per * 1000:.1f} ms a passage "
            f"({per * TUNING.stage_passages:.2f} s for a new query's {TUNING.stage_passages})"
        )
    report = "\n".join(lines) + "\n"
    (OUT / report_name).write_text(report)
    print(report)


if __name__ == "__main__":
    main()
