"""Passage-level relevance: the entry points of the best files (RARG+), and ``rrg -q
QUERY`` without a pattern (``rrg.output.passages`` prints them).

They print the passages that the transformer stage of the file order already read and
scored (no second model pass). Where that stage was off (``--fast``), the paragraphs of the
top files are ordered by the cheap tier alone.
"""

from __future__ import annotations

import os

from rrg.rank.code_order import skips_stage
from rrg.rank.files import Ranking
from rrg.rank.head_passages import passages_of, stage_scorer
from rrg.rank.paragraphs import Paragraph
from rrg.rank.passage_order import preferred
from rrg.rank.passages import file_texts
from rrg.rank.pasted import first_line_holding
from rrg.rank.preamble import is_file_preamble

TOP_FILES = 20


def best_paragraphs(ranking: Ranking, limit: int) -> list[tuple[bytes, Paragraph]]:
    """The ``limit`` paragraphs of the top ranked files closest to the query they were
    ranked for, best first: by the model's cosine among those it read, else by the cheap
    score."""
    if limit <= 0:
        return []
    query = ranking.query
    asked = _asked_passages(ranking, limit) if query.pasted or query.named else []
    if asked:
        shown = {(path, p.start) for path, p in asked}
        rest = _best_paragraphs(ranking, limit + len(asked))
        return (asked + [(f, p) for f, p in rest if (f, p.start) not in shown])[:limit]
    return _best_paragraphs(ranking, limit)


def _asked_passages(ranking: Ranking, limit: int) -> list[tuple[bytes, Paragraph]]:
    """The passages of the files at the order's head that the query names or that hold
    the text it pastes (the order puts them first: ``rrg.rank.lifted``), whether or not
    the stage read those files: what a user named or pasted is what they came to see. A
    named file's passage holds the line its name names, else it is the file's best; a
    holder's passage holds the pasted text."""
    query, served = ranking.query, ranking.served
    scorer = None
    out: list[tuple[bytes, Paragraph]] = []
    for path in ranking.ordered[: min(ranking.ranked, limit)]:
        where = os.path.abspath(path)
        named = [n for n in query.named if n.matched_parts(os.fsdecode(path))]
        if named:
            line = next((n.line for n in named if n.line is not None), None)
        else:
            text = next(file_texts(served.root, [where]))
            line = first_line_holding(query.pasted, text) if query.pasted else None
            if line is None:
                break  # past the files that it names or that hold the text
        if scorer is None:
            scorer = stage_scorer(served, ranking.piece_idf, 0, ranking.tuning)
        scored = passages_of(query, served.root, [where], scorer)
        cut = scored.paragraphs
        if line is None:
            best = preferred(scored, query, [path])
            if best:
                out.append((path, cut[best[0]]))
            continue
        holding = [p for p in cut if p.start <= line <= p.end]
        if holding:
            out.append((path, min(holding, key=lambda p: p.end - p.start)))
    return out


def _best_paragraphs(ranking: Ranking, limit: int) -> list[tuple[bytes, Paragraph]]:
    query = ranking.query
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
    best = preferred(scored, query, paths)
    preambles = {k for k in best if is_file_preamble(scored.paragraphs[k])}
    place = {path: k for k, path in enumerate(ranking.ordered)}
    file_rank = [place.get(path, len(place)) for path in paths]
    return [
        (paths[scored.owners[k]], scored.paragraphs[k])
        for k in spread(best, scored.owners, file_rank, limit, last=preambles)
    ]


def spread(
    best: list[int],
    owners: list[int],
    file_rank: list[int],
    limit: int,
    last: set[int] | frozenset[int] = frozenset(),
) -> list[int]:
    """``limit`` passages taken in rounds: each file's best passage, files in the order's
    rank, then each file's second best, and so on. Ten passages then cover the ten best
    files: ordered by cosine alone they bunch in fewer files, and on code held a gold file
    less often than the ten best files did (sympy dev half: .43 of the queries against .57).

    A passage of ``last`` (a file's preamble: its imports, its licence) that is not its
    file's best comes after every other passage, whatever its round: a file of one function
    had its import lines printed in the second round, before the third-best function of a
    better file (10 of the 30 passages of ``rrg -q "how are sets intersected"`` on sympy)."""
    rounds: dict[int, int] = {}
    keyed: list[tuple[bool, int, int, int, int]] = []
    for k in best:  # best first: a file's n-th passage here is its n-th best
        nth = rounds.get(owners[k], 0)
        rounds[owners[k]] = nth + 1
        keyed.append((nth > 0 and k in last, nth, file_rank[owners[k]], len(keyed), k))
    return [k for *_, k in sorted(keyed)[:limit]]
