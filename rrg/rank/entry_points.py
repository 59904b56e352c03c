"""Paragraph-level relevance: the entry points of the best files (RARG+), and ``rrg -q
QUERY`` without a pattern."""

from __future__ import annotations

import sys

import numpy as np

from rrg.index.refresh import READ_LIMIT
from rrg.index.textstats import decode
from rrg.model.encoder import Encoder
from rrg.model.registry import ModelSpec
from rrg.rank.files import Ranking
from rrg.rank.paragraphs import Paragraph, split_paragraphs

TOP_FILES = 20


def best_paragraphs(
    query: str, ranking: Ranking, spec: ModelSpec, limit: int
) -> list[tuple[bytes, Paragraph]]:
    """The ``limit`` paragraphs of the top ranked files closest to the query, best first."""
    units: list[tuple[bytes, Paragraph]] = []
    for path in [p for p in ranking.ordered if p in ranking.scores][:TOP_FILES]:
        try:
            with open(path, "rb") as fh:
                text = decode(fh.read(READ_LIMIT))
        except OSError:
            continue
        units.extend((path, p) for p in split_paragraphs(text))
    if not units or limit <= 0:
        return []
    encoder = Encoder(spec)
    vectors = encoder.encode([u[1].text for u in units], max_tokens=256)
    qvec = encoder.encode([spec.query_prefix + query])[0]
    best = np.argsort(-(vectors @ qvec), kind="stable")[:limit]
    return [units[k] for k in best]


def paragraph_search(query: str, ranking: Ranking, spec: ModelSpec, limit: int) -> int:
    """Print the ``limit`` best paragraphs as ``path:start-end:`` then their text."""
    found = best_paragraphs(query, ranking, spec, limit)
    out = sys.stdout.buffer
    for path, p in found:
        head = path + f":{p.start}-{p.end}:".encode()
        out.write(head + b"\n" + p.text.encode("utf-8", "surrogateescape") + b"\n")
    out.flush()
    return 0 if found else 1


def print_entry_points(found: list[tuple[bytes, Paragraph]]) -> None:
    """Grouped by file, files in order of their best paragraph, paragraphs by line."""
    groups: dict[bytes, list[Paragraph]] = {}
    for path, p in found:
        groups.setdefault(path, []).append(p)
    out = sys.stdout.buffer
    for path, paragraphs in groups.items():
        out.write(path + b":\n")
        for p in sorted(paragraphs, key=lambda p: p.start):
            text = p.text.encode("utf-8", "surrogateescape")
            out.write(f"Line {p.start}-{p.end}: ".encode() + text + b"\n")
    out.flush()
