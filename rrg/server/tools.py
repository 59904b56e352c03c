"""What the MCP server's tools answer: each tool asks the library (``rrg.api``) what the
command line would be asked (``rrg -q QUERY --files``, ``rrg -q QUERY PATTERN``, ``rrg
--recall QUERY``), and answers with the data (files, lines, passages) and the text an agent
reads, the command line's own lines, bounded in size. No MCP here: the SDK's wiring is
``rrg.server.mcp``.

Every path an agent names is checked to lie inside the served root (after symlinks), and
answers name paths relative to it: nothing outside the root is read or named.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from rrg import defaults
from rrg.api import LineMatch, Passage, Project
from rrg.errors import RrgError
from rrg.excerpt import char_offset, cut_text
from rrg.output.notices import lines_cut
from rrg.output.passages import PassageStyle, entry_points, most_relevant, passage_blocks
from rrg.rank.paragraphs import Paragraph
from rrg.search.plan import held_bytes

#: Characters an answer holds at most (about 5,000 tokens), then a notice says what was cut.
MAX_CHARS = 20_000
#: Matching lines ``search`` prints unless asked for another limit (the CLI's -q default),
#: and the most it prints whatever is asked.
SEARCH_LINES = defaults.LINE_CAP
MAX_LINES = 2_000
#: Files ``files`` lists unless asked, and at most.
FILES = 50
MAX_FILES = 2_000

SEARCH_HELP = (
    "Search the project in relevance order: the files most relevant to QUERY first, rg's "
    "matching lines of PATTERN (a Rust regex, as rg takes it) in them as path:line:text, "
    f"stopped after LIMIT lines (default {SEARCH_LINES}), each file first giving one: its "
    "match in the passage that answers best. Without a pattern: the passages "
    "most relevant to the query, as path and line range then the text. Use it for a "
    "question you can also name words for ('retry on timeout' with pattern "
    "'retry|backoff', IGNORE_CASE for -i; RERANK puts the lines that answer first). "
    "Notices in [rrg: ...] lines say what was capped or cut; narrow "
    "PATH or GLOBS, or sharpen the pattern, when they do."
)
FILES_HELP = (
    "List the project's files best first for QUERY (paths relative to the project), the "
    f"LIMIT best (default {FILES}). Use it to decide where to read before reading."
)
RECALL_HELP = (
    "Start here on a new question: rank the files for QUERY and show their entry "
    "passages (path, line range, text), the places most likely to hold the answer or the "
    "names to search for next."
)


#: What each tool parameter means, for the schema an agent host shows its model (the tool's
#: text names them in capitals; a bare "Globs" or "Limit" says nothing of their form).
PARAMETER_HELP = {
    "query": (
        "What you look for, in a few words or a question ('where are retries configured'); "
        "or an error's last line as printed ('ValueError: Input must be a column matrix'), "
        "whose message the files that hold it answer first; a path it names "
        "('src/io/mod.rs:42:5: error: ...') puts that file first."
    ),
    "pattern": (
        "A Rust regex, as rg takes it ('retry|backoff', 'def \\w+'); leave it out for the "
        "most relevant passages instead of matching lines."
    ),
    "path": "A file or folder inside the project to search, relative to it (default: all of it).",
    "globs": (
        "rg -g globs that choose the files ('*.py', 'src/**'); a leading ! leaves files out "
        "('!tests/**')."
    ),
    "limit": (
        f"How many matching lines (search; default {SEARCH_LINES}), passages (search without "
        f"a pattern; default {SEARCH_LINES}) or files (files; default {FILES}) to give; 0: "
        f"as many as an answer holds ({MAX_LINES:,} lines, {MAX_FILES:,} files)."
    ),
    "ignore_case": "Match the pattern whatever the case of its letters (rg's -i).",
    "fast": (
        "Order the files by their words and static vectors alone, without the model (rrg's "
        "--fast): cheaper for many quick questions, a little less often right."
    ),
    "rerank": (
        "Order the matching lines themselves by the query, best first, each with its score "
        f"(rrg's --rerank: up to {defaults.POOL} matches read by the model): for a question "
        "with one answer, not for listing every match."
    ),
}


#: How the command line prints passages into a pipe (no heading, no colour).
_PIPED = PassageStyle(heading=False, numbers=False, palette=None)


class ToolInputError(Exception):
    """Bad input to a tool: said to the agent as rrg's one-line message."""


@dataclass(frozen=True)
class Answer:
    """A tool's answer: the text an agent reads (the command line's lines and its
    ``[rrg: ...]`` notices) and the same as data (the MCP result's structured content)."""

    text: str
    data: dict[str, Any]


@dataclass(frozen=True)
class Tools:
    """The tools over one served project (its root absolute and real)."""

    project: Project

    def search(
        self,
        query: str,
        pattern: str | None = None,
        path: str | None = None,
        globs: list[str] | None = None,
        limit: int | None = None,
        ignore_case: bool = False,
        rerank: bool = False,
        fast: bool = False,
    ) -> Answer:
        lines = _bounded(limit, SEARCH_LINES, MAX_LINES, "limit")
        where, chosen = self._paths(path), tuple(globs or ())
        query = _query(query)
        if pattern is None and (ignore_case or rerank):
            asked = "ignore_case" if ignore_case else "rerank"
            raise ToolInputError(f"rrg: {asked} applies to a pattern's matching lines: give one")
        if pattern is None:
            found = _asked(
                lambda: self.project.passages(
                    query, limit=lines, paths=where, globs=chosen, fast=fast
                )
            )
            # As ``rrg -q QUERY`` prints them in a pipe: ``path:start-end:`` then the text.
            blocks = passage_blocks(_printed(found.passages), _PIPED)
            text = blocks.decode("utf-8", "surrogateescape")
            data = {"passages": [asdict(p) for p in found.passages], "more": found.more}
            more = [f"printed the {most_relevant(lines)} (limit); more follow: raise the limit"]
            return _answer(text, data, found.notices + more * found.more)
        if not pattern:
            raise ToolInputError("rrg: the pattern is empty: give a regex, or none")
        result = _asked(
            lambda: self.project.search(
                query,
                pattern,
                limit=lines,
                paths=where,
                globs=chosen,
                ignore_case=ignore_case,
                rerank=rerank,
                fast=fast,
            )
        )
        shown = [_line(m) for m in result.matches]
        cut = sum(was_cut for _, was_cut in shown)
        notices = list(result.notices)
        if cut:
            notices.append(lines_cut(cut, defaults.EXCERPT))
        data = {"matches": [asdict(m) for m in result.matches]}
        return _answer("".join(line for line, _ in shown), data, notices)

    def files(
        self,
        query: str,
        path: str | None = None,
        globs: list[str] | None = None,
        limit: int | None = None,
        fast: bool = False,
    ) -> Answer:
        count = _bounded(limit, FILES, MAX_FILES, "limit")
        query = _query(query)
        where, chosen = self._paths(path), tuple(globs or ())
        found = _asked(
            lambda: self.project.files(query, limit=count, paths=where, globs=chosen, fast=fast)
        )
        text = "".join(f.path + "\n" for f in found.files)
        data = {"files": [asdict(f) for f in found.files], "total": found.total}
        return _answer(text, data, found.notices)

    def recall(
        self,
        query: str,
        path: str | None = None,
        globs: list[str] | None = None,
        fast: bool = False,
    ) -> Answer:
        """The entry points of ``rrg --recall QUERY [PATH]``: the best passages of the best
        files, grouped by file (files in order of their best passage, passages by line)."""
        query = _query(query)
        where, chosen = self._paths(path), tuple(globs or ())
        found = _asked(
            lambda: self.project.passages(
                query, limit=defaults.PARAGRAPHS, paths=where, globs=chosen, fast=fast
            )
        )
        text = entry_points(_printed(found.passages)).decode("utf-8", "surrogateescape")
        data = {"passages": [asdict(p) for p in found.passages]}
        return _answer(text, data, found.notices)

    def _paths(self, path: str | None) -> tuple[str, ...]:
        """The path as the library takes it (none for the root): the library refuses one
        outside the project, or missing."""
        if path is None or path in ("", "."):
            return ()
        return (_named_back(path, self.project.root),)


T = TypeVar("T")


def _asked(question: Callable[[], T]) -> T:
    """The library's answer, its refusal of bad input said as rrg says it."""
    try:
        return question()
    except RrgError as err:
        raise ToolInputError(f"rrg: {err}") from None


def _answer(text: str, data: dict[str, Any], notices: list[str]) -> Answer:
    said = "".join(f"[rrg: {notice}]\n" for notice in notices)
    return Answer(
        _readable(_cut(text or "no match\n") + said), _readable({**data, "notices": notices})
    )


def _readable(value: Any) -> Any:
    """``value`` with every byte that is not UTF-8 written ``\\xff``: the library holds a
    path or a line as rg reads it, bytes, such a byte as a lone surrogate (``os.fsdecode``),
    which JSON cannot carry (the SDK's serialiser failed on it and the call never got its
    answer); the escape says which byte stood there."""
    if isinstance(value, str):
        return value if value.isascii() else held_bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, dict):
        return {key: _readable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_readable(item) for item in value]
    return value


#: A byte as ``_readable`` writes one that is no UTF-8.
_ESCAPED_BYTE = re.compile(rb"\\x([0-9a-f]{2})")


def _named_back(path: str, root: Path) -> str:
    """A path as the answers write it, ``caf\\xe9.py`` for a name whose byte is no UTF-8,
    read back: that byte again (a lone surrogate, as ``os.fsdecode`` holds it), where the
    path so read exists under ``root`` and the path as written does not (a name may hold
    a backslash itself)."""
    if "\\x" not in path or (root / path).exists():
        return path
    raw = _ESCAPED_BYTE.sub(lambda m: bytes([int(m.group(1), 16)]), held_bytes(path))
    named = os.fsdecode(raw)
    return named if os.path.lexists(os.path.join(os.fsencode(root), raw)) else path


def _printed(passages: list[Passage]) -> list[tuple[bytes, Paragraph]]:
    """Passages as the command line's renderers take them (``rrg.output.passages``)."""
    return [
        (
            os.fsencode(p.path),
            Paragraph(
                p.start_line,
                p.end_line,
                p.text,
                starts_mid_line=p.starts_mid_line,
                ends_mid_line=p.ends_mid_line,
            ),
        )
        for p in passages
    ]


def _line(match: LineMatch) -> tuple[str, bool]:
    """A matching line as ``rrg -q QUERY -n --no-heading PATTERN`` prints it in a pipe:
    cut to the excerpt around its first match; and whether it was cut."""
    text, was_cut = match.text, False
    if len(text) > defaults.EXCERPT:
        start, end = match.spans[0] if match.spans else (0, 0)
        raw = text.encode("utf-8", "surrogateescape")
        at = char_offset(raw, start)
        text, was_cut = cut_text(text, at, char_offset(raw, end) - at, defaults.EXCERPT)
    return f"{match.path}:{match.line_number}:{text}\n", was_cut


def _query(query: str) -> str:
    if not query or not query.strip():
        raise ToolInputError("rrg: the query is empty: give a few words saying what you look for")
    return query


def _bounded(value: int | None, default: int, most: int, name: str) -> int:
    """The count asked for; 0 (the cap's notice says "0 = no cap", as the command line's
    --limit takes it) is the most an answer holds."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
        raise ToolInputError(f"rrg: {name} must be a whole number from 0 to {most}, not {value!r}")
    return value or most


def _cut(text: str) -> str:
    """The answer cut at a line end before MAX_CHARS, with a notice of what was cut."""
    if len(text) <= MAX_CHARS:
        return text
    end = text.rfind("\n", 0, MAX_CHARS)
    kept = text[: end + 1 if end > 0 else MAX_CHARS]
    left = text[len(kept) :].count("\n")
    return kept + (
        f"[rrg: answer cut at {MAX_CHARS} characters, {left} more lines left out: lower "
        "the limit, give a narrower path or globs, or a sharper pattern]\n"
    )
