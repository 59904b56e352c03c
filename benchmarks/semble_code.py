"""rrg on semble's code-search benchmark (../shared/data/semble-code), in one process: file
NDCG@10 (semble's file-level metric, from its score.py) of the cheap order (``--fast``) and,
with ``--stage``, the default order, under each setting of the code priors, per repository,
with the dev half (repositories at even places in name order) and the test half apart, and
the published figures beside them. Times a query are not measured here: score.py runs the
real command in a fresh process for those.

Run: python -m benchmarks.semble_code DATA [--sweep] [--stage] [--stage-sweep] [--plain]
[--stage-budget] [--paragraphs] [--passage-words] [--passage-tier]
[--set FIELD=VALUE[,...]]... [--by-form] [NAME ...]
DATA: the OUT folder of ../shared/data/semble-code/materialize.py (corpora built from the
fetched snapshots). --sweep: every setting of the sweep (else the shipped constants);
--stage-sweep: the stage's own choices (passage tokens), default
order; --stage-budget: the model's work in the stage (tokens of code passages, passages in
all); --plain: also the order with the priors off; --paragraphs: also code cut at blank
lines instead of its definitions (with --stage: what the model reads); --passage-words:
the cheap order's passage signal off and at each weight, head and window; --passage-tier:
the passage tier off, at each share and head; --set: a variant of the shipped point
(fields of Tuning, or stage_files: the files the default order's stage re-orders), beside
it; --by-form: both orders at the shipped point, by the query's form (symbol, names in a
sentence, plain). Each setting is a variant of ``rrg.rank.tuning.TUNING``
(``dataclasses.replace``) passed in RankSettings: nothing is patched. DATA may be built
whole (``materialize.py --whole``): the priors for whole repositories are swept there. The
"half" column counts places within DATA: with a folder of one half, read it as that half.
About a minute for the cheap order over 20 repositories, ten with --stage.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from statistics import mean

from benchmarks.common import OUT, SHARED_DATA, machine, needs_arguments, rg
from rrg.index.served import ServedRoot
from rrg.model.registry import default_model
from rrg.rank.code_priors import query_form
from rrg.rank.files import RankSettings, rank_files
from rrg.rank.tuning import TUNING

SEMBLE = SHARED_DATA / "semble-code"
PUBLISHED = ("semble", "semble_v2", "cre_hybrid", "colgrep", "ck")


def _metric() -> object:
    spec = importlib.util.spec_from_file_location("semble_score", SEMBLE / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCORE = _metric()
#: A setting: the fields of ``rrg.rank.tuning.Tuning`` it changes from the shipped point.
Setting = dict[str, float]
#: The code priors' weights, as shipped.
PRIORS = (
    "definition_weight",
    "in_sentence_scale",
    "stem_weight",
    "path_penalty",
    "code_tree_share",
    "prose_penalty",
)
SHIPPED: Setting = {}
#: The priors off: no offsets, and no tree counts as code (a share above 1).
OFF: Setting = {**dict.fromkeys(PRIORS, 0.0), "code_tree_share": 2.0}


def sweep() -> dict[str, Setting]:
    """One constant at a time around the shipped point, and the priors off."""
    out = {"shipped": SHIPPED, "off": OFF}
    grid = {
        "definition_weight": (0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0),
        "in_sentence_scale": (0.0, 0.25, 0.5, 1.0),
        "stem_weight": (0.0, 1.0, 2.0, 3.0, 4.0),
        "path_penalty": (0.0, 1.0, 2.0, 3.0, 4.0, 5.0),
        # 2: prose never a secondary file (the rule off)
        "code_tree_share": (0.02, 0.05, 0.1, 0.2, 0.5, 2.0),
        "prose_penalty": (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0),
    }
    for name, values in grid.items():
        for value in values:
            if value != getattr(TUNING, name):
                out[f"{name}={value:g}"] = {name: value}
    return out


# Reciprocal rank fusion of the lexical and static lists was tried against the z-score
# fusion (issue 35: dev .756 / .727 at k=60 against .766 / .739) and lost; its trial
# (--fusion) patched the fusion function and went with the patching: run it from 8f976d1.


def stage_sweep() -> dict[str, Setting]:
    """The cheaper stage's choices (issue 28, item 4), each beside the shipped point: how
    many tokens a passage is read to. (Which symbol queries skip the stage was swept here as
    ``decisive_definers``; every one does now: code_order.skips_stage.)"""
    out: dict[str, Setting] = {"shipped": SHIPPED}
    for tokens in (128, 192, 256):
        if tokens != TUNING.passage_tokens:
            out[f"passage_tokens={tokens}"] = {"passage_tokens": tokens}
    return out


def stage_budget() -> dict[str, Setting]:
    """The model's work in the stage (issue 35's latency): how many tokens of a passage of
    code it reads and how many passages in all, each beside the shipped point. A new
    query's time is mostly these runs of the model (passages x tokens)."""
    out: dict[str, Setting] = {"shipped": SHIPPED}
    for tokens in (64, 96, 128):
        if tokens != TUNING.code_passage_tokens:
            out[f"code_passage_tokens={tokens}"] = {"code_passage_tokens": tokens}
    for budget in (20, 24):
        out[f"stage_passages={budget}"] = {"stage_passages": budget}
    for budget, tokens in ((40, 64), (36, 96), (40, 96), (48, 96)):
        out[f"stage_passages={budget}, code_passage_tokens={tokens}"] = {
            "stage_passages": budget,
            "code_passage_tokens": tokens,
        }
    return out


def queries(repo: Path) -> list[tuple[str, str, list[str]]]:
    labels: dict[str, list[str]] = {}
    for line in (repo / "qrels.tsv").read_text().splitlines():
        qid, path, _ = line.split("\t")
        labels.setdefault(qid, []).append(path)
    out = []
    for line in (repo / "queries.jsonl").read_text().splitlines():
        q = json.loads(line)
        out.append((q["qid"], q["query"], labels.get(q["qid"], [])))
    return out


def rank_settings(values: Setting, stage: int) -> RankSettings:
    """A setting as the ranking takes it: ``stage_files`` (the files the stage re-orders,
    ``--cascade``; with the default order only) is the ranking's, the rest the Tuning's."""
    tuning = {k: v for k, v in values.items() if k != "stage_files"}
    files = int(values.get("stage_files", stage)) if stage else 0
    # A Setting's values are numbers; each field's own type is Tuning's to check when built.
    changed = replace(TUNING, **tuning)  # type: ignore[arg-type]
    return RankSettings(files, lambda message: None, tuning=changed)


def corpus_files(repo: Path) -> tuple[bytes, list[bytes]]:
    """A corpus's root, made the working folder (the paths are rg's, relative to it), and
    its files as rg lists them, sorted."""
    corpus = (repo / "corpus").resolve()
    os.chdir(corpus)
    printed = subprocess.run([rg(), "--files"], capture_output=True, check=True).stdout
    return os.fsencode(corpus), sorted(printed.splitlines())


def evaluate(repo: Path, settings: dict[str, Setting], stage: int) -> dict[str, list[float]]:
    """Each setting's per-query NDCG@10 on one repository."""
    root, paths = corpus_files(repo)
    spec = default_model()
    ranks = {name: rank_settings(values, stage) for name, values in settings.items()}
    scores: dict[str, list[float]] = {name: [] for name in settings}
    for _, query, labels in queries(repo):
        for name, rank in ranks.items():
            ranking = rank_files(query, ServedRoot(root, spec), paths, rank)
            files = [os.fsdecode(p) for p in ranking.ordered[:10]]
            scores[name].append(SCORE.ndcg10(files, labels))  # type: ignore[attr-defined]
    return scores


def by_form(data: Path, names: list[str]) -> None:
    """File NDCG@10 of both orders, shipped point, by the query's form (a symbol, names in
    a sentence, a plain question): where the stage earns its time."""
    orders = {"--fast": 0, "default": 20}
    scores: dict[str, dict[str, list[float]]] = {}
    for name in names:
        forms = [query_form(query) for _, query, _ in queries(data / name)]
        kinds = [
            "symbol" if f.symbol else "names in a sentence" if f.names else "plain" for f in forms
        ]
        for order, stage in orders.items():
            got = evaluate(data / name, {"shipped": SHIPPED}, stage)["shipped"]
            for kind, score in zip(kinds, got, strict=True):
                scores.setdefault(kind, {}).setdefault(order, []).append(score)
    print(f"semble-code by query form, {len(names)} repositories; {machine()}\n")
    print("| form | queries | " + " | ".join(orders) + " |\n|---|---|---|---|")
    for kind, by_order in scores.items():
        cells = " | ".join(f"{mean(by_order[order]):.3f}" for order in orders)
        print(f"| {kind} | {len(by_order['default'])} | {cells} |")


def main() -> None:
    needs_arguments(1, __doc__)
    args = [
        a
        for k, a in enumerate(sys.argv[1:], 1)
        if not a.startswith("--") and sys.argv[k - 1] != "--set"
    ]
    data, names = Path(args[0]).resolve(), args[1:]
    os.environ.setdefault("RRG_CACHE_DIR", str(OUT / "cache-semble"))
    if "--by-form" in sys.argv:
        every = sorted(p.name for p in data.iterdir() if (p / "qrels.tsv").is_file())
        return by_form(data, names or every)
    settings = sweep() if "--sweep" in sys.argv else {"shipped": SHIPPED}
    if "--stage-sweep" in sys.argv:
        settings = stage_sweep()
    if "--stage-budget" in sys.argv:
        settings = stage_budget()
    if "--plain" in sys.argv:
        settings["off"] = OFF
    if "--passage-words" in sys.argv:  # the passage signal's weight, head and window
        settings["passage words off"] = {"passage_words_weight": 0.0}
        for weight in (0.25, 0.5, 0.75, 1.0):
            for head in (100, 200):
                settings[f"passage words {weight:g} x{head}"] = {
                    "passage_words_weight": weight,
                    "passage_words_files": head,
                }
        for window in (600, 2400):
            settings[f"passage words window {window}"] = {"passage_words_window": window}
    if "--passage-tier" in sys.argv:  # the passage tier's share and the files it reads
        settings["passage tier off"] = {"passage_tier_weight": 0.0}
        for weight in (0.35, 0.5, 0.65, 0.8):
            if weight != TUNING.passage_tier_weight:
                settings[f"passage tier {weight:g}"] = {"passage_tier_weight": weight}
        for files in (50, 100, 200):
            if files != TUNING.passage_tier_files:
                settings[f"passage tier x{files}"] = {"passage_tier_files": files}
    for k, arg in enumerate(sys.argv):  # --set FIELD=VALUE[,FIELD=VALUE]: one variant each
        if arg == "--set":
            pairs = [item.partition("=") for item in sys.argv[k + 1].split(",")]
            settings[sys.argv[k + 1]] = {
                name: int(value) if value.isdigit() else float(value) for name, _, value in pairs
            }
    if "--paragraphs" in sys.argv:  # the priors as shipped, code cut at blank lines
        settings["blank-line passages"] = {"code_passages": False}
    stage = 20 if {"--stage", "--stage-sweep", "--stage-budget"} & set(sys.argv) else 0
    published = json.loads((SEMBLE / "published.json").read_text())
    repos = sorted(p.name for p in data.iterdir() if (p / "qrels.tsv").is_file())
    half = {name: ("dev" if k % 2 == 0 else "test") for k, name in enumerate(repos)}
    per_repo = {
        name: {s: mean(v) for s, v in evaluate(data / name, settings, stage).items()}
        for name in repos
        if not names or name in names
    }
    order = "default (stage)" if stage else "--fast"
    print(f"semble-code, {len(per_repo)} repositories, rrg {order}; {machine()}\n")
    cols = list(settings)
    print("| repo | half | " + " | ".join(cols) + " | " + " | ".join(PUBLISHED) + " |")
    print("|---" * (2 + len(cols) + len(PUBLISHED)) + "|")
    for name, got in per_repo.items():
        theirs = [published[tool].get(name) for tool in PUBLISHED]
        cells = [f"{got[s]:.3f}" for s in cols] + [f"{v:.3f}" if v else "-" for v in theirs]
        print(f"| {name} | {half[name]} | " + " | ".join(cells) + " |")
    for which in ("dev", "test"):
        members = [n for n in per_repo if half[n] == which]
        if not members:
            continue
        ours = [f"**{mean(per_repo[n][s] for n in members):.3f}**" for s in cols]
        theirs = []
        for tool in PUBLISHED:
            values = [published[tool].get(n) for n in members]
            theirs.append(f"{mean(values):.3f}" if all(values) else "-")
        print(f"| {which} mean ({len(members)}) | | " + " | ".join(ours + theirs) + " |")


if __name__ == "__main__":
    main()
