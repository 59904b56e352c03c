"""The static token table: each WordPiece token's vector, distilled from the model itself
(its output for ``[CLS] token [SEP]``, reduced by PCA), kept in the cache dir; and the
static vector of a text, the idf-weighted mean of its tokens' rows."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rrg.atomic import NOT_AN_ARRAY
from rrg.errors import RrgError
from rrg.model.encoder import Encoder
from rrg.model.registry import ModelSpec

STATIC_DIMS = 256
_STATIC_VERSION = 2
_TABLES: dict[str, np.ndarray] = {}


def static_table_path(spec: ModelSpec) -> Path:
    """The table's file, one a machine (``rrg.cachedir.prepared_dir``)."""
    from rrg.cachedir import prepared_dir

    return prepared_dir() / f"static-v{_STATIC_VERSION}-{spec.key}.npy"


def static_table(
    encoder: Encoder,
    on_progress: Callable[[int, int], None] | None = None,
    on_start: Callable[[], None] | None = None,
) -> np.ndarray:
    """A vector per vocabulary token, distilled from the model and reduced by PCA.

    Each token runs through the model alone (``[CLS] token [SEP]``) and keeps its output at
    its own position; the table is centred and reduced by PCA. Computed once per model and
    machine (about 15 s on 2 cores for MiniLM) and kept where every cache dir reads it;
    one process at a time makes it (``rrg.cachedir.preparing``). ``on_start`` is told once,
    when this process starts making it, its model loaded (a model that cannot load says
    only that), or waits for another process that makes it.
    """
    from rrg.cachedir import preparing

    cache = static_table_path(encoder.spec)
    if str(cache) in _TABLES:  # one query uses it twice (refresh, then scoring)
        return _TABLES[str(cache)]
    table = _kept(cache)
    if table is None:
        table = _moved_from_cache_dir(encoder.spec, cache)
    if table is None:
        # Once, though it may wait for another process and then make the table itself.
        told = functools.cache(on_start) if on_start is not None else None
        with preparing(cache.name, told):
            # Made by another process while this one waited for the lock, or made here.
            table = _kept(cache)
            if table is None:
                table = _distilled(encoder, cache, on_progress, told)
    _TABLES[str(cache)] = table
    return table


def _kept(cache: Path) -> np.ndarray | None:
    """The table as kept, or None where there is none or it is damaged (it is made anew)."""
    if not cache.is_file():
        return None
    try:
        # Memory-mapped float16: a query touches only its own tokens' rows, and
        # arithmetic on them promotes to float32 where it meets the float32 weights.
        table = np.load(cache, mmap_mode="r", allow_pickle=False)
    except (OSError, *NOT_AN_ARRAY):
        return None
    # A model narrower than STATIC_DIMS keeps all its dimensions.
    wide = table.ndim == 2 and 0 < table.shape[1] <= STATIC_DIMS
    return table if wide and table.dtype == np.float16 else None


def _distilled(
    encoder: Encoder,
    cache: Path,
    on_progress: Callable[[int, int], None] | None,
    on_start: Callable[[], None] | None = None,
) -> np.ndarray:
    """The table distilled from the model and kept at ``cache``."""
    from rrg.atomic import atomic_write_bytes, write_failure

    _check_room(encoder, cache)
    if encoder.quantized:
        encoder = Encoder(encoder.spec, exact=True)
    _ = encoder.session  # a model that cannot be loaded fails here, before ``on_start``
    if on_start is not None:
        on_start()
    tok = encoder.tokenizer
    vocab = tok.get_vocab_size()
    cls_id = tok.token_to_id("[CLS]") if tok.token_to_id("[CLS]") is not None else 0
    sep_id = tok.token_to_id("[SEP]") if tok.token_to_id("[SEP]") is not None else 0
    batch = 1024
    starts = range(0, vocab, batch)
    parts = _Parts(Path(f"{cache}.parts"), {start: min(vocab, start + batch) for start in starts})
    done = sum(len(part) for part in parts.kept.values())
    if on_progress and done:
        on_progress(done, vocab)

    def run(start: int) -> np.ndarray:
        nonlocal done
        hidden = parts.kept.get(start)
        if hidden is not None:
            return hidden
        ids = np.arange(start, min(vocab, start + batch), dtype=np.int64)
        seq = np.stack([np.full_like(ids, cls_id), ids, np.full_like(ids, sep_id)], 1)
        # The token's own output position: measured on scifact, it beats the pooled
        # sentence vector of the same input (nDCG@10 .484 against .425, tf-idf weighted).
        # A copy: the view would keep the run's whole output (three tokens) alive.
        hidden = encoder.hidden_states(seq, np.ones_like(seq))[:, 1].copy()
        parts.keep(start, hidden)
        with progress_lock:
            done += len(ids)
            if on_progress:
                on_progress(done, vocab)
        return hidden

    progress_lock = threading.Lock()
    full = np.concatenate(encoder.map_runs(run, starts))
    centred = full - full.mean(0)
    del full
    # An SVD, as every table before: the indexes and vector caches built with a table hold
    # its axes, signs included, and another decomposition may turn an axis over. Its
    # workspace (280 MB here) is freed before the model's graphs are made.
    _, _, vt = np.linalg.svd(centred[:: max(1, vocab // 20000)], full_matrices=False)
    # float16 as stored, so the process that distils ranks exactly as later ones.
    table = (centred @ vt[:STATIC_DIMS].T).astype(np.float16)
    del centred, vt
    import io

    buf = io.BytesIO()
    np.save(buf, table, allow_pickle=False)
    data = buf.getvalue()
    _TABLES[str(cache)] = table  # this process may use it, kept or not
    try:
        atomic_write_bytes(cache, data)
    except OSError as err:
        parts.remove()  # the disk is what failed: what they hold is freed, not kept
        raise RrgError(
            f"cannot keep the model's static table in {cache.parent}: "
            f"{write_failure(err, cache.parent)} (it needs {len(data) / 1e6:.0f} MB; "
            "RRG_PREPARED_DIR may name another folder)"
        ) from err
    parts.remove()
    return table


def _check_room(encoder: Encoder, cache: Path) -> None:
    """Refuse at once where the disk has no room for the table: it was found only once it
    was made, so that on a full disk every search spent the 10-30 s of making it first."""
    import shutil

    dims = min(encoder.spec.dims or STATIC_DIMS, STATIC_DIMS)
    needed = encoder.tokenizer.get_vocab_size() * dims * 2  # float16
    try:
        free = shutil.disk_usage(cache.parent).free
    except OSError:
        return  # the write says what is wrong
    if free < needed:
        from rrg.atomic import size_said

        raise RrgError(
            f"cannot keep the model's static table in {cache.parent}: the disk holding it "
            f"has {size_said(free)} free (it needs {needed / 1e6:.1f} MB; RRG_PREPARED_DIR "
            "may name another folder)"
        )


class _Parts:
    """The runs of a distillation kept as each ends, so that one stopped (``timeout`` around
    an agent's first search, which may allow 10 s where the table takes 15-30) goes on
    where it stopped: before, each first search started again from the first token and
    was stopped again, so that rrg never answered there. A run's output is the model's
    for its own tokens alone, so the table is the same, run in one go or in several.
    Kept where it can be; nothing is lost but time where it cannot."""

    def __init__(self, folder: Path, runs: dict[int, int]) -> None:
        self.folder = folder
        self.kept: dict[int, np.ndarray] = {}
        widths = set()
        for start, end in runs.items():
            part = self._read(start)
            if part is not None and part.ndim == 2 and len(part) == end - start:
                self.kept[start] = part
                widths.add(part.shape[1])
        if len(widths) > 1:  # parts of two models: none is trusted
            self.kept = {}

    def _file(self, start: int) -> Path:
        return self.folder / f"{start:06d}.npy"

    def _read(self, start: int) -> np.ndarray | None:
        try:
            part = np.load(self._file(start), allow_pickle=False)
        except (OSError, *NOT_AN_ARRAY):
            return None
        return part if np.issubdtype(part.dtype, np.floating) else None

    def keep(self, start: int, hidden: np.ndarray) -> None:
        import io

        from rrg.atomic import atomic_write_bytes

        buf = io.BytesIO()
        np.save(buf, hidden, allow_pickle=False)
        try:
            self.folder.mkdir(mode=0o700, exist_ok=True)
            atomic_write_bytes(self._file(start), buf.getvalue())
        except OSError:
            # A full or read-only disk: this run's output is not kept (the table is made
            # all the same), nor an empty folder for it.
            with contextlib.suppress(OSError):
                self.folder.rmdir()

    def remove(self) -> None:
        import shutil

        shutil.rmtree(self.folder, ignore_errors=True)


def _moved_from_cache_dir(spec: ModelSpec, target: Path) -> np.ndarray | None:
    """The table an earlier rrg distilled into the cache dir (before tables were kept one a
    machine), moved to where every cache dir reads it: the same bytes, not 15 s again."""
    from rrg.atomic import atomic_write_bytes
    from rrg.cachedir import models_dir

    try:
        legacy = models_dir() / target.name
        if not legacy.is_file():
            return None
        table = np.load(legacy, allow_pickle=False)
        if not (table.ndim == 2 and table.dtype == np.float16 and table.shape[1] <= STATIC_DIMS):
            return None
        atomic_write_bytes(target, legacy.read_bytes())
        legacy.unlink()
        return np.load(target, mmap_mode="r", allow_pickle=False)
    except (OSError, *NOT_AN_ARRAY, RrgError):
        return None


def static_vectors(
    pieces: list[np.ndarray], piece_tfs: list[np.ndarray], idf: np.ndarray, table: np.ndarray
) -> np.ndarray:
    """tf-idf weighted, L2-normalised means of token vectors, one row per document.

    Per block of documents, one dense product: (documents x the block's distinct tokens)
    weights times those tokens' vectors. Five times faster than gathering a vector per
    token occurrence and summing (measured on 2,000 documents of 300 tokens)."""
    n = len(pieces)
    static = np.zeros((n, table.shape[1]), np.float32)
    for first in range(0, n, 256):
        block = pieces[first : first + 256]
        ids = np.concatenate(block).astype(np.int64) if block else np.zeros(0, np.int64)
        if not len(ids):
            continue
        distinct, column = np.unique(ids, return_inverse=True)
        weights = np.zeros((len(block), len(distinct)), np.float32)
        row = np.repeat(np.arange(len(block)), [len(p) for p in block])
        counts = np.concatenate(piece_tfs[first : first + 256]).astype(np.float32)
        weights[row, column] = counts * idf[ids]
        static[first : first + len(block)] = weights @ np.asarray(table[distinct], np.float32)
    norms = np.linalg.norm(static, axis=1, keepdims=True)
    return static / np.maximum(norms, 1e-9)


def static_vectors_alone(
    pieces: list[np.ndarray], piece_tfs: list[np.ndarray], idf: np.ndarray, table: np.ndarray
) -> np.ndarray:
    """``static_vectors``, each row computed from its own tokens alone (``pieces`` distinct
    in each row). A block's product sums in an order that depends on the block's shape, so a
    row's last bits there depend on its block-mates, and its float16 copy now and then on
    them too; passages are computed in whatever company a query or the root's job ahead
    (``rrg.rank.warm_passages``) reads them, and one query must give one order."""
    static = np.zeros((len(pieces), table.shape[1]), np.float32)
    if not any(len(ids) for ids in pieces):
        return static
    # Each token's vector made float32 once for all rows, not once a row: float16's
    # conversion was most of the time (the 2,525 passages of a new query on sympy: 0.10 ->
    # 0.06 s), and a row's product reads the same float32 numbers as before.
    # return_index: plain np.unique imports numpy.ma (9 ms of a query's process).
    every = np.unique(np.concatenate(pieces), return_index=True)[0]
    vectors = np.asarray(table[every], np.float32)
    for k, (ids, tfs) in enumerate(zip(pieces, piece_tfs, strict=True)):
        if len(ids):
            weights = np.asarray(tfs, np.float32) * idf[ids].astype(np.float32)
            static[k] = weights @ vectors[np.searchsorted(every, ids)]
    norms = np.sqrt(np.einsum("ij,ij->i", static, static))[:, None]
    return static / np.maximum(norms, 1e-9)
