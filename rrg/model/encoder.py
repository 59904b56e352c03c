"""Running an embedding model: its tokenizer, its ONNX session, texts run side by side and
pooled (the graphs it runs are made by ``rrg.model.graphs``, the static token table
distilled from it by ``rrg.model.static_table``).

onnxruntime and tokenizers are imported here and only here, on first use; like numpy
(imported by every module of the index, rank and model layers) they stay off the
pass-through path, which imports only rrg.cli.entry and the plain-data tables it needs.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from rrg.environment import env_number
from rrg.errors import ModelError, RrgError
from rrg.model.graphs import QUANTIZED_GRAPH, discard, quantize_graph, sweep_leftovers
from rrg.model.registry import ModelSpec
from rrg.model.word_pieces import WordPieces, reads_by_word

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer


def load_tokenizer(path: Path) -> Tokenizer:
    from tokenizers import Tokenizer

    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as err:  # tokenizers raises plain Exception on a bad file
        raise ModelError(f"cannot load tokenizer {path}: {err}") from err
    # Some shipped tokenizer.json files preset padding/truncation to 128: every text would
    # silently become 128 tokens. rrg pads and cuts itself.
    tok.no_padding()
    tok.no_truncation()
    return tok


def providers() -> list[str]:
    """CUDA when onnxruntime has it (a GPU build), else the CPU."""
    import onnxruntime as ort

    available = ort.get_available_providers()
    chosen = [p for p in ("CUDAExecutionProvider",) if p in available]
    return [*chosen, "CPUExecutionProvider"]


def usable_cores() -> int:
    """Cores this process may run on (a container or ``taskset`` may allow fewer than the
    machine has: more runs than cores at once would take turns, each slower)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


_Item = TypeVar("_Item")

#: Characters of a text read first for each WordPiece token wanted (``Encoder.piece_ids``):
#: code runs about 3 a token, prose 4 to 5; a head that falls short is read on.
HEAD_CHARS_A_TOKEN = 4
#: Most tokens (padding included) the model reads in one run; see ``Encoder.encode``.
BATCH_TOKENS = 384


#: Sessions kept in this process once ``share_sessions`` is called, by graph and mode, with
#: their parallel runs: a server answers many queries with one load (onnxruntime's runs are
#: thread-safe). A command-line query, one a process, loads its own.
_SESSIONS: dict[tuple[str, bool], tuple[InferenceSession, int]] | None = None
_SESSIONS_LOCK = threading.Lock()


_TOKENIZERS: dict[Path, Tokenizer] = {}


def share_sessions() -> None:
    """Every Encoder of a model from now on shares one session and one tokenizer (``rrg
    --mcp``, and the library: a process that answers many queries loads each once)."""
    global _SESSIONS
    with _SESSIONS_LOCK:
        if _SESSIONS is None:
            _SESSIONS = {}


def keep_tokenizer(path: Path) -> None:
    """Load a tokenizer now, for every Encoder of it in this process and in the processes
    forked from it (rrg's resident process: its children then skip the 0.05 s load). It
    starts no thread until it encodes, so a fork copies it whole."""
    with _SESSIONS_LOCK:
        if path not in _TOKENIZERS:
            _TOKENIZERS[path] = load_tokenizer(path)


def _shared_tokenizer(path: Path) -> Tokenizer:
    with _SESSIONS_LOCK:
        if path not in _TOKENIZERS:
            _TOKENIZERS[path] = load_tokenizer(path)
        return _TOKENIZERS[path]


def _shared_session(encoder: Encoder) -> tuple[InferenceSession, int]:
    if _SESSIONS is None:
        session = encoder._load_session()
        return session, encoder.parallel_runs
    with _SESSIONS_LOCK:
        key = (str(encoder.spec.onnx_path), encoder.quantized)
        if key not in _SESSIONS:
            session = encoder._load_session()
            _SESSIONS[key] = (session, encoder.parallel_runs)
        return _SESSIONS[key]


def _holds_graph(target: Path) -> bool:
    """Whether the folder of a model's graphs is made (renamed into place whole)."""
    return (target / QUANTIZED_GRAPH).is_file() or (target / "model.onnx").is_file()


def _forget_older_graphs(spec: ModelSpec) -> None:
    """Remove the copies earlier rrg versions kept of this model's graph: in the cache dir
    (version 3: a float copy of 90 MB beside the int8 graph, in every cache dir) and a
    version 1 file or version 2 folder."""
    from rrg.cachedir import models_dir

    with contextlib.suppress(OSError, RrgError):
        old = models_dir()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(old / f"optimised-v1-{spec.key}.onnx")
        for version in (2, 3):
            discard(old / f"optimised-v{version}-{spec.key}")


class Encoder:
    """One embedding model, loaded on first use."""

    def __init__(self, spec: ModelSpec, exact: bool = False) -> None:
        """``exact``: run the float graph even where the model is run quantised (the static
        table is distilled from it, so that a machine's table does not depend on whether
        quantising worked there)."""
        self.spec = spec
        self.quantized = spec.quantize and not exact
        self._session: InferenceSession | None = None
        self._session_lock = threading.Lock()
        #: Runs of the model that go at once (set when the session loads); see ``map_runs``.
        self.parallel_runs = 1

    @cached_property
    def tokenizer(self) -> Tokenizer:
        if _SESSIONS is not None or self.spec.tokenizer_path in _TOKENIZERS:
            return _shared_tokenizer(self.spec.tokenizer_path)
        return load_tokenizer(self.spec.tokenizer_path)

    @property
    def session(self) -> InferenceSession:
        with self._session_lock:
            if self._session is None:
                self._session, self.parallel_runs = _shared_session(self)
            return self._session

    def preload(self) -> None:
        """Load the model on another thread (on the other core, while the caller lists,
        stats and ranks): importing onnxruntime and opening the graph take about 0.25 s of
        a new query. A failure is left for the first real use to raise and report."""

        def load() -> None:
            with contextlib.suppress(Exception):
                _ = self.session

        # Not a daemon: Python then waits for it at exit. A process leaving while
        # onnxruntime starts its own threads would abort ("terminate called without an
        # active exception"), as an early exit (an unusable index, say) otherwise would.
        threading.Thread(target=load).start()

    def _load_session(self) -> InferenceSession:
        import onnxruntime as ort

        # Its process-wide logger as quiet as its sessions: a failed allocation printed a
        # coloured telemetry line beside rrg's own.
        ort.set_default_logger_severity(4)
        # Read before any load is tried: a bad value is the user's to fix, not a model fault.
        threads = int(env_number("RRG_THREADS", 0, whole=True)) or min(4, usable_cores())
        # On a CPU each run takes one thread and ``threads`` runs go at once: the stage's 32
        # passages, read one a run, take 0.82x the time of one run at a time on two threads
        # (the same vectors to the bit). A GPU runs one at a time.
        chosen = providers()
        on_cpu = chosen == ["CPUExecutionProvider"]
        self.parallel_runs = threads if on_cpu else 1

        def options(level: ort.GraphOptimizationLevel) -> ort.SessionOptions:
            out = ort.SessionOptions()
            out.intra_op_num_threads = 1 if on_cpu else threads
            # Fatal only: onnxruntime would print its own error lines to stderr beside the
            # one rrg: line that says what failed.
            out.log_severity_level = 4
            out.graph_optimization_level = level
            # Its plan of allocations is kept per input shape, and a run's shape is its
            # text's length: no two passages share one. Off, 32 passages read two runs at
            # once peak 17-20 MB lower, at the same speed.
            out.enable_mem_pattern = False
            return out

        if self.spec.quantize and not self.quantized:
            # The float graph of a model run quantised: read only to distil the static
            # table, once a machine, or on a GPU. Run as installed, its int8 weights turned
            # to floats on each run: a session of 88 MB where folding them at load peaks at
            # 261 MB (the same speed here, 1.3 s a batch of 1,024 tokens; the same math).
            level = (
                ort.GraphOptimizationLevel.ORT_DISABLE_ALL
                if on_cpu
                else ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            )
            exact = options(level)
            # Each run's floats given back after it, not kept in an arena per run.
            exact.enable_cpu_mem_arena = False
            try:
                return ort.InferenceSession(str(self.spec.onnx_path), exact, providers=chosen)
            except Exception as err:  # onnxruntime raises its own Fail/InvalidGraph types
                first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
                raise ModelError(f"cannot load model {self.spec.onnx_path}: {first}") from err
        # rrg's own copy of the graph can be damaged where the model is not (bytes lost to
        # a crash after the copy was renamed into place, a disk error): it is made again,
        # once, and the model as installed serves where that fails too. Left alone, every
        # later query would lose the transformer stage to a file rrg wrote.
        for _ in range(2):
            folder = self._optimised_graph()
            if folder is None:
                break
            level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            graph = folder / "model.onnx"
            # A GPU runs the float graph: the int8 products are CPU kernels.
            if self.quantized and on_cpu and (folder / QUANTIZED_GRAPH).is_file():
                # Fusing the quantised kernels in memory at load (about 10 ms) makes a run
                # 15% faster; they are not saved so, since they may name this processor's.
                graph, level = (
                    folder / QUANTIZED_GRAPH,
                    ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
                )
            elif not graph.is_file():
                # The folder holds the int8 graph alone: the float one, wanted only to
                # distil the static table (once a machine) or on a GPU, is folded in memory.
                break
            try:
                return ort.InferenceSession(str(graph), options(level), providers=chosen)
            except Exception:  # noqa: BLE001 - onnxruntime raises its own Fail types
                discard(folder)
        try:
            return ort.InferenceSession(
                str(self.spec.onnx_path),
                options(ort.GraphOptimizationLevel.ORT_ENABLE_ALL),
                providers=chosen,
            )
        except Exception as err:  # onnxruntime raises its own Fail/InvalidGraph types
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise ModelError(f"cannot load model {self.spec.onnx_path}: {first}") from err

    def _optimised_graph(self) -> Path | None:
        """The folder of the graphs this model runs, made once a machine
        (``rrg.cachedir.prepared_dir``); None when it cannot be made.

        Weight-quantised models (the default one) turn every int8 weight back into floats on
        each run, or once when onnxruntime folds constants at load, which peaks at 260 MB.
        Folded once and saved, the graph runs as fast, its weights in a file of their own
        that onnxruntime memory-maps at load: the default model's session then peaks at
        122 MB instead of 192.

        For a model run quantised, the folder keeps only the folded graph with int8 weights
        (per output channel) whose activations are quantised at run time
        (``QUANTIZED_GRAPH``, 23 MB): its products run as int8 ones, 1.5x faster on 2 cores.
        The float copy it is made from (90 MB of weights) is not kept: only the static
        table's distillation (once a machine) and a GPU read float weights, and they fold
        the installed graph in memory. Where onnxruntime cannot quantise the graph the float
        copy is kept and serves. Everything is written in a temporary folder renamed into
        place, so a reader sees the whole folder or none.
        """
        from rrg.cachedir import prepared_dir, preparing

        try:
            models = prepared_dir()
            target = models / f"optimised-v4-{self.spec.key}"
            if _holds_graph(target):
                return target
            _forget_older_graphs(self.spec)
            sweep_leftovers(models)
            with preparing(target.name):  # one process a machine makes it; the others wait
                if not _holds_graph(target):  # made while this one waited
                    self._make_graph(models, target)
            return target if target.is_dir() else None
        except (OSError, RrgError):
            return None
        except Exception:  # noqa: BLE001 - a model onnxruntime cannot save is loaded as is
            return None

    def _make_graph(self, models: Path, target: Path) -> None:
        """The graphs of ``_optimised_graph`` made in a staging folder of ``models`` renamed
        to ``target``."""
        import onnxruntime as ort

        staging = Path(tempfile.mkdtemp(prefix=".optimising-", dir=models))
        try:
            options = ort.SessionOptions()
            # Basic rewrites only: they hold on any machine, where the extended ones
            # may name kernels of this processor.
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
            options.optimized_model_filepath = str(staging / "model.onnx")
            options.add_session_config_entry(
                "session.optimized_model_external_initializers_file_name", "model.data"
            )
            options.add_session_config_entry(
                "session.optimized_model_external_initializers_min_size_in_bytes", "1024"
            )
            ort.InferenceSession(
                str(self.spec.onnx_path), options, providers=["CPUExecutionProvider"]
            )
            if self.spec.quantize:
                quantize_graph(staging / "model.onnx", staging / QUANTIZED_GRAPH)
                if (staging / QUANTIZED_GRAPH).is_file():
                    os.unlink(staging / "model.onnx")
                    os.unlink(staging / "model.data")
            with contextlib.suppress(OSError):  # another process renamed its copy first
                os.rename(staging, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def map_runs(
        self, run: Callable[[_Item], np.ndarray], items: Sequence[_Item]
    ) -> list[np.ndarray]:
        """``run`` on each item, ``parallel_runs`` at a time (onnxruntime lets go of the GIL
        while the model runs); results in the items' order."""
        _ = self.session  # which sets parallel_runs
        workers = min(self.parallel_runs, len(items))
        if workers <= 1:
            return [run(item) for item in items]
        pool = ThreadPoolExecutor(workers)
        try:
            return list(pool.map(run, items))
        finally:
            # Where a run fails or the user interrupts, the runs not yet started are not.
            pool.shutdown(cancel_futures=True)

    @cached_property
    def input_names(self) -> set[str]:
        return {i.name for i in self.session.get_inputs()}

    def hidden_states(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The model's last hidden states for a padded batch of token ids."""
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        wanted = {k: v for k, v in feeds.items() if k in self.input_names}
        session = self.session
        try:
            hidden: np.ndarray = session.run(None, wanted)[0]
        except Exception as err:  # onnxruntime raises its own types; one message for all
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise ModelError(f"model {self.spec.name} failed on its input: {first}") from err
        return hidden

    def run_ids(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Pooled, L2-normalised vectors for a padded batch of token ids."""
        hidden = self.hidden_states(ids, mask)
        if self.spec.pooling == "cls":
            pooled = hidden[:, 0]
        elif self.spec.pooling == "last":
            last = mask.sum(1) - 1
            pooled = hidden[np.arange(len(ids)), last]
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(1) / np.maximum(weights.sum(1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def encode(
        self,
        texts: list[str],
        max_tokens: int | Sequence[int] | None = None,
        batch_size: int = 1,
    ) -> np.ndarray:
        """Vectors for texts, one text a run unless ``batch_size`` allows more; each text
        read to ``max_tokens`` tokens (one limit for all, or a text's own: the texts of
        several limits then share one pool of runs, longest first, with no core left idle
        between one limit's texts and the next's).

        One a run by default: under the int8 graph the texts of a run share one activation
        scale, so a batched text's vector depends on its batch-mates (cosine .991-.994 from
        the text read alone), and rrg's rankings would depend on what its vector caches held
        (the stage's passages, ``--rerank``'s excerpts). With runs side by side
        (``map_runs``) it costs little: 300 excerpts of 96 tokens take 1.05-1.1x the time
        of four a run.

        A caller that does not need that (a benchmark over a whole corpus) may batch: texts
        sorted by length, at most ``batch_size`` and BATCH_TOKENS tokens (padding included)
        a run. Small batches keep onnxruntime's arena small: 300 excerpts of 96 tokens peak
        at 210 MB with 4 a batch, 250 MB with 8 and 305 MB with 16 (one run at a time,
        benchmarks/rerank_memory.py); 32 passages of 256 tokens took 0.69 s and peaked at
        205 MB one at a time, 0.80 s and 294 MB four at a time. A run's vectors do not
        depend on how many runs go at once.
        """
        dims = self.spec.dims or 0
        if not texts:
            return np.zeros((0, dims), np.float32)
        if max_tokens is None or isinstance(max_tokens, int):
            limits = [max_tokens or self.spec.max_tokens] * len(texts)
        else:
            limits = list(max_tokens)
        encodings = self.tokenizer.encode_batch(list(texts))
        token_ids = [
            e.ids[: limit - 1] + e.ids[-1:] if len(e.ids) > limit else e.ids
            for e, limit in zip(encodings, limits, strict=True)
        ]
        order = sorted(range(len(texts)), key=lambda k: len(token_ids[k]))
        chunks: list[list[int]] = []
        start = 0
        while start < len(order):
            stop = start + 1
            while (
                stop < len(order)
                and stop - start < batch_size
                and (stop - start + 1) * len(token_ids[order[stop]]) <= BATCH_TOKENS
            ):
                stop += 1
            chunks.append(order[start:stop])
            start = stop

        def run(chunk: list[int]) -> np.ndarray:
            width = max(len(token_ids[k]) for k in chunk)
            ids = np.zeros((len(chunk), width), np.int64)
            mask = np.zeros((len(chunk), width), np.int64)
            for row, k in enumerate(chunk):
                ids[row, : len(token_ids[k])] = token_ids[k]
                mask[row, : len(token_ids[k])] = 1
            return self.run_ids(ids, mask)

        # Longest first: the last run to start is then a short one, not a long one alone.
        chunks.reverse()
        results = self.map_runs(run, chunks)
        out = np.zeros((len(texts), results[0].shape[1]), np.float32)
        for chunk, vecs in zip(chunks, results, strict=True):
            out[chunk] = vecs
        return out

    def piece_ids(self, texts: Iterable[str], max_tokens: int) -> list[np.ndarray]:
        """WordPiece ids (int32) of each text without special tokens, cut at max_tokens."""
        items = list(texts)
        out: list[np.ndarray] = []
        heads_first = self._splits_at_whitespace()
        # Batches of 256, ids kept as arrays: an encoding holds offsets and token strings
        # too, and a list of Python ints costs 36 bytes an id; a build chunk's thousands of
        # texts at once would cost over 100 MB.
        for start in range(0, len(items), 256):
            batch = items[start : start + 256]
            if heads_first:
                out.extend(self._head_ids(batch, max_tokens))
                continue
            encodings = self.tokenizer.encode_batch(batch, add_special_tokens=False)
            out.extend(np.asarray(e.ids[:max_tokens], np.int32) for e in encodings)
        return out

    @cached_property
    def _word_pieces(self) -> WordPieces | None:
        return WordPieces(self.tokenizer) if reads_by_word(self.tokenizer) else None

    def _plain_ids(self, texts: list[str]) -> list[np.ndarray]:
        """Each text's WordPiece ids (int32), no special tokens, uncut."""
        if self._word_pieces is not None:
            return self._word_pieces.ids(texts)
        encodings = self.tokenizer.encode_batch(texts, add_special_tokens=False)
        return [np.asarray(e.ids, np.int32) for e in encodings]

    def _head_ids(self, batch: list[str], max_tokens: int) -> list[np.ndarray]:
        """``piece_ids`` of a batch, reading each text only as far as its tokens need: a
        head cut at whitespace near ``HEAD_CHARS_A_TOKEN`` characters a token, and the rest
        only where the head falls short. Cut at whitespace, the head's tokens are the whole
        text's first ones (``_splits_at_whitespace``). A file's 8,192 characters of code
        hold about 2,700 tokens, of which the index keeps 1,024 (sympy's cold build 4.21 ->
        3.63 s: docs/benchmarks.md, "The index's words counted once per distinct word")."""
        cuts = [_head_end(text, max_tokens * HEAD_CHARS_A_TOKEN) for text in batch]
        heads = [text[:cut] for text, cut in zip(batch, cuts, strict=True)]
        ids = self._plain_ids(heads)
        short = [
            k for k, cut in enumerate(cuts) if cut < len(batch[k]) and len(ids[k]) < max_tokens
        ]
        if short:
            tails = self._plain_ids([batch[k][cuts[k] :] for k in short])
            for k, tail in zip(short, tails, strict=True):
                ids[k] = np.concatenate([ids[k], tail])
        return [i[:max_tokens] for i in ids]

    def _splits_at_whitespace(self) -> bool:
        """Whether a text cut at a space or newline tokenizes as its two parts one after
        the other: BERT's normalizer works a character at a time and its pre-tokenizer
        splits at whitespace, so no token spans the cut. Another model's tokenizer (one
        that strips a text's ends, or keeps a space inside its tokens) is read whole."""
        from tokenizers import normalizers, pre_tokenizers

        tok = self.tokenizer
        return isinstance(tok.pre_tokenizer, pre_tokenizers.BertPreTokenizer) and isinstance(
            tok.normalizer, normalizers.BertNormalizer
        )


def _head_end(text: str, reach: int) -> int:
    """Where a text's head ends (``Encoder.piece_ids``): at its last space or newline before
    ``reach`` characters; the whole text where it is no longer, or has none there."""
    if len(text) <= reach:
        return len(text)
    cut = max(text.rfind(" ", 0, reach), text.rfind("\n", 0, reach))
    return cut if cut > 0 else len(text)
