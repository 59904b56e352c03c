"""A file the question names by its path: does ``rrg -q "<diagnostic>" --files`` list it
first? This checkout against an earlier one, on real trees.

An agent whose build failed pastes the compiler's line (``src/io/mod.rs:42:5: error: ...``),
a traceback's frame from another machine (``File "/home/ci/build/<path>", line 42``), or
asks about a file by name ("why does mod.rs fail on startup"). The queries are made from the
trees themselves: 12 source files a tree (code, outside tests, docs and the other secondary
folders, in a folder), drawn with a fixed seed, each named in four forms (``FORMS``). A
query's answers are the files whose paths end as the name does, as many of its parts as any
path matches (the bare name: every file of that name): made by reading the paths, they say
what the name names. A hit@k: one among the first k listed.

With ``--modules`` a module is named by its dotted name instead (``MODULE_FORMS``): the
module files of a tree's Python packages (folders with ``__init__.py``), Java and Kotlin
sources (the folders after ``java/`` or ``kotlin/``), Elixir's (after ``lib/``,
``Ecto.Changeset`` for ``lib/ecto/changeset.ex``) and Rust's (a crate's folder, then
those after its ``src/``: ``tokio::sync::mpsc`` for ``tokio/src/sync/mpsc.rs``), 12 a
tree, each named with two parts or more; a package (``__init__.py``, ``mod.rs``) is no
module file and is left out. Python's modules are asked in two more forms, the errors its
runtime prints with the module's name inside the message. A query's answer is the
module's file.

With ``--folders`` a folder is named (``FOLDER_FORMS``): the folders of two parts or more
that hold three source files or more, 12 a tree; a Python package's also by its dotted
name. A query's answers: the files under the folder.

Usage: python -m benchmarks.named_files OLD_CHECKOUT TREE... [--modules | --folders]
(TREE: a folder, e.g. a whole tree of semble-code, ``/tmp/sc/whole/*/tree``.) Each side
has its own cache dir, its index built before the queries; every query is new to both,
asked of the two in turn.
"""

from __future__ import annotations

import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from benchmarks.common import index_sides, listed_files, machine, needs_arguments, rg, side_env
from rrg.index.definitions import is_code
from rrg.rank.code_priors import secondary_kinds

#: How a name reaches a question: ``{two}`` the file's last two parts, ``{full}`` its path
#: under a folder of another machine, ``{name}`` its file name.
FORMS = {
    "diagnostic": "{two}:42:5: error: cannot find value `x` in this scope",
    "traceback": 'File "/home/ci/build/{full}", line 42, in run',
    "bare name": "why does {name} fail on startup",
    "two parts": "what is {two} for",
}
#: How a module's dotted name reaches a question: ``{dotted}`` the name,
#: ``{member}`` a name the module defines, as an import asks for one.
MODULE_FORMS = {
    "question": "what does {dotted} do",
    "import": "from {dotted} import {member}",
    "alone": "{dotted}",
    # Python's runtime names the module inside its message (its module's path too).
    "import error": "ImportError: cannot import name '{member}' from '{dotted}' "
    "(/usr/lib/python3/site-packages/{full})",
    "attribute error": "AttributeError: module '{dotted}' has no attribute 'frobnicate'",
}
#: The forms only Python's runtime prints, asked of its modules alone.
PYTHON_FORMS = ("import error", "attribute error")
#: How a folder reaches a question: ``{folder}`` its path, ``{dotted}`` a Python package's
#: name (asked of packages alone).
FOLDER_FORMS = {
    "question": "what does {folder}/ do",
    "in": "how are errors handled in {folder}",
    "package": "what does {dotted} do",
}
PER_TREE = 12


def dotted_name(tree: Path, path: str) -> str | None:
    """The dotted name a language gives the module in ``path``, if the file is one that
    such a name spells: a Python module in a package, a Java or Kotlin source under
    ``java/`` or ``kotlin/``, a Rust module under a crate's ``src/`` (joined by ``::``),
    an Elixir file under ``lib/``."""
    parts = path.split("/")
    stem, suffix = parts[-1].rsplit(".", 1) if "." in parts[-1] else (parts[-1], "")
    if suffix == "py" and stem != "__init__":
        first = len(parts) - 1  # the first folder of the packages that hold it
        while first > 0 and (tree / "/".join(parts[:first]) / "__init__.py").is_file():
            first -= 1
        if first == len(parts) - 1:
            return None  # no package's module
        return ".".join([*parts[first:-1], stem])
    if suffix in ("java", "kt"):
        for root in ("java", "kotlin"):
            if root in parts[:-1]:
                return ".".join([*parts[parts.index(root) + 1 : -1], stem])
    if suffix == "rs" and "src" in parts[1:-1] and stem not in ("mod", "lib", "main"):
        at = parts.index("src")  # a crate's folder, then its modules
        return "::".join([parts[at - 1].replace("-", "_"), *parts[at + 1 : -1], stem])
    if suffix == "ex" and "lib" in parts[:-1]:
        names = [*parts[parts.index("lib") + 1 : -1], stem]
        return ".".join("".join(w.title() for w in n.split("_")) for n in names)
    return None


def answers(named: str, files: list[str]) -> set[str]:
    """The files whose paths end as ``named`` does, at the most parts any path matches."""
    parts = named.split("/")

    def matched(path: str) -> int:
        theirs = path.split("/")
        n = 0
        while n < min(len(parts), len(theirs)) and parts[-1 - n] == theirs[-1 - n]:
            n += 1
        return n

    counts = {f: matched(f) for f in files}
    most = max(counts.values(), default=0)
    return {f for f, n in counts.items() if n == most and most}


def _mean(hits: list[int], digits: int = 2) -> str:
    return f"{statistics.mean(hits):.{digits}f}" if hits else "-"  # a form no file was asked in


def main() -> None:
    needs_arguments(2, __doc__)
    args = sys.argv[1:]
    modules, folders = "--modules" in args, "--folders" in args
    old, *named = [a for a in args if a not in ("--modules", "--folders")]
    trees = [Path(t).resolve() for t in named]
    forms = MODULE_FORMS if modules else FOLDER_FORMS if folders else FORMS
    scratch = Path(tempfile.mkdtemp(prefix="rrg-named-"))
    sides = {"before": side_env(scratch, "before", old), "after": side_env(scratch, "after", "")}
    print(f"# {machine()}; hit@1 before -> after for each form, then a new query's p50")
    totals: dict[str, dict[str, list[int]]] = {s: {f: [] for f in forms} for s in sides}
    for tree in trees:
        files = subprocess.run([rg(), "--files"], cwd=tree, capture_output=True, text=True)
        everything = sorted(files.stdout.splitlines())
        sources = [p for p in everything if "/" in p and is_code(p)]
        sources = [p for p in sources if not secondary_kinds(p, frozenset())]
        if modules:  # a module's name that is one word is no dotted name
            sources = [
                p for p in sources if len(re.split(r"\.|::", dotted_name(tree, p) or "")) > 1
            ]
        if folders:  # the folders of two parts or more that hold three source files
            held = Counter(p.rsplit("/", 1)[0] for p in sources)
            sources = sorted(f for f, n in held.items() if n >= 3 and "/" in f)
        if not sources:
            continue
        random.Random(7).shuffle(sources)
        index_sides(tree, sides.values())
        took: dict[str, list[float]] = {side: [] for side in sides}
        row: dict[str, dict[str, list[int]]] = {s: {f: [] for f in forms} for s in sides}
        for path in sources[:PER_TREE]:
            two = "/".join(path.split("/")[-2:])
            name = path.split("/")[-1]
            dotted = dotted_name(tree, path) or ""
            member = re.split(r"\.|::", dotted)[-1].title().replace("_", "")
            for form, text in forms.items():
                if form in PYTHON_FORMS and not path.endswith(".py"):
                    continue
                if folders and form == "package":
                    if not (tree / path / "__init__.py").is_file():
                        continue
                    dotted = path.replace("/", ".")
                query = text.format(
                    two=two, full=path, name=name, dotted=dotted, member=member, folder=path
                )
                if folders:
                    wanted = {f for f in everything if f.startswith(path + "/")}
                elif modules:
                    wanted = {path}
                else:
                    wanted = answers(
                        name if "{name}" in text else two if "{two}" in text else path,
                        everything,
                    )
                for side, env in sides.items():  # in turn: both meet the same load
                    out = listed_files(tree, query, env, took[side])
                    row[side][form].append(int(bool(out) and out[0] in wanted))
        for side in sides:
            for form in forms:
                totals[side][form] += row[side][form]
        label = tree.name if tree.name != "tree" else tree.parent.name
        cells = [f"{_mean(row['before'][f])} -> {_mean(row['after'][f])}" for f in forms]
        times = " -> ".join(f"{statistics.median(took[s]):.2f}" for s in sides)
        print(f"{label:20} " + "  ".join(cells) + f"  {times} s", flush=True)
    cells = [
        f"{_mean(totals['before'][f], 3)} -> {_mean(totals['after'][f], 3)}"
        f" ({len(totals['after'][f])})"
        for f in forms
    ]
    print(f"{'all':20} " + "  ".join(cells))
    print("# forms: " + ", ".join(forms))
    print(json.dumps({"scratch": str(scratch)}))


if __name__ == "__main__":
    main()
