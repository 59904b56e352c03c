"""A root's passages cut, their static vectors computed and their words counted ahead, so
that a new query reads them back instead of computing them.

Every query cuts its best files into passages, computes each passage's static vector and
counts its words for the cheap tier; what it computes is kept (the cuts by
``rrg.rank.kept_cuts``, the vectors in the root's vector cache, the counts by
``rrg.rank.kept_terms``), so a file costs once. But a new question reads new files: on
sympy (1,863 files) a new query in a fresh cache spent 0.5-0.9 s of its 1.4-2.4 s on them,
while computing them for all its 1,863 text files once takes 37 s (50,690 passages: 26 MB
of vectors, 13 MB of counts, 8.5 MB of cuts). So once a root's index is whole, the first
search of it starts that work in the background (``rrg.search.background``), at a lower
priority, one such job a root at a time; the searches beside it rank as before, computing
what is not kept yet. A new query then took 0.75x the time on sympy, 0.79x on tokio
(docs/benchmarks.md, "A root's passages computed ahead").

What is computed is what a query would compute, by the same functions and keys: a query
ranks the same files the same way whether this ran or not. Done once a root, model and
version of rrg's code (the mark ages out of the cache after 30 days, and the job then runs
again); a root of fewer than ``WARM_FROM_FILES`` text files is left to its queries, which
cut most of it within a few.
Bounded by ``MOST_PASSAGES``: the caches' own bounds would otherwise drop, least recently
used first, what was computed for the root's largest trees.

A root of at most ``RRG_EMBED_AHEAD`` passages (``rrg.environment.EMBED_AHEAD``) is then
embedded by the same job, as ``rrg --index --embed`` embeds it (``embeds_ahead``): its new
queries run the model on their own text alone, and later builds embed what changed.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass

import xxhash

from rrg.environment import embed_ahead_most, passages_ahead
from rrg.errors import RrgError
from rrg.index.definitions import is_code
from rrg.index.served import ServedRoot
from rrg.index.store import KIND_TEXT, builder_running
from rrg.index.vectors import LOCK_WAIT_S
from rrg.index.view import IndexView
from rrg.rank.code_passages import blank_line_passages, cut_passages
from rrg.rank.code_priors import secondary_kinds
from rrg.rank.embedding import is_embedded
from rrg.rank.kept_cuts import KeptCuts
from rrg.rank.kept_orders import code_make
from rrg.rank.kept_terms import KeptTerms
from rrg.rank.passages import (
    PassageScorer,
    cut_files,
    file_texts,
    passage_name,
    static_vectors_of,
)
from rrg.rank.root_cache import root_vectors
from rrg.rank.tuning import TUNING, Tuning

#: Below this many text files a root's queries cut most of it within a few (each reads the
#: passages of its 20-25 best files): no job is started for it.
WARM_FROM_FILES = 200
#: At most this many passages a root: about 51 MB of static vectors (256
#: dimensions, float16), a fifth of the vector cache's bound.
MOST_PASSAGES = 100_000
#: Files cut and computed at a time: one write of their vectors under the writer lock.
_CHUNK = 100
#: Written into every key: a change to what this computes starts it again.
_FORMAT = "warm-v1"


@dataclass(frozen=True)
class Warmed:
    files: int
    passages: int
    seconds: float
    complete: bool = True  # every text file was computed (no bound, no --index-clear)


def warm_key(served: ServedRoot, tuning: Tuning) -> str:
    """The mark of the work done for this root's model, constants and rrg's code. Not of
    the index's state: an agent edits files between its searches, and each edit would start
    the job again (2.7 s of work on sympy where nothing else changed); a changed file's
    passages are computed by the first query that reads it, as without the job."""
    made = xxhash.xxh3_128()
    spec = served.spec
    for part in (_FORMAT, code_make(), spec.key, spec.vector_key, str(tuning.passage_tokens),
                 str(tuning.code_passages)):  # fmt: skip
        made.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return "warm:" + made.hexdigest()


def embedding_key(served: ServedRoot, tuning: Tuning = TUNING) -> str:
    """The mark of an embedding ahead decided on and not yet ended (``mark_embedding_wanted``)."""
    return "embed-ahead:" + warm_key(served, tuning)


def mark_embedding_wanted(served: ServedRoot, wanted: bool, tuning: Tuning = TUNING) -> None:
    """Mark (``wanted``) or unmark the root's embedding ahead: marked where the job decides
    to embed, before it waits for the turn, and unmarked once the embedding ended, done or
    failed. A mark left (the job killed while it waited or embedded: a reboot, a logout)
    is what makes a later search start the job again (``embedding_pending``); otherwise the
    root, its passages marked computed, was never embedded ahead, and a part-embedded one
    stayed so. A cache that cannot be written keeps no mark: bookkeeping alone."""
    with contextlib.suppress(OSError, sqlite3.Error, RrgError):
        cache = served.vectors
        key = embedding_key(served, tuning)
        if wanted:
            cache.put_mark(key)
        elif cache.has_mark(key):  # a read: every build of an embedded root unmarks it
            cache.drop_mark(key)


def embedding_pending(served: ServedRoot, tuning: Tuning = TUNING, alone: bool = True) -> bool:
    """Whether an embedding ahead was decided on and never ended; ``alone``: and no job runs
    for the root now (a job that waits for the turn holds its builder lock)."""
    if not embed_ahead_most():
        return False
    try:
        if not served.vectors.has_mark(embedding_key(served, tuning)):
            return False
    except (OSError, sqlite3.Error, RrgError):
        return False
    return not (alone and builder_running(served.index_path))


def needs_warming(served: ServedRoot, view: IndexView, tuning: Tuning = TUNING) -> bool:
    """Whether this root's passages wait to be computed ahead (no job has started for it);
    False where the cache cannot be read, or ``RRG_PASSAGES_AHEAD=0``."""
    # Read here, not only in the job: a bad RRG_EMBED_AHEAD is said by the search that
    # would start it, in one line, not lost in a background process.
    embed_ahead_most()
    if view.n_text < WARM_FROM_FILES or not passages_ahead():
        return False
    try:
        cache = served.vectors
        # A cache this process cannot write (a shared, prepared one) would start a job that
        # fails at its first write, search after search.
        if not os.access(cache.path.parent, os.W_OK):
            return False
        return not cache.has_mark(warm_key(served, tuning))
    except (OSError, sqlite3.Error, RrgError):
        return False


def warm_status(served: ServedRoot, tuning: Tuning = TUNING) -> str:
    """Whether the root's passages are computed ahead, as ``--index-status`` says it."""
    try:
        view = served.view()
        if view is None:
            return "no (the index cannot be read)"
        if view.n_text < WARM_FROM_FILES:
            return f"no (a root of fewer than {WARM_FROM_FILES} text files: its queries cut it)"
        if not passages_ahead():
            return "no (RRG_PASSAGES_AHEAD=0)"
        marked = served.vectors.has_mark(warm_key(served, tuning))
        running = builder_running(served.index_path)
    except Exception as err:  # noqa: BLE001 - a status: a build may merge segments meanwhile
        return f"unknown ({err})"
    if not marked:
        if running:
            return "not yet (the background build finishing the index computes them next)"
        return "not yet (the next search starts it in the background)"
    # Files changed since are computed by the queries that read them.
    if running:
        return "being computed in the background"
    return "yes (changed files: by the queries that read them)"


def warm_passages(
    served: ServedRoot,
    view: IndexView,
    tuning: Tuning = TUNING,
    most_passages: int = MOST_PASSAGES,
) -> Warmed:
    """Cut the root's text files, compute their passages' static vectors and count their
    words (``rrg.rank.kept_terms``): source code first, then the rest of its code, then
    everything else, until ``most_passages``. Marked first, so that the searches meanwhile
    start no second job; stops where the index is cleared meanwhile (``--index-clear``),
    so as not to fill a cache no index uses."""
    start = time.monotonic()
    cache = served.vectors
    cache.put_mark(warm_key(served, tuning))
    cuts = None
    with contextlib.suppress(OSError, RrgError):
        cuts = KeptCuts(cache)
    terms = KeptTerms(cache)
    scorer = PassageScorer(
        served.encoder, view.piece_idf, root_vectors(served, tuning), 0, tuning, cuts
    )
    cut = cut_passages if tuning.code_passages else blank_line_passages
    files = passages = 0
    paths = warm_order(view, most_passages)
    for at in range(0, len(paths), _CHUNK):
        if not served.index_path.exists():
            break
        chunk = paths[at : at + _CHUNK]
        names = [passage_name(served.root, path) for path in chunk]
        bodies = cut_files(file_texts(served.root, chunk), names, cut, cuts)
        keys = bodies.keys()
        static_vectors_of(bodies, keys, scorer)
        terms.keep(keys, bodies, wait_s=LOCK_WAIT_S)
        files += len(chunk)
        passages += len(bodies)
        if passages >= most_passages:
            break
    # Every text file computed: neither bound nor --index-clear stopped the walk.
    return Warmed(files, passages, time.monotonic() - start, files == view.n_text)


def embeds_ahead(served: ServedRoot, warmed: Warmed) -> bool:
    """Whether the job goes on to embed the root (``--embed``'s work): every passage was
    computed ahead, they number at most ``RRG_EMBED_AHEAD``, and the root is not embedded.
    An embedded root's new query runs the model on its own text alone, where the stage
    runs it on 32 passages: tokio whole (12,423 passages) 1.06 -> 0.52 s p50, and
    semble-code's dev half, source folders / whole, .806 / .801 -> .819 / .806
    (docs/benchmarks.md, "Embedded ahead")."""
    return warmed.complete and 0 < warmed.passages <= embed_ahead_most() and not is_embedded(served)


def warm_order(view: IndexView, most: int = MOST_PASSAGES) -> list[bytes]:
    """The index's live text files in the order they are computed: source code (no kind of
    secondary file: tests, examples, vendored...) first, the other code next, then the
    rest, each in the index's order; at most ``most`` of each kind (a file has a passage at
    least), so that a root of a million files holds no million paths here."""
    source: list[bytes] = []
    code: list[bytes] = []
    rest: list[bytes] = []
    for path in _text_paths(view):
        name = path.decode("utf-8", "replace")
        kind = rest if not is_code(name) else code if secondary_kinds(name, frozenset()) else source
        if len(kind) < most:
            kind.append(path)
        if len(source) >= most:
            break
    return source + code + rest


def _text_paths(view: IndexView) -> Iterator[bytes]:
    kinds = view.kinds
    for segment, base in zip(view.segments, view.bases, strict=True):
        live = kinds[base : base + segment.docs] == KIND_TEXT
        for local, path in enumerate(segment.paths()):
            if live[local]:
                yield path
