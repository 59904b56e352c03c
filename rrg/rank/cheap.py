"""The cheap tier, a query's first step: every candidate scored from the index alone (no
file read, no model run). BM25 of the text and of the path fused with the static-vector
cosine, then the code priors applied to the head (``rrg.rank.code_order``). The stage
(``rrg.rank.stage``) re-orders what it puts first."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rrg import timings
from rrg.index.definitions import query_definition_terms, top_level_term
from rrg.index.served import ServedRoot
from rrg.index.store import KIND_TEXT
from rrg.index.textstats import term_id
from rrg.index.view import IndexView
from rrg.model.encoder import Encoder
from rrg.model.static_table import static_table
from rrg.rank.code_order import code_order
from rrg.rank.query import Query
from rrg.rank.root_cache import QUERY_TOKENS, query_pieces
from rrg.rank.scoring import bm25, fuse, lexical_signal, path_bm25, static_query_vector
from rrg.rank.tuning import TUNING, Tuning


@dataclass(frozen=True)
class CheapOrder:
    """The cheap tier's scores: its two signals over every indexed document (the stage
    weighs them again for the files it re-orders), and the candidates' fused scores."""

    lexical: np.ndarray  # every indexed document's lexical signal
    semantic: np.ndarray  # every indexed document's static-vector cosine
    scores: np.ndarray  # the candidates' fused scores, the code priors applied
    offsets: np.ndarray  # each candidate's offset from the priors
    among_code: bool  # the candidates are a repository of code
    pieces: np.ndarray  # the query's WordPiece ids
    copies: np.ndarray  # candidates that repeat a page in another language: put last


def cheap_order(
    query: Query, served: ServedRoot, view: IndexView, cand_rows: np.ndarray, tuning: Tuning
) -> CheapOrder:
    """The candidates (rows of the index, ascending) scored by the cheap tier."""
    with timings.phase("rank"):
        pieces = query_pieces(query.text, served)
        lexical, semantic = signals(
            query, view, served.encoder, pieces, tuning.path_weight, tuning.path_form_weight
        )
    fused = fuse(lexical[cand_rows], semantic[cand_rows], tuning.lexical_weight)
    with timings.phase("code"):
        scores, offsets, among_code, copies = code_order(
            query,
            fused,
            lambda k: view.path(int(cand_rows[k])),
            lambda names: defining_candidates(view, cand_rows, names),
            tuning,
        )
    return CheapOrder(lexical, semantic, scores, offsets, among_code, pieces, copies)


def signals(
    query: Query,
    view: IndexView,
    encoder: Encoder,
    pieces: np.ndarray | None = None,
    path_weight: float = TUNING.path_weight,
    form_weight: float = TUNING.path_form_weight,
) -> tuple[np.ndarray, np.ndarray]:
    """The lexical signal (BM25 of the text and of the path, ``lexical_signal``; a path
    word may be a query word in another form, ``Query.path_forms``) and the static-vector
    cosine of every indexed document against the query (whose WordPiece ids are
    ``pieces``: cut by the encoder's tokenizer when not given)."""
    if pieces is None:
        pieces = encoder.piece_ids([query.text], QUERY_TOKENS)[0]
    is_text = view.kinds == KIND_TEXT
    doclen = np.where(is_text, view.doclen, 0)
    # Each field's postings read first, then scored: the scoring is array code alone.
    text_postings = [view.postings(t) for t in query.term_ids]
    path_postings = [view.postings(t) for t in query.path_ids]
    form_postings = view.first_postings(query.path_forms) if form_weight else []
    text = bm25(text_postings, doclen, view.n_text)
    # A path word may be a query word in another form: the first a path holds counts.
    path = path_bm25(path_postings, is_text, view.n_text)
    if form_weight:
        path = path + form_weight * path_bm25(form_postings, is_text, view.n_text)
    qvec = static_query_vector(pieces, view.piece_idf, static_table(encoder))
    return lexical_signal(text, path, path_weight), view.cosines(qvec)


def defining_candidates(view: IndexView, cand_rows: np.ndarray, names: tuple[str, ...]) -> set[int]:
    """The candidates (indices into ``cand_rows``, which ascend) whose files define one of
    the names, from the index's definitions field; those that define one at their top level
    alone where any does (``definitions.TOP_LEVEL``): the same name nested in a macro, a
    test module or a class is a local copy of what the top-level one declares."""
    defining = _holding(view, cand_rows, [t for n in names for t in query_definition_terms(n)])
    top = defining & _holding(view, cand_rows, [top_level_term(name) for name in names])
    return top or defining


def _holding(view: IndexView, cand_rows: np.ndarray, terms: list[str]) -> set[int]:
    """The candidates whose files hold one of the terms."""
    rows = [view.postings(term_id(term))[0] for term in terms]
    if not rows:
        return set()
    # return_index: plain np.unique imports numpy.ma to ask whether the array is masked
    # (9 ms of a new process's query).
    found = np.unique(np.concatenate(rows), return_index=True)[0]
    at = np.searchsorted(cand_rows, found)
    hit = at < len(cand_rows)
    hit[hit] = cand_rows[at[hit]] == found[hit]
    return set(at[hit].tolist())
