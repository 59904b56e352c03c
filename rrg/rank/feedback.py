"""Pseudo-relevance feedback: the words the best files share, searched for as the query's.

A question says "route parameters"; the code that answers says ``Params``, ``getValue``,
``wildcard``. The best files of a first order already hold those words: the words several of
them use often, and few other files use, are added to the query (each weighed by how much
the best files lean on it), and every candidate is scored by them with BM25 (RM3's idea,
Lavrenko and Croft's relevance model, as Anserini runs it, cut to its simplest form).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from rrg.index.store import KIND_TEXT
from rrg.index.textstats import term_id, words
from rrg.index.view import IndexView
from rrg.rank.code_priors import STOP_WORDS
from rrg.rank.passages import file_texts
from rrg.rank.scoring import bm25_term

#: Words shorter than this are left out: ``id``, ``if``, ``fn`` say nothing of a topic.
MIN_LETTERS = 3
#: Words looked up in the index (their document frequency) before the best are kept.
SHORTLIST = 60


def feedback_terms(
    query: str, root: bytes, rel: list[bytes], view: IndexView, count: int
) -> list[tuple[int, float]]:
    """The ``count`` words (as term ids) that the files ``rel`` (the best of a first order)
    share and the query does not say, with their weights: each word's mean share of a
    file's words times its idf, for words in at least two of the files (one file's own
    vocabulary is its topic, not the query's)."""
    said = set(words(query))
    shares: Counter[str] = Counter()
    holders: Counter[str] = Counter()
    for text in file_texts(root, rel):
        counts = Counter(
            w
            for w in words(text)
            if len(w) >= MIN_LETTERS and not w.isdigit() and w not in said and w not in STOP_WORDS
        )
        total = sum(counts.values())
        if not total:
            continue
        for word, n in counts.items():
            shares[word] += n / total
            holders[word] += 1
    need = 2 if len(rel) > 1 else 1
    shortlist = [w for w, _ in shares.most_common() if holders[w] >= need][:SHORTLIST]
    weighed = []
    for word in shortlist:
        term = term_id(word)
        df = len(view.postings(term)[0])
        if not df:
            continue
        idf = float(np.log1p((view.n_text - df + 0.5) / (df + 0.5)))
        weighed.append((term, shares[word] / len(rel) * idf))
    weighed.sort(key=lambda tw: -tw[1])
    return weighed[:count]


def feedback_bm25(view: IndexView, terms: list[tuple[int, float]]) -> np.ndarray:
    """Every row's BM25 for the feedback words, each term's part scaled by its weight (the
    heaviest 1)."""
    scores = np.zeros(len(view.kinds), np.float32)
    if not terms:
        return scores
    doclen = np.where(view.kinds == KIND_TEXT, view.doclen, 0).astype(np.float32)
    text = doclen > 0
    avg = float(doclen[text].mean()) if text.any() else 1.0
    top = max(w for _, w in terms)
    for term, weight in terms:
        docs, tfs = view.postings(term)
        if len(docs):
            part = bm25_term(tfs.astype(np.float32), len(docs), view.n_text, doclen[docs], avg)
            scores[docs] += weight / top * part
    return scores
