"""Turning file bytes into what the ranker needs: lexical terms and a text head.

Pure functions, no I/O: the indexer reads files, this module only looks at bytes.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import xxhash

from rrg.binary_sniff import utf16_marked

_WORD = re.compile(r"[^\W_]+")
#: ``_WORD`` in ASCII text, read by ``_ascii_words``: every other ASCII character made a
#: space, then split (``str.translate`` over one byte a character, then ``str.split``, both
#: in C, run in 0.3x the time of the pattern's ``findall``: sympy's 30 MB, 0.51 -> 0.16 s).
_NOT_ASCII_WORD = str.maketrans(
    {c: " " for c in range(128) if not chr(c).isalnum()}  # ASCII: [A-Za-z0-9]
)
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W_]+")
#: A file's path words are indexed twice: as words of its text, and under this prefix as a
#: field of their own, scored apart (a file named after the topic is often the one wanted,
#: and one more word among thousands says little). No word holds "/", so the two never meet.
PATH_FIELD = "/"


def _ascii_words(text: str) -> list[str]:
    """The runs of ``[A-Za-z0-9]`` of an ASCII text, in order."""
    return text.translate(_NOT_ASCII_WORD).split()


def decode(data: bytes) -> str:
    """A file's text as rg reads it: UTF-16 where it starts with that BOM, else UTF-8; a
    byte order mark is not text (rg leaves it out of the line it prints; a passage showed
    it, an invisible character an agent still reads)."""
    if utf16_marked(data):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def words(text: str) -> list[str]:
    """Lower-cased words; ``getUserName`` and ``user_name`` also yield their parts."""
    out: list[str] = []
    for word in _WORD.findall(text):
        if word.islower() or word.isupper() or word.isdigit():
            out.append(word.lower())
            continue
        out.append(word.lower())
        parts = _CAMEL.findall(word)
        if len(parts) > 1:
            out.extend(p.lower() for p in parts)
    return out


def counted_words(text: str, wanted: set[str] | frozenset[str]) -> Counter[str]:
    """How often each of the ``wanted`` words occurs among ``words(text)``: the same counts,
    with the text's words counted in C and each distinct word looked at once (the passage
    scorers count a query's words in thousands of passages)."""
    if not wanted:
        return Counter()
    if not text.isascii():
        # The shortcut below (a part is looked for only inside its word's lower case)
        # holds for ASCII; other text is counted whole, each distinct word once.
        return Counter({w: c for w, c in word_counts(text).items() if w in wanted})
    out: Counter[str] = Counter()
    for word, count in Counter(_ascii_words(text)).items():
        low = word.lower()
        if low in wanted:
            out[low] += count
        if word.islower() or word.isupper() or word.isdigit():
            continue
        if any(w in low for w in wanted):  # a part can be wanted only if it is inside
            parts = _CAMEL.findall(word)
            if len(parts) > 1:
                for part in parts:
                    part = part.lower()
                    if part in wanted:
                        out[part] += count
    return out


def term_id(term: str) -> int:
    return xxhash.xxh32_intdigest(term.encode("utf-8", "surrogatepass"))


def term_counts(text: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Hashed term ids (uint32, sorted), their counts (uint16) and the document length."""
    counts = word_counts(text)
    ids, tfs = _counted_ids(counts)
    return ids, tfs, sum(counts.values())


def word_counts(text: str) -> Counter[str]:
    """``Counter(words(text))``, with each distinct word of the text looked at once: the
    text's words are counted in C first. A cold build is much of this: with ``words``'
    loop over every word sympy's 1,863 files took 5.1 s, with this 4.1 s
    (docs/benchmarks.md, "The index's words counted once per distinct word")."""
    out: Counter[str] = Counter()
    # On ASCII text the two read alike, and the ASCII reading runs in about a fifth of the
    # time (sympy's 30 MB of Python: 0.71 s with ``_WORD``, 0.16 s).
    found = _ascii_words(text) if text.isascii() else _WORD.findall(text)
    for word, count in Counter(found).items():
        out[word.lower()] += count
        if word.islower() or word.isupper() or word.isdigit():
            continue
        parts = _CAMEL.findall(word)
        if len(parts) > 1:
            for part in parts:
                out[part.lower()] += count
    return out


def path_words(text: str) -> list[str]:
    """The words of a path (or a query, matched against paths) that may name a topic.
    Numbers are left out: in a file name they are ids and versions, and a query's numbers
    (a year, a dose) would otherwise pick out one file by its name."""
    return [w for w in words(text) if not w.isdigit()]


def with_path_terms(ids: np.ndarray, tfs: np.ndarray, rel: bytes) -> tuple[np.ndarray, np.ndarray]:
    """A text's terms joined by its path's, as a field of their own (see ``PATH_FIELD``)."""
    path = rel.decode("utf-8", "replace")
    return with_terms(ids, tfs, [PATH_FIELD + w for w in path_words(path)])


def with_terms(ids: np.ndarray, tfs: np.ndarray, terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """A text's terms joined by more (a field's, each prefixed apart from words), counted."""
    more_ids, more_tfs = _counted_ids(Counter(terms))
    if not len(more_ids):
        return ids, tfs
    return _merged(np.concatenate([ids, more_ids]), np.concatenate([tfs, more_tfs]))


def _counted_ids(counts: Counter[str]) -> tuple[np.ndarray, np.ndarray]:
    if not counts:
        return np.zeros(0, np.uint32), np.zeros(0, np.uint16)
    ids = np.fromiter((term_id(t) for t in counts), np.uint32, len(counts))
    return _merged(ids, np.fromiter(counts.values(), np.int64, len(counts)))


def _merged(ids: np.ndarray, tfs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique ids with their counts (uint16)."""
    order = np.argsort(ids, kind="stable")
    ids, tfs = ids[order], tfs[order].astype(np.int64)
    # Two words may hash to one id: merge them so the postings stay unique per document.
    # Read off the sorted ids, not with np.unique, which sorts them again (a cold build
    # calls this twice a file: sympy's 0.29 s of np.unique).
    repeated = ids[1:] == ids[:-1]
    if repeated.any():
        start = np.flatnonzero(np.concatenate([[True], ~repeated]))
        ids, tfs = ids[start], np.add.reduceat(tfs, start)
    return ids, np.minimum(tfs, 65535).astype(np.uint16)


def query_term_ids(query: str) -> np.ndarray:
    # Not np.unique: without return_index or counts it imports numpy.ma (5 ms a query).
    return np.array(sorted({term_id(t) for t in words(query)}), np.uint32)


def query_path_ids(query: str) -> np.ndarray:
    """The query's words as terms of the path field."""
    wanted = {term_id(PATH_FIELD + w) for w in path_words(query)}
    return np.array(sorted(wanted), np.uint32)
