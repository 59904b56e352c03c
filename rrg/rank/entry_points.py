"""Paragraph-level relevance: the entry points of the best files (RARG+), and ``rrg -q
QUERY`` without a pattern.

The transformer reads a bounded number of paragraphs per query, whatever the corpus: the
paragraphs of the top files are first scored by the cheap tier (BM25 and static vectors,
as files are), and only the best PASSAGE_BUDGET go through the model, their vectors kept by
content hash in the root's vector cache so that a paragraph is encoded once.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import xxhash

from rrg.errors import EXIT_MATCH, EXIT_NO_MATCH
from rrg.index.refresh import READ_LIMIT
from rrg.index.textstats import decode, words
from rrg.index.vectors import VectorCache, cached_vectors
from rrg.model.encoder import Encoder, static_table
from rrg.model.registry import ModelSpec
from rrg.rank.files import Ranking
from rrg.rank.paragraphs import Paragraph, split_paragraphs
from rrg.rank.scoring import BM25_B, BM25_K1, fuse, order_by, static_query_vector

TOP_FILES = 20
#: Paragraphs the transformer reads for one query. 32 paragraphs of 256 tokens take about
#: 0.8 s on 2 cores when none is cached; the top 20 files of a code repository hold
#: thousands of paragraphs, which took 30-100 s when all were encoded.
PASSAGE_BUDGET = 32
PASSAGE_TOKENS = 256


def _candidates(ranking: Ranking) -> list[tuple[bytes, Paragraph]]:
    units: list[tuple[bytes, Paragraph]] = []
    for path in [p for p in ranking.ordered if p in ranking.scores][:TOP_FILES]:
        try:
            with open(path, "rb") as fh:
                text = decode(fh.read(READ_LIMIT))
        except OSError:
            continue
        units.extend((path, p) for p in split_paragraphs(text))
    return units


def _bm25(query: str, texts: list[str]) -> np.ndarray:
    """BM25 of each paragraph against the query, with the paragraphs as the corpus."""
    terms = set(words(query))
    counts = [Counter(w for w in words(t) if w in terms) for t in texts]
    lengths = np.array([max(1, len(t) // 6) for t in texts], np.float64)  # ~6 chars a word
    avg = float(lengths.mean()) if len(lengths) else 1.0
    scores = np.zeros(len(texts), np.float64)
    for term in terms:
        tf = np.array([c[term] for c in counts], np.float64)
        df = int((tf > 0).sum())
        if not df:
            continue
        idf = math.log1p((len(texts) - df + 0.5) / (df + 0.5))
        norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths / avg)
        scores += idf * tf * (BM25_K1 + 1) / (tf + norm)
    return scores


def _static(query: str, texts: list[str], encoder: Encoder, piece_idf: np.ndarray) -> np.ndarray:
    """Cosine of each paragraph's static vector with the query's."""
    table = static_table(encoder)
    qvec = static_query_vector(encoder.piece_ids([query], PASSAGE_TOKENS)[0], piece_idf, table)
    out = np.zeros(len(texts), np.float64)
    for k, ids in enumerate(encoder.piece_ids(texts, PASSAGE_TOKENS)):
        if ids:
            vec = static_query_vector(ids, piece_idf, table)
            out[k] = float(vec @ qvec)
    return out


def best_paragraphs(
    query: str, ranking: Ranking, spec: ModelSpec, limit: int, index_path: Path
) -> list[tuple[bytes, Paragraph]]:
    """The ``limit`` paragraphs of the top ranked files closest to the query, best first."""
    units = _candidates(ranking)
    if not units or limit <= 0:
        return []
    encoder = Encoder(spec)
    texts = [u[1].text for u in units]
    if len(units) > PASSAGE_BUDGET:
        lexical = _bm25(query, texts)
        if ranking.piece_idf is not None:
            cheap = fuse(lexical, _static(query, texts, encoder, ranking.piece_idf))
        else:
            cheap = lexical
        keep = sorted(order_by(cheap)[:PASSAGE_BUDGET].tolist())
        units = [units[k] for k in keep]
        texts = [texts[k] for k in keep]
    keys = [xxhash.xxh3_64_hexdigest(t.encode("utf-8", "surrogatepass")) for t in texts]
    text_of = dict(zip(keys, texts, strict=True))

    def encode(missing: list[str]) -> np.ndarray:
        return encoder.encode([text_of[k] for k in missing], max_tokens=PASSAGE_TOKENS)

    cache = VectorCache(index_path)
    model = f"passage-{spec.key}-{PASSAGE_TOKENS}"
    vectors = cached_vectors(cache, model, keys, encode)
    qvec = encoder.encode([spec.query_prefix + query])[0]
    cosine = np.array([float(vectors[k] @ qvec) for k in keys])
    best = order_by(np.round(cosine, 6))[:limit]
    return [units[k] for k in best]


def paragraph_search(
    query: str, ranking: Ranking, spec: ModelSpec, limit: int, index_path: Path
) -> int:
    """Print the ``limit`` best paragraphs as ``path:start-end:`` then their text."""
    found = best_paragraphs(query, ranking, spec, limit, index_path)
    out = sys.stdout.buffer
    for path, p in found:
        head = path + f":{p.start}-{p.end}:".encode()
        out.write(head + b"\n" + p.text.encode("utf-8", "surrogateescape") + b"\n")
    out.flush()
    return EXIT_MATCH if found else EXIT_NO_MATCH


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
