"""The lines a capped search prints that are a comment's or a docstring's: this checkout
against an earlier one, on semble-code's trees with their labelled queries.

With a definition pattern (``rrg -q Q -n 'fn \\w+'``, the first thing an agent greps for
in code), a file's one line of the cap came from the passage that answers best, which opens
with the function's comments: tokio printed ``/// # async fn main() {`` (a doc comment's
example) where ``pub fn abort(&self) {`` answers, gson `` *     public Foo read(`` of a
Javadoc. For each labelled query of each tree, both checkouts print ``rrg -q QUERY -n
--no-heading PATTERN`` (PATTERN by the tree's language); counted: the lines printed that
a comment opens (``rrg.code_prose.comment_openings``), the lines inside a
multi-line string (a docstring's example: ``rrg.rank.string_lines``, the file read whole),
the lines that differ between the two (a file's line, the same files), and the queries
whose files differ.

Usage: python -m benchmarks.comment_lines OLD_CHECKOUT DATA [NAME ...]
DATA: ../shared/data/semble-code/materialize.py's OUT (``--whole`` or not).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from benchmarks.common import index_sides, machine, needs_arguments, rrg, side_env
from benchmarks.member_lines import PATTERNS as DEFINITION_PATTERNS
from rrg.code_prose import comment_openings
from rrg.rank.paragraphs import Paragraph
from rrg.rank.string_lines import string_spans

#: A definition pattern by a file's extension: member_lines' four, and the other languages'.
PATTERNS = DEFINITION_PATTERNS | {
    ".kt": r"fun \w+",
    ".ts": r"function \w+|\w+\(.*\) \{",
    ".c": r"^\w.*\w+\(",
    ".cc": r"^\w.*\w+\(",
    ".rb": r"def \w+",
    ".scala": r"def \w+",
    ".ex": r"def \w+",
}
#: A tree's language (its meta.json), by the extension its pattern and comments are read by.
SUFFIXES = {
    "python": ".py",
    "rust": ".rs",
    "go": ".go",
    "java": ".java",
    "kotlin": ".kt",
    "typescript": ".ts",
    "c": ".c",
    "cpp": ".cc",
    "ruby": ".rb",
    "scala": ".scala",
    "elixir": ".ex",
}


def printed(tree: Path, query: str, pattern: str, env: dict[str, str]) -> list[str]:
    """The lines ``rrg -q QUERY -n --no-heading PATTERN`` prints, its notices left out."""
    out = subprocess.run(
        [*rrg(), "-q", query, "-n", "--no-heading", pattern],
        cwd=tree,
        env=env,
        capture_output=True,
    )
    return out.stdout.decode("utf-8", "replace").splitlines()


def is_comment(line: str, openings: tuple[str, ...]) -> bool:
    """Whether a printed ``path:number:text`` line's text is a comment's line."""
    parts = line.split(":", 2)
    return len(parts) == 3 and parts[2].lstrip().startswith(openings)


@cache
def _strings_of(path: Path) -> frozenset[int]:
    text = path.read_text("utf-8", "replace")
    whole = Paragraph(1, text.count("\n") + 1, text)
    spans = string_spans([whole], os.path.splitext(path.name)[1].lower())
    return frozenset(n for first, last in spans for n in range(first, last + 1))


def in_string(tree: Path, line: str) -> bool:
    """Whether a printed ``path:number:text`` line lies inside a multi-line string."""
    parts = line.split(":", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return False
    return int(parts[1]) in _strings_of(tree / parts[0])


def by_file(lines: list[str]) -> dict[str, str]:
    return {line.split(":", 1)[0]: line for line in lines}


def main() -> None:
    needs_arguments(2, __doc__)
    old, data, *names = sys.argv[1:]
    root = Path(data).resolve()
    scratch = Path(tempfile.mkdtemp(prefix="rrg-comments-"))
    sides = {"before": side_env(scratch, "before", old), "after": side_env(scratch, "after", "")}
    print(f"# {machine()}; lines printed that a comment opens or a string holds, before / after")
    print(
        "| tree | queries | lines | comments before | after | in strings before | after "
        "| lines changed | files changed |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    totals = [0] * 8
    for name in names or sorted(p.name for p in root.iterdir() if p.is_dir()):
        meta = json.loads((root / name / "meta.json").read_text())
        if meta["language"] not in SUFFIXES:
            continue
        suffix = SUFFIXES[meta["language"]]
        pattern = PATTERNS[suffix]
        openings = comment_openings(suffix)
        tree = root / name / "corpus"
        index_sides(tree, sides.values())
        row = [0] * 8
        for text in (root / name / "queries.jsonl").read_text().splitlines():
            query = json.loads(text)["query"]
            before, after = (printed(tree, query, pattern, env) for env in sides.values())
            before, after = ([x for x in lines if x[:1] != "["] for lines in (before, after))
            old_lines, new_lines = by_file(before), by_file(after)
            row[0] += 1
            row[1] += len(before)
            row[2] += sum(is_comment(x, openings) for x in before)
            row[3] += sum(is_comment(x, openings) for x in after)
            row[4] += sum(in_string(tree, x) for x in before)
            row[5] += sum(in_string(tree, x) for x in after)
            row[6] += sum(old_lines[f] != new_lines.get(f, old_lines[f]) for f in old_lines)
            row[7] += list(old_lines) != list(new_lines)
        print(f"| {name} | " + " | ".join(map(str, row)) + " |")
        totals = [a + b for a, b in zip(totals, row, strict=True)]
    print("| all | " + " | ".join(map(str, totals)) + " |")


if __name__ == "__main__":
    main()
