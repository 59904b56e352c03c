"""A repository's first search, this checkout against an earlier one: what a new user or an
agent new to a large repository sees before the index is whole.

A search indexes for ``RRG_INDEX_WAIT_S`` (3 s) and ranks the files read by then, the rest
following in rg's order. On semble-code's whole repositories (``materialize.py --whole``),
each query runs as a first search: a fresh cache dir, no background build, no resident
process, ``rrg -q QUERY --files --limit 10`` in the repository's tree, under the earlier
code, then under this code. Prints per repository the files indexed by the first search,
file NDCG@10 (semble's metric) and how often a labelled file is among the first 3 (what
the first 3 passages of ``-q QUERY`` come from), beside the same with the index whole.

Run: python -m benchmarks.first_search OLD_CHECKOUT DATA_WHOLE [NAME ...] [--queries K]
(OLD_CHECKOUT: a worktree of the earlier commit, e.g. ``git worktree add /tmp/old HEAD~1``.)
Only trees larger than a search indexes in its wait differ; about 10 s a query.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import mean

from benchmarks.common import machine, needs_arguments, rg, rrg
from benchmarks.semble_code import SCORE, queries

#: The notice of a search that indexed part of its tree.
_INDEXED = re.compile(rb"indexed ([\d,]+) of ([\d,]+) files")


def _labelled(path: str, labels: list[str]) -> bool:
    return any(
        path == lab or path.endswith("/" + lab) or lab.endswith("/" + path) for lab in labels
    )


def first_search(
    tree: Path, query: str, pythonpath: str, cache: str | None
) -> tuple[list[str], int]:
    """The 10 best files of a first search (in a fresh cache dir; ``cache``: a search in
    that one, where ``rrg --index`` has run) and how many files its index held."""
    with tempfile.TemporaryDirectory() as fresh:
        env = dict(
            os.environ,
            RRG_CACHE_DIR=cache or fresh,
            PYTHONPATH=pythonpath,
            RRG_INDEX_BACKGROUND="0",
            RRG_EMBED_AHEAD="0",
            RRG_RESIDENT="0",
        )
        done = subprocess.run(
            [*rrg(), "-q", query, "--files", "--limit", "10"],
            cwd=tree,
            env=env,
            capture_output=True,
        )
    found = _INDEXED.search(done.stderr)
    indexed = int(found.group(1).replace(b",", b"")) if found else -1
    return [os.fsdecode(line) for line in done.stdout.splitlines()], indexed


def main() -> None:
    needs_arguments(2, __doc__)
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    old, data, names = Path(args[0]).resolve(), Path(args[1]).resolve(), args[2:]
    count = int(sys.argv[sys.argv.index("--queries") + 1]) if "--queries" in sys.argv else 20
    if "--queries" in sys.argv:
        names = [n for n in names if n != str(count)]
    repos = names or sorted(p.name for p in data.iterdir() if (p / "qrels.tsv").is_file())
    wait = os.environ.get("RRG_INDEX_WAIT_S", "3")
    print(f"A first search (RRG_INDEX_WAIT_S={wait}), before / after; {machine()}\n")
    print(
        "| repository | files | indexed by a first search | NDCG@10 | a labelled file in the "
        "first 3 | the same, index whole: NDCG@10 / first 3 |"
    )
    print("|---|---|---|---|---|---|")
    for name in repos:
        tree = data / name / "tree"
        listed = subprocess.run([rg(), "--files"], cwd=tree, capture_output=True).stdout
        files = len(listed.splitlines())
        got: dict[str, dict[str, list[float]]] = {}
        whole = tempfile.mkdtemp()
        env = dict(os.environ, RRG_CACHE_DIR=whole, RRG_EMBED_AHEAD="0")
        subprocess.run([*rrg(), "--index", "."], cwd=tree, env=env, capture_output=True)
        for _, query, labels in queries(data / name)[:count]:
            for side, pythonpath, cache in (
                ("before", str(old), None),
                ("after", "", None),
                ("whole", "", whole),
            ):
                ranked, indexed = first_search(tree, query, pythonpath, cache)
                row = got.setdefault(side, {"ndcg": [], "top3": [], "indexed": []})
                row["ndcg"].append(SCORE.ndcg10(ranked[:10], labels))  # type: ignore[attr-defined]
                row["top3"].append(float(any(_labelled(f, labels) for f in ranked[:3])))
                row["indexed"].append(float(indexed if indexed >= 0 else files))
        shutil.rmtree(whole)
        b, a, w = got["before"], got["after"], got["whole"]
        print(
            f"| {name} | {files:,} | {mean(b['indexed']):,.0f} / {mean(a['indexed']):,.0f} | "
            f"{mean(b['ndcg']):.3f} / {mean(a['ndcg']):.3f} | {mean(b['top3']):.2f} / "
            f"{mean(a['top3']):.2f} | {mean(w['ndcg']):.3f} / {mean(w['top3']):.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
