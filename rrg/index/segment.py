"""One immutable slice of a root's index: a folder of ``.npy`` arrays, memory-mapped to read.

A segment is written once (to a temporary folder, renamed into place) and never changed: an
edited or deleted file is marked dead in the registry (rrg.index.store) and its new version
goes to a newer segment. Readers map the arrays, so a query touches only the pages it needs
(the postings of its terms, the vectors it scores), and a segment deleted by a merge stays
readable to a query that mapped it before.

Arrays are narrow on purpose (about 1 KB a small text file): document ids within a segment
are uint16 (a segment holds at most ``SEGMENT_DOCS``), term counts uint8 (BM25 saturates long
before 255), static vectors int8 with a scale per row. Each document keeps the set of its
WordPiece ids, without counts, so that the corpus's WordPiece document frequencies stay exact
when a file is edited or removed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import BinaryIO

import numpy as np

from rrg.atomic import NOT_AN_ARRAY, new_folder, save_array

#: Most documents in one segment (dead ones included): local document ids fit in uint16.
SEGMENT_DOCS = 65536
#: Arrays of a segment, each ``<name>.npy``.
ARRAYS = (
    "paths",  # uint8: every path relative to the root, each followed by a NUL byte
    "size",  # int64
    "mtime",  # int64, nanoseconds
    "hash",  # uint64: xxh3-64 of the bytes read
    "kind",  # int8: KIND_TEXT, KIND_BINARY, KIND_UNREADABLE
    "doclen",  # uint32: words, for BM25's length normalisation
    "post_term",  # uint32: hashed word ids, sorted, unique
    "post_ptr",  # int64: postings of post_term[i] are post_doc[post_ptr[i]:post_ptr[i+1]]
    "post_doc",  # uint16: local document ids
    "post_tf",  # uint8: counts, capped at 255
    "static",  # int8 (docs, dims): the static vector, quantised
    "static_scale",  # float32: static[i] * static_scale[i] is the unit vector
    "piece_ptr",  # int64: WordPiece ids of doc i are pieces[piece_ptr[i]:piece_ptr[i+1]]
    "pieces",  # uint16 or uint32 (vocabularies past 65,536): unique ids per document
    "piece_df",  # int32 (vocab,): documents of this segment holding each WordPiece
)


class SegmentDamaged(Exception):
    """A segment's arrays are missing, truncated or inconsistent."""


@dataclass
class Doc:
    """One file as the indexer saw it, before it joins a segment."""

    path: bytes
    size: int
    mtime_ns: int
    hash: int
    kind: int
    length: int = 0
    terms: np.ndarray | None = None  # uint32, sorted unique
    tfs: np.ndarray | None = None
    pieces: np.ndarray | None = None  # unique WordPiece ids
    piece_counts: np.ndarray | None = None  # their counts (shape the vector; not stored)
    vector: np.ndarray | None = None  # float32 unit vector (dims,)


@dataclass
class Segment:
    """A segment's arrays (memory-mapped when opened from disk)."""

    name: str
    a: dict[str, np.ndarray]
    static_file: BinaryIO | None = None  # static.npy, open while the segment is

    def __post_init__(self) -> None:
        # Closed with the segment, not by the garbage collector after it: that is a
        # ResourceWarning where warnings show (a library caller's tests under ``-W error``).
        if self.static_file is not None:
            weakref.finalize(self, self.static_file.close)

    @property
    def docs(self) -> int:
        return len(self.a["kind"])

    def paths(self) -> list[bytes]:
        blob = self.a["paths"].tobytes()
        return blob.split(b"\0")[:-1] if blob else []

    def path(self, row: int) -> bytes:
        ends = self._path_ends
        start = int(ends[row - 1]) + 1 if row else 0
        return self.a["paths"][start : int(ends[row])].tobytes()

    @cached_property
    def _path_ends(self) -> np.ndarray:
        return np.flatnonzero(np.asarray(self.a["paths"]) == 0)

    def postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """Local document ids and counts of one term (empty when absent)."""
        terms = self.a["post_term"]
        pos = int(np.searchsorted(terms, term))
        if pos >= len(terms) or terms[pos] != term:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        lo, hi = int(self.a["post_ptr"][pos]), int(self.a["post_ptr"][pos + 1])
        docs = self.a["post_doc"][lo:hi].astype(np.int64)
        if len(docs) and int(docs.max()) >= self.docs:
            raise SegmentDamaged(f"segment {self.name}: a posting points past its documents")
        return docs, self.a["post_tf"][lo:hi].astype(np.float32)

    def holds(self, terms: np.ndarray) -> np.ndarray:
        """Which of these terms (uint32) the segment has postings of."""
        known = np.asarray(self.a["post_term"])
        if not len(known):
            return np.zeros(len(terms), bool)
        return known[np.minimum(np.searchsorted(known, terms), len(known) - 1)] == terms

    def doc_pieces(self, rows: np.ndarray) -> np.ndarray:
        """The WordPiece ids of these documents (ascending rows), concatenated, in their
        stored type (for document frequencies, and for merges)."""
        chosen = np.zeros(self.docs, bool)
        chosen[rows] = True
        return np.asarray(self.a["pieces"])[np.repeat(chosen, np.diff(self.a["piece_ptr"]))]

    def vectors(self, start: int, stop: int) -> np.ndarray:
        """Static unit vectors of documents start..stop as float32."""
        static = self.a["static"]
        scale = np.asarray(self.a["static_scale"][start:stop, None])
        if self.static_file is not None and isinstance(static, np.memmap):
            # Read, not mapped: every query reads every vector once, and mapped pages would
            # stay in the process's memory (1M files: 256 MB) where read ones are let go.
            # Read through the file opened with the segment: a merge may delete it meanwhile.
            dims = static.shape[1]
            want = (stop - start) * dims
            data = os.pread(self.static_file.fileno(), want, static.offset + start * dims)
            if len(data) != want:
                raise SegmentDamaged(f"segment {self.name}: static.npy is short")
            block = np.frombuffer(data, np.int8).reshape(-1, dims)
            return block.astype(np.float32) * scale
        return static[start:stop].astype(np.float32) * scale


def open_segment(folder: Path) -> Segment:
    """Map a segment's arrays; raises FileNotFoundError when the folder is gone (a merge
    replaced it) and SegmentDamaged when it is not what a writer left."""
    if not folder.is_dir():
        raise FileNotFoundError(folder)
    arrays: dict[str, np.ndarray] = {}
    for name in ARRAYS:
        try:
            arrays[name] = np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False)
        except FileNotFoundError:
            if not folder.is_dir():
                raise
            raise SegmentDamaged(f"segment {folder.name}: {name}.npy is missing") from None
        except NOT_AN_ARRAY as err:  # cut short, or not an array file at all
            raise SegmentDamaged(f"segment {folder.name}: {name}.npy: {err}") from err
    _check_shapes(folder.name, arrays)
    return Segment(folder.name, arrays, open(folder / "static.npy", "rb"))


def _check_shapes(name: str, a: dict[str, np.ndarray]) -> None:
    n = len(a["kind"])
    same = all(len(a[k]) == n for k in ("size", "mtime", "hash", "doclen", "static_scale"))
    ok = (
        same
        and a["static"].ndim == 2
        and len(a["static"]) == n
        and len(a["post_ptr"]) == len(a["post_term"]) + 1
        and int(a["post_ptr"][-1]) == len(a["post_doc"]) == len(a["post_tf"])
        and len(a["piece_ptr"]) == n + 1
        and int(a["piece_ptr"][-1]) == len(a["pieces"])
        and int(np.count_nonzero(a["paths"] == 0)) == n
    )
    if not ok:
        raise SegmentDamaged(f"segment {name}: its arrays disagree in length")


def build_arrays(docs: Sequence[Doc], dims: int, vocab: int) -> dict[str, np.ndarray]:
    """A segment's arrays for these documents (at most SEGMENT_DOCS of them)."""
    n = len(docs)
    assert n <= SEGMENT_DOCS
    piece_type = _piece_type(vocab)
    terms = [d.terms if d.terms is not None else np.zeros(0, np.uint32) for d in docs]
    tfs = [d.tfs if d.tfs is not None else np.zeros(0, np.uint16) for d in docs]
    pieces = [d.pieces if d.pieces is not None else np.zeros(0, np.int64) for d in docs]
    all_terms = np.concatenate(terms) if n else np.zeros(0, np.uint32)
    all_tfs = np.concatenate(tfs) if n else np.zeros(0, np.uint16)
    all_docs = np.repeat(np.arange(n, dtype=np.uint16), [len(t) for t in terms])
    vectors = np.zeros((n, dims), np.float32)
    for i, d in enumerate(docs):
        if d.vector is not None:
            vectors[i] = d.vector
    all_pieces = np.concatenate(pieces).astype(np.int64) if n else np.zeros(0, np.int64)
    return {
        "paths": np.frombuffer(b"".join(d.path + b"\0" for d in docs), np.uint8),
        "size": np.array([d.size for d in docs], np.int64),
        "mtime": np.array([d.mtime_ns for d in docs], np.int64),
        "hash": np.array([d.hash for d in docs], np.uint64),
        "kind": np.array([d.kind for d in docs], np.int8),
        "doclen": np.array([d.length for d in docs], np.uint32),
        **_postings(_posting_keys(all_terms, all_docs, np.minimum(all_tfs, 255))),
        **_quantised(vectors),
        "piece_ptr": _pointers([len(p) for p in pieces]),
        "pieces": all_pieces.astype(piece_type),
        "piece_df": np.bincount(all_pieces, minlength=vocab)[:vocab].astype(np.int32),
    }


@dataclass
class Streamed:
    """Arrays written a block at a time, side by side (a merge's largest columns), so that
    no one of them is ever whole in memory: each key's type and shape are known first,
    then each item of ``blocks`` holds the next block of every key."""

    keys: tuple[str, ...]
    dtypes: tuple[np.dtype, ...]
    shapes: tuple[tuple[int, ...], ...]
    blocks: Iterator[tuple[np.ndarray, ...]]


#: One of a segment's columns as a merge gives it: whole, or streamed with its siblings.
Column = tuple[str, "np.ndarray | Streamed"]


def merged_columns(parts: Sequence[tuple[Segment, np.ndarray]], vocab: int) -> Iterator[Column]:
    """A segment's columns from the live rows of several (rows in each, in order), as a
    writer takes them: small ones whole, the vectors, WordPiece ids and postings streamed
    part by part or term range by term range (a merge of 65,536 files holds about 10
    million postings and 20 million WordPiece ids)."""
    assert parts, "a merge needs at least one segment"
    remaps: list[np.ndarray] = []
    base = 0
    for seg, rows in parts:
        # Old local id -> new local id; -1 for rows left behind.
        remap = np.full(seg.docs, -1, np.int32)
        remap[rows] = base + np.arange(len(rows), dtype=np.int32)
        remaps.append(remap)
        base += len(rows)
    assert base <= SEGMENT_DOCS
    paths = []
    for seg, rows in parts:
        names = seg.paths()
        paths.append(np.frombuffer(b"".join(names[r] + b"\0" for r in rows), np.uint8))
    yield "paths", np.concatenate(paths)
    del paths
    for key in ("size", "mtime", "hash", "kind", "doclen", "static_scale"):
        yield key, np.concatenate([np.asarray(seg.a[key][rows]) for seg, rows in parts])
    static = parts[0][0].a["static"]
    yield (
        "static",
        Streamed(
            ("static",),
            (static.dtype,),
            ((base, static.shape[1]),),
            ((np.asarray(seg.a["static"][rows]),) for seg, rows in parts),
        ),
    )
    sizes = np.concatenate([np.diff(np.asarray(seg.a["piece_ptr"]))[rows] for seg, rows in parts])
    yield "piece_ptr", _pointers(sizes)
    piece_type = np.dtype(_piece_type(vocab))
    pieces = ((seg.doc_pieces(rows).astype(piece_type, copy=False),) for seg, rows in parts)
    yield "pieces", Streamed(("pieces",), (piece_type,), ((int(sizes.sum()),),), pieces)
    # Frequencies: each part's own, less those of the rows left behind (few, usually),
    # rather than counting every kept piece again (a bincount widens them to int64).
    df = np.zeros(vocab, np.int64)
    for seg, rows in parts:
        left = np.setdiff1d(np.arange(seg.docs), rows, assume_unique=True)
        df += np.asarray(seg.a["piece_df"][:vocab], np.int64)
        df -= np.bincount(seg.doc_pieces(left), minlength=vocab)[:vocab]
    yield "piece_df", df.astype(np.int32)
    yield from _merged_postings([seg for seg, _ in parts], remaps)


#: Term ranges a merge sorts one at a time. A merge of 65,536 files moves about ten million
#: postings: sorted all at once, their keys and fields held about 170 MB.
MERGE_RANGES = 16


def _merged_postings(segments: Sequence[Segment], remaps: Sequence[np.ndarray]) -> Iterator[Column]:
    """The merged postings, sorted by term and then new document id, one range of term ids
    at a time (terms are hashed, so ranges hold about equal shares). Documents and counts
    are streamed; terms and their pointers (one a distinct term) come after, whole."""
    edges = (np.arange(1, MERGE_RANGES, dtype=np.uint64) << np.uint64(32)) // MERGE_RANGES
    # Where each range starts and ends in each segment's term list.
    cuts = []
    for seg in segments:
        terms = seg.a["post_term"]
        inner = np.searchsorted(terms, edges.astype(np.uint32))
        cuts.append(np.concatenate([[0], inner, [len(terms)]]).astype(np.int64))
    # The files' lengths come first: count the postings kept (a gather a posting).
    total = 0
    for seg, remap, cut in zip(segments, remaps, cuts, strict=True):
        for r in range(MERGE_RANGES):
            first, last = _posting_span(seg, int(cut[r]), int(cut[r + 1]))
            total += int(np.count_nonzero(remap[np.asarray(seg.a["post_doc"][first:last])] >= 0))
    term_parts: list[np.ndarray] = []
    start_parts: list[np.ndarray] = []

    def blocks() -> Iterator[tuple[np.ndarray, ...]]:
        done = 0
        for r in range(MERGE_RANGES):
            keys = [
                _range_keys(seg, remap, int(cut[r]), int(cut[r + 1]))
                for seg, remap, cut in zip(segments, remaps, cuts, strict=True)
            ]
            merged = _postings(np.concatenate(keys))
            del keys
            term_parts.append(merged["post_term"])
            start_parts.append(merged["post_ptr"][:-1] + done)
            done += len(merged["post_doc"])
            yield merged["post_doc"], merged["post_tf"]
        assert done == total

    types = (np.dtype(np.uint16), np.dtype(np.uint8))
    yield "post_doc", Streamed(("post_doc", "post_tf"), types, ((total,), (total,)), blocks())
    yield "post_term", np.concatenate(term_parts).astype(np.uint32, copy=False)
    yield "post_ptr", np.append(np.concatenate(start_parts), total).astype(np.int64)


def _posting_span(seg: Segment, lo: int, hi: int) -> tuple[int, int]:
    """Where the postings of a segment's terms lo..hi (indices in its term list) lie."""
    ptr = seg.a["post_ptr"]
    return int(ptr[lo]), int(ptr[hi])


def _range_keys(seg: Segment, remap: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Posting keys of a segment's terms lo..hi, renumbered to the merged segment's
    documents; postings of rows left behind are dropped."""
    a = seg.a
    ptr = np.asarray(a["post_ptr"][lo : hi + 1])
    first, last = int(ptr[0]), int(ptr[-1])
    new_doc = remap[np.asarray(a["post_doc"][first:last])]
    keep = new_doc >= 0
    term_of = np.repeat(np.asarray(a["post_term"][lo:hi]), np.diff(ptr))
    return _posting_keys(term_of[keep], new_doc[keep], np.asarray(a["post_tf"][first:last])[keep])


def _piece_type(vocab: int) -> type[np.unsignedinteger]:
    """WordPiece ids fit in uint16 for vocabularies up to 65,536 (MiniLM's has 30,522)."""
    return np.uint16 if vocab <= 65536 else np.uint32


def _posting_keys(terms: np.ndarray, docs: np.ndarray, tfs: np.ndarray) -> np.ndarray:
    """Each posting as one uint64 (term, then document, then count): sorting these sorts
    postings by term and document without an argsort's int64 index array beside them."""
    keys = terms.astype(np.uint64) << np.uint64(24)
    keys |= docs.astype(np.uint64) << np.uint64(8)
    keys |= tfs.astype(np.uint64)
    return keys


def _postings(keys: np.ndarray) -> dict[str, np.ndarray]:
    keys.sort()
    # The fields are read from the keys' bytes (little-endian: count, document, term) so
    # that no full-size uint64 temporary is made: a merge of 65,536 files sorts about ten
    # million postings.
    fields = keys.astype("<u8", copy=False).view(np.uint8).reshape(-1, 8)
    terms = np.ascontiguousarray(fields[:, 3:7]).view("<u4").ravel()
    starts = np.flatnonzero(terms[1:] != terms[:-1]) + 1
    first = np.concatenate([[0], starts]).astype(np.int64) if len(terms) else starts
    return {
        "post_term": terms[first].astype(np.uint32),
        "post_ptr": np.append(first, len(keys)).astype(np.int64),
        "post_doc": np.ascontiguousarray(fields[:, 1:3]).view("<u2").ravel().astype(np.uint16),
        "post_tf": fields[:, 0].astype(np.uint8),
    }


def _quantised(vectors: np.ndarray) -> dict[str, np.ndarray]:
    peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, np.float32)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    static = np.rint(vectors / scale[:, None]).astype(np.int8)
    return {"static": static, "static_scale": scale}


def _pointers(sizes: Sequence[int] | np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(np.asarray(sizes, np.int64))]).astype(np.int64)


def write_segment(parent: Path, seq: int, columns: dict[str, np.ndarray] | Iterable[Column]) -> str:
    """Write a new segment under parent, its arrays whole or streamed (``Streamed``, each
    block written as it comes); returns its name. The folder appears whole (written under a
    temporary name, synced, renamed) or not at all."""
    parent.mkdir(mode=0o700, exist_ok=True)
    name = f"s{seq:09d}-{os.urandom(4).hex()}"
    items = columns.items() if isinstance(columns, dict) else columns
    written: set[str] = set()
    with new_folder(parent, name) as tmp:
        for key, column in items:
            if isinstance(column, Streamed):
                _write_streamed(tmp, column)
                written.update(column.keys)
            else:
                save_array(tmp / f"{key}.npy", column)
                written.add(key)
        missing = set(ARRAYS) - written
        if missing:
            raise ValueError(f"a segment needs {', '.join(sorted(missing))}")
    return name


def _write_streamed(folder: Path, column: Streamed) -> None:
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(open(folder / f"{k}.npy", "wb")) for k in column.keys]
        counts = [0] * len(files)
        for fh, dtype, shape in zip(files, column.dtypes, column.shapes, strict=True):
            header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False}
            np.lib.format.write_array_header_1_0(fh, {**header, "shape": shape})
        for blocks in column.blocks:
            for i, (fh, block) in enumerate(zip(files, blocks, strict=True)):
                block = np.ascontiguousarray(block, column.dtypes[i])
                fh.write(block.data)
                counts[i] += len(block)
        for fh, count, shape in zip(files, counts, column.shapes, strict=True):
            if count != shape[0]:
                raise ValueError(f"{fh.name}: {count} rows written where {shape[0]} were due")
            _sync(fh)


def _sync(fh: BinaryIO) -> None:
    fh.flush()
    os.fsync(fh.fileno())


def remove_segment(parent: Path, name: str) -> None:
    shutil.rmtree(parent / name, ignore_errors=True)
