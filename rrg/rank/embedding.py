"""Embedding a root: the model's vector of every passage of every indexed file, computed
once (``rrg --index --embed``) and kept in the root's embedding index
(``rrg.index.embedded``); and the dense file scores a query reads from it.

The passages are the stage's own (``cut_passages``, read with their path as
``passage_text`` makes them), each encoded alone as the stage encodes it: a file embedded
scores as the stage would have scored every one of its passages, not just the few its
budget reads.
"""

from __future__ import annotations

import math
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rrg.atomic import write_failure
from rrg.binary_sniff import looks_binary
from rrg.environment import env_number
from rrg.errors import RrgError
from rrg.index.caches import bytes_on_disk
from rrg.index.embedded import (
    Embedded,
    embed_dir,
    file_key,
    load_embedded,
    merge_parts,
    part_names,
    passage_key,
    remove_leftovers,
    remove_parts,
    write_part,
)
from rrg.index.refresh import read_head
from rrg.index.served import ServedRoot
from rrg.index.store import KIND_TEXT, builder_running, busy_reason, writer_busy, writer_lock
from rrg.index.textstats import decode
from rrg.index.view import IndexView
from rrg.model.encoder import Encoder
from rrg.model.registry import ModelSpec
from rrg.progress import Progress
from rrg.rank import passages
from rrg.rank.code_passages import cut_passages
from rrg.rank.passages import Encode, VectorsFor
from rrg.rank.root_cache import passage_tag
from rrg.rank.tuning import TUNING

#: Passages embedded between two saved parts (``RRG_EMBED_BATCH``): what an interrupted job
#: loses at most (about 15 s of this 2-core machine's time at 256 tokens).
EMBED_BATCH = 256
#: Parts past this many are merged into few at the end of a job (each is a file to open
#: per query).
MAX_PARTS = 8


class EmbeddingBusy(RrgError):
    """Another process holds the root's embedding lock (a job embedding it already)."""


def embed_batch() -> int:
    return max(1, int(env_number("RRG_EMBED_BATCH", EMBED_BATCH, whole=True)))


def embedding_model(spec: ModelSpec) -> str:
    """What the parts are tagged with: the stage's vectors, at the shipped passage lengths
    (an embedding is built once for every query, at the chosen point)."""
    return passage_tag("passage", spec, TUNING)


def is_embedded(served: ServedRoot) -> bool:
    return embed_dir(served.index_path).is_dir()


@dataclass
class EmbedReport:
    files: int = 0  # files embedded by this run
    passages: int = 0
    kept: int = 0  # files already embedded
    seconds: float = 0.0


def keyed_files(view: IndexView, rows: Iterable[int]) -> list[tuple[int, bytes]]:
    """(file key, path) of these rows of the index, as the embedding index knows them."""
    hashes = view.column("hash")
    paths = [(row, view.path(row)) for row in rows]
    return [(file_key(rel, int(hashes[row])), rel) for row, rel in paths]


def indexed_file_keys(view: IndexView) -> list[int]:
    """The file key of every text file the index holds, listed now or not."""
    rows = np.flatnonzero(view.kinds == KIND_TEXT).tolist()
    return [key for key, _ in keyed_files(view, rows)]


def live_files(view: IndexView, rows: np.ndarray) -> list[tuple[int, bytes]]:
    """(file key, path) of the listed files the index holds as text, in path order."""
    kinds = view.kinds
    text = [int(r) for r in rows if r >= 0 and kinds[r] == KIND_TEXT]
    return sorted(keyed_files(view, text), key=lambda item: item[1])


#: What a command that embeds says where the job a search started is embedding the root.
JOB_EMBEDDING = "the background job a search started is embedding this root"


def embed_root(
    served: ServedRoot,
    view: IndexView,
    rows: np.ndarray,
    show_progress: bool,
    asked: bool = True,
    notice: Callable[[str], None] = lambda message: None,
) -> EmbedReport:
    """Embed every listed file the root's embedding index lacks, a part saved each
    ``embed_batch()`` passages; then merge the parts if there are many or some hold files
    since edited. Holds the root's embedding lock (one job at a time; searches never wait).

    Where the background job a search started holds that lock, it is embedding the root
    already, for up to ``EMBED_AHEAD``'s minutes: a caller that ``asked`` for the embedding
    (``--embed``) waits for it, however long, told so through ``notice``, and then embeds
    what is left (nothing, unless the job was stopped); any other caller (``rrg --index``
    of an embedded root) leaves the embedding to the job at once, raising
    ``EmbeddingBusy``. Another holder is waited for ``RRG_INDEX_BUSY_S``. Where a part
    cannot be written (a full disk), ``RrgError`` says why; the parts saved before stay."""
    parent = embed_dir(served.index_path)
    try:
        return _embed_root(served, view, rows, show_progress, asked, notice)
    except (OSError, sqlite3.Error) as err:
        where = os.fsdecode(served.root)
        reason = write_failure(err, parent)
        raise RrgError(f"cannot write the embedding index of {where}: {reason}") from err


def _embed_root(
    served: ServedRoot,
    view: IndexView,
    rows: np.ndarray,
    show_progress: bool,
    asked: bool,
    notice: Callable[[str], None],
) -> EmbedReport:
    encoder, index_path = served.encoder, served.index_path
    parent = embed_dir(index_path)
    model = embedding_model(encoder.spec)
    start = time.monotonic()
    with _embedding_lock(parent, index_path, asked, notice) as got:
        if not got:
            raise EmbeddingBusy(f"cannot embed it: {busy_reason(parent)}")
        parent.mkdir(mode=0o700, exist_ok=True)
        remove_leftovers(parent)
        held = load_embedded(index_path, model) or Embedded([])
        remove_parts(parent, held.damaged)  # their files are embedded again below
        files = live_files(view, rows)
        todo = [(key, rel) for key, rel in files if key not in held.where]
        report = EmbedReport(kept=len(files) - len(todo))
        seq = _next_seq(parent)
        bar = Progress("rrg: embedding", show_progress)
        try:
            for batch, texts in _batches(
                served.root, todo, embed_batch(), lambda n: bar(n, len(todo))
            ):
                by_key = _encode(encoder, texts)
                ordered = [by_key[k] for _, keys in batch for k in keys]
                dims = encoder.spec.dims
                vectors = np.stack(ordered) if ordered else np.zeros((0, dims), np.float32)
                write_part(parent, seq, model, batch, vectors)
                seq += 1
                report.files += len(batch)
                report.passages += len(vectors)
        finally:
            bar.close()
        # What the merge keeps: every file the index holds, not the ones listed here. ``rrg
        # --index src`` lists src alone, and its merge dropped the vectors of every file
        # outside it (minutes of the model's work on a large root).
        _merge_if_due(parent, seq, model, index_path, set(indexed_file_keys(view)))
    report.seconds = time.monotonic() - start
    return report


@contextmanager
def _embedding_lock(
    parent: Path, index_path: Path, asked: bool, notice: Callable[[str], None]
) -> Iterator[bool]:
    """The root's embedding lock, waited for as ``embed_root`` says; False: not had."""
    job = writer_busy(parent) and builder_running(index_path)
    if job and not asked:
        raise EmbeddingBusy(f"cannot embed it: {JOB_EMBEDDING}")
    if job:
        notice(f"{JOB_EMBEDDING}; waiting for it (Ctrl-C stops the wait, not the job)")
    with writer_lock(parent, math.inf if job else None) as got:
        yield got


def _next_seq(parent: Path) -> int:
    names = part_names(parent)
    return int(names[-1][1:10]) + 1 if names else 1


def _batches(
    root: bytes, todo: list[tuple[int, bytes]], size: int, progress: Callable[[int], None]
) -> Iterator[tuple[list[tuple[int, list[int]]], dict[int, tuple[str, str]]]]:
    """Files to embed, ``size`` passages or more a batch: each file's key and its passages'
    keys, and the text of each distinct passage of the batch with its file's path."""
    at = Path(os.fsdecode(root))
    batch: list[tuple[int, list[int]]] = []
    texts: dict[int, tuple[str, str]] = {}
    for done, (key, rel) in enumerate(todo, 1):
        data = read_head(at, rel)
        keys: list[int] = []
        if data is not None and not looks_binary(data):
            name = rel.decode("utf-8", "replace")
            for paragraph in cut_passages(decode(data), name):
                body = passages.passage_text(name, paragraph)
                keys.append(passage_key(body))
                texts.setdefault(keys[-1], (body, name))
        batch.append((key, keys))
        progress(done)
        if sum(len(k) for _, k in batch) >= size:
            yield batch, texts
            batch, texts = [], {}
    if batch:
        yield batch, texts


def _encode(encoder: Encoder, texts: dict[int, tuple[str, str]]) -> dict[int, np.ndarray]:
    """Vectors of distinct passages, by key (``texts``: each one's text and its file)."""
    keys = list(texts)
    if not keys:
        return {}
    rows = passages.encode_passages(
        encoder, [texts[k][0] for k in keys], [texts[k][1] for k in keys], TUNING
    )
    return dict(zip(keys, rows, strict=True))


def _merge_if_due(parent: Path, seq: int, model: str, index_path: Path, live: set[int]) -> None:
    held = load_embedded(index_path, model)
    if held is None or not held.parts:
        return
    stale = any(key not in live for key in held.where) or len(held.where) < sum(
        len(part.a["file_key"]) for part in held.parts
    )
    if len(held.parts) <= MAX_PARTS and not stale:
        return
    merge_parts(parent, seq, model, held, live.__contains__)
    remove_parts(parent, [part.name for part in held.parts])


_held: dict[Path, tuple[tuple[str, ...], Embedded | None]] = {}


def embedded_parts(served: ServedRoot) -> tuple[str, ...]:
    """The names of the root's embedding index's parts (none: never embedded, or not
    readable): what a kept order must have been ranked with."""
    try:
        return tuple(part_names(embed_dir(served.index_path)))
    except (OSError, RrgError):
        return ()


def held_vectors(served: ServedRoot) -> Embedded | None:
    """The root's embedding index as it stands (None: never embedded, or nothing usable),
    read once a process while its parts stay the same (the stage and the dense scores of
    one query both read it; a server answers many queries)."""
    try:
        index_path = served.index_path
    except (OSError, RrgError):
        return None  # no usable cache dir: nothing was embedded there
    parent = embed_dir(index_path)
    try:
        names = tuple(part_names(parent))
    except OSError:
        return None  # unreadable: the bounded stage serves, as for a root never embedded
    cached = _held.get(index_path)
    if cached is not None and cached[0] == names:
        return cached[1]
    held = load_embedded(index_path, embedding_model(served.spec)) if names else None
    usable = held if held is not None and held.parts else None
    _held[index_path] = (names, usable)
    return usable


def dense_file_scores(
    held: Embedded, view: IndexView, cand_rows: np.ndarray, query: np.ndarray
) -> np.ndarray:
    """Each candidate's best passage cosine (NaN for a file not embedded)."""
    return held.best_cosines((key for key, _ in keyed_files(view, cand_rows.tolist())), query)


def reading_embedded(held: Embedded, vectors_for: VectorsFor) -> VectorsFor:
    """The stage's vectors read from the embedding index first (passages of embedded files:
    no model run), the rest as ``vectors_for`` gives them."""

    def read(kind: str, keys: list[str], encode: Encode) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        if kind == "passage":
            for key in keys:
                at = None if key.startswith("query:") else held.passages.get(int(key, 16))
                if at is not None:
                    found[key] = held.vector(*at)
        rest = [key for key in keys if key not in found]
        if rest:
            found.update(vectors_for(kind, rest, encode))
        return found

    return read


def embed_status(served: ServedRoot) -> str | None:
    """How much of the root is embedded, the size on disk and the model (None: never
    embedded)."""
    index_path = served.index_path
    parent = embed_dir(index_path)
    if not parent.is_dir():
        return None
    model = embedding_model(served.spec)
    held = load_embedded(index_path, model) or Embedded([])
    view = served.view()
    if view is None:
        return "unreadable index: the next rrg --index rebuilds it and embeds anew"
    indexed = indexed_file_keys(view)
    current = sum(1 for key in indexed if key in held.where)
    size = bytes_on_disk(parent)  # a merge may replace parts meanwhile
    damaged = (
        f", {len(held.damaged)} damaged parts (rrg --index embeds again)" if held.damaged else ""
    )
    parts = f"{len(held.parts)} part{'' if len(held.parts) == 1 else 's'}"
    now = "; being embedded now" if writer_busy(parent) else ""
    return (
        f"{current} of {len(indexed)} indexed files, {held.passage_count} passages, "
        f"{size / 1e6:.1f} MB in {parts}{damaged} (vectors of {model}){now}"
    )
