"""The order of a file's passages, in this process: where a capped search's lines of a file
come from (``line_spans``) and what ``-q`` without a pattern shows first (``preferred``)."""

from __future__ import annotations

import numpy as np

from rrg.rank.paragraphs import Paragraph
from rrg.rank.passage_order import line_spans, preferred
from rrg.rank.passages import ScoredPassages
from rrg.rank.query import Query

_HEAD = Paragraph(
    1, 12, 'def depends(dependency):\n    """Declare a dependency."""\n', name="depends"
)
_EXAMPLE = Paragraph(
    13, 30, "    async def common_parameters(q):\n        yield q\n", within="depends"
)
_OTHER = Paragraph(32, 40, "def security(scopes):\n    return scopes\n", name="security")


def _scored(cheap: list[float], cosine: list[float]) -> ScoredPassages:
    return ScoredPassages(
        owners=[0, 0, 0],
        paragraphs=[_HEAD, _EXAMPLE, _OTHER],
        cheap=np.array(cheap),
        cosine=np.array(cosine),
    )


def test_a_functions_first_passage_comes_before_the_later_part_that_raised_it() -> None:
    """The docstring's example (a later piece) scores best; the function is shown from its
    first line, so a capped search prints ``def depends``, not the example's ``def``."""
    query = Query.of("how are dependencies with yield cleaned up")
    for cosine in ([np.nan] * 3, [0.1, 0.8, 0.5]):
        scored = _scored([0.2, 0.9, 0.5], cosine)
        assert [span[1] for span in line_spans(scored, query, [b"params.py"])] == [1, 13, 32]
        assert preferred(scored, query, [b"params.py"])[:2] == [0, 1]


def test_a_better_function_still_comes_before_the_raised_one() -> None:
    query = Query.of("security scopes")
    scored = _scored([0.2, 0.3, 0.9], [np.nan] * 3)
    assert [span[1] for span in line_spans(scored, query, [b"params.py"])] == [32, 1, 13]
