"""rrg as a library: a project (one folder and the index that serves it) and what can be
asked of it, answered as typed values, never printed.

    >>> import rrg.api
    >>> project = rrg.api.open_project("path/to/repo")  # doctest: +SKIP
    >>> project.files("where are retries scheduled", limit=3).files  # doctest: +SKIP
    [RankedFile(path='src/retry.py', rank=1), ...]

Each method answers as the command line does for the same words (``rrg -q QUERY --files``,
``rrg -q QUERY`` without a pattern, ``rrg -q QUERY --json PATTERN``): the same candidate
files (rg's own listing, its ignore rules and the globs given), the same index, the same
order and the same cap. Paths are relative to the project's folder, with ``/`` between
names. What the command line says on standard error in ``[rrg: ...]`` lines (an index still
being built, a cap reached) comes back as ``notices``, and so does what rg says there; bad
input raises ``RrgError`` with the command line's one-line message. docs/api.md shows every
call.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from rrg import defaults, streams
from rrg.errors import RrgError
from rrg.model.registry import ModelSpec, resolve_model
from rrg.output.notices import PARAMETERS, files_printed
from rrg.rg.binary import find_rg
from rrg.rg.candidates import Candidates
from rrg.rg.config import parse_rg_command
from rrg.rg.preflight import flags_refusal, one_line, pattern_refusal
from rrg.rg.replies import json_bytes
from rrg.rg.searched_files import searched_files
from rrg.search.candidates import more_spans_of, rank_candidates
from rrg.search.plan import OrderedRun, QueryPlan, SearchRequest
from rrg.search.stream import search_in_order

__all__ = [
    "FilesResult",
    "IndexReport",
    "IndexStatus",
    "LineMatch",
    "Passage",
    "PassagesResult",
    "Project",
    "RankedFile",
    "RrgError",
    "SearchResult",
    "open_project",
]


@dataclass(frozen=True)
class RankedFile:
    """A file of the project, at its place in the relevance order (1: the best)."""

    path: str
    rank: int


@dataclass(frozen=True)
class Passage:
    """A passage of a file (a definition of code, a block of prose): its lines, inclusive
    and 1-based, and their text."""

    path: str
    start_line: int
    end_line: int
    text: str
    # A piece of a line longer than a passage: it begins after the line's start, or ends
    # before its end (the command line marks the text ``[...]`` there).
    starts_mid_line: bool = False
    ends_mid_line: bool = False


@dataclass(frozen=True)
class LineMatch:
    """A line rg matched: the file, the line's number and its text (no line end), the
    byte spans of each match within it, and the model's score where the search reranked."""

    path: str
    line_number: int
    text: str
    spans: tuple[tuple[int, int], ...] = ()
    score: float | None = None


@dataclass(frozen=True)
class FilesResult:
    """The best files, best first, how many files were ranked in all, and what the command
    line would have said (``[rrg: ...]`` notices: an index still being built, the limit)."""

    files: list[RankedFile]
    total: int
    notices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PassagesResult:
    """The best passages, best first, whether more were read than ``limit`` let through,
    and the notices."""

    passages: list[Passage]
    more: bool
    notices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SearchResult:
    """The lines a search found, in the order the command line prints them, and what it
    would have said about them (``[rrg: ...]`` notices: the cap, lines held back)."""

    matches: list[LineMatch]
    notices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class IndexReport:
    """What bringing the index up to date did: the files rg lists, those read (new or
    changed), those whose content was unchanged, those removed, and the seconds it took;
    what rg said meanwhile (a folder it cannot read)."""

    files: int
    read: int
    unchanged: int
    removed: int
    seconds: float
    notices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class IndexStatus:
    """Whether the project has an index, the folder whose index serves it (an indexed
    folder above it serves it when it has none), its live files, and the command line's
    ``--index-status`` text."""

    indexed: bool
    served_by: str
    files: int
    text: str


@dataclass(frozen=True)
class Project:
    """A folder to search and the model its index is built with (the default one unless
    named): made once, asked any number of times (each call refreshes the index as a
    search on the command line does)."""

    root: Path
    model: ModelSpec
    rg: str
    model_given: str | None = None  # the name or folder it was opened with

    def files(
        self,
        query: str,
        *,
        limit: int | None = None,
        paths: tuple[str, ...] = (),
        globs: tuple[str, ...] = (),
        fast: bool = False,
    ) -> FilesResult:
        """The project's files best first for ``query`` (the ``limit`` best; every file
        when None or 0), under ``paths`` (relative to the project) and ``globs`` (rg's
        -g)."""
        _check_limit(limit, "limit")
        plan = self._plan(query, ["--files"], paths, globs, fast, limit or 0)
        notices: list[str] = []
        with _rg_messages(notices):
            candidates, ranking = rank_candidates(plan, notices.append, order_only=True)
        notices += _nothing_listed(candidates)
        chosen = ranking.ordered[:limit] if limit else ranking.ordered
        total = len(ranking.ordered)
        if len(chosen) < total:
            notices.append(files_printed(len(chosen), total, ranking.ranked))
        files = [RankedFile(self._relative(p), k) for k, p in enumerate(chosen, 1)]
        return FilesResult(files, total, notices)

    def passages(
        self,
        query: str,
        *,
        limit: int = 3,
        paths: tuple[str, ...] = (),
        globs: tuple[str, ...] = (),
        fast: bool = False,
    ) -> PassagesResult:
        """The ``limit`` passages closest to ``query``, best first (0: every one read), of
        the best files' passages the transformer stage read (the cheap tier's order with
        ``fast``)."""
        from rrg.rank.entry_points import best_paragraphs
        from rrg.search.as_written import as_written

        _check_limit(limit, "limit")
        plan = self._plan(query, ["--files"], paths, globs, fast, limit)
        notices: list[str] = []
        with _rg_messages(notices):
            candidates, ranking = rank_candidates(plan, notices.append)
        notices += _nothing_listed(candidates)
        # One more than asked: whether the limit held any back.
        found = best_paragraphs(ranking, limit + 1 if limit else _EVERY)
        shown = as_written(found[:limit] if limit else found)
        more = len(found) > len(shown)
        passages = [
            Passage(
                self._relative(path),
                p.start,
                p.end,
                p.text,
                p.starts_mid_line,
                p.ends_mid_line,
            )
            for path, p in shown
        ]
        return PassagesResult(passages, more, notices)

    def search(
        self,
        query: str,
        pattern: str,
        *,
        limit: int = defaults.LINE_CAP,
        paths: tuple[str, ...] = (),
        globs: tuple[str, ...] = (),
        ignore_case: bool = False,
        fast: bool = False,
        rerank: bool = False,
    ) -> SearchResult:
        """The lines matching ``pattern`` (a regex as rg reads it) in the files best for
        ``query``, in that order, stopped at ``limit`` lines (0: every line), each file
        first given its share of the cap as the command line gives it (the lines of its
        passage that answers best); with ``rerank``, up to --pool matches collected and
        the ``limit`` best by the model."""
        _check_limit(limit, "limit")
        if not pattern:
            raise RrgError("the pattern is empty: give a regex")
        if "\0" in pattern:
            raise RrgError("the pattern holds a NUL byte: write it \\x00, as rg reads it")
        flags = ["--json", *(["-i"] if ignore_case else []), "-e", pattern]
        plan = self._plan(query, flags, paths, globs, fast, limit, rerank)
        refused = pattern_refusal(plan.rg, plan.args)
        if refused is not None:
            raise RrgError(_rg_words(refused.messages, "rg refused the pattern"))
        notices: list[str] = []
        printed = bytearray()
        with _rg_messages(notices):
            candidates, ranking = rank_candidates(plan, notices.append, order_only=True)
            # A file whose NUL lies past rg's first read: rg walks to it alone, as the
            # command line has it, and its lines before the NUL are the search's.
            searched = searched_files(
                plan.rg, plan.args, ranking, walks_late=True, long=candidates.long
            )
            run = OrderedRun(
                plan,
                searched.files,
                query,
                ranking.served,
                with_filename=True,
                spans=ranking.spans,
                more_spans=more_spans_of(ranking),
                late_nul=searched.late_nul,
                walked_to=searched.walked_to,
            )
            result = search_in_order(run, printed.extend, PARAMETERS)
        matches = [self._line_match(m) for m in _messages(bytes(printed), "match")]
        return SearchResult(matches, [*notices, *_nothing_listed(candidates), *result.facts])

    def index(self) -> IndexReport:
        """The index brought up to date for every file rg lists in the project (a search
        does this itself, bounded in time; this waits for the whole)."""
        from rrg.index.served import serve
        from rrg.search.indexing import build_index

        self._still_there()
        served = serve(os.fsencode(self.root), self.model)
        args = parse_rg_command(["--files", "--", os.fspath(self.root)])
        notices: list[str] = []
        with _rg_messages(notices):
            built = build_index(self.rg, args, served, _ignore, False, os.fspath(self.root))
        report = built.report
        return IndexReport(
            report.listed, report.read, report.touched, report.deleted, built.seconds, notices
        )

    def status(self) -> IndexStatus:
        """Which index serves the project, and how much it holds (nothing is built)."""
        from rrg.index.caches import index_status
        from rrg.index.served import serve
        from rrg.rank.embedding import embed_status

        served = serve(os.fsencode(self.root), self.model)
        path = served.index_path
        served_by = os.fsdecode(served.root)
        if not path.exists():
            return IndexStatus(False, served_by, 0, f"{self.root}: not indexed")
        files, text = index_status(served_by, path, self.model.name, embed_status(served))
        # An unreadable index holds nothing a search can use: the next search rebuilds it.
        return IndexStatus(True, served_by, files or 0, text)

    def _plan(
        self,
        query: str,
        flags: list[str],
        paths: tuple[str, ...],
        globs: tuple[str, ...],
        fast: bool,
        cap: int,
        rerank: bool = False,
    ) -> QueryPlan:
        if not query.strip():
            raise RrgError("the query is empty: give a few words saying what you look for")
        self._still_there()
        if isinstance(paths, str) or isinstance(globs, str):
            raise RrgError("paths and globs are sequences of strings, not one string")
        for glob in globs:
            if not glob or "\0" in glob:
                raise RrgError(f"bad glob {glob!r}: a glob is a nonempty string without NUL")
        where = [self._inside(p) for p in paths] or [os.fspath(self.root)]
        rg_args = [*flags, *(a for g in globs for a in ("-g", g)), "--", *where]
        request = SearchRequest(
            query=query,
            line_cap=cap,
            file_limit=cap or None,
            passage_limit=cap,
            stage_files=0 if fast else defaults.STAGE_FILES,
            excerpt=0,
            pipe_excerpt=0,
            model=self.model_given,
            rerank=rerank,
            rerank_query=None,
            pool=defaults.POOL,
            show_progress=False,
            scope_size=defaults.SCOPE_SIZE,
            paragraphs=defaults.PARAGRAPHS,
            scope_file=None,
            embed=False,
        )
        args = parse_rg_command(rg_args)
        # rg's listing would only say it on stderr and list nothing: an empty answer.
        refused = flags_refusal(self.rg, args) if globs else None
        if refused is not None:
            raise RrgError(_rg_words(refused.messages, "rg refused the globs"))
        return QueryPlan(self.rg, rg_args, args, request, terminal=False, filenames=True)

    def _still_there(self) -> None:
        """A project answers only while its folder stands (one removed or renamed since it
        was opened: rg would list nothing, and the index could not be opened)."""
        if not self.root.is_dir():
            raise RrgError(f"{self.root}: the project's folder is gone (removed or renamed)")

    def _inside(self, path: str) -> str:
        """A path under the project as an absolute one; outside it, an error."""
        if "\0" in path:
            raise RrgError("a path holds no NUL byte")
        full = os.path.realpath(os.path.join(self.root, path))
        if os.path.commonpath([full, os.fspath(self.root)]) != os.fspath(self.root):
            raise RrgError(f"{path}: outside the project {self.root}")
        if not os.path.exists(full):
            raise RrgError(f"{path}: no such file or directory")
        return full

    def _relative(self, path: bytes | str) -> str:
        full = os.fsdecode(path)
        rel = os.path.relpath(full, self.root) if os.path.isabs(full) else full
        return rel.replace(os.sep, "/")

    def _line_match(self, message: dict[str, object]) -> LineMatch:
        data = message["data"]
        assert isinstance(data, dict)
        line = _text(data["lines"]).rstrip("\r\n")
        spans = tuple((int(s["start"]), int(s["end"])) for s in data.get("submatches") or [])
        score = data.get("score")
        return LineMatch(
            self._relative(_text(data["path"])),
            int(data.get("line_number") or 0),
            line,
            spans,
            float(score) if score is not None else None,
        )


def _nothing_listed(candidates: Candidates) -> list[str]:
    """``NOTHING_LISTED`` where rg listed no file (and said nothing of an error)."""
    return [NOTHING_LISTED] if candidates.none_listed else []


def open_project(root: str | os.PathLike[str] = ".", model: str | None = None) -> Project:
    """The project at ``root`` (a folder), searched with ``model`` (a name from
    ``rrg --list-models`` or a model folder; the default model when None)."""
    from rrg.model.encoder import share_sessions

    real = Path(os.path.realpath(root))
    if not real.is_dir():
        raise RrgError(f"{root}: not a folder")
    project = Project(real, resolve_model(model), find_rg(), model)
    share_sessions()  # the model and its tokenizer load once for every question asked
    return project


#: Every passage the stage read (a limit of 0).
_EVERY = 1 << 30
#: Said where rg lists no file under the paths and globs: an empty answer alone reads as
#: "nothing matches" (a glob that leaves out every file, the wrong folder).
NOTHING_LISTED = (
    "no file was searched: rg lists none under these paths and globs (hidden, ignored or "
    "filtered out: rg --files --debug says why)"
)


def _ignore(message: str) -> None:
    """Notices of a ranking whose answer has no place for them (an index build)."""


@contextmanager
def _rg_messages(notices: list[str]) -> Iterator[None]:
    """What rg says on stderr meanwhile (a folder it cannot read, a file gone or failing
    its preprocessor), added to ``notices``: the command line prints it on stderr, and the
    library writes nothing to its caller's stderr."""
    with streams.captured() as held:
        yield
    said = held.err.decode("utf-8", "surrogateescape")
    notices.extend(line for line in said.splitlines() if line.strip())


def _rg_words(messages: bytes, otherwise: str) -> str:
    """rg's refusal as one line (``otherwise`` where it said nothing)."""
    return one_line(messages.decode("utf-8", "replace")).removeprefix("rrg: ") or otherwise


def _check_limit(value: int | None, name: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RrgError(f"{name} must be a whole number, 0 or more, not {value!r}")


def _messages(output: bytes, kind: str) -> list[dict[str, object]]:
    """rg's JSON messages of one kind, in order."""
    prefix = b'{"type":"' + kind.encode() + b'"'
    return [json.loads(line) for line in output.splitlines() if line.startswith(prefix)]


def _text(obj: object) -> str:
    """rg's ``{"text": ...}`` or ``{"bytes": base64}`` as text (bytes that are not UTF-8
    kept as surrogate escapes, as ``os.fsdecode`` keeps a path's)."""
    assert isinstance(obj, dict)
    return json_bytes(obj).decode("utf-8", "surrogateescape")
