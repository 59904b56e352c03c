"""What a whole repository costs the ranking, taken apart (issue 35, item 2).

semble-code's labels were made on each repository's source folder (``benchmark_root`` in
its repos.json): a file outside it is never an answer, however good. Over the repositories
built whole (``materialize.py --whole``) this prints, per repository and order, file NDCG@10
of the whole tree's order; of the same order kept to the source folder (what the ranking
would score if nothing outside it could stand in the top 10: the loss left is the whole
tree's corpus statistics); and what stands in the top 10 from outside that folder, a query
on average: secondary files (tests, docs, examples ...: ``code_priors.secondary_kinds``)
and other source (another package, a satellite module), which no rule of path tells from
the answer and the labels cannot count.

Run: python -m benchmarks.whole_gap DATA_WHOLE [--stage] [NAME ...]
About a minute for the cheap order over 8 repositories, several with --stage.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from statistics import mean

from benchmarks.common import machine, needs_arguments
from benchmarks.semble_code import SCORE, SEMBLE, corpus_files, queries, rank_settings
from rrg.index.served import ServedRoot
from rrg.model.registry import default_model
from rrg.rank.code_priors import secondary_kinds
from rrg.rank.files import rank_files


def source_roots() -> dict[str, str | None]:
    """Each repository's source folder, as semble's benchmark searched it (None: the
    whole repository)."""
    repos = json.loads((SEMBLE / "repos.json").read_text())
    return {repo["name"]: repo["benchmark_root"] for repo in repos}


def inside(path: str, root: str | None) -> bool:
    return root is None or path.startswith(root.rstrip("/") + "/")


def taken_apart(repo: Path, root: str | None, stage: int) -> tuple[float, float, float, float]:
    """Mean NDCG@10 of the whole order and of it kept to ``root``; the files from outside
    ``root`` in the top 10 a query: secondary, other source."""
    corpus, paths = corpus_files(repo)
    served, settings = ServedRoot(corpus, default_model()), rank_settings({}, stage)
    whole, kept, secondary, other = [], [], [], []
    for _, query, labels in queries(repo):
        files = [os.fsdecode(p) for p in rank_files(query, served, paths, settings).ordered]
        whole.append(SCORE.ndcg10(files[:10], labels))  # type: ignore[attr-defined]
        within = [f for f in files if inside(f, root)]
        kept.append(SCORE.ndcg10(within[:10], labels))  # type: ignore[attr-defined]
        outside = [f for f in files[:10] if not inside(f, root)]
        kinds = [secondary_kinds(f, frozenset()) > 0 for f in outside]
        secondary.append(sum(kinds))
        other.append(len(kinds) - sum(kinds))
    return mean(whole), mean(kept), mean(secondary), mean(other)


def main() -> None:
    needs_arguments(1, __doc__)
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    data, names = Path(args[0]).resolve(), args[1:]
    stage = 20 if "--stage" in sys.argv else 0
    roots = source_roots()
    repos = sorted(p.name for p in data.iterdir() if (p / "qrels.tsv").is_file())
    rows = {name: taken_apart(data / name, roots[name], stage) for name in names or repos}
    order = "default (stage)" if stage else "--fast"
    print(f"semble-code whole, {len(rows)} repositories, rrg {order}; {machine()}\n")
    print(
        "| repository | whole | kept to the source folder | outside it in the top 10: "
        "secondary / other source |"
    )
    print("|---|---|---|---|")
    for name, (whole, kept, secondary, other) in rows.items():
        print(f"| {name} | {whole:.3f} | {kept:.3f} | {secondary:.1f} / {other:.1f} |")
    means = [mean(row[k] for row in rows.values()) for k in range(4)]
    print(
        f"| mean ({len(rows)}) | **{means[0]:.3f}** | **{means[1]:.3f}** | "
        f"{means[2]:.1f} / {means[3]:.1f} |"
    )


if __name__ == "__main__":
    main()
