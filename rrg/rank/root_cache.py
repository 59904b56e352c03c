"""The root's vector cache as the ranking uses it: passage and query vectors by content
hash (the model's and the static table's), and each query's WordPiece ids. Every read or
write that fails costs only recomputing: a search never fails for want of a cache."""

from __future__ import annotations

import contextlib
import sqlite3

import numpy as np
import xxhash

from rrg.errors import RrgError
from rrg.index.served import ServedRoot
from rrg.index.vectors import cached_vectors
from rrg.model.registry import ModelSpec
from rrg.rank.passages import Encode, VectorsFor, query_key
from rrg.rank.tuning import Tuning

#: WordPiece tokens of a query that its static vectors read (against files and passages).
QUERY_TOKENS = 256


def cache_tag(kind: str, spec: ModelSpec, tokens: int) -> str:
    """The vector cache's model tag for one kind of vector of texts read up to ``tokens``:
    the static table's ("static", distilled from the float graph whatever runs queries) or
    the model's ("excerpt").
    Both are of texts read alone (the model's one a run, ``Encoder.encode``; the static
    table's each from its own tokens, ``static_vectors_alone``), so that a text's vector
    does not depend on what was read beside it: those read in batches before are left
    under their old tags to age out."""
    model = f"{spec.key}-alone" if kind == "static" else f"{spec.vector_key}-alone"
    return f"{kind}-{model}-{tokens}"


def passage_tag(kind: str, spec: ModelSpec, tuning: Tuning) -> str:
    """The tag of the stage's vectors ("passage": the model's; "static"), whose texts are
    read to the passages' lengths, prose and code."""
    return cache_tag(kind, spec, tuning.passage_tokens) + f"-code{tuning.code_passage_tokens}"


def query_seen(query: str, served: ServedRoot, tuning: Tuning) -> bool:
    """Whether the root's vector cache holds this query's vector (then the stage may need no
    model at all); False when it cannot be read."""
    spec = served.spec
    try:
        tag = passage_tag("passage", spec, tuning)
        return bool(served.vectors.get(tag, [query_key(spec, query)]))
    except (OSError, sqlite3.Error, RrgError):
        return False


def root_vectors(served: ServedRoot, tuning: Tuning) -> VectorsFor:
    """Passage vectors (the model's, and the static table's) by content hash from the
    root's vector cache (or, with no usable cache dir, computed for this call only)."""
    spec = served.spec
    try:
        cache = served.vectors
    except (OSError, RrgError):

        def uncached(kind: str, keys: list[str], encode: Encode) -> dict[str, np.ndarray]:
            unique = sorted(set(keys))
            return dict(zip(unique, encode(unique), strict=True))

        return uncached

    def vectors_for(kind: str, keys: list[str], encode: Encode) -> dict[str, np.ndarray]:
        return cached_vectors(cache, passage_tag(kind, spec, tuning), keys, encode)

    return vectors_for


def query_pieces(query: str, served: ServedRoot) -> np.ndarray:
    """The query's WordPiece ids, kept in the root's vector cache: loading the tokenizer
    takes 13-18 ms, a tenth of a query asked again on a 2,000-file repository."""
    key = xxhash.xxh3_64_hexdigest(query.encode("utf-8", "surrogatepass"))
    tag = f"pieces-{served.spec.key}-{QUERY_TOKENS}"
    try:
        cache = served.vectors
        kept = cache.get_pieces(tag, key)
    except (OSError, sqlite3.Error, RrgError):
        cache, kept = None, None
    if kept is not None:
        return kept
    pieces = served.encoder.piece_ids([query], QUERY_TOKENS)[0]
    if cache is not None:
        with contextlib.suppress(OSError, sqlite3.Error):  # unkept, it is only recomputed
            cache.put_pieces(tag, key, pieces)
    return pieces
