"""rrg on semble's code-search benchmark (../shared/data/semble-code), in one process: file
NDCG@10 (semble's file-level metric, from its score.py) of the cheap order (``--fast``) and,
with ``--stage``, the default order, under each setting of the code priors, per repository,
with the dev half (repositories at even places in name order) and the test half apart, and
the published figures beside them. Times a query are not measured here: score.py runs the
real command in a fresh process for those.

Run: python -m benchmarks.semble_code DATA [--sweep] [--stage] [--stage-sweep] [--plain]
[--stage-budget] [--paragraphs] [--passage-words] [NAME ...]
DATA: the OUT folder of ../shared/data/semble-code/materialize.py (corpora built from the
fetched snapshots). --sweep: every setting of the sweep (else the shipped constants);
--stage-sweep: the stage's own choices (when it is skipped, passage tokens), default order;
--stage-budget: the model's work in the stage (tokens of code passages, passages in all);
--plain: also the order with the priors off; --paragraphs: also code cut at blank lines
instead of its definitions (with --stage: what the model reads); --passage-words: the cheap
order's passage signal off and at each weight, head and window. DATA may be built whole
(``materialize.py --whole``): the priors for whole repositories are swept there. The
"half" column counts places within DATA: with a folder of one half, read it as that half.
About a minute for the
cheap order over 20 repositories, ten with --stage.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import mean

import numpy as np

from benchmarks.common import OUT, SHARED_DATA, machine, rg
from rrg.model.registry import default_model
from rrg.rank import code_order, code_passages, code_priors, files, passage_lexical, passages
from rrg.rank.files import RankSettings, rank_files
from rrg.rank.scoring import LEXICAL_WEIGHT, order_by, zscore

SEMBLE = SHARED_DATA / "semble-code"
PUBLISHED = ("semble", "semble_v2", "cre_hybrid", "colgrep", "ck")


def _metric() -> object:
    spec = importlib.util.spec_from_file_location("semble_score", SEMBLE / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCORE = _metric()
SHIPPED = {
    name: getattr(code_priors, name)
    for name in (
        "DEFINITION_WEIGHT",
        "EMBEDDED_SCALE",
        "STEM_WEIGHT",
        "PATH_PENALTY",
        "CODE_TREE_SHARE",
        "PROSE_PENALTY",
    )
}
#: The priors off: no offsets, and no tree counts as code (a share above 1).
OFF = {**dict.fromkeys(SHIPPED, 0.0), "CODE_TREE_SHARE": 2.0}


def sweep() -> dict[str, dict[str, float]]:
    """One constant at a time around the shipped point, and the priors off."""
    out = {"shipped": dict(SHIPPED), "off": dict(OFF)}
    grid = {
        "DEFINITION_WEIGHT": (0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0),
        "EMBEDDED_SCALE": (0.0, 0.25, 0.5, 1.0),
        "STEM_WEIGHT": (0.0, 1.0, 2.0, 3.0, 4.0),
        "PATH_PENALTY": (0.0, 1.0, 2.0, 3.0, 4.0, 5.0),
        # 2: prose never a secondary file (the rule off)
        "CODE_TREE_SHARE": (0.02, 0.05, 0.1, 0.2, 0.5, 2.0),
        "PROSE_PENALTY": (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0),
    }
    for name, values in grid.items():
        for value in values:
            if value != SHIPPED[name]:
                out[f"{name}={value:g}"] = {**SHIPPED, name: value}
    return out


#: The modules whose constants a setting may name ("NAME" alone: the code priors).
MODULES = {
    "priors": code_priors,
    "passages": code_passages,
    "order": code_order,
    "stage": passages,
    "passage_lexical": passage_lexical,
    "files": files,
}


def rank_fusion(k: int) -> Callable[..., np.ndarray]:
    """Reciprocal rank fusion of the lexical and static lists (issue 35's trial against the
    z-score fusion), each list weighted as ``fuse`` weighs it, the sum then z-scored so that
    the priors' offsets keep their units."""

    def fuse(lexical: np.ndarray, semantic: np.ndarray, lexical_weight: float = LEXICAL_WEIGHT):
        def ranks(values: np.ndarray) -> np.ndarray:
            out = np.empty(len(values))
            out[order_by(values)] = np.arange(len(values))
            return out

        fused = lexical_weight / (k + 1 + ranks(lexical))
        fused += (1 - lexical_weight) / (k + 1 + ranks(semantic))
        return np.round(zscore(fused), 9)

    return fuse


def stage_sweep() -> dict[str, dict[str, float]]:
    """The cheaper stage's choices (issue 28, item 4), each beside the shipped point: when
    the cheap tier's definition hit skips the stage, and how many tokens a passage is read
    to."""
    out = {"shipped": dict(SHIPPED)}
    for definers in (0, 1, 2, 3):
        if definers != code_order.DECISIVE_DEFINERS:
            out[f"DECISIVE_DEFINERS={definers}"] = {
                **SHIPPED,
                "order.DECISIVE_DEFINERS": definers,
            }
    for tokens in (128, 192, 256):
        if tokens != passages.PASSAGE_TOKENS:
            out[f"PASSAGE_TOKENS={tokens}"] = {**SHIPPED, "stage.PASSAGE_TOKENS": tokens}
    return out


def stage_budget() -> dict[str, dict[str, float]]:
    """The model's work in the stage (issue 35's latency): how many tokens of a passage of
    code it reads and how many passages in all, each beside the shipped point. A new
    query's time is mostly these runs of the model (passages x tokens)."""
    out = {"shipped": dict(SHIPPED)}
    for tokens in (64, 96):
        out[f"CODE_PASSAGE_TOKENS={tokens}"] = {**SHIPPED, "stage.CODE_PASSAGE_TOKENS": tokens}
    for budget in (20, 24):
        out[f"STAGE_PASSAGES={budget}"] = {**SHIPPED, "files.STAGE_PASSAGES": budget}
    for budget, tokens in ((40, 64), (36, 96), (40, 96), (48, 96)):
        out[f"STAGE_PASSAGES={budget}, CODE_PASSAGE_TOKENS={tokens}"] = {
            **SHIPPED,
            "files.STAGE_PASSAGES": budget,
            "stage.CODE_PASSAGE_TOKENS": tokens,
        }
    return out


@contextmanager
def constants(values: dict[str, float]) -> Iterator[None]:
    """The settings' constants in place while the block runs: ``NAME`` of the code priors,
    or ``passages.NAME`` of the code passages."""
    targets = {}
    for key in values:
        module, _, name = key.rpartition(".")
        targets[key] = (MODULES[module or "priors"], name)
    saved = {key: getattr(mod, name) for key, (mod, name) in targets.items()}
    for key, value in values.items():
        mod, name = targets[key]
        setattr(mod, name, value)
    try:
        yield
    finally:
        for key, value in saved.items():
            mod, name = targets[key]
            setattr(mod, name, value)


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


def evaluate(
    repo: Path, settings: dict[str, dict[str, float]], stage: int
) -> dict[str, list[float]]:
    """Each setting's per-query NDCG@10 on one repository."""
    corpus = (repo / "corpus").resolve()
    os.chdir(corpus)
    printed = subprocess.run([rg(), "--files"], capture_output=True, check=True).stdout
    paths = sorted(printed.splitlines())
    spec = default_model()
    rank = RankSettings(spec, stage, lambda message: None)
    root = os.fsencode(corpus)
    scores: dict[str, list[float]] = {name: [] for name in settings}
    for _, query, labels in queries(repo):
        for name, values in settings.items():
            with constants(values):
                ranking = rank_files(query, root, paths, rank)
            files = [os.fsdecode(p) for p in ranking.ordered[:10]]
            scores[name].append(SCORE.ndcg10(files, labels))  # type: ignore[attr-defined]
    return scores


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    data, names = Path(args[0]).resolve(), args[1:]
    os.environ.setdefault("RRG_CACHE_DIR", str(OUT / "cache-semble"))
    settings = sweep() if "--sweep" in sys.argv else {"shipped": dict(SHIPPED)}
    if "--stage-sweep" in sys.argv:
        settings = stage_sweep()
    if "--stage-budget" in sys.argv:
        settings = stage_budget()
    if "--plain" in sys.argv:
        settings["off"] = dict(OFF)
    if "--passage-words" in sys.argv:  # the passage signal's weight, head and window
        settings["passage words off"] = {**SHIPPED, "passage_lexical.WEIGHT": 0.0}
        for weight in (0.25, 0.5, 0.75, 1.0):
            for head in (100, 200):
                settings[f"passage words {weight:g} x{head}"] = {
                    **SHIPPED,
                    "passage_lexical.WEIGHT": weight,
                    "passage_lexical.HEAD_FILES": head,
                }
        for window in (600, 2400):
            settings[f"passage words window {window}"] = {
                **SHIPPED,
                "passage_lexical.WINDOW": window,
            }
    if "--fusion" in sys.argv:  # reciprocal rank fusion against the z-scores
        for k in (10, 60):
            settings[f"rank fusion k={k}"] = {**SHIPPED, "files.fuse": rank_fusion(k)}  # type: ignore[dict-item]
    if "--paragraphs" in sys.argv:  # the priors as shipped, code cut at blank lines
        settings["blank-line passages"] = {**SHIPPED, "passages.ENABLED": False}
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
