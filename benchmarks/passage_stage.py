"""The bounded transformer stage in the file order: a sweep on dev halves, figures on test
halves.

For each query: the cheap order (BM25 fused with static vectors, rrg's default), today's
`--cascade 20` (MiniLM on the head of the 20 best files), and the passage stage: the
passages of the K best files, the cheap tier picks P of them for MiniLM, each file's best
passage cosine (MaxP) joins its BM25 and static scores with weight W, and those K files are
re-ordered above the rest. Queries are split by the parity of the last number in their id:
constants are chosen on the odd (dev) half, figures quoted from the even (test) half.

Usage: python -m benchmarks.passage_stage [--path | --split | --top2 | --window | --head |
--title | --chosen] [QUERIES_PER_PROSE_SET [QUERIES_PER_CODE_SET]] (0 or none: every
query; writes out/passage_stage.md). Each mode sweeps W at the stage chosen before it, against one
alternative: --path, the path field's weight (out/path_field.md); --split, the paragraph
splitter before long lines were cut evenly (out/splitter.md); --top2, a file scored by the
mean of its two best passages' cosines instead of its best (out/top2.md); --window, each
passage read on into the text after it up to the model's 256 tokens, and the path read
above code files only (out/window.md); --head, each file's head (its first 2,400
characters, of which the model reads 256 tokens) added to its passages (out/head.md);
--title, each passage read under its file's first line as well as its path (out/title.md);
--chosen, none (out/chosen.md: cheap enough to run on every query of every set).
"""

from __future__ import annotations

import itertools
import os
import re
import sys
import time
from typing import Any

import numpy as np

from benchmarks.common import OUT, machine
from benchmarks.datasets import BEIR_SETS, LabelledSet, beir, swebench_repos, swebench_tasks
from benchmarks.definitions_cut import cut_definitions, is_code
from benchmarks.quality import ndcg10
from benchmarks.split_before import split_before
from rrg.index.served import ServedRoot
from rrg.model.encoder import Encoder
from rrg.model.registry import default_model
from rrg.rank.cheap import signals
from rrg.rank.paragraphs import Paragraph, split_paragraphs
from rrg.rank.passages import Cut, PassageScorer, score_passages
from rrg.rank.query import Query
from rrg.rank.scoring import fuse, order_by, staged_scores
from rrg.rank.tuning import TUNING

SWEEP_K: tuple[int, ...] = (20, 30)
SWEEP_EXTRA: tuple[int, ...] = (0, 12)  # P = K + extra
SWEEP_W = (2.0, 3.0, 4.0, 5.0, 6.0)  # 1.0 lost to 2.0 on every K and P in an earlier sweep
#: Dev means this close count as a tie, won by the stage that reads fewer passages.
TIE = 0.005
#: How a passage is read and cut: with or without its file's path above it; code cut at
#: blank lines (as prose) or at definitions (definitions_cut.py); " split0": cut at blank
#: lines by the splitter before long lines were cut evenly (split_before.py).
SWEEP_READ: tuple[str, ...] = ("", " path")
SWEEP_CUT: tuple[str, ...] = ("", " defs")
#: R, the weight of the path field's BM25 in the lexical signal (``lexical_signal``). The
#: whole sweep runs at rrg's own; ``--path`` sweeps R at the stage chosen before it, whose
#: configs are then named with " R<weight>".
SWEEP_PATH: tuple[float, ...] = (TUNING.path_weight,)
#: A file's model score: its best passage's cosine (""), or " top2": the mean of its two
#: best read (its best alone where the model read one).
SWEEP_POOL: tuple[str, ...] = ("",)
MODE = ""  # "" or one of MODES: see the usage above
#: Each mode's report, and the stage it is set against on the test half (the whole sweep's:
#: before the path and definition sweep; --path: before the path field; the others: the
#: alternative's own config, or the stage as it ships).
MODES = {
    "path": ("path_field.md", "K20+12 path W5 R0"),
    "split": ("splitter.md", "K20+12 path split0 W3"),
    "top2": ("top2.md", "K20+12 path top2 W3"),
    "window": ("window.md", "K20+12 path W3"),
    "head": ("head.md", "K20+12 path W3"),
    "title": ("title.md", "K20+12 path W3"),
    "chosen": ("chosen.md", "K20+12 path W3"),
}


def half(qid: str) -> str:
    digits = re.findall(r"\d+", qid)
    return "dev" if digits and int(digits[-1]) % 2 else "test"


def _cut_at_definitions(path_of: dict[str, str]) -> Cut:
    """Code cut at its definitions, told by the file's name (``path_of``: a text's path)."""
    return lambda text, _: cut_definitions(text, path_of[text])


def evaluate(s: LabelledSet, limit: int | None, memo: dict[str, np.ndarray]) -> dict[str, Any]:
    spec = default_model()
    encoder = Encoder(spec)
    root = os.fsencode(s.root)
    rel_by_doc = {d: os.fsencode(p) for d, p in s.doc_path.items()}
    view, _, _ = ServedRoot(root, spec).refresh(sorted(rel_by_doc.values()), lambda m: None, False)
    docs = list(s.doc_path)
    rows = view.rows_of([rel_by_doc[d] for d in docs])
    out: dict[str, dict[str, list[float]]] = {"dev": {}, "test": {}}

    def vectors_for(kind: str, keys: list[str], encode: object) -> dict[str, np.ndarray]:
        missing = sorted({k for k in keys if f"{kind}:{k}" not in memo})
        if missing:
            fresh = encode(missing)  # type: ignore[operator]
            memo.update((f"{kind}:{k}", v) for k, v in zip(missing, fresh, strict=True))
        return {k: memo[f"{kind}:{k}"] for k in keys}

    dense_docs = dense_vectors(s, encoder, docs)
    for qid, query in list(s.queries.items())[:limit]:
        gold = s.qrels[qid]
        row = out[half(qid)]
        # The baselines: BM25 of the text alone, and the order and cascade as they were
        # before the path field (R=0).
        lex, sem = signals(Query.of(query), view, encoder, path_weight=0.0)
        lex, sem = lex[rows], sem[rows]
        fused = fuse(lex, sem)
        order = order_by(fused)
        scores = {"bm25": lex, "rrg": fused}
        top = order[:20]
        head_text = {f"head:{docs[i]}": s.texts[docs[i]][:8192] for i in top}
        head_vecs = vectors_for(
            "head",
            list(head_text),
            lambda keys, texts=head_text: encoder.encode([texts[k] for k in keys], batch_size=4),
        )
        qvec = encoder.encode([query])[0]
        scores["dense"] = dense_docs @ qvec
        dense = np.array([head_vecs[f"head:{docs[i]}"] @ qvec for i in top])
        casc = fused.copy()
        casc[top] = staged_scores(lex[top], sem[top], dense, fused, 2.0)
        scores["cascade20"] = casc
        start = time.monotonic()
        for r in SWEEP_PATH:
            suffix = f" R{r:g}" if MODE == "path" else ""
            lex, _ = signals(Query.of(query), view, encoder, path_weight=r)
            lex = lex[rows]
            fused = fuse(lex, sem)
            order = order_by(fused)
            if MODE == "path":
                scores[f"rrg{suffix}"] = fused
            for k in SWEEP_K:
                chosen = order[:k]
                texts = [s.texts[docs[i]] for i in chosen]
                names = [s.doc_path[docs[i]] for i in chosen]
                for extra, read, cut in itertools.product(SWEEP_EXTRA, SWEEP_READ, SWEEP_CUT):
                    config = f"K{k}+{extra}{read}{cut}"
                    if cut == " defs" and not s.code:  # prose: cut at blank lines either way
                        for w in SWEEP_W:
                            scores[f"{config} W{w:g}{suffix}"] = scores[
                                f"K{k}+{extra}{read} W{w:g}{suffix}"
                            ]
                        continue
                    # The cutter tells code by the file's name, also where the passages are
                    # read without it.
                    path_of = dict(zip(texts, names, strict=True))
                    cuts: dict[str, Cut | None] = {
                        "": None,
                        " window": lambda text, _: in_context(text),
                        " head": lambda text, _: [
                            Paragraph(1, 1, text[:WINDOW_CHARS]),
                            *split_paragraphs(text),
                        ],
                        " title": lambda text, _: under_title(text),
                        " defs": _cut_at_definitions(path_of),
                        " split0": lambda text, _: split_before(text),
                    }
                    cutter = cuts[cut]
                    scorer = PassageScorer(encoder, view.piece_idf, vectors_for, k + extra, TUNING)
                    scored = score_passages(
                        Query.of(query), texts, scorer, read_names(names, read), cutter
                    )
                    for pool in SWEEP_POOL:
                        best = (
                            top_two_mean(scored.owners, scored.cosine, len(chosen))
                            if pool
                            else scored.best_per_file(len(chosen))
                        )
                        for w in SWEEP_W:
                            staged = fused.copy()
                            staged[chosen] = staged_scores(lex[chosen], sem[chosen], best, fused, w)
                            scores[f"{config}{pool} W{w:g}{suffix}"] = staged
        row.setdefault("seconds", []).append(time.monotonic() - start)
        for name, score in scores.items():
            ranked = [docs[i] for i in order_by(score)]
            row.setdefault(name, []).append(ndcg10(ranked, gold))
    return out


#: How much of a file the " window" cut hands on from a passage's start, and the " head"
#: cut from the file's (the model reads its first 256 tokens, about 1,000 characters of
#: prose).
WINDOW_CHARS = 2400


def in_context(text: str) -> list[Paragraph]:
    """Passages cut at blank lines, each read from its start on into the text after it:
    the model then reads 256 tokens of context wherever a passage is shorter, as the
    cascade reads a file's head, where a short document cut in two halves reads each alone."""
    out, at = [], 0
    for p in split_paragraphs(text):
        first = p.text.lstrip()[:40]
        found = text.find(first, at)
        at = found if found >= 0 else at
        out.append(Paragraph(p.start, p.end, text[at : at + WINDOW_CHARS]))
    return out


#: The longest first line read as a file's title above its other passages.
TITLE_CHARS = 200


def under_title(text: str) -> list[Paragraph]:
    """Passages cut at blank lines, each after the first read under the file's first line
    (a title where a document has one: passage retrieval encodes a passage with its
    document's title, since a paragraph from the middle of a text rarely names its topic)."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    passages = split_paragraphs(text)
    if not first or len(first) > TITLE_CHARS:
        return passages
    return [
        p if first in p.text else Paragraph(p.start, p.end, f"{first}\n{p.text}") for p in passages
    ]


def read_names(names: list[str], read: str) -> list[str] | None:
    """The paths read above each file's passages: every file's (" path"), a code file's only
    (" codepath": a prose file's name, often a number, is noise to the model), or none."""
    if read == " codepath":
        return [n if is_code(n) else "" for n in names]
    return names if read else None


def top_two_mean(owners: list[int], cosine: np.ndarray, files: int) -> np.ndarray:
    """Each file's mean of its two best cosines (its best alone where the model read one;
    NaN where it read none)."""
    read: dict[int, list[float]] = {}
    for owner, value in zip(owners, cosine, strict=True):
        if not np.isnan(value):
            read.setdefault(owner, []).append(float(value))
    out = np.full(files, np.nan)
    for owner, values in read.items():
        out[owner] = float(np.mean(sorted(values, reverse=True)[:2]))
    return out


def dense_vectors(s: LabelledSet, encoder: Encoder, docs: list[str]) -> np.ndarray:
    """MiniLM over every file (its first 256 tokens, as the cascade reads the top files):
    the baseline the stage is bounded against. About 13 files/s on 2 cores, so kept in
    out/dense-heads/ between runs."""
    path = OUT / "dense-heads" / f"{s.name}-{len(docs)}.npy"
    if path.exists():
        return np.load(path)
    vectors = encoder.encode([s.texts[d][:8192] for d in docs], batch_size=4)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def main() -> None:
    global SWEEP_K, SWEEP_EXTRA, SWEEP_READ, SWEEP_CUT, SWEEP_PATH, SWEEP_POOL, MODE
    modes = {f"--{mode}": mode for mode in MODES}
    args = [a for a in sys.argv[1:] if a not in modes]
    MODE = next((modes[a] for a in sys.argv[1:] if a in modes), "")
    if MODE:
        SWEEP_K, SWEEP_EXTRA, SWEEP_READ, SWEEP_CUT = (20,), (12,), (" path",), ("",)
    if MODE == "split":
        SWEEP_CUT = ("", " split0")
    if MODE == "path":
        SWEEP_PATH = (0.0, 0.5, 0.75, 1.0)
    if MODE == "top2":
        SWEEP_POOL = ("", " top2")
    if MODE == "window":
        SWEEP_READ, SWEEP_CUT = (" path", " codepath"), ("", " window")
    if MODE == "head":
        SWEEP_CUT = ("", " head")
    if MODE == "title":
        SWEEP_CUT = ("", " title")
    # 0 for either: every query of those sets.
    per_set = (int(args[0]) if args else 120) or None
    per_code_set = (int(args[1]) if len(args) > 1 else 0) or None
    os.environ["RRG_CACHE_DIR"] = str(OUT / "cache")
    groups: list[tuple[str, list[LabelledSet], int | None]] = [
        (name, [beir(name)], per_set) for name in BEIR_SETS
    ]
    groups.append(("swebench-lite", swebench_tasks(), per_code_set))
    groups += [(s.name, [s], per_code_set) for s in swebench_repos()]
    results: dict[str, dict[str, dict[str, float]]] = {}
    per_query: dict[str, dict[str, list[float]]] = {}  # test half: each query's nDCG@10
    counts: dict[str, dict[str, int]] = {}
    for name, sets, limit in groups:
        memo: dict[str, np.ndarray] = {}
        merged: dict[str, dict[str, list[float]]] = {"dev": {}, "test": {}}
        for s in sets:
            part = evaluate(s, limit, memo)
            for h in ("dev", "test"):
                for key, values in part[h].items():
                    merged[h].setdefault(key, []).extend(values)
        results[name] = {h: {k: float(np.mean(v)) for k, v in merged[h].items()} for h in merged}
        per_query[name] = merged["test"]
        counts[name] = {h: len(merged[h].get("rrg", [])) for h in merged}
        print(name, counts[name], {k: round(v, 3) for k, v in results[name]["dev"].items()})
        sys.stdout.flush()
    write_report(results, counts, per_query)


def passages_read(config: str) -> int:
    """P of a stage config named like "K20+12 path W4": the model's passages a query."""
    k, extra = re.match(r"K(\d+)\+(\d+)", config).groups()  # type: ignore[union-attr]
    return int(k) + int(extra)


BASELINES = ("bm25", "dense", "rrg", "cascade20")
#: The tags of configs that differ from the shipped stage in more than a constant.
ALTERNATIVES = (" top2", " window", " codepath", " head", " title")


def paired_interval(a: list[float], b: list[float], rounds: int = 10_000) -> tuple[float, float]:
    """95% bootstrap interval of mean(a - b) over the same queries, resampled in pairs."""
    diff = np.asarray(a) - np.asarray(b)
    rng = np.random.default_rng(0)
    means = diff[rng.integers(0, len(diff), (rounds, len(diff)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def pooled_gaps(
    chosen: str, names: list[str], per_query: dict[str, dict[str, list[float]]]
) -> list[str]:
    """The chosen stage against each baseline over the test queries of several sets at
    once, each query one draw: a set's best baseline is picked after the fact from four
    noisy means, which favours it; one baseline over all the queries is not."""
    groups = {
        "the prose sets": [n for n in names if n in BEIR_SETS],
        "every set": names,
    }
    lines = [
        "",
        f"Pooled test queries, {chosen} - baseline (95% paired bootstrap):",
        "",
        "| baseline | " + " | ".join(f"{g}" for g in groups) + " |",
        "|---|" + "---|" * len(groups),
    ]
    for baseline in BASELINES:
        cells = []
        for members in groups.values():
            ours = [x for n in members for x in per_query[n].get(chosen, [])]
            theirs = [x for n in members for x in per_query[n].get(baseline, [])]
            if not ours or len(ours) != len(theirs):
                cells.append("(no test query)")
                continue
            low, high = paired_interval(ours, theirs)
            gap = float(np.mean(ours) - np.mean(theirs))
            cells.append(f"{gap:+.3f} [{low:+.3f}, {high:+.3f}] ({len(ours)} queries)")
        lines.append(f"| {baseline} | {' | '.join(cells)} |")
    return lines


def write_report(
    results: dict[str, Any], counts: dict[str, Any], per_query: dict[str, Any]
) -> None:
    names = list(results)
    configs = [k for k in results[names[0]]["dev"] if k != "seconds"]
    nan = float("nan")
    dev_mean = {
        c: float(np.nanmean([results[n]["dev"].get(c, nan) for n in names])) for c in configs
    }
    staged = [c for c in configs if c.startswith("K")]
    if MODE == "split":  # the splitter as it is now, its W chosen; the one before beside it
        staged = [c for c in staged if "split0" not in c]
    best = max(dev_mean[c] for c in staged)
    chosen = min(
        (c for c in staged if dev_mean[c] >= best - TIE),
        key=lambda c: (passages_read(c), -dev_mean[c]),
    )
    if MODE in ("top2", "window", "head", "title"):
        # The stage as it ships stays unless an alternative beats it past a tie: at equal
        # passages read, the tie rule alone would hand a tie to either on the noise.
        shipped = max(
            (c for c in staged if not any(tag in c for tag in ALTERNATIVES)),
            key=lambda c: dev_mean[c],
        )
        chosen = chosen if dev_mean[chosen] > dev_mean[shipped] + TIE else shipped
    lines = [
        f"Machine: {machine()}. nDCG@10 of the file order. Dev half: the sweep; the chosen "
        f"stage ({chosen}: the fewest passages among configs within {TIE} of the best mean "
        "over the sets on dev) is quoted on the test half.",
        "",
        "Dev half (odd query ids):",
        "",
        "| config | " + " | ".join(f"{n} ({counts[n]['dev']})" for n in names) + " | mean |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    for c in configs:
        cells = " | ".join(f"{results[n]['dev'].get(c, nan):.3f}" for n in names)
        lines.append(f"| {c} | {cells} | {dev_mean[c]:.3f} |")
    lines += [
        "",
        "Test half (even query ids):",
        "",
        "| config | " + " | ".join(f"{n} ({counts[n]['test']})" for n in names) + " | mean |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    report, before = MODES.get(MODE, ("passage_stage.md", "K20+12 W3"))
    extra = [f"rrg R{r:g}" for r in SWEEP_PATH] if MODE == "path" else []
    for c in dict.fromkeys(("bm25", "dense", "rrg", "cascade20", *extra, before, chosen)):
        cells = " | ".join(f"{results[n]['test'].get(c, nan):.3f}" for n in names)
        mean = float(np.nanmean([results[n]["test"].get(c, nan) for n in names]))
        lines.append(f"| {c} | {cells} | {mean:.3f} |")
    secs = " | ".join(f"{results[n]['test'].get('seconds', nan):.2f}" for n in names)
    lines.append(f"| (seconds a query, whole sweep, memo warm across configs) | {secs} | |")
    # How far the chosen stage lies from each set's best baseline, beyond the luck of which
    # queries fell in the test half.
    gaps = []
    for n in names:
        if not per_query[n].get(chosen):  # so few queries that none fell in this half
            gaps.append("(no test query)")
            continue
        baseline = max(BASELINES, key=lambda b: results[n]["test"].get(b, -1.0))
        low, high = paired_interval(per_query[n][chosen], per_query[n][baseline])
        gap = results[n]["test"][chosen] - results[n]["test"][baseline]
        gaps.append(f"{gap:+.3f} vs {baseline} [{low:+.3f}, {high:+.3f}]")
    lines.append(f"| {chosen} - best baseline (95% paired bootstrap) | {' | '.join(gaps)} | |")
    lines += pooled_gaps(chosen, names, per_query)
    (OUT / report).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
