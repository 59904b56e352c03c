"""What the MCP server's tools answer, as command lines rrg's own CLI runs: a tool call is
the ``rrg`` command an agent would have typed, answered in-process (the model stays loaded
between calls) and bounded in size. No MCP here: the SDK's wiring is ``rrg.server.mcp``.

Every path an agent names is checked to lie inside the served root (after symlinks), and
answers name paths relative to it: nothing outside the root is read or named.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

#: A command line of rrg's run in this process: its exit code, stdout and stderr.
Answer = Callable[[list[str]], tuple[int, bytes, bytes]]

#: Characters an answer holds at most (about 5,000 tokens), then a notice says what was cut.
MAX_CHARS = 20_000
#: Matching lines ``search`` prints unless asked for another limit (the CLI's -q default),
#: and the most it prints whatever is asked.
SEARCH_LINES = 30
MAX_LINES = 2_000
#: Files ``files`` lists unless asked, and at most.
FILES = 50
MAX_FILES = 2_000

SEARCH_HELP = (
    "Search the project in relevance order: the files most relevant to QUERY first, rg's "
    "matching lines of PATTERN (a Rust regex, as rg takes it) in them as path:line:text, "
    f"stopped after LIMIT lines (default {SEARCH_LINES}). Without a pattern: the passages "
    "most relevant to the query, as path and line range then the text. Use it for a "
    "question you can also name words for ('retry on timeout' with pattern "
    "'retry|backoff'). Notices in [rrg: ...] lines say what was capped or cut; narrow "
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


class ToolInputError(Exception):
    """Bad input to a tool: said to the agent as rrg's one-line message."""


@dataclass(frozen=True)
class Tools:
    """The tools over one served root (absolute, real) with the command runner."""

    root: str
    answer: Answer

    def search(
        self,
        query: str,
        pattern: str | None = None,
        path: str | None = None,
        globs: list[str] | None = None,
        limit: int | None = None,
    ) -> str:
        lines = _bounded(limit, SEARCH_LINES, MAX_LINES, "limit")
        argv = ["-q", _query(query), "--limit", str(lines), "--color", "never", *_globs(globs)]
        where = self._path(path)
        if pattern is None:
            # Passages take no PATH on the command line (a word there is rg's pattern): a
            # folder or file is a glob instead.
            if where != ".":
                full = os.path.join(self.root, where)
                argv += ["-g", f"/{where}/**" if os.path.isdir(full) else f"/{where}"]
            return self._run(argv)
        if not pattern:
            raise ToolInputError("rrg: the pattern is empty: give a regex, or none")
        return self._run([*argv, "-n", "--no-heading", "-e", pattern, *_paths(where)])

    def files(
        self,
        query: str,
        path: str | None = None,
        globs: list[str] | None = None,
        limit: int | None = None,
    ) -> str:
        count = _bounded(limit, FILES, MAX_FILES, "limit")
        argv = ["-q", _query(query), "--files", "--limit", str(count), *_globs(globs)]
        return self._run([*argv, *_paths(self._path(path))])

    def recall(self, query: str) -> str:
        answer = self._run(["--recall", _query(query), "--no-progress"])
        # Its first line names the scope file it wrote, in the user's cache: not a path
        # under the served root, and of no use without the CLI's --scope-file.
        first, _, rest = answer.partition("\n")
        return rest if " \u2192 " in first else answer

    def _path(self, path: str | None) -> str:
        """A path under the root, relative to it ("." for the root itself)."""
        if path is None or path in ("", "."):
            return "."
        if "\0" in path:
            raise ToolInputError("rrg: a path holds no NUL byte")
        full = os.path.realpath(os.path.join(self.root, path))
        if os.path.commonpath([full, self.root]) != self.root:
            raise ToolInputError(f"rrg: {path}: outside the served folder {self.root}")
        if not os.path.exists(full):
            raise ToolInputError(f"rrg: {path}: no such file or directory")
        return os.path.relpath(full, self.root)

    def _run(self, argv: list[str]) -> str:
        code, out, err = self.answer(argv)
        messages = err.decode("utf-8", "replace")
        if code == 2:
            raise ToolInputError(one_line(messages) or "rrg: the command failed")
        text = _cut(out.decode("utf-8", "replace"))
        notices = "".join(line + "\n" for line in messages.splitlines() if line.strip())
        if not text and code == 1:
            text = "no match\n"
        return text + notices


def one_line(messages: str) -> str:
    """rg's or rrg's error as one line: the first line that says what is wrong. rg words a
    bad regex over four lines (a heading, the pattern, a caret under the fault, the
    fault); they become one, the fault and where it lies."""
    lines = [line for line in messages.splitlines() if line.strip()]
    if not lines:
        return ""
    first = lines[0].rstrip()
    fault = next((line for line in lines[1:] if line.startswith("error: ")), None)
    if first.endswith("regex parse error:") and fault is not None:
        where = ""
        carets = [k for k, line in enumerate(lines) if line.strip().startswith("^")]
        if carets and carets[0] > 0:
            shown, caret = lines[carets[0] - 1], lines[carets[0]]
            indent = len(shown) - len(shown.lstrip())
            column = caret.index("^") - indent + 1
            where = f" at column {column} of {shown.strip()}"
        return f"{first} {fault[len('error: ') :].strip()}{where}"
    if first.endswith(":") and len(lines) > 1:
        return f"{first} {lines[1].strip()}"
    return first


def _paths(where: str) -> list[str]:
    """The command line's PATH: none for the root (rg then names files without "./", as
    the CLI run there does)."""
    return [] if where == "." else ["--", where]


def _query(query: str) -> str:
    if not query or not query.strip():
        raise ToolInputError("rrg: the query is empty: give a few words saying what you look for")
    return query


def _bounded(value: int | None, default: int, most: int, name: str) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise ToolInputError(f"rrg: {name} must be a whole number from 1 to {most}, not {value!r}")
    return value


def _globs(globs: list[str] | None) -> list[str]:
    out: list[str] = []
    for glob in globs or []:
        if not glob or "\0" in glob:
            raise ToolInputError(f"rrg: bad glob {glob!r}")
        out += ["-g", glob]
    return out


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
