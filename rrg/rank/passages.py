"""The bounded transformer stage: passages of the best files, picked by the cheap tier and
scored by the embedding model.

A file is represented by its best passage (MaxP), not by its first 256 tokens: a code file's
head is imports and a licence; nor by the mean of its two best, which tied MaxP on the dev
halves and lost on code (benchmarks/passage_stage.py --top2). The model reads at most
``budget`` passages per query, whatever the corpus; their vectors are kept by content hash
in the root's vector cache.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, overload

import numpy as np
import xxhash

from rrg.binary_sniff import looks_binary
from rrg.index.definitions import is_code
from rrg.index.refresh import read_head
from rrg.index.textstats import counted_words, decode
from rrg.model.encoder import Encoder
from rrg.model.registry import ModelSpec
from rrg.model.static_table import static_table, static_vectors_alone
from rrg.rank.abbreviations import abbreviating
from rrg.rank.kept_terms import term_frequencies
from rrg.rank.paragraphs import Paragraph, split_paragraphs
from rrg.rank.query import Query
from rrg.rank.scoring import bm25_term, fuse, order_by, static_query_vector
from rrg.rank.tuning import Tuning

if TYPE_CHECKING:
    from rrg.rank.kept_cuts import KeptCuts
    from rrg.rank.kept_terms import KeptTerms


def token_limit(name: str, tuning: Tuning) -> int:
    """Tokens the model reads of a passage of the file ``name`` (its path)."""
    return tuning.code_passage_tokens if is_code(name) else tuning.passage_tokens


def encode_passages(
    encoder: Encoder, texts: list[str], names: list[str], tuning: Tuning
) -> np.ndarray:
    """The model's vectors of passages (each read alone), each to its file's token limit."""
    return encoder.encode(texts, max_tokens=[token_limit(name, tuning) for name in names])


Encode = Callable[[list[str]], np.ndarray]
#: A file's passages from its text and its path.
Cut = Callable[[str, str], list[Paragraph]]
#: Vectors of one kind ("passage": the model's; "static": the static table's) by content
#: hash, computing with the given function only the keys not held.
VectorsFor = Callable[[str, list[str], Encode], dict[str, np.ndarray]]


@dataclass(frozen=True)
class PassageScorer:
    """What reads a query's passages: the model, the index's WordPiece idf for the static
    tier (None: BM25 alone), the vector cache (``vectors_for``), how many passages the
    model reads (``budget``; 0: the cheap tier alone) and how many tokens of each
    (``tuning``); ``cuts``: files' passages kept across processes (None: cut each time);
    ``terms``: passages' word counts kept (None: counted each time)."""

    encoder: Encoder
    piece_idf: np.ndarray | None
    vectors_for: VectorsFor
    budget: int
    tuning: Tuning
    cuts: KeptCuts | None = None
    terms: KeptTerms | None = None


@dataclass
class ScoredPassages:
    """Passages of some files, with the cheap score of each and the model's cosine of the
    ones it read (NaN for the others)."""

    owners: list[int]  # index of the file each passage belongs to
    paragraphs: list[Paragraph]
    cheap: np.ndarray
    cosine: np.ndarray
    #: The cheap score's two parts, each passage's BM25 and static cosine (None: no
    #: static tier), for the passage tier's rank fusion (``rrg.rank.passage_tier``).
    lexical: np.ndarray | None = None
    static: np.ndarray | None = None

    def best_per_file(self, files: int) -> np.ndarray:
        """Each file's best cosine (MaxP); NaN where the model read none of its passages."""
        best = np.full(files, np.nan)
        for owner, value in zip(self.owners, self.cosine, strict=True):
            if not np.isnan(value) and (np.isnan(best[owner]) or value > best[owner]):
                best[owner] = value
        return best


def query_key(spec: ModelSpec, query: str) -> str:
    """The cache key of a query's vector (kept beside the passages' vectors)."""
    text = spec.query_prefix + query
    return "query:" + xxhash.xxh3_64_hexdigest(text.encode("utf-8", "surrogatepass"))


def query_vector(query: Query, scorer: PassageScorer) -> np.ndarray:
    """The model's vector of the query, kept in the scorer's cache as a passage's is."""
    spec = scorer.encoder.spec
    key = query_key(spec, query.text)

    def encode(missing: list[str]) -> np.ndarray:
        return scorer.encoder.encode(
            [spec.query_prefix + query.text], max_tokens=scorer.tuning.passage_tokens
        )

    return scorer.vectors_for("passage", [key], encode)[key]


#: The query terms' counts in the passages one query has read, by content hash: the stage and
#: the passage tier read many of the same passages (a query's, then cleared for the next).
#: One a thread: the library and the MCP server answer queries at once on threads, and a
#: query's counts are of its own terms.
_counted = threading.local()


def _counted_now(terms: frozenset[str]) -> dict[str, Counter[str]]:
    """This thread's counts for these terms (begun anew for other terms)."""
    held: tuple[frozenset[str], dict[str, Counter[str]]] | None = getattr(_counted, "held", None)
    if held is None or held[0] != terms or len(held[1]) > 50_000:
        held = (terms, {})
        _counted.held = held
    return held[1]


def passage_bm25(
    query: Query,
    texts: Sequence[str],
    keys: Sequence[str] | None = None,
    kept: KeptTerms | None = None,
) -> np.ndarray:
    """BM25 of each passage against the query, with the passages as the corpus; ``keys``,
    the passages' content hashes, let a second read of a passage in one query count
    nothing again, and ``kept`` read the counts kept for it (``rrg.rank.kept_terms``)."""
    terms = query.terms
    memo = _counted_now(terms)

    def counted(k: int) -> Counter[str]:
        key = keys[k] if keys is not None else None
        if key is not None and key in memo:
            return memo[key]
        text = texts[k]
        low = text.lower()
        # Only a passage holding a query term as a substring can hold it as a word: the
        # others are not split into words at all (most passages of code, for a short query).
        found = counted_words(text, terms) if any(t in low for t in terms) else Counter()
        if key is not None:
            memo[key] = found
        return found

    # Summed in one order: a set's order changes from one process to the next, and with it
    # a float sum's last bits.
    ordered = sorted(terms)
    held = kept.read(keys) if kept is not None and keys is not None else {}
    tf = term_frequencies([held.get(keys[k]) if keys else None for k in range(len(texts))], ordered)
    for k in range(len(texts)):
        if keys is None or keys[k] not in held:
            found = counted(k)
            tf[k] = [found[term] for term in ordered]
    lengths = np.array([max(1, len(t) // 6) for t in texts], np.float64)  # ~6 chars a word
    avg = float(lengths.mean()) if len(lengths) else 1.0
    scores = np.zeros(len(texts), np.float64)
    for column in range(len(ordered)):
        df = int((tf[:, column] > 0).sum())
        if df:
            scores += bm25_term(tf[:, column], df, len(texts), lengths, avg)
    return scores


def passage_static(
    query: Query,
    texts: Sequence[str],
    keys: list[str],
    scorer: PassageScorer,
    query_pieces: np.ndarray | None = None,
) -> np.ndarray:
    """Cosine of each passage's static vector (``static_vectors_of``) with the query's (its
    WordPiece ids ``query_pieces``, cut here when not given)."""
    encoder, piece_idf = scorer.encoder, scorer.piece_idf
    assert piece_idf is not None, "the static tier needs the index's idf"
    if query_pieces is None:
        query_pieces = encoder.piece_ids([query.text], scorer.tuning.passage_tokens)[0]
    qvec = static_query_vector(query_pieces, piece_idf, static_table(encoder))
    vectors = static_vectors_of(texts, keys, scorer)
    return np.array([float(vectors[k] @ qvec) for k in keys], np.float64)


def static_vectors_of(
    texts: Sequence[str], keys: list[str], scorer: PassageScorer
) -> dict[str, np.ndarray]:
    """Each passage's static vector (the idf-weighted mean of its WordPiece vectors, as
    documents and queries get theirs), by content hash (``keys``). Kept like the model's:
    tokenising the passages of 20 files is most of the cheap tier's cost, and the same
    files come back query after query (``rrg.rank.warm_passages`` computes a root's ahead)."""
    encoder, piece_idf = scorer.encoder, scorer.piece_idf
    assert piece_idf is not None, "the static tier needs the index's idf"
    table = static_table(encoder)
    at = {key: k for k, key in enumerate(keys)}  # not the texts: they are made when asked

    def compute(missing: list[str]) -> np.ndarray:
        pieces, counts = [], []
        limit = scorer.tuning.passage_tokens
        for ids in encoder.piece_ids((texts[at[key]] for key in missing), limit):
            distinct, count = np.unique(ids, return_counts=True)
            pieces.append(distinct)
            counts.append(count)
        return static_vectors_alone(pieces, counts, piece_idf, table)

    return scorer.vectors_for("static", keys, compute)


def file_texts(root: bytes, rel: list[bytes]) -> Iterator[str]:
    """Each file's text (relative to root, or absolute), one at a time: the passages are
    kept, the whole texts need not be. A file that cannot be read, or that rg would skip as
    binary, reads as empty."""
    for path in rel:
        data = read_head(Path(os.fsdecode(root)), path) or b""
        yield "" if looks_binary(data) else decode(data)


def passage_name(root: bytes, path: bytes) -> str:
    """A file's path relative to the root as text (bytes that are not UTF-8 replaced: the
    tokenizer takes no lone surrogates), read with each of its passages."""
    rel = os.path.relpath(path, root) if os.path.isabs(path) else path
    return rel.decode("utf-8", "replace").replace(os.sep, "/")


def passage_text(name: str, paragraph: Paragraph) -> str:
    """What the cheap tier and the model read of a passage: its file's path, then its text.
    The path names what a passage of code is about (``sympy/matrices/determinant.py``)
    when its text is a loop body; with it the stage's file order on the code sets' dev
    half rose from .392 to .448 (benchmarks/passage_stage.py)."""
    head = "\n".join(part for part in (name, paragraph.context) if part)
    return f"{head}\n{paragraph.text}" if head else paragraph.text


def pick(owners: list[int], cheap: np.ndarray, budget: int, first: Sequence[int] = ()) -> list[int]:
    """Which passages the model reads: ``first`` (passages the cheap scores cannot judge),
    then each file's best by the cheap score, so that every file gets a fair hearing, then
    the best of the rest, ``budget`` in all."""
    chosen: list[int] = list(dict.fromkeys(first))
    seen: set[int] = set()
    order = order_by(cheap).tolist()
    for k in order:
        if owners[k] not in seen:
            seen.add(owners[k])
            chosen.append(k)
    taken = set(chosen)
    rest = [k for k in order if k not in taken]
    return sorted((chosen + rest)[:budget])


class Passages(Sequence[str]):
    """Files' passages (each one's file as an index into ``names``), and each passage's
    text as the tiers read it (``passage_text``), made when asked for: a
    file of long lines has thousands of passages, and a second copy of them all cost tens
    of MB (20 files of 700 KB lines: 20,000 passages)."""

    def __init__(self, owners: list[int], paragraphs: list[Paragraph], names: list[str]) -> None:
        self.owners, self.paragraphs, self.names = owners, paragraphs, names

    def __len__(self) -> int:
        return len(self.paragraphs)

    @overload
    def __getitem__(self, k: int) -> str: ...
    @overload
    def __getitem__(self, k: slice) -> list[str]: ...
    def __getitem__(self, k: int | slice) -> str | list[str]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        name = self.names[self.owners[k]] if self.names else ""
        return passage_text(name, self.paragraphs[k])

    def keys(self) -> list[str]:
        """Each passage's content hash, the key of its vectors."""
        return [xxhash.xxh3_64_hexdigest(b.encode("utf-8", "surrogatepass")) for b in self]


def cut_files(
    texts: Iterable[str], names: list[str], cut: Cut | None, kept: KeptCuts | None
) -> Passages:
    """The passages of each file (its text, its path in ``names`` or none), cut by ``cut``
    (blank lines where None), the cuts of long files kept in ``kept``."""
    owners: list[int] = []
    paragraphs: list[Paragraph] = []
    for owner, text in enumerate(texts):
        name = names[owner] if names else ""
        for paragraph in _cut(text, name, cut, kept):
            owners.append(owner)
            paragraphs.append(paragraph)
    if kept is not None:
        kept.save()
    return Passages(owners, paragraphs, names)


#: Files cut into passages in this process, by cut, name and content hash: the stage and the
#: passage tier cut many of the same files in one query (tree-sitter's parse is most of it).
_CUTS: dict[tuple[Cut | None, str, str], list[Paragraph]] = {}
_CUTS_KEPT = 256


def _cut(text: str, name: str, cut: Cut | None, kept: KeptCuts | None) -> list[Paragraph]:
    digest = xxhash.xxh3_64_hexdigest(text.encode("utf-8", "surrogatepass"))
    key = (cut, name, digest)
    found = _CUTS.get(key)
    if found is None:
        if kept is not None and not kept.worth_keeping(text):
            kept = None
        found = kept.find(cut, name, digest) if kept is not None else None
        if found is None:
            found = cut(text, name) if cut else split_paragraphs(text)
            if kept is not None:
                kept.keep(cut, name, digest, found)
        if len(_CUTS) >= _CUTS_KEPT:
            _CUTS.clear()
        _CUTS[key] = found  # another thread may clear it at once: ``found`` is returned
    return found


def _read_first(
    query: Query,
    names: list[str],
    owners: list[int],
    paragraphs: list[Paragraph],
    cheap: np.ndarray,
    scorer: PassageScorer,
) -> list[int]:
    """The best (by ``cheap``) ``tuning.read_abbreviations`` passages that define a name
    abbreviating the query's words (``factorint`` for "factor an integer"): one word to the
    cheap scores, which cannot see that it answers; the model can, if it reads it."""
    most = scorer.tuning.read_abbreviations
    if not most or not scorer.budget or not names:
        return []
    found = set(abbreviating(query, names, owners, paragraphs))
    return [k for k in order_by(cheap).tolist() if k in found][:most]


def score_passages(
    query: Query,
    texts: Iterable[str],
    scorer: PassageScorer,
    names: list[str] | None = None,
    cut: Cut | None = None,
    query_pieces: np.ndarray | None = None,
) -> ScoredPassages:
    """Split each file's text into passages, score them cheaply, and put the best ``budget``
    through the model. ``scorer.vectors_for(kind, keys, encode)`` returns vectors by content
    hash, encoding only the keys it does not hold (the root's vector cache, or a dict). ``names``
    are the files' paths, read with their passages; ``cut`` replaces blank-line cutting
    (the benchmarks measure alternatives with it); ``query_pieces``: the query's WordPiece
    ids, when the caller has them."""
    bodies = cut_files(texts, names or [], cut, scorer.cuts)
    owners, paragraphs = bodies.owners, bodies.paragraphs
    cosine = np.full(len(bodies), np.nan)
    if not bodies:
        return ScoredPassages(owners, paragraphs, np.zeros(0), cosine)
    every_key = bodies.keys()
    lexical = passage_bm25(query, bodies, every_key, scorer.terms)
    static = None
    if scorer.piece_idf is not None:
        static = passage_static(query, bodies, every_key, scorer, query_pieces)
        cheap = fuse(lexical, static)
    else:
        cheap = lexical
    first = _read_first(query, names or [], owners, paragraphs, cheap, scorer)
    chosen = pick(owners, cheap, scorer.budget, first)
    if not chosen:  # the cheap tier alone: the model is not run
        return ScoredPassages(
            owners, paragraphs, np.asarray(cheap, np.float64), cosine, lexical, static
        )
    keys = [every_key[k] for k in chosen]
    text_of = {key: bodies[k] for key, k in zip(keys, chosen, strict=True)}
    name_of = {key: names[owners[k]] if names else "" for key, k in zip(keys, chosen, strict=True)}
    encoder = scorer.encoder

    def encode(missing: list[str]) -> np.ndarray:
        # One text a run (the encoder's default), so that a query's order does not depend
        # on which of its passages the cache already held; see ``Encoder.encode``.
        texts = [text_of[key] for key in missing]
        return encode_passages(encoder, texts, [name_of[key] for key in missing], scorer.tuning)

    # The query's vector is kept like a passage's: a repeated query loads no model at all.
    query_text = encoder.spec.query_prefix + query.text
    key_of_query = query_key(encoder.spec, query.text)
    text_of[key_of_query] = query_text
    name_of[key_of_query] = ""  # no file's: read to the prose passages' tokens
    vectors = scorer.vectors_for("passage", [*keys, key_of_query], encode)
    qvec = vectors[key_of_query]
    for key, k in zip(keys, chosen, strict=True):
        cosine[k] = float(vectors[key] @ qvec)
    return ScoredPassages(
        owners,
        paragraphs,
        np.asarray(cheap, np.float64),
        np.round(cosine, 6),
        lexical,
        static,
    )
