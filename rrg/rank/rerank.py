"""Match rerank (RARG++): score each collected match excerpt (``rrg.rg.matches``) against
the constructed query with the embedding model, keep the best m.

Excerpt vectors are cached by content hash across calls (agents
repeat searches), so a repeated or overlapping search pays only for matches it has not seen.
"""

from __future__ import annotations

import numpy as np
import xxhash

from rrg.index.vectors import VectorCache, cached_vectors
from rrg.model.encoder import Encoder
from rrg.rank.root_cache import cache_tag
from rrg.rank.scoring import zscore
from rrg.rg.matches import Match

#: Tokens the model reads of each excerpt: 96 keeps 500 excerpts near a second on 2 cores.
SCORE_TOKENS = 96


def score(matches: list[Match], query: str, encoder: Encoder, cache: VectorCache) -> None:
    """Cosine of each match excerpt with the query, vectors cached by content hash in
    ``cache`` (the root's)."""
    keys = [xxhash.xxh3_64_hexdigest(m.excerpt.encode("utf-8", "surrogatepass")) for m in matches]
    text_of = dict(zip(keys, (m.excerpt for m in matches), strict=True))

    def encode(missing: list[str]) -> np.ndarray:
        texts = [text_of[k] for k in missing]
        # One excerpt a run (the encoder's default), so that near-equal lines cannot swap
        # with what the cache held; see ``Encoder.encode``.
        return encoder.encode(texts, max_tokens=SCORE_TOKENS)

    tag = cache_tag("excerpt", encoder.spec, SCORE_TOKENS)
    vectors = cached_vectors(cache, tag, keys, encode)
    qvec = encoder.encode([query], max_tokens=128)[0]
    for match, key in zip(matches, keys, strict=True):
        match.score = float(np.dot(vectors[key], qvec))


#: Weight of the file's place in the relevance order against the match's own cosine
#: (both z-scored; the place as log(1 + rank)). 0.5 was best or tied on all four prose sets
#: in benchmarks/rerank.py: scifact gold seen .838 -> .869, cranfield .429 -> .449.
FILE_PRIOR_WEIGHT = 0.5


def add_file_prior(matches: list[Match], files: list[bytes]) -> None:
    """Blend each match's score with its file's rank: a good line in a top file wins over
    an equally good line in a file the ranking put far down."""
    if len(matches) < 2:
        return
    rank = {p: i for i, p in enumerate(files)}
    cos = np.array([m.score for m in matches])
    place = np.log1p([rank.get(m.path, len(files)) for m in matches])
    blended = zscore(cos) - FILE_PRIOR_WEIGHT * zscore(place)
    for match, value, raw in zip(matches, blended, cos, strict=True):
        match.extras["cosine"] = float(raw)
        match.score = float(round(value, 9))


def top(matches: list[Match], m: int) -> list[Match]:
    """The best m by score; equal scores keep relevance order."""
    return sorted(matches, key=lambda x: (-x.score, x.order))[:m]
