"""The cheap tier's passage signal: how closely the query's words meet in a file. A long
file that names every word somewhere, each far from the others, is no answer; a file with
one stretch of text that holds them together is.

Each file of the cheap order's head is read again and cut into windows of
``Tuning.passage_words_window`` characters, each overlapping the next by half; a window's
score is its BM25 (the windows of the head's files as the corpus; all of one length, so no
length norm), a file's its best window's. Words are found as substrings of the lower-cased
text, with one regular expression a file: ``getUserName`` holds "user", and no text is split
into words or passages in Python (a blank-line cut of the head's 200 files cost 0.2-0.6 s on
abseil-cpp, this a tenth of it).

The cheap order alone (``--fast``) uses it. The default order's stage reads the best
passages with the model, and this signal added to its scores moved the dev half by less
than .005 (.775 / .761 to .778 / .766, source folders / whole), the rule by which every
constant here keeps the simpler point.
"""

from __future__ import annotations

import os
import re
from itertools import islice
from pathlib import Path

import numpy as np

from rrg.binary_sniff import looks_binary
from rrg.index.refresh import read_head
from rrg.index.textstats import decode
from rrg.rank.code_priors import STOP_WORDS
from rrg.rank.query import Query
from rrg.rank.scoring import BM25_K1

# Its weight, head and window are chosen points of ``rrg.rank.tuning.Tuning``.
#: Query words shorter than this are not looked for (as substrings they match anywhere).
MIN_WORD = 3
#: Bytes of a file read for its windows, and query words counted in it at most: the head's
#: 100 files of 1 MiB, dense with the query's words, took 3.9-5.1 s unbounded, 0.23-0.30 s
#: bounded (benchmarks/passage_signal_cost.py); a stretch that answers is rarely past them
#: (the dev half's --fast, source / whole: .766 / .739 unbounded, .764 / .739 bounded).
READ_BYTES = 256 * 1024
MAX_MATCHES = 2_000


def query_words(query: Query) -> list[str]:
    return sorted(w for w in query.terms if len(w) >= MIN_WORD and w not in STOP_WORDS)


def best_window_bm25(
    query: Query,
    root: bytes,
    rel: list[bytes],
    window: int,
    read_bytes: int = READ_BYTES,
    max_matches: int = MAX_MATCHES,
) -> np.ndarray:
    """Each file's best window's BM25 (0 for a file that holds no query word, cannot be
    read, or is binary), from its first ``read_bytes`` and ``max_matches`` words."""
    terms = query_words(query)
    best = np.zeros(len(rel))
    if not terms:
        return best
    pattern = _any_of(terms)
    index = {t: k for k, t in enumerate(terms)}
    half = window // 2
    base = Path(os.fsdecode(root))
    owners: list[np.ndarray] = []
    starts: list[int] = []
    which: list[int] = []
    total = 0  # windows in the head, the BM25 corpus
    for owner, path in enumerate(rel):
        data = read_head(base, path, read_bytes) or b""
        if looks_binary(data):
            continue
        text = decode(data).lower()
        total += max(1, -(-len(text) // half) - 1)
        found = [(m.start(), index[m.group()]) for m in islice(pattern.finditer(text), max_matches)]
        if found:
            owners.append(np.full(len(found), owner, np.int64))
            for start, word in found:
                starts.append(start)
                which.append(word)
    if not owners:
        return best
    # The windows starting at each half-window before a match: both hold it.
    owner_of = np.concatenate(owners)
    at = np.array(starts, np.int64) // half
    word_of = np.array(which, np.int64)
    before = at > 0
    owner_of = np.concatenate([owner_of, owner_of[before]])
    window_of = np.concatenate([at, at[before] - 1])
    word_of = np.concatenate([word_of, word_of[before]])
    keys = owner_of << 40 | window_of << 8 | word_of
    cells, tf = np.unique(keys, return_counts=True)  # one a (file, window, word)
    places = cells >> 8  # (file, window)
    words_of = cells & 0xFF
    df = np.bincount(words_of, minlength=len(terms))  # windows holding each word
    idf = np.log1p((total - df + 0.5) / (df + 0.5))
    part = idf[words_of] * tf * (BM25_K1 + 1) / (tf + BM25_K1)
    place_ids, at_place = np.unique(places, return_inverse=True)
    score = np.bincount(at_place, weights=part)
    np.maximum.at(best, (place_ids >> 32).astype(np.int64), score)
    return best


def _any_of(terms: list[str]) -> re.Pattern[str]:
    """One pattern for the words, the longest first where several could match at a place;
    grouped by first letter (``s(?:ymbol|ince)``), which re scans a fifth faster than
    the plain alternation (22 words over sympy's 100 best files: 0.18 -> 0.15 s), with
    the same matches."""
    by_first: dict[str, list[str]] = {}
    for term in sorted(terms, key=len, reverse=True):
        by_first.setdefault(term[0], []).append(term)
    return re.compile(
        "|".join(
            re.escape(first) + "(?:" + "|".join(re.escape(t[1:]) for t in group) + ")"
            for first, group in by_first.items()
        )
    )
