"""``rrg -q QUERY`` without a pattern: the most relevant paragraphs of the best files."""

from __future__ import annotations

import sys

import numpy as np

from rrg.encoders import Encoder
from rrg.indexer import READ_LIMIT
from rrg.models import ModelSpec
from rrg.paragraphs import split_paragraphs
from rrg.relevance import Ranking
from rrg.textstats import decode

TOP_FILES = 20


def paragraph_search(query: str, ranking: Ranking, spec: ModelSpec, limit: int) -> int:
    """Print the ``limit`` best paragraphs of the top files as ``path:start-end:`` + text."""
    units: list[tuple[bytes, int, int, str]] = []
    for path in [p for p in ranking.ordered if p in ranking.scores][:TOP_FILES]:
        try:
            with open(path, "rb") as fh:
                text = decode(fh.read(READ_LIMIT))
        except OSError:
            continue
        units.extend((path, p.start, p.end, p.text) for p in split_paragraphs(text))
    if not units:
        return 1
    encoder = Encoder(spec)
    vectors = encoder.encode([u[3] for u in units], max_tokens=256)
    qvec = encoder.encode([spec.query_prefix + query])[0]
    best = np.argsort(-(vectors @ qvec), kind="stable")[:limit]
    out = sys.stdout.buffer
    for k in best:
        path, start, end, text = units[k]
        out.write(
            path
            + f":{start}-{end}:".encode()
            + b"\n"
            + text.encode("utf-8", "surrogateescape")
            + b"\n"
        )
    out.flush()
    return 0
