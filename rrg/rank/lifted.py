"""The files a query asks for by more than its words, put first in the order it had for
them: those that hold the text it pastes (``rrg.rank.pasted``), and before them those whose
paths it names (``rrg.rank.named_files``). Each one's lines that the text or the name
points at lead its spans, which a capped search prints first.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np

from rrg.index.served import ServedRoot
from rrg.index.textstats import PATH_FIELD, path_words, term_id
from rrg.index.view import IndexView
from rrg.rank.code_passages import cut_passages
from rrg.rank.code_priors import secondary_kinds
from rrg.rank.kept_orders import Spans
from rrg.rank.named_files import NamedFile, named_holders
from rrg.rank.passages import file_texts
from rrg.rank.pasted import Phrase, holders
from rrg.rank.query import Query


def asked_first(
    query: Query,
    served: ServedRoot,
    view: IndexView,
    cand_rows: np.ndarray,
    by_score: np.ndarray,
    spans: Spans,
    among_code: bool,
    wants_spans: bool,
) -> tuple[np.ndarray, Spans]:
    """The order (indices into ``cand_rows``) with the files the query names first, then
    those that hold the text it pastes, each group in the order it had (the holders that
    are source before the tests, docs and translations that hold it too, unless the query
    asks for those: ``among_code``, whether the tree is one of code). ``wants_spans``:
    whether a capped search prints lines from the spans (a search with a pattern)."""
    if query.pasted:
        by_score, spans = _pasted_first(query, served, view, cand_rows, by_score, spans, among_code)
    if query.named:
        by_score, spans = _named_first(query, served, view, cand_rows, by_score, spans, wants_spans)
    return by_score, spans


def _lifted(
    by_score: np.ndarray, found: dict[int, tuple[int, int] | None], spans: Spans
) -> tuple[np.ndarray, Spans]:
    """The order with the ``found`` candidates first, as ``found`` lists them, and the
    lines each points at (where it does) before the spans."""
    lifted = np.fromiter(found, np.int64, len(found))
    rest = by_score[~np.isin(by_score, lifted)]
    lines = [(k, *where) for k, where in found.items() if where is not None]
    return np.concatenate([lifted, rest]), lines + spans


def _pasted_first(
    query: Query,
    served: ServedRoot,
    view: IndexView,
    cand_rows: np.ndarray,
    by_score: np.ndarray,
    spans: Spans,
    among_code: bool,
) -> tuple[np.ndarray, Spans]:
    """The holders of the pasted text first, source before the secondary files (a test
    that asserts the message, a translation's catalog: sphinx's `.po` files hold each
    warning it logs, and a log line's time and logger's name put one first), the lines
    that hold it first among each one's spans."""

    def holding_words(phrase: Phrase) -> np.ndarray:
        """The candidates that hold its first word and all its words but ``may_miss``."""
        terms = np.array([term_id(word) for word in dict.fromkeys(phrase.words)], np.uint32)
        held = view.holds(terms)
        need = len(terms) - phrase.may_miss
        if not held[0] or held.sum() < need:
            return np.zeros(len(cand_rows), bool)
        counts = np.zeros(len(view.kinds), np.int32)
        for term in terms[held].tolist():
            counts[view.postings(term)[0]] += 1
        first = np.zeros(len(view.kinds), bool)
        first[view.postings(int(terms[0]))[0]] = True
        return (first & (counts >= need))[cand_rows]

    def texts(candidates: list[int]) -> Iterable[str]:
        return file_texts(served.root, [view.path(int(cand_rows[k])) for k in candidates])

    found = holders(query.pasted, by_score, holding_words, texts)
    if not found:
        return by_score, spans
    asks = query.form.asks_for
    secondary = {
        k: secondary_kinds(os.fsdecode(view.path(int(cand_rows[k]))), asks, among_code) > 0
        for k in found
    }
    source_first = sorted(found, key=secondary.__getitem__)  # stable: the order within each
    return _lifted(by_score, {k: found[k] for k in source_first}, spans)


def _named_first(
    query: Query,
    served: ServedRoot,
    view: IndexView,
    cand_rows: np.ndarray,
    by_score: np.ndarray,
    spans: Spans,
    wants_spans: bool,
) -> tuple[np.ndarray, Spans]:
    """The files whose paths end as a name of the query does first; the line it names
    first among each one's spans, then the lines from the start of the definition that
    holds it down to it: where the pattern does not match the named line, a capped search
    prints the definition's first matching line (``def handle(`` for an error raised in
    its body), not the file's first. Those files are read and cut for it only where the
    spans are wanted (``-q`` without a pattern cuts them again for their passages)."""

    def holding(word: str) -> np.ndarray:
        has = np.zeros(len(view.kinds), bool)
        has[view.postings(term_id(PATH_FIELD + word))[0]] = True
        return has

    def holding_name(name: NamedFile) -> np.ndarray:
        """The candidates whose path words hold every word of the name's file name; for a
        module, a word of each of its first two parts, which a path that names it spells
        (``HTTPServer`` as ``http_server`` or ``httpserver``)."""
        held = np.ones(len(view.kinds), bool)
        if name.module:
            for part in name.parts[:2]:
                either = np.zeros(len(view.kinds), bool)
                for word in dict.fromkeys(path_words(part)):
                    either |= holding(word)
                held &= either
            return held[cand_rows]
        for word in dict.fromkeys(path_words(name.parts[-1])):
            held &= holding(word)
        return held[cand_rows]

    def path_of(k: int) -> str:
        return os.fsdecode(view.path(int(cand_rows[k])))

    found = named_holders(query.named, by_score, holding_name, path_of)
    if not found:
        return by_score, spans
    by_score, spans = _lifted(
        by_score, {k: None if line is None else (line, line) for k, line in found.items()}, spans
    )
    if not wants_spans:
        return by_score, spans
    lined = [(k, line) for k, line in found.items() if line is not None]
    paths = [view.path(int(cand_rows[k])) for k, _ in lined]
    enclosing: Spans = []
    for (k, line), path, text in zip(lined, paths, file_texts(served.root, paths), strict=True):
        start = _definition_start(text, os.fsdecode(path), line)
        if start is not None and start < line:
            enclosing.append((k, start, line))
    at = len(lined)  # after the named lines, before the other spans
    return by_score, spans[:at] + enclosing + spans[at:]


def _definition_start(text: str, name: str, line: int) -> int | None:
    """The first line of the definition (or prose block) that holds the line: of the
    function itself where a long one was cut in pieces (``Paragraph.within``)."""
    cut = cut_passages(text, name)
    holding = [p for p in cut if p.start <= line <= p.end]
    if not holding:
        return None
    passage = min(holding, key=lambda p: p.end - p.start)
    if passage.within:
        heads = [p.start for p in cut if p.name == passage.within and p.start <= passage.start]
        if heads:
            return max(heads)
    return passage.start
