"""The root a search is served from: the folder whose index ranks it, with the model that
index is built for, and everything keyed by the pair.

A search under a folder is served by the nearest indexed ancestor within its project
(``serve``), so that an agent moving around a repository uses the repository's index and
corpus statistics instead of building one per folder. The index's path, the model's
encoder and the vector cache are made here, once a search (or once a library call), and
nowhere else: the ranking, the passages, the rerank and the index commands all read them
from one ``ServedRoot``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from rrg import timings
from rrg.cachedir import index_file
from rrg.errors import RrgError
from rrg.index.caches import record_root, remove_stale_roots
from rrg.index.refresh import Listing, RefreshReport, open_view, refresh, stat_listing
from rrg.index.vectors import VectorCache
from rrg.index.view import IndexView
from rrg.model.encoder import Encoder
from rrg.model.registry import ModelSpec
from rrg.model.static_table import static_table, static_table_path
from rrg.progress import Progress


@dataclass(frozen=True, eq=False)
class ServedRoot:
    """A root and the model its index is built for. Its index path, encoder and vector
    cache are made when first asked for and kept (one encoder a search: the tokenizer and
    the model load once)."""

    root: bytes
    spec: ModelSpec
    # The folder the search asked for, where an index above it serves it (``serve``).
    asked: bytes | None = None

    @property
    def above_what_was_asked(self) -> bool:
        """Whether an indexed folder above the one searched serves it."""
        return self.asked is not None and self.asked != self.root

    @property
    def folder(self) -> Path:
        return Path(os.fsdecode(self.root))

    @cached_property
    def index_path(self) -> Path:
        """The index's file (its folder made if missing): OSError or RrgError where no
        cache dir can be used."""
        return index_file(self.folder, self.spec.key)

    @cached_property
    def encoder(self) -> Encoder:
        return Encoder(self.spec)

    @cached_property
    def vectors(self) -> VectorCache:
        """The root's vector cache: OSError or RrgError as ``index_path``."""
        return VectorCache(self.index_path)

    def view(self) -> IndexView | None:
        """The root's index as it stands, read without the writer lock (``open_view``);
        None where there is none yet or it cannot be read as is."""
        return open_view(self.index_path, static_table(self.encoder).shape[0])

    def prepare_model(
        self, show_progress: bool, on_start: Callable[[], None] | None = None
    ) -> bool:
        """Distil the model's static table where this machine has none yet (once a machine:
        ``rrg.cachedir.prepared_dir``); whether it was distilled now. ``on_start``: told as
        the distilling, or the wait for another process's, begins."""
        if static_table_path(self.spec).is_file():
            static_table(self.encoder)
            return False
        preparing = Progress("rrg: preparing the model (once a machine)", show_progress, "tokens")
        try:
            static_table(self.encoder, preparing, on_start)
        finally:
            preparing.close()
        return True

    def refresh(
        self,
        rel: list[bytes],
        warn: Callable[[str], None],
        show_progress: bool,
        listing: Listing | None = None,
        deadline: float | None = None,
        read_first: Callable[[list[bytes]], list[bool]] | None = None,
    ) -> tuple[IndexView, np.ndarray, RefreshReport]:
        """The index brought up to date for ``rel`` (paths relative to the root; by
        ``deadline``, where one is given; the files ``read_first`` marks read first: see
        ``rrg.index.refresh.refresh``); ``listing``: the same paths already stat-ed."""
        self.prepare_model(show_progress)
        bar = Progress("rrg: indexing", show_progress)
        try:
            path = self.index_path
            if not path.exists():
                # A new root: the roots of folders removed since (each temporary clone an
                # agent searched made one) and those unused for a month go first.
                remove_stale_roots(path.parent)
            record_root(path, self.root)
            if listing is None:
                with timings.phase("stat"):
                    listing = stat_listing(self.folder, rel)
            return refresh(
                path, self.folder, listing, self.encoder, warn, bar, deadline, read_first
            )
        finally:
            bar.close()


def serve(searched: bytes, spec: ModelSpec) -> ServedRoot:
    """The root whose index serves a search under ``searched``: its nearest indexed
    ancestor (itself included) within its project; else ``searched`` itself (its index is
    then built there).

    The climb stops at the top of a repository (the folder holding ``.git``) and never
    reaches the file system's root or the home folder. A search over PATHs in two
    projects is rooted at their common folder (``rrg -q Q PAT . /usr/include``: at ``/``)
    and indexes it: without these bounds that one index would serve every later search in
    every project below it, with every project's words in its statistics, and no project
    below could have an index of its own (``rrg --index`` in one added to it)."""
    at = searched
    bounds = {b"/", os.fsencode(os.path.expanduser("~"))}
    while True:
        candidate = ServedRoot(at, spec, searched)
        try:
            if candidate.index_path.exists():
                return candidate
        except (OSError, RrgError):
            break  # no usable cache dir: the refresh says so and rg's order serves
        parent = os.path.dirname(at)
        if parent == at or parent in bounds or os.path.lexists(os.path.join(at, b".git")):
            break
        at = parent
    return ServedRoot(searched, spec)
