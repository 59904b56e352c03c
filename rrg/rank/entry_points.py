"""Passage-level relevance: the entry points of the best files (RARG+), and ``rrg -q
QUERY`` without a pattern (``rrg.output.passages`` prints them).

They print the passages that the transformer stage of the file order already read and
scored (no second model pass). Where that stage was off (``--fast``), the paragraphs of the
top files are ordered by the cheap tier alone.
"""

from __future__ import annotations

import os
import re

import numpy as np

from rrg.index.definitions import defined_names
from rrg.rank.code_order import skips_stage
from rrg.rank.files import Ranking
from rrg.rank.head_passages import passages_of, stage_scorer
from rrg.rank.paragraphs import Paragraph
from rrg.rank.scoring import order_by

TOP_FILES = 20


#: One lower-case identifier (``sympify``, ``parse_args`` is a symbol query already).
_LOWER_NAME = re.compile(r"[a-z][a-z0-9]*")


def best_paragraphs(ranking: Ranking, limit: int) -> list[tuple[bytes, Paragraph]]:
    """The ``limit`` paragraphs of the top ranked files closest to the query they were
    ranked for, best first: by the model's cosine among those it read, else by the cheap
    score."""
    if limit <= 0:
        return []
    query = ranking.query
    form = query.form
    if ranking.stage is not None:
        paths, scored = ranking.stage.paths, ranking.stage.scored
    else:
        # Ranked files; with no usable index, the first files in rg's order.
        ranked = ranking.ordered[: ranking.ranked] or [
            p for p in ranking.ordered if p not in ranking.binary
        ]
        paths = ranked[:TOP_FILES]
        # A query the order answers without the stage (a symbol query) shows its
        # definitions first, then its name's passages by the cheap scores: the model's
        # reading (0.25-0.65 s of such a query on tokio) chose nothing the name's own words
        # do not.
        budget = 0 if ranking.fast or skips_stage(query) else ranking.tuning.stage_passages
        # Paths as rg printed them are relative to the cwd, not to the index's root.
        where = [os.path.abspath(p) for p in paths]
        served = ranking.served
        scorer = stage_scorer(served, ranking.piece_idf, budget, ranking.tuning)
        scored = passages_of(query, served.root, where, scorer)
    if not scored.paragraphs:
        return []
    read = ~np.isnan(scored.cosine)
    keys = np.where(read, scored.cosine, -np.inf) if read.any() else scored.cheap
    keys = as_their_functions(keys, scored.paragraphs, scored.owners)
    best = order_by(np.round(keys, 6)).tolist()
    names = form.names if form.symbol else _one_word(query.text)
    if names:
        best = definitions_first(best, names, scored.paragraphs, [paths[o] for o in scored.owners])
    place = {path: k for k, path in enumerate(ranking.ordered)}
    file_rank = [place.get(path, len(place)) for path in paths]
    return [
        (paths[scored.owners[k]], scored.paragraphs[k])
        for k in spread(best, scored.owners, file_rank, limit)
    ]


def _one_word(query: str) -> tuple[str, ...]:
    """A query of one lower-case word, as a name (``sympify``, ``session``): not a symbol
    query by its form, since one plain word is as often a topic, so the files are ordered
    as for a question; but where a passage defines that name, it is what the word asks
    for (``def sympify`` rather than ``class CantSympify``, whose text says "sympify"
    more often)."""
    word = query.strip()
    return (word,) if _LOWER_NAME.fullmatch(word) else ()


def as_their_functions(
    keys: np.ndarray, passages: list[Paragraph], owners: list[int]
) -> np.ndarray:
    """``keys`` with each function's first passage raised to the best of its later parts
    (``Paragraph.within``: a long function's later pieces, a helper nested in it): such a
    part answers as its function, which is then shown from its definition's first line,
    where before a reader got the function cut in the middle of its body (issue 35). The
    part keeps its own key: a file's next passage may still be it."""
    starts: dict[tuple[int, str], list[int]] = {}
    for j, passage in enumerate(passages):
        if passage.name:
            starts.setdefault((owners[j], passage.name), []).append(j)
    out = keys.copy()
    for k, passage in enumerate(passages):
        if not passage.within:
            continue
        named = starts.get((owners[k], passage.within), [])
        heads = [j for j in named if passages[j].start < passage.start]
        if heads:
            head = max(heads, key=lambda j: passages[j].start)  # the nearest above
            out[head] = max(out[head], keys[k])
    return out


def definitions_first(
    best: list[int], names: tuple[str, ...], passages: list[Paragraph], paths: list[bytes]
) -> list[int]:
    """``best`` with the passages that define one of the names first (in its order): a
    symbol query asks for the definition, which starts at its first line (its comments and
    decorators above it, as the passages are cut), not for the method that scored best."""
    wanted = set(names)

    def defines(k: int) -> bool:
        found = defined_names(passages[k].text, os.fsdecode(paths[k]))
        return not wanted.isdisjoint(found)

    first = [k for k in best if defines(k)]
    taken = set(first)
    return first + [k for k in best if k not in taken]


def spread(best: list[int], owners: list[int], file_rank: list[int], limit: int) -> list[int]:
    """``limit`` passages taken in rounds: each file's best passage, files in the order's
    rank, then each file's second best, and so on. Ten passages then cover the ten best
    files: ordered by cosine alone they bunch in fewer files, and on code held a gold file
    less often than the ten best files did (sympy dev half: .43 of the queries against .57)."""
    rounds: dict[int, int] = {}
    keyed: list[tuple[int, int, int, int]] = []
    for k in best:  # best first: a file's n-th passage here is its n-th best
        nth = rounds.get(owners[k], 0)
        rounds[owners[k]] = nth + 1
        keyed.append((nth, file_rank[owners[k]], len(keyed), k))
    return [k for *_, k in sorted(keyed)[:limit]]
