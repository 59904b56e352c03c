"""A pasted error message: does ``rrg -q "ValueError: <message>" --files`` list the file
that raises it first? This checkout against an earlier one, on real trees.

An agent whose test run failed pastes the error's last line; the answer is the file whose
source holds the message. The queries are made from the trees themselves: each message a
source file (code, outside tests, docs and the other secondary folders) raises with a
literal text of four words or more (Python's ``raise E("...")`` and f-strings, JS and TS's
``throw new E("...")``, Java, Kotlin and Scala's ``throw new E("...")``, Go's
``errors.New`` and ``fmt.Errorf``, Rust's ``panic!``, Ruby and Elixir's ``raise E, "..."``),
asked as the program prints it: ``Kind: message``, a placeholder (``{n}``, ``%s``, ``%v``,
``#{x}``) filled with ``7`` (``--fill WORD``: a word the program printed there, a class's
name say, which nothing in the question marks as a value). A query's answers are the source
files that hold the message's literal text (a placeholder matching anything short); a
hit@k: one among the first k listed.
The labels are made by reading the files, not by a person: they say where the text is, and
that is what the query asks.

Usage: python -m benchmarks.pasted_errors OLD_CHECKOUT TREE... [--per-tree N] [--fill WORD]
(TREE: a folder, e.g. a whole tree of semble-code, ``/tmp/sc/whole/*/tree``, or
``benchmarks/out/corpora/sympy+sympy``; N: messages a tree, 20 by default, drawn with a fixed
seed.) Each side has its own cache dir, its index built before the queries; every query is new
to both, asked of the two in turn.
"""

from __future__ import annotations

import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import index_sides, listed_files, machine, needs_arguments, rg, side_env
from rrg.index.definitions import is_code
from rrg.rank.code_priors import secondary_kinds

#: (pattern, the kind a program prints before the message where the pattern names none).
_RAISES = [
    (re.compile(r"""raise (\w+)\(\s*f?(["'])([^"'\\\n]{12,200})\2\s*[,)]"""), None),
    (re.compile(r"""throw new (\w+)\(\s*(["'`])([^"'`\\\n]{12,200})\2\s*[,)]"""), None),
    (re.compile(r"""throw (\w+(?:Exception|Error))\(\s*(")([^"\\\n]{12,200})"\s*[,)]"""), None),
    (re.compile(r"""errors\.New\(\s*(")([^"\\\n]{12,200})"\s*\)"""), "error"),
    (re.compile(r"""fmt\.Errorf\(\s*(")([^"\\\n]{12,200})"\s*[,)]"""), "error"),
    (re.compile(r"""panic!\(\s*(")([^"\\\n]{12,200})"\s*[,)]"""), "panic"),
    (re.compile(r"""raise (\w+), (["'])([^"'\\\n]{12,200})\2"""), None),
]
#: With ``--logs``: messages a program logs, as (pattern, its level's group); the level,
#: the logger's name and the time are printed around the message as a logger does (``LOG_LINES``).
_LOGGED = [
    re.compile(
        r"""\b(?:logger|log|logging|LOGGER|LOG|Logger)\.(error|warning|warn|info|debug|critical|"""
        r"""exception|fatal)\(?\s*(?:__\(\s*)?f?(["'`])([^"'`\\\n]{12,200})\2"""
    ),
    re.compile(r'\b(?:\w+\.)?(Error|Warn|Info|Debug)f?\(\s*(")([^"\\\n]{12,200})"'),
    re.compile(r'\b(?:tracing::|log::)?(error|warn|info|debug|trace)!\(\s*(")([^"\\\n]{12,200})"'),
]
#: How loggers print a line, each message asked in the next form: Python's default, a
#: Python format, Rust's tracing and env_logger, Java's logback, Elixir's Logger.
LOG_LINES = [
    "{LEVEL}:app.db:{message}",
    "2026-12-07 10:00:01,123 - app.db - {LEVEL} - {message}",
    "2026-12-07T10:00:01.123456Z {LEVEL} app::db: {message}",
    "[2026-12-07T10:00:01Z {LEVEL} app] {message}",
    "10:00:01.123 [main] {LEVEL} c.e.Db - {message}",
    "10:00:01.123 [{level}] {message}",
]
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%[-+ #0-9.]*[a-zA-Z]|#\{[^{}]*\}|\$\{[^{}]*\}")
_WORD = re.compile(r"[A-Za-z]{2,}")


@dataclass
class Asked:
    tree: Path
    query: str
    answers: set[str]  # the source files that hold the message's text


def messages(
    tree: Path, per_tree: int, fill: str = "7", seed: int = 5, logs: bool = False
) -> list[Asked]:
    """Up to ``per_tree`` messages of the tree's source, each raised (or, with ``logs``,
    logged) with a literal text."""
    listed = subprocess.run([rg(), "--files"], cwd=tree, capture_output=True, text=True)
    sources = [
        p
        for p in sorted(listed.stdout.splitlines())
        if is_code(p) and not secondary_kinds(p, frozenset())
    ]
    texts: dict[str, str] = {}
    found: dict[str, str] = {}  # the message's text as the source has it -> its kind
    for path in sources:
        try:
            text = (tree / path).read_text(errors="replace")
        except OSError:
            continue
        texts[path] = text
        for pattern, kind in [(p, None) for p in _LOGGED] if logs else _RAISES:
            for match in pattern.finditer(text):
                message = match.group(match.lastindex or 0)
                said = kind or match.group(1)
                literal = _PLACEHOLDER.sub("", message)
                if len(_WORD.findall(literal)) >= 4:
                    found.setdefault(message, said)
    drawn = sorted(found)
    random.Random(seed).shuffle(drawn)
    asked: list[Asked] = []
    for message in drawn[:per_tree]:
        pieces = [re.escape(p) for p in _PLACEHOLDER.split(message)]
        holds = re.compile(".{0,60}?".join(pieces), re.IGNORECASE)
        answers = {p for p, text in texts.items() if holds.search(text)}
        printed = _PLACEHOLDER.sub(fill, message)
        if logs:
            level = {"exception": "error", "warning": "warn"}.get(found[message].lower())
            level = level or found[message].lower()
            line = LOG_LINES[len(asked) % len(LOG_LINES)]
            query = line.format(LEVEL=level.upper(), level=level, message=printed)
        else:
            query = f"{found[message]}: {printed}"
        asked.append(Asked(tree, query, answers))
    return asked


def main() -> None:
    needs_arguments(2, __doc__)
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    per_tree, fill = 20, "7"
    if "--per-tree" in sys.argv:
        per_tree = int(sys.argv[sys.argv.index("--per-tree") + 1])
        args.remove(str(per_tree))
    logs = "--logs" in sys.argv
    if "--fill" in sys.argv:
        fill = sys.argv[sys.argv.index("--fill") + 1]
        args.remove(fill)
    old, trees = args[0], [Path(t).resolve() for t in args[1:]]
    scratch = Path(tempfile.mkdtemp(prefix="rrg-pasted-"))
    sides = {"before": side_env(scratch, "before", old), "after": side_env(scratch, "after", "")}
    print(f"# {machine()}; hit@1 / hit@3 / none in 10, then a new query's p50, before -> after")
    totals: dict[str, list[tuple[bool, bool, bool]]] = {side: [] for side in sides}
    for tree in trees:
        asked = [q for q in messages(tree, per_tree, fill, logs=logs) if q.answers]
        took: dict[str, list[float]] = {side: [] for side in sides}
        index_sides(tree, sides.values())
        row: dict[str, list[tuple[bool, bool, bool]]] = {side: [] for side in sides}
        for question in asked:  # the two sides in turn, so that both meet the same load
            for side, env in sides.items():
                files = listed_files(question.tree, question.query, env, took[side])
                ranks = [k for k, f in enumerate(files) if f in question.answers]
                first = ranks[0] if ranks else None
                row[side].append((first == 0, first is not None and first < 3, first is None))
        for side in sides:
            totals[side] += row[side]
        name = tree.name if tree.name != "tree" else tree.parent.name
        cells = []
        for k in range(3):
            b = statistics.mean(h[k] for h in row["before"]) if asked else 0.0
            a = statistics.mean(h[k] for h in row["after"]) if asked else 0.0
            cells.append(f"{b:.2f} -> {a:.2f}")
        if asked:
            b, a = (statistics.median(took[side]) for side in sides)
            cells.append(f"{b:.2f} -> {a:.2f} s")
        print(f"{name:24} q={len(asked):3}  " + "  ".join(cells), flush=True)
    cells = []
    for k in range(3):
        b = statistics.mean(h[k] for h in totals["before"])
        a = statistics.mean(h[k] for h in totals["after"])
        cells.append(f"{b:.3f} -> {a:.3f}")
    print(f"{'all queries':24} q={len(totals['after']):3}  " + "  ".join(cells))
    print(json.dumps({"scratch": str(scratch)}))


if __name__ == "__main__":
    main()
