"""Keeping a root's index fresh: stat first, hash only what changed, re-read only new content,
then pack the arrays the ranker reads.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xxhash

from rrg.index.store import (
    KIND_BINARY,
    KIND_TEXT,
    KIND_UNREADABLE,
    FileRow,
    IndexStore,
    open_store,
    writer_lock,
)
from rrg.index.textstats import decode, looks_binary, term_counts
from rrg.model.encoder import Encoder, static_table

#: Bytes read of each file for ranking; a longer file is ranked by its head.
READ_LIMIT = 1 << 20
#: WordPiece tokens of each file that shape its static vector.
PIECE_LIMIT = 1024
_COMMIT_EVERY = 500

Warn = Callable[[str], None]
Progress = Callable[[int, int], None]


@dataclass
class RefreshReport:
    listed: int = 0
    read: int = 0
    touched: int = 0
    deleted: int = 0
    repacked: bool = False
    read_only: bool = False


@dataclass
class Packed:
    """What the ranker needs, as arrays; row i describes ``paths[i]``."""

    paths: list[bytes]
    kinds: np.ndarray
    hashes: list[str]
    doclen: np.ndarray
    post_terms: np.ndarray
    post_ptr: np.ndarray
    post_docs: np.ndarray
    post_tfs: np.ndarray
    piece_idf: np.ndarray
    static: np.ndarray

    def row_of(self) -> dict[bytes, int]:
        return {p: i for i, p in enumerate(self.paths)}


def _empty_row(rel: bytes, st: os.stat_result, digest: str, kind: int) -> FileRow:
    empty32, empty16 = np.zeros(0, np.uint32), np.zeros(0, np.uint16)
    return FileRow(
        rel, st.st_size, st.st_mtime_ns, digest, kind, 0, empty32, empty16, empty32, empty16
    )


def content_hash(data: bytes) -> str:
    """xxh3-64 of the bytes read: a file is re-read only when this changes.

    Cheap next to reading (about 10 GB/s), so it is recomputed rather than carried around.
    """
    return xxhash.xxh3_64_hexdigest(data)


def read_head(root: Path, rel: bytes) -> bytes | None:
    """The first READ_LIMIT bytes of a file, or None when it cannot be read."""
    try:
        with open(os.path.join(os.fsencode(root), rel), "rb") as fh:
            return fh.read(READ_LIMIT)
    except OSError:
        return None


def build_rows(
    items: list[tuple[bytes, os.stat_result, bytes | None]], encoder: Encoder
) -> list[FileRow]:
    """Index rows for files already read; the WordPiece pass runs as one batch (in Rust,
    on every core), the word counts per file."""
    rows: list[FileRow] = []
    texts: list[str] = []
    text_rows: list[int] = []
    for rel, st, data in items:
        if data is None:
            rows.append(_empty_row(rel, st, "", KIND_UNREADABLE))
            continue
        digest = content_hash(data)
        if looks_binary(data):
            rows.append(_empty_row(rel, st, digest, KIND_BINARY))
            continue
        # The path's own words count: a file named after the topic is often the one wanted.
        text = rel.decode("utf-8", "replace").replace("/", " ") + "\n" + decode(data)
        terms, tfs, length = term_counts(text)
        row = _empty_row(rel, st, digest, KIND_TEXT)
        row.terms, row.tfs, row.length = terms, tfs, length
        rows.append(row)
        texts.append(text[: PIECE_LIMIT * 8])
        text_rows.append(len(rows) - 1)
    for k, ids in zip(text_rows, encoder.piece_ids(texts, PIECE_LIMIT), strict=True):
        uniq, counts = np.unique(np.asarray(ids, np.uint32), return_counts=True)
        rows[k].pieces = uniq.astype(np.uint32)
        rows[k].piece_tfs = np.minimum(counts, 65535).astype(np.uint16)
    return rows


def refresh(
    index_path: Path,
    root: Path,
    rel_paths: list[bytes],
    encoder: Encoder,
    warn: Warn,
    progress: Progress | None = None,
) -> tuple[Packed, RefreshReport]:
    """Bring the index up to date for rel_paths (relative to root) and return its arrays.

    Writers take the index's lock in turn. A process that cannot get it in time ranks from
    the last complete index instead; files it does not know come after the ranked ones.
    """
    report = RefreshReport(listed=len(rel_paths))
    with writer_lock(index_path) as got_lock:
        store = open_store(index_path, warn)
        try:
            if not got_lock:
                report.read_only = True
                warn("index is busy (another rrg is writing it); ranking from its last state")
                return _load_or_pack(store, encoder), report
            changed = _apply_changes(store, root, rel_paths, encoder, report, progress)
            packed_gen = store.get_meta("packed_generation")
            if changed or packed_gen is None or packed_gen != store.get_meta("generation"):
                result = pack(store, encoder)
                report.repacked = True
                with store.transaction():
                    store.set_vectors(result.new_vectors)
                    if result.full_pass:
                        n_text = int((result.packed.kinds == KIND_TEXT).sum())
                        store.set_meta("vectors_full_pass_docs", str(n_text))
                    store.put_packed(_packed_arrays(result.packed))
                    store.set_meta("packed_generation", store.get_meta("generation") or "0")
                # Fold the write-ahead log back into the file: it would otherwise hold a
                # second copy of everything a big build wrote.
                store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                return result.packed, report
            return _load_or_pack(store, encoder), report
        finally:
            store.close()


def _load_or_pack(store: IndexStore, encoder: Encoder) -> Packed:
    try:
        return _load_packed(store)
    except (KeyError, ValueError):
        return pack(store, encoder).packed


def _apply_changes(
    store: IndexStore,
    root: Path,
    rel_paths: list[bytes],
    encoder: Encoder,
    report: RefreshReport,
    progress: Progress | None,
) -> bool:
    known = store.stats()
    root_b = os.fsencode(root)
    stale: list[tuple[bytes, os.stat_result]] = []
    for rel in rel_paths:
        try:
            st = os.stat(os.path.join(root_b, rel))
        except OSError:
            continue  # vanished since rg listed it; rg will say so when it searches
        old = known.get(rel)
        if old is None or old[0] != st.st_size or old[1] != st.st_mtime_ns:
            stale.append((rel, st))
    listed = set(rel_paths)
    gone = [
        rel for rel in known if rel not in listed and not os.path.lexists(os.path.join(root_b, rel))
    ]
    if not stale and not gone:
        return False
    # Commit in chunks: a build killed half-way keeps what it finished.
    for start in range(0, max(len(stale), 1), _COMMIT_EVERY):
        changed: list[tuple[bytes, os.stat_result, bytes | None]] = []
        with store.transaction():
            for offset, (rel, st) in enumerate(stale[start : start + _COMMIT_EVERY]):
                if progress:
                    progress(start + offset, len(stale))
                data = read_head(root, rel)
                old = known.get(rel)
                if (
                    old is not None
                    and data is not None
                    and old[2] == xxhash.xxh3_64_hexdigest(data)
                ):
                    store.touch(rel, st.st_size, st.st_mtime_ns)
                    report.touched += 1
                else:
                    changed.append((rel, st, data))
            for row in build_rows(changed, encoder):
                store.put(row)
                report.read += 1
            if start == 0:
                for rel in gone:
                    store.delete(rel)
                    report.deleted += 1
            _bump_generation(store)
        if progress:
            progress(min(start + _COMMIT_EVERY, len(stale)), len(stale))
    return True


def _bump_generation(store: IndexStore) -> None:
    store.set_meta("generation", str(int(store.get_meta("generation") or "0") + 1))


#: Recompute every static vector when the number of documents moved by more than this share
#: since the last full pass (their idf weights drift with the corpus); otherwise a pack
#: computes vectors only for new and changed files.
IDF_DRIFT = 0.2


@dataclass
class PackResult:
    packed: Packed
    new_vectors: dict[bytes, np.ndarray]  # to store in the rows
    full_pass: bool


def pack(store: IndexStore, encoder: Encoder) -> PackResult:
    """Turn the rows into postings and static document vectors.

    Vectors already in the rows are kept; only rows without one are computed, unless the
    corpus size drifted past IDF_DRIFT since the last full pass.
    """
    paths: list[bytes] = []
    kinds: list[int] = []
    hashes: list[str] = []
    lengths: list[int] = []
    terms: list[np.ndarray] = []
    docs: list[np.ndarray] = []
    tfs: list[np.ndarray] = []
    pieces: list[np.ndarray] = []
    piece_tfs: list[np.ndarray] = []
    vectors: list[np.ndarray | None] = []
    for i, row in enumerate(store.rows()):
        paths.append(row.path)
        kinds.append(row.kind)
        hashes.append(row.hash)
        lengths.append(row.length)
        terms.append(row.terms)
        tfs.append(row.tfs)
        docs.append(np.full(len(row.terms), i, np.int32))
        pieces.append(row.pieces)
        piece_tfs.append(row.piece_tfs)
        vectors.append(row.vec)
    n = len(paths)
    all_terms = np.concatenate(terms) if terms else np.zeros(0, np.uint32)
    all_docs = np.concatenate(docs) if docs else np.zeros(0, np.int32)
    all_tfs = np.concatenate(tfs) if tfs else np.zeros(0, np.uint16)
    order = np.argsort(all_terms, kind="stable")
    sorted_terms = all_terms[order]
    uniq, starts = np.unique(sorted_terms, return_index=True)
    ptr = np.append(starts, len(sorted_terms)).astype(np.int64)

    table = static_table(encoder)
    vocab = table.shape[0]
    all_pieces = np.concatenate(pieces) if pieces else np.zeros(0, np.uint32)
    df = np.bincount(all_pieces.astype(np.int64), minlength=vocab)[:vocab].astype(np.float32)
    n_text = max(1, sum(1 for k in kinds if k == KIND_TEXT))
    idf = np.log1p((n_text - df + 0.5) / (df + 0.5)).astype(np.float32)
    last_full = int(store.get_meta("vectors_full_pass_docs") or "0")
    full_pass = abs(n_text - last_full) > IDF_DRIFT * max(last_full, 1)
    todo = [i for i in range(n) if full_pass or vectors[i] is None]
    fresh = static_vectors([pieces[i] for i in todo], [piece_tfs[i] for i in todo], idf, table)
    static = np.zeros((n, table.shape[1]), np.float16)
    for i, vec in enumerate(vectors):
        if vec is not None and not full_pass:
            static[i] = vec
    if todo:
        static[todo] = fresh
    packed = Packed(
        paths,
        np.asarray(kinds, np.int8),
        hashes,
        np.asarray(lengths, np.float32),
        uniq.astype(np.uint32),
        ptr,
        all_docs[order],
        all_tfs[order],
        idf,
        static,
    )
    return PackResult(packed, {paths[i]: static[i] for i in todo}, full_pass)


def static_vectors(
    pieces: list[np.ndarray], piece_tfs: list[np.ndarray], idf: np.ndarray, table: np.ndarray
) -> np.ndarray:
    """tf-idf weighted, L2-normalised means of token vectors, one row per document."""
    n = len(pieces)
    static = np.zeros((n, table.shape[1]), np.float32)
    # Small chunks: the gathered token vectors (pieces x dims) stay a few MB.
    for first in range(0, n, 128):
        last = min(n, first + 128)
        ids = np.concatenate(pieces[first:last]).astype(np.int64)
        if not len(ids):
            continue
        weights = np.concatenate(piece_tfs[first:last]).astype(np.float32) * idf[ids]
        sizes = np.array([len(x) for x in pieces[first:last]])
        has = np.nonzero(sizes)[0]
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])[has]
        static[first + has] = np.add.reduceat(table[ids] * weights[:, None], starts, axis=0)
    norms = np.linalg.norm(static, axis=1, keepdims=True)
    return (static / np.maximum(norms, 1e-9)).astype(np.float16)


def _packed_arrays(p: Packed) -> dict[str, np.ndarray]:
    return {
        "paths": np.frombuffer(b"\0".join(p.paths), np.uint8),
        "kinds": p.kinds,
        "hashes": np.asarray(p.hashes, dtype="S16"),
        "doclen": p.doclen,
        "post_terms": p.post_terms,
        "post_ptr": p.post_ptr,
        "post_docs": p.post_docs,
        "post_tfs": p.post_tfs,
        "piece_idf": p.piece_idf,
        "static": p.static,
    }


def _load_packed(store: IndexStore) -> Packed:
    a = store.get_packed()
    raw = a["paths"].tobytes()
    paths = raw.split(b"\0") if len(a["kinds"]) else []
    return Packed(
        paths,
        a["kinds"],
        [h.decode() for h in a["hashes"]],
        a["doclen"],
        a["post_terms"],
        a["post_ptr"],
        a["post_docs"],
        a["post_tfs"],
        a["piece_idf"],
        a["static"],
    )
