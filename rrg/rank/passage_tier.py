"""The passage tier: the head of a file order read again as passages, the passages ranked
against each other, and the files of the best ones fused back into the order by rank.

A file order weighs whole files; a question is answered by a passage. Here the passages of
the order's ``passage_tier_files`` best files (cut as the stage cuts them: code at its
definitions, prose in blocks) are ranked by reciprocal rank fusion of their BM25 and their
static cosine; a passage that defines an identifier the query names, or whose file's path
holds the query's words, rises; a file with several strong passages lifts its best one; tests,
examples, docs and the other secondary kinds sink. The files in the order of their best
passages are then fused with the order they came from, again by rank.

The structure is semble's (``src/semble/search.py``, ``ranking/boosting.py``,
``ranking/penalties.py``: chunk scores fused by rank, the definition and stem boosts at
chunk level, the multi-chunk file boost, path penalties), written for rrg's passages and
priors; its constants are semble's published points, not swept here. What was swept (the
tier's weight in the final fusion and the files it reads) is in ``rrg.rank.tuning``.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from rrg.index.definitions import TYPE_PARAMETERS, keywordless_names
from rrg.index.served import ServedRoot
from rrg.index.view import IndexView
from rrg.rank import code_priors as priors
from rrg.rank.abbreviations import abbreviating
from rrg.rank.head_passages import files_within, passages_of, stage_scorer
from rrg.rank.passages import ScoredPassages, passage_name
from rrg.rank.query import Query
from rrg.rank.tuning import Tuning

#: Reciprocal rank fusion's constant (1 / (K + rank)), here and in the final fusion.
RRF_K = 60
#: Weight of the static list against the lexical one: a symbol query leans on exact words.
STATIC_SHARE = 0.5
STATIC_SHARE_SYMBOL = 0.3
#: A file's best passage gains this share of the best score, scaled by the file's summed
#: passage score against the best file's.
COHERENCE = 0.2
#: A passage that defines the identifier a query is gains this many best scores (half for
#: identifiers inside a sentence), half as much again where its file is named after it.
DEFINITION = 3.0
IN_SENTENCE = 0.5
NAMED_FILE = 1.5
#: A passage whose file's stem and folder hold the query's words gains the best score times
#: their share.
STEM = 1.0
#: A passage's score is multiplied by this for each kind of secondary file its path shows
#: (tests, examples, docs folders, changelogs...: ``code_priors.secondary_kinds``). A page of
#: prose by its extension is not one here: the order it fuses with weighs that already, and
#: sinking it here too changed nothing on the dev half whole (--fast .776 / .777, default
#: .800 / .798) while it put a note that answers below code that mentions the words.
SECONDARY = 0.3
#: Words that open a definition, in the languages the benchmarks hold and their kin.
_DEFINING = (
    "class struct interface trait enum type typedef def defmodule fn fun func function"
    " module object protocol record namespace package"
).split()


def tier_fused_order(
    query: Query,
    served: ServedRoot,
    view: IndexView,
    cand_rows: np.ndarray,
    by_score: np.ndarray,
    pieces: np.ndarray,
    tuning: Tuning,
) -> tuple[np.ndarray, np.ndarray, ScoredPassages]:
    """A query's third step in a tree of code: the candidates' order (``by_score``, indices
    into ``cand_rows``) with its head fused with this tier's order of the same files; the
    head's files (indices into ``cand_rows``) and their passages as the tier scored them."""
    head = by_score[: tuning.passage_tier_files]
    head = head[: files_within(view.doclen[cand_rows[head]], tuning.passage_words)]
    rel = [view.path(int(cand_rows[k])) for k in head]
    scorer = stage_scorer(served, view.piece_idf, 0, tuning)
    scored = passages_of(query, served.root, rel, scorer, pieces)
    names = [passage_name(served.root, path) for path in rel]
    tier = tier_order(
        query, names, scored, among_code=True, abbreviation=tuning.abbreviation_weight
    )
    fused = fuse_orders(list(range(len(head))), tier, tuning.passage_tier_weight)
    return np.concatenate([head[fused], by_score[len(head) :]]), head, scored


def tier_order(
    query: Query,
    names: list[str],
    scored: ScoredPassages,
    among_code: bool,
    abbreviation: float = 0.0,
) -> list[int]:
    """The files (indices into ``names``, their paths) in the order of their best passage,
    the passages ranked as the module says; files with no passage are left out. A passage
    that defines a name abbreviating the query's words (``rrg.rank.abbreviations``) gains
    ``abbreviation`` best scores."""
    owners = np.asarray(scored.owners, np.int64)
    if not len(owners):
        return []
    form = query.form
    share = STATIC_SHARE_SYMBOL if form.symbol else STATIC_SHARE
    score = (1 - share) * _reciprocal_ranks(scored.lexical, positive_only=True)
    if scored.static is not None:
        score += share * _reciprocal_ranks(scored.static, positive_only=False)
    _lift_best_of_strong_files(score, owners, len(names))
    best = float(score.max())
    if form.names:
        unit = best * DEFINITION * (1.0 if form.symbol else IN_SENTENCE)
        for k, paragraph in enumerate(scored.paragraphs):
            path = names[owners[k]]
            defined = [n for n in form.names if _defines(paragraph.text, n, path)]
            if defined:
                stem = priors.file_stem(path).lower()
                named = any(priors.stem_is(stem, n) for n in defined)
                score[k] += unit * (NAMED_FILE if named else 1.0)
    if abbreviation:
        score[abbreviating(query, names, scored.owners, scored.paragraphs)] += best * abbreviation
    factor = np.ones(len(names))
    stem_gain = np.zeros(len(names))
    older = priors.superseded_versions(names, form.words)
    for f, path in enumerate(names):
        kinds = priors.secondary_kinds(path, form.asks_for, among_code, older)
        factor[f] = SECONDARY**kinds
        if not form.symbol:
            stem_gain[f] = priors.stem_share(form.words, priors.stem_words(path))
    score += best * STEM * stem_gain[owners]
    score *= factor[owners]
    file_best = np.full(len(names), -np.inf)
    np.maximum.at(file_best, owners, score)
    held = np.flatnonzero(np.isfinite(file_best))
    return held[np.argsort(-file_best[held], kind="stable")].tolist()


def fuse_orders(order: list[int], tier: list[int], weight: float) -> list[int]:
    """``order`` re-ordered by reciprocal rank fusion with ``tier`` (a ranking of some of
    its members), ``weight`` the tier's share."""
    at_tier = {f: r for r, f in enumerate(tier)}
    scores = [
        (1 - weight) / (RRF_K + r) + (weight / (RRF_K + at_tier[f]) if f in at_tier else 0.0)
        for r, f in enumerate(order)
    ]
    ranked = sorted(range(len(order)), key=lambda r: (-scores[r], r))
    return [order[r] for r in ranked]


def _reciprocal_ranks(values: np.ndarray | None, positive_only: bool) -> np.ndarray:
    """1 / (K + rank) of each value, best first (ties in passage order); 0 for the values
    that are not positive where ``positive_only`` (a passage with no query word is not in
    the lexical list at all)."""
    if values is None:
        return np.zeros(0)
    out = np.zeros(len(values))
    order = np.argsort(-np.asarray(values, np.float64), kind="stable")
    out[order] = 1.0 / (RRF_K + 1 + np.arange(len(values)))
    if positive_only:
        out[np.asarray(values) <= 0] = 0.0
    return out


def _lift_best_of_strong_files(score: np.ndarray, owners: np.ndarray, files: int) -> None:
    best = float(score.max())
    if best <= 0:
        return
    file_sum = np.bincount(owners, weights=score, minlength=files)
    top = np.full(files, -1)
    for k in np.argsort(score, kind="stable"):  # ascending: the best of a file last
        top[owners[k]] = k
    has = top >= 0
    score[top[has]] += best * COHERENCE * file_sum[has] / float(file_sum.max())


@lru_cache(maxsize=256)
def _definition_pattern(name: str) -> re.Pattern[str]:
    # Kotlin's type parameters before the name and in its receiver: ``fun <T> Flow<T>.collect``,
    # ``fun <Key : Any, T : IdTable<Key>> T.insertAndGetId``.
    qualified = rf"(?:[A-Za-z_][A-Za-z0-9_]*(?:{TYPE_PARAMETERS})?(?:\.|::))*"
    return re.compile(
        r"(?:^|(?<=\s))(?:"
        + "|".join(_DEFINING)
        + rf")\s+(?:{TYPE_PARAMETERS}\s+)?"
        + qualified
        + re.escape(name)
        + r"(?:\s|[<({:\[;]|$)",
        re.MULTILINE,
    )


def _defines(text: str, name: str, path: str) -> bool:
    """Whether the passage defines ``name``: by a definer keyword before it (semble's
    pattern), or as the index reads what no keyword opens: a method's declaration (gson's
    ``public <T> T fromJson(String json, ...)``, listed below three files that called it
    before the tier read it so), a C function or alias (libuv's ``typedef struct uv_loop_s
    uv_loop_t;``, below the files that keep a ``static uv_loop_t``)."""
    if name not in text:
        return False
    if _definition_pattern(name).search(text) is not None:
        return True
    return name in keywordless_names(text, path)
