"""Keeping a root's index fresh: stat every listed file against the index, re-read only what
changed, write the changes as a new segment, and merge segments when that pays.

A query whose files are unchanged takes no lock and writes nothing. Only a change takes the
root's writer lock; the check is then repeated under it, since another rrg may have done
the work meanwhile.
"""

from __future__ import annotations

import array
import os
import sqlite3
import stat
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xxhash

from rrg import timings
from rrg.atomic import write_failure
from rrg.binary_sniff import looks_binary
from rrg.environment import index_busy_s
from rrg.index.compact import compact
from rrg.index.definitions import defined_names, definition_terms
from rrg.index.heap import release_free_memory
from rrg.index.segment import SEGMENT_DOCS, Doc, build_arrays, write_segment
from rrg.index.store import (
    KIND_BINARY,
    KIND_DEAD,
    KIND_TEXT,
    KIND_UNREADABLE,
    IndexCorrupt,
    IndexStore,
    IndexUnavailable,
    builder_running,
    busy_reason,
    open_store,
    remove_index,
    writer_lock,
)
from rrg.index.textstats import decode, term_counts, with_path_terms, with_terms
from rrg.index.view import IndexView, load_view, piece_idf
from rrg.model.encoder import Encoder
from rrg.model.static_table import static_table, static_vectors

#: Bytes read of each file for ranking; a longer file is ranked by its head.
READ_LIMIT = 1 << 20
#: WordPiece tokens of each file that shape its static vector.
PIECE_LIMIT = 1024
#: Files read, then registered as one segment in one transaction: a build killed half-way
#: keeps every finished chunk. Static vectors weigh tokens by the idf of the files indexed
#: so far, chunk included, so the first chunk is large enough to make that idf stable.
CHUNK_FILES = 4096
#: The index's first chunk is smaller, so that Ctrl-C on a first build keeps what it did
#: after a second or two (about 1,000 files of source here, enough for a stable first idf).
FIRST_CHUNK_FILES = 1024
# Chunks end at fixed counts of the index's rows (FIRST_CHUNK_FILES, then every
# CHUNK_FILES), never by the clock: where a chunk ends shapes the static vectors (the idf so
# far), and when a chunk ended after 2 s of work two cold builds of one tree gave two
# indexes (tokio whole, --fast: .801 and .784 NDCG@10). Counted in the index's rows, a
# build resumed after a kill ends its chunks where a fresh one would. Only a search's
# deadline (``RRG_INDEX_WAIT_S``) cuts a chunk by the clock.


def chunk_end(rows: int) -> int:
    """Where the chunk that begins after ``rows`` rows of the index ends (in rows)."""
    if rows < FIRST_CHUNK_FILES:
        return FIRST_CHUNK_FILES
    return rows + CHUNK_FILES - (rows - FIRST_CHUNK_FILES) % CHUNK_FILES


#: Files read and tokenised at once, between two looks at the clock.
READ_BATCH = 256
#: Texts handed to WordPiece at once, while the next ones' words are counted.
PIECE_BATCH = 32
#: Files that vanished from rg's listing checked for deletion per query at most; past it
#: (a search of one folder of a large indexed root) they stay until a wider search sees
#: them gone. Such rows only weigh in the corpus statistics: rows are looked up by path.
GONE_CHECK_LIMIT = 20_000

Warn = Callable[[str], None]
Progress = Callable[[int, int], None]


@dataclass
class RefreshReport:
    listed: int = 0
    read: int = 0
    touched: int = 0
    deleted: int = 0
    #: New or changed files left for later: the refresh's deadline came first.
    left: int = 0
    #: Of the new or changed files, those read before the others (``read_first``'s).
    ahead: int = 0


def content_hash(data: bytes) -> int:
    """xxh3-64 of the bytes read: an edited file whose bytes are the same is not new."""
    return xxhash.xxh3_64_intdigest(data)


def read_head(root: Path, rel: bytes, limit: int = READ_LIMIT) -> bytes | None:
    """The first ``limit`` bytes of a file, or None when it cannot be read."""
    try:
        with open(os.path.join(os.fsencode(root), rel), "rb") as fh:
            return fh.read(limit)
    except OSError:
        return None


def tokenize(items: list[tuple[bytes, int, int, bytes | None]], encoder: Encoder) -> list[Doc]:
    """Documents for files already read: words counted per file, and the WordPiece pass (in
    Rust, on every core). Vectors come later (see ``add_vectors``).

    WordPiece releases the GIL, so it runs on a thread of its own, a batch of texts behind
    the word counts, which hold it: the two overlap (sympy's cold build 3.53 -> 3.04 s,
    the same index to the byte: docs/benchmarks.md, "WordPiece beside the word counts")."""
    docs: list[Doc] = []
    text_docs: list[Doc] = []
    texts: list[str] = []
    pieces: list[Future[list[np.ndarray]]] = []
    with ThreadPoolExecutor(max_workers=1) as wordpiece:
        for rel, size, mtime_ns, data in items:
            if data is None:
                docs.append(Doc(rel, size, mtime_ns, 0, KIND_UNREADABLE))
                continue
            digest = content_hash(data)
            if looks_binary(data):
                docs.append(Doc(rel, size, mtime_ns, digest, KIND_BINARY))
                continue
            body = decode(data)
            # The path's own words count: a file named after the topic is often the one wanted.
            text = rel.decode("utf-8", "replace").replace("/", " ") + "\n" + body
            texts.append(text[: PIECE_LIMIT * 8])
            if len(texts) == PIECE_BATCH:
                pieces.append(wordpiece.submit(encoder.piece_ids, texts, PIECE_LIMIT))
                texts = []
            doc = _text_doc(rel, size, mtime_ns, digest, text, body)
            docs.append(doc)
            text_docs.append(doc)
        if texts:
            pieces.append(wordpiece.submit(encoder.piece_ids, texts, PIECE_LIMIT))
        ids_of_texts = [ids for batch in pieces for ids in batch.result()]
    for doc, ids in zip(text_docs, ids_of_texts, strict=True):
        uniq, counts = np.unique(np.asarray(ids, np.int64), return_counts=True)
        doc.pieces, doc.piece_counts = uniq, counts
    return docs


def _text_doc(rel: bytes, size: int, mtime_ns: int, digest: int, text: str, body: str) -> Doc:
    """A text file's document: the terms of its text (``text``: its path's words, then its
    ``body``), of its path as a field, and of the names its body defines."""
    terms, tfs, length = term_counts(text)
    terms, tfs = with_path_terms(terms, tfs, rel)
    names = defined_names(body, rel.decode("utf-8", "replace"))
    if names:
        terms, tfs = with_terms(terms, tfs, definition_terms(names))
    return Doc(rel, size, mtime_ns, digest, KIND_TEXT, length, terms, tfs)


def add_vectors(docs: list[Doc], df: np.ndarray, n_text: int, table: np.ndarray) -> None:
    """Give each text document its static vector, tokens weighted by the idf of the corpus
    indexed so far plus these documents."""
    text = [d for d in docs if d.pieces is not None and d.piece_counts is not None]
    if not text:
        return
    pieces = [d.pieces for d in text if d.pieces is not None]
    counts = [d.piece_counts for d in text if d.piece_counts is not None]
    chunk_df = np.bincount(np.concatenate(pieces), minlength=len(df))[: len(df)]
    idf = piece_idf(df + chunk_df, n_text + len(text))
    vectors = static_vectors(pieces, counts, idf, table)
    for doc, vec in zip(text, vectors, strict=True):
        doc.vector = vec


@dataclass
class Changes:
    rows: np.ndarray  # the view's row of each listed path, -1 when not indexed
    # New or changed files, as indices into the listing, in path order (an index, not a
    # tuple of path, size and mtime: a cold build of 1M files would hold 120 MB of those).
    stale: np.ndarray
    gone: list[int]  # rows of indexed files that no longer exist


@dataclass
class Listing:
    """Each listed file's size and mtime (-1 when it vanished since rg listed it)."""

    paths: list[bytes]
    size: np.ndarray
    mtime: np.ndarray


class StatPass:
    """Stat listed files a block at a time (while rg is still listing the rest); the
    largest cost of a query after rg's own on a big tree. Two machine ints are kept a file,
    not the stat results (over 500 bytes each) nor Python ints (36 bytes each in a list:
    76 MB at 1M files)."""

    def __init__(self, root: Path) -> None:
        self.paths: list[bytes] = []
        self.sizes = array.array("q")
        self.mtimes = array.array("q")
        self.root_fd = os.open(os.fsencode(root), os.O_RDONLY | os.O_DIRECTORY)

    def add(self, rel_paths: list[bytes]) -> None:
        sizes, mtimes, fd = self.sizes, self.mtimes, self.root_fd
        for rel in rel_paths:
            try:
                st: os.stat_result | None = os.stat(rel, dir_fd=fd)
            except OSError:
                st = None  # vanished since rg listed it; rg will say so
            # A FIFO, a device or a socket named as a PATH is rg's alone to read: the index
            # would take what its writer wrote and leave rg waiting on it for ever.
            if st is None or not stat.S_ISREG(st.st_mode):
                sizes.append(-1)
                mtimes.append(-1)
                continue
            sizes.append(st.st_size)
            mtimes.append(st.st_mtime_ns)
        self.paths.extend(rel_paths)

    def finish(self) -> Listing:
        os.close(self.root_fd)
        sizes = np.frombuffer(self.sizes, np.int64).copy()
        mtimes = np.frombuffer(self.mtimes, np.int64).copy()
        return Listing(self.paths, sizes, mtimes)


def stat_listing(root: Path, rel_paths: list[bytes]) -> Listing:
    """Stat every listed file once."""
    stat_pass = StatPass(root)
    stat_pass.add(rel_paths)
    return stat_pass.finish()


def find_changes(view: IndexView, root: Path, listing: Listing) -> Changes:
    """Compare the listing's sizes and mtimes with the index; find indexed files gone."""
    rel_paths, size, mtime = listing.paths, listing.size, listing.mtime
    rows = view.rows_of(rel_paths)
    differs = rows < 0
    if len(view.kinds):
        known = np.maximum(rows, 0)
        differs |= view.column("size")[known] != size
        differs |= view.column("mtime")[known] != mtime
    stale = np.nonzero(differs & (size >= 0))[0]
    names = np.array([rel_paths[i] for i in stale.tolist()], dtype=object)
    stale = stale[np.argsort(names, kind="stable")]
    del names
    root_fd = os.open(os.fsencode(root), os.O_RDONLY | os.O_DIRECTORY)
    try:
        listed = np.zeros(len(view.kinds), bool)
        listed[rows[rows >= 0]] = True
        unlisted = np.nonzero(~listed & (view.kinds != KIND_DEAD))[0]
        gone: list[int] = []
        if len(unlisted) <= GONE_CHECK_LIMIT:
            for row in unlisted.tolist():
                try:
                    os.stat(view.path(row), dir_fd=root_fd, follow_symlinks=False)
                except FileNotFoundError:
                    gone.append(row)
                except OSError:
                    pass
    finally:
        os.close(root_fd)
    return Changes(rows, stale, gone)


class IndexBehind(IndexUnavailable):
    """The index could not be brought up to date. ``view`` and ``rows``: the index as it
    stands (None: there is none yet, or none readable), for a caller that may rank from it;
    a changed or new file's row there is -1."""

    def __init__(
        self, reason: str, view: IndexView | None, rows: np.ndarray | None, report: RefreshReport
    ) -> None:
        super().__init__(reason)
        self.view, self.rows, self.report = view, rows, report


class IndexBusy(IndexBehind):
    """Another rrg held the writer lock past ``RRG_INDEX_BUSY_S``."""


def open_view(index_path: Path, vocab: int) -> IndexView | None:
    """The index as it stands, read without the writer lock; None when there is none yet
    or it cannot be read as is (the writer, holding the lock, then rebuilds or says why)."""
    try:
        store = IndexStore(index_path, create=False)
    except Exception:  # noqa: BLE001 - missing, damaged or foreign: the writer decides
        return None
    try:
        return load_view(store, vocab)
    except Exception:  # noqa: BLE001 - as above
        return None
    finally:
        store.close()


def refresh(
    index_path: Path,
    root: Path,
    listing: Listing,
    encoder: Encoder,
    warn: Warn,
    progress: Progress | None = None,
    deadline: float | None = None,
    read_first: Callable[[list[bytes]], list[bool]] | None = None,
) -> tuple[IndexView, np.ndarray, RefreshReport]:
    """Bring the index up to date for the listed files (relative to root, stat-ed: see
    ``StatPass``); returns the view, each path's row in it (-1: not indexed) and what was
    done. The changed files are read in path order, those ``read_first`` marks (by their
    paths alone: the index's chunks, so its vectors, are the same whoever builds it)
    before the rest.

    With a ``deadline`` (``time.monotonic()``), the refresh registers what it has read by
    then and stops; the files left have no row, and ``report.left`` counts them. A process
    that cannot get the writer lock in time (``RRG_INDEX_BUSY_S``, or the deadline where
    it comes first) gets ``IndexBusy``, which holds the index as it stands. One that
    cannot write it (a full disk, a cache dir made read-only) gets ``IndexBehind`` saying
    why, with the index as it stands where it can be read; what was registered before
    stays whole (SQLite's transactions, segments renamed into place once written).
    """
    try:
        return _refresh(index_path, root, listing, encoder, warn, progress, deadline, read_first)
    except (OSError, sqlite3.Error) as err:
        reason = f"index {index_path.name}: {write_failure(err, index_path.parent)}"
        try:
            view = open_view(index_path, static_table(encoder).shape[0])
            rows = None if view is None else find_changes(view, root, listing).rows
        except (OSError, sqlite3.Error):
            view, rows = None, None
        raise IndexBehind(reason, view, rows, RefreshReport(listed=len(listing.paths))) from err


def _refresh(
    index_path: Path,
    root: Path,
    listing: Listing,
    encoder: Encoder,
    warn: Warn,
    progress: Progress | None,
    deadline: float | None,
    read_first: Callable[[list[bytes]], list[bool]] | None,
) -> tuple[IndexView, np.ndarray, RefreshReport]:
    report = RefreshReport(listed=len(listing.paths))
    table = static_table(encoder)
    vocab = table.shape[0]
    with timings.phase("open"):
        view = open_view(index_path, vocab)
    if view is not None:
        with timings.phase("compare"):
            changes = find_changes(view, root, listing)
        if not len(changes.stale) and not changes.gone:
            return view, changes.rows, report
    wait = None
    if deadline is not None:
        # A background build holds the writer lock for minutes: rank from what it has
        # registered so far, at once.
        left = 0.0 if builder_running(index_path) else deadline - time.monotonic()
        wait = min(index_busy_s(), max(0.0, left))
    with writer_lock(index_path, wait) as got_lock:
        if not got_lock:
            rows = changes.rows if view is not None else None
            if wait:
                # The writer registered chunks while this process waited (searches started
                # at once on a new tree all wait on the first one's build): rank from
                # those, not from the index as it stood before the wait (often none).
                newer = open_view(index_path, vocab)
                if newer is not None:
                    view, rows = newer, find_changes(newer, root, listing).rows
            raise IndexBusy(busy_reason(index_path, wait), view, rows, report)
        store = open_store(index_path, warn)
        try:
            try:
                view = load_view(store, vocab)
            except IndexCorrupt as err:
                store.close()
                warn(f"index {index_path.name} cannot be read as it is ({err}); rebuilding it")
                remove_index(index_path)
                store = open_store(index_path, warn)
                view = load_view(store, vocab)
            store.remove_orphans()
            # Another rrg may have written meanwhile: compare again (the files were stat-ed
            # a moment ago; stat-ing them all again would double a large tree's cost).
            changes = find_changes(view, root, listing)
            if len(changes.stale) or changes.gone:
                with timings.phase("write"):
                    writer = _Writer(store, root, encoder, table, report, progress, deadline)
                    if read_first is not None:
                        changes, report.ahead = _read_first(changes, listing, read_first)
                    _apply_changes(writer, view, listing, changes)
                if not report.left:  # a refresh out of time leaves merging to a later one
                    with timings.phase("merge"):
                        compact(store)
                view = load_view(store, vocab)
                changes = find_changes(view, root, listing)
            # Fold the write-ahead log back into the file now, while holding the lock.
            store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return view, changes.rows, report
        finally:
            store.close()


def _read_first(
    changes: Changes, listing: Listing, first: Callable[[list[bytes]], list[bool]]
) -> tuple[Changes, int]:
    """The changes with the stale files ``first`` marks moved ahead of the others, each
    group still in path order, and how many it marks. A search that indexes for its 3 s,
    on a tree larger than that reads (a first search, a branch switched), ranks the files
    read by then and the rest in rg's order: read in path order those were a repository's
    ``CHANGELOG.md``, ``build/`` and ``docs/`` (exposed's first search showed its changelog
    and API pages as the best passages), not its source."""
    paths = listing.paths
    ahead = np.array(first([paths[i] for i in changes.stale.tolist()]), bool)
    stale = np.concatenate([changes.stale[ahead], changes.stale[~ahead]])
    return Changes(changes.rows, stale, changes.gone), int(ahead.sum())


@dataclass
class _Writer:
    """What writes changed files into the index: the store (under the writer lock), the
    root they are read from, the model's tokenizer and static table, the report and bar."""

    store: IndexStore
    root: Path
    encoder: Encoder
    table: np.ndarray
    report: RefreshReport
    progress: Progress | None
    deadline: float | None = None  # time.monotonic() past which no chunk is begun
    # The WordPiece document frequencies and text count of the index so far, grown with
    # each chunk registered (the next one's idf).
    df: np.ndarray | None = None
    n_text: int = 0


def _apply_changes(writer: _Writer, view: IndexView, listing: Listing, changes: Changes) -> None:
    """Read, tokenise and register the stale files a chunk at a time: a chunk ends where
    ``chunk_end`` says (counted in the index's rows), or at the deadline, past which no
    chunk begins (``report.left`` then counts the files not read)."""
    stale = changes.stale
    placed = int((view.kinds != KIND_DEAD).sum()) if len(view.kinds) else 0
    start, first = 0, True
    while first or start < len(stale):
        limit = min(chunk_end(placed + start) - (placed + start), SEGMENT_DOCS)
        began = time.monotonic()
        if not first and writer.deadline is not None and began >= writer.deadline:
            break
        docs: list[Doc] = []
        row_of: dict[bytes, int] = {}  # each changed file's old row, where it had one
        end = start
        while end < len(stale) and end - start < limit:
            batch = stale[end : min(end + READ_BATCH, start + limit)].tolist()
            docs.extend(_read(writer, listing, changes, batch, row_of, (end, len(stale))))
            end += len(batch)
            if writer.deadline is not None and time.monotonic() >= writer.deadline:
                break
        _register(writer, view, changes, docs, row_of, first)
        del docs
        release_free_memory()
        start, first = end, False
    writer.report.left = len(stale) - start


def _read(
    writer: _Writer,
    listing: Listing,
    changes: Changes,
    batch: list[int],
    row_of: dict[bytes, int],
    at: tuple[int, int],
) -> list[Doc]:
    """The documents of a batch of listed files (indices into the listing), read and
    tokenised; ``at``: how many stale files came before the batch, and of how many."""
    items: list[tuple[bytes, int, int, bytes | None]] = []
    done, total = at
    for offset, i in enumerate(batch):
        if writer.progress:
            writer.progress(done + offset, total)
        rel = listing.paths[i]
        size, mtime_ns = int(listing.size[i]), int(listing.mtime[i])
        items.append((rel, size, mtime_ns, read_head(writer.root, rel)))
        if changes.rows[i] >= 0:
            row_of[rel] = int(changes.rows[i])
    if writer.progress:
        writer.progress(done + len(batch), total)
    return tokenize(items, writer.encoder)


def _register(
    writer: _Writer,
    view: IndexView,
    changes: Changes,
    docs: list[Doc],
    row_of: dict[bytes, int],
    first: bool,
) -> None:
    """One chunk's files written as a segment and registered, with the rows they replace
    (and, with the first chunk, the rows of files gone) marked dead, in one transaction."""
    store, report = writer.store, writer.report
    hashes = view.column("hash")
    if writer.df is None:
        writer.df, writer.n_text = view.piece_df.copy(), view.n_text
    df = writer.df
    for doc in docs:
        old = row_of.get(doc.path, -1)
        if old >= 0 and doc.kind != KIND_UNREADABLE and int(hashes[old]) == doc.hash:
            # Same bytes, new mtime: reported as such, but written again all the same,
            # since a row's size and mtime live in an immutable segment.
            report.touched += 1
        else:
            report.read += 1
    add_vectors(docs, df, writer.n_text, writer.table)
    replaced = [row_of[d.path] for d in docs if d.path in row_of]
    dead = replaced + (changes.gone if first else [])
    with store.transaction():
        if docs:
            seq = store.next_seq()
            name = write_segment(
                store.segment_dir, seq, build_arrays(docs, writer.table.shape[1], len(df))
            )
            store.add_segment(name, seq, len(docs))
        store.mark_dead([_segment_row(view, row) for row in dead])
    report.deleted += len(changes.gone) if first else 0
    # The next chunk's idf counts this one's files.
    for doc in docs:
        if doc.kind == KIND_TEXT and doc.pieces is not None:
            df[doc.pieces] += 1
            writer.n_text += 1


def _segment_row(view: IndexView, row: int) -> tuple[str, int]:
    seg, local = view.locate(row)
    return seg.name, local
