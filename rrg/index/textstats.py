"""Turning file bytes into what the ranker needs: lexical terms and a text head.

Pure functions, no I/O: the indexer reads files, this module only looks at bytes.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import xxhash

_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W_]+")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
#: rg reads files in 64 KiB buffers and quits a walked file at its first NUL byte.
BINARY_SNIFF_BYTES = 64 * 1024


def looks_binary(head: bytes) -> bool:
    """Whether rg would skip this file while walking a directory (a NUL byte, no UTF-16 BOM)."""
    if head.startswith(_UTF16_BOMS):
        return False
    return b"\x00" in head[:BINARY_SNIFF_BYTES]


def decode(data: bytes) -> str:
    if data.startswith(_UTF16_BOMS):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8", errors="replace")


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


def term_id(term: str) -> int:
    return xxhash.xxh32_intdigest(term.encode("utf-8", "surrogatepass"))


def term_counts(text: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Hashed term ids (uint32, sorted), their counts (uint16) and the document length."""
    counts = Counter(words(text))
    if not counts:
        return np.zeros(0, np.uint32), np.zeros(0, np.uint16), 0
    ids = np.fromiter((term_id(t) for t in counts), np.uint32, len(counts))
    tfs = np.fromiter(counts.values(), np.int64, len(counts))
    order = np.argsort(ids, kind="stable")
    ids, tfs = ids[order], tfs[order]
    # Two words may hash to one id: merge them so the postings stay unique per document.
    uniq, start = np.unique(ids, return_index=True)
    merged = np.add.reduceat(tfs, start) if len(uniq) != len(ids) else tfs
    return uniq, np.minimum(merged, 65535).astype(np.uint16), int(tfs.sum())


def query_term_ids(query: str) -> np.ndarray:
    # Not np.unique: without return_index or counts it imports numpy.ma (5 ms a query).
    return np.array(sorted({term_id(t) for t in words(query)}), np.uint32)
