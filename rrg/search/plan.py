"""A search as one typed plan: rrg's options, rg's arguments parsed once, and whether
standard output is a terminal, decided once (colour, headings, line numbers and excerpts
all follow from it)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from rrg.rg.args import RgArgs

if TYPE_CHECKING:
    from collections.abc import Callable

    from rrg.index.served import ServedRoot
    from rrg.model.registry import ModelSpec
    from rrg.rg.chosen_lines import LineSpans
    from rrg.rg.palette import Palette
    from rrg.rg.walk import CountWalk


@dataclass(frozen=True)
class SearchRequest:
    """What rrg's options ask of a search, built by the CLI from its options (whose table
    holds every default: none is repeated here)."""

    query: str
    line_cap: int  # matching lines (or records) printed before rrg stops rg; 0 = no cap
    file_limit: int | None  # --limit as given: --files lists every file without it
    passage_limit: int  # passages the no-pattern mode prints; 0 = every one the stage read
    stage_files: int  # files the transformer stage re-orders; 0 with --fast
    excerpt: int | None  # None: ``pipe_excerpt`` in a pipe, lines whole on a terminal
    pipe_excerpt: int
    model: str | None
    rerank: bool
    rerank_query: str | None
    pool: int
    show_progress: bool
    scope_size: int
    paragraphs: int  # entry points --recall prints
    scope_file: str | None
    embed: bool  # --index also embeds every passage (or RRG_EMBED=1, or embedded before)

    def __post_init__(self) -> None:
        # Whoever built it (the CLI, the library, the MCP server), the texts are readable.
        object.__setattr__(self, "query", readable_words(self.query))
        if self.rerank_query is not None:
            object.__setattr__(self, "rerank_query", readable_words(self.rerank_query))


def readable_words(text: str) -> str:
    """Text to read as words: a lone surrogate (a byte that is no UTF-8, as Python decodes
    argv, or a JSON ``\\udcff``), which no tokenizer takes, read as U+FFFD."""
    return text if text.isascii() else held_bytes(text).decode("utf-8", "replace")


def held_bytes(text: str) -> bytes:
    """The bytes a text holds: a byte that is no UTF-8, held as a lone surrogate
    (``os.fsdecode``, argv), given back; a surrogate no byte made (a JSON ``\\ud800``)
    written as UTF-8 would write it."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class QueryPlan:
    """One search: rg, the user's rg arguments as given and as parsed, rrg's request."""

    rg: str
    rg_args: list[str]
    args: RgArgs
    request: SearchRequest
    terminal: bool  # standard output is a terminal
    # rg names the file of each line unless given exactly one PATH, a file, or told so by
    # -H or -I (on the command line or in its config file, which rrg's runs never pass on:
    # a -H of rrg's own after the config's -I printed the names the user turned off);
    # decided from the PATHs as given, before any that does not exist is set aside.
    filenames: bool = True

    @classmethod
    def make(cls, rg: str, rg_args: list[str], args: RgArgs, request: SearchRequest) -> QueryPlan:
        paths = args.paths
        filenames = args.filenames(not (len(paths) == 1 and not os.path.isdir(paths[0])))
        return cls(rg, rg_args, args, request, os.isatty(1), filenames)

    @cached_property
    def spec(self) -> ModelSpec:
        """The model the request names, resolved once for the whole search."""
        from rrg.model.registry import resolve_model

        return resolve_model(self.request.model)

    @property
    def colour(self) -> bool:
        return self.args.colour_wanted(self.terminal)

    @cached_property
    def palette(self) -> Palette | None:
        """The colours of the lines rrg prints itself; None: no colour."""
        from rrg.rg.palette import palette_of

        return palette_of(self.rg, self.args) if self.colour else None

    @property
    def excerpt(self) -> int:
        """Characters kept around a long line's match; 0: lines whole."""
        if self.args.max_columns:
            # The user chose rg's treatment of long lines (omitted, or previewed): the
            # excerpt's pass runs rg with colours, which words rg's notices another way.
            return 0
        if self.args.crlf_ended:
            # The excerpt's pass runs rg with colours, which end a line with CRLF whatever
            # its file ends it with: rg's bytes for a line could not be told apart.
            return 0
        if self.request.excerpt is not None:
            return self.request.excerpt
        # Agents read pipes: a 50 kB minified line costs them a context window. A person at
        # a terminal (one that takes no colour too), or anyone asking for colour, gets rg's
        # lines whole; so does --null-data, whose records are not lines (a NUL ends them,
        # newlines lie within).
        whole = self.args.colour_by_flags(self.terminal) or self.args.nul_ended
        return 0 if whole else self.request.pipe_excerpt


@dataclass(frozen=True)
class OrderedRun:
    """One search over files in a chosen order: the plan, the files, and the root whose
    caches and model serve it (--rerank reads them)."""

    plan: QueryPlan
    files: list[bytes]
    query: str
    served: ServedRoot
    with_filename: bool
    all_listed: bool = False  # the files are exactly rg's listing under the user's PATHs
    early_walk: CountWalk | None = None  # a walk counting them, started before the ranking
    spans: LineSpans | None = None  # where each file answers best (``Ranking.spans``)
    more_spans: Callable[[list[bytes]], LineSpans] | None = None  # of files spans lacks
    # What leaves the index's unread binary files out of a batch named to rg while the walk
    # runs (``rrg.rg.searched_files.unread_binary_filter``).
    named_filter: Callable[[list[bytes]], list[bytes]] | None = None
    # What tells the files whose NUL lies past rg's first read, which rg's walk prints up to
    # it (``rrg.rg.searched_files.late_nul_filter``).
    late_nul: Callable[[list[bytes]], list[bytes]] | None = None
    # Files printed by rg's walk to each alone whatever the walk counted of them
    # (``rrg.rg.searched_files.Searched.walked_to``).
    walked_to: frozenset[bytes] = frozenset()
