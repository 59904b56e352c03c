"""Where a file below the order's head answers a query, by its passages' cheap scores.

A capped search prints a cut file's matching lines from its best passages
(``Ranking.spans``), which the ranking holds for the 20-25 files whose passages the stage
and the passage tier scored. A file below them printed its first matching lines: on
semble-code's whole dev trees, a third of the lines at places 26-30 of the 30 printed were
an import, a package line or a licence (.308, against .038 at places 1-10). Asked, once the
count pass knows them, for the cut files the ranking holds no spans of, this scores their
passages as the passage tier does (BM25 and static vectors of each passage, no model), and
keeps their spans with the query's order: the same question asked again with another
pattern (an agent's next grep) reads them back instead of loading the passages' scoring
(50-70 ms a process of its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rrg.index.served import ServedRoot
from rrg.paths import relative_to
from rrg.rank.files import model_ready
from rrg.rank.head_passages import passages_of, stage_scorer
from rrg.rank.passage_order import line_spans
from rrg.rank.query import Query
from rrg.rank.tuning import TUNING, Tuning
from rrg.rg.chosen_lines import LineSpans

if TYPE_CHECKING:
    from rrg.rank.files import Ranking

#: The most files a search scores this way: each file the cap's share cuts is one of them,
#: so at the default --limit (30 files) all are; a far larger --limit keeps to the first.
MOST_FILES = 100


def spans_below_head(ranking: Ranking, printed: list[bytes]) -> LineSpans:
    """The line spans of these files' passages (paths as rg printed them), each file's
    best first as the passage tier scores them, kept with the ranking's order."""
    if not ranking.ranked:  # no index served: rg's order, its first lines
        return {}
    served = ranking.served
    spans = cheap_line_spans(served, ranking.query, ranking.piece_idf, ranking.tuning, printed)
    _keep(ranking, spans)
    return spans


def spans_in_root(served: ServedRoot, query: str, printed: list[bytes]) -> LineSpans:
    """``cheap_line_spans`` where no ranking ran (a scope's search): the static vectors
    read with the root's index as it stands; BM25 alone where it has none, or the model's
    static table was never made (making it takes 15-30 s, a search's first)."""
    view = served.view() if model_ready(served.spec) else None
    piece_idf = view.piece_idf if view is not None else None
    return cheap_line_spans(served, Query.of(query), piece_idf, TUNING, printed)


def cheap_line_spans(
    served: ServedRoot,
    query: Query,
    piece_idf: np.ndarray | None,
    tuning: Tuning,
    printed: list[bytes],
) -> LineSpans:
    """The line spans of these files' passages (paths as rg printed them), each file's
    best first by the cheap scores (BM25, fused with the static vectors where the index's
    ``piece_idf`` is given)."""
    printed = printed[:MOST_FILES]
    if not printed:
        return {}
    scorer = stage_scorer(served, piece_idf, 0, tuning)
    rel = relative_to(served.root, printed)
    scored = passages_of(query, served.root, rel, scorer)
    spans: LineSpans = {}
    for owner, first, last in line_spans(scored, query, rel):
        spans.setdefault(printed[owner], []).append((first, last))
    return spans


def _keep(ranking: Ranking, spans: LineSpans) -> None:
    """The spans kept with the query's order, each file as its candidate (the order's
    entry at the file's place among the ranked files)."""
    kept = ranking.kept
    if kept is None or not spans:
        return
    wanted = set(spans)
    places: dict[bytes, int] = {}
    for place, path in enumerate(ranking.ordered[: ranking.ranked]):
        if path in wanted:
            places[path] = place
            if len(places) == len(wanted):
                break
    more = [
        (int(kept.order[places[path]]), first, last)
        for path, file_spans in spans.items()
        if path in places
        for first, last in file_spans
    ]
    kept.with_more_spans(ranking.served, more)
