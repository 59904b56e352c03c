"""The code priors on the other labelled sets: the prose sets, which must not drop, and the
SWE-bench code sets. File nDCG@10 with the priors as shipped, with them off, and as before
either (the priors off, code cut at blank lines), dev and test halves (odd and even query
ids), in the cheap order (``--fast``) or, with ``--stage``, the default order.

Run: python -m benchmarks.code_priors [--stage] [--shipped] [--listed] [--set FIELD=VALUE[,...]]...
[LIMIT] [SET ...]
(--listed: rank the files rg lists, as the command line does, not every file of the corpus:
hidden ones, a repository's .github/ say, are left out; --shipped: the shipped setting alone, a
third of the time; --set: the shipped setting and
a variant of it beside, one for each --set: fields of rrg.rank.tuning.Tuning, e.g.
code_passage_tokens=96, or stage_files=K, the files the default order's stage re-orders)
(LIMIT: queries a set, default all; SET: a set's name, default every set)
Minutes for the cheap order; the stage reads passages the first time (tens of minutes).
"""

from __future__ import annotations

import os
import subprocess
import sys
from statistics import mean

from benchmarks.common import OUT, machine, rg
from benchmarks.datasets import BEIR_SETS, LabelledSet, beir, swebench_repos, swebench_tasks
from benchmarks.passage_stage import half
from benchmarks.quality import ndcg10
from benchmarks.semble_code import OFF, SHIPPED, Setting, rank_settings
from rrg.index.served import ServedRoot
from rrg.model.registry import default_model
from rrg.rank.files import rank_files

#: As shipped; the priors off; and as before either (priors off, code cut at blank lines).
SETTINGS: dict[str, Setting] = {
    "shipped": SHIPPED,
    "off": OFF,
    "before": {**OFF, "code_passages": False},
}


def variants() -> dict[str, Setting]:
    """Each ``--set FIELD=VALUE[,FIELD=VALUE]``, named by what it sets."""
    out: dict[str, Setting] = {}
    for k, arg in enumerate(sys.argv[:-1]):
        if arg == "--set":
            pairs = [item.partition("=") for item in sys.argv[k + 1].split(",")]
            out[sys.argv[k + 1]] = {
                name: int(value) if value.isdigit() else float(value) for name, _, value in pairs
            }
    return out


def evaluate(s: LabelledSet, stage: int, limit: int | None) -> dict[str, dict[str, list[float]]]:
    os.chdir(s.root)
    doc_of = {os.fsencode(path): doc for doc, path in s.doc_path.items()}
    paths = sorted(doc_of)
    if "--listed" in sys.argv:
        # Every figure before 2026-12-06 ranked every file; the command line ranks rg's
        # listing (docs/benchmarks.md, "A program's translations below its source").
        listed = set(
            subprocess.run([rg(), "--files"], capture_output=True, check=True).stdout.split(b"\n")
        )
        paths = [path for path in paths if path in listed]
    settings = {"shipped": SHIPPED} if "--shipped" in sys.argv else SETTINGS
    if variants():
        settings = {"shipped": SHIPPED, **variants()}
    spec = default_model()
    ranks = {name: rank_settings(values, stage) for name, values in settings.items()}
    out: dict[str, dict[str, list[float]]] = {"dev": {}, "test": {}}
    for qid, query in list(s.queries.items())[:limit]:
        for name, rank in ranks.items():
            ranking = rank_files(query, ServedRoot(os.fsencode(s.root), spec), paths, rank)
            ranked = [doc_of[p] for p in ranking.ordered if p in doc_of]
            out[half(qid)].setdefault(name, []).append(ndcg10(ranked, s.qrels.get(qid, {})))
    return out


def main() -> None:
    stage = 20 if "--stage" in sys.argv else 0
    numbers = [int(a) for a in sys.argv[1:] if a.isdigit()]
    limit = numbers[0] if numbers else None
    os.environ.setdefault("RRG_CACHE_DIR", str(OUT / "cache"))
    groups = [(name, [beir(name)]) for name in BEIR_SETS]
    groups.append(("swebench-lite", swebench_tasks()))
    groups += [(s.name, [s]) for s in swebench_repos()]
    wanted = [
        a
        for k, a in enumerate(sys.argv[1:], 1)
        if not a.startswith("--") and not a.isdigit() and sys.argv[k - 1] != "--set"
    ]
    groups = [(name, sets) for name, sets in groups if not wanted or name in wanted]
    order = ("default" if stage else "--fast") + (
        ", the files rg lists" if "--listed" in sys.argv else ""
    )
    print(f"code priors on the labelled sets, {order}; {machine()}\n")
    print("| set | half | queries | shipped | priors off | before | shipped - before |")
    print("|---|---|---|---|---|---|---|")
    for name, sets in groups:
        pooled: dict[str, dict[str, list[float]]] = {"dev": {}, "test": {}}
        for s in sets:
            for which, scores in evaluate(s, stage, limit).items():
                for setting, values in scores.items():
                    pooled[which].setdefault(setting, []).extend(values)
        for which in ("dev", "test"):
            got = pooled[which]
            if not got:
                continue
            on = mean(got["shipped"])
            n = len(got["shipped"])
            others = [k for k in got if "=" in k]
            if others:
                cells = f"{on:.3f} | " + ", ".join(
                    f"{k}: {mean(got[k]):.3f} ({mean(got[k]) - on:+.3f})" for k in others
                )
                cells += " | - | (variants)"
            elif "before" in got:
                off, before = mean(got["off"]), mean(got["before"])
                cells = f"{on:.3f} | {off:.3f} | {before:.3f} | {on - before:+.3f}"
            else:
                cells = f"{on:.3f} | - | - | -"
            print(f"| {name} | {which} | {n} | {cells} |")


if __name__ == "__main__":
    main()
