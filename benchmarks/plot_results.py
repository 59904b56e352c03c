"""Draw the front page's plot (docs/results.png) from tables of docs/benchmarks.md: the
file order's nDCG@10 on the test halves, every query. BM25 and MiniLM from "Test half, every
query" (``python -m benchmarks.passage_stage``; neither depends on rrg's ranking); rrg's rows
from ``python -m benchmarks.code_priors --shipped --stage`` (its test halves; the prose
sets last run 2026-12-04, "A path word in another form" in docs/benchmarks.md, the code
sets 2026-12-06, "A program's translations below its source"). Rerun it and copy its rows
here when the ranking changes.
Takes a second; needs the dev extra (matplotlib).

Run: python -m benchmarks.plot_results
"""

from __future__ import annotations

from pathlib import Path

#: set -> (BM25 over whole files, MiniLM over every file, rrg's default order as shipped)
RESULTS = {
    "scifact": (0.680, 0.639, 0.718),
    "nfcorpus": (0.304, 0.296, 0.324),
    "cranfield": (0.317, 0.391, 0.383),
    "hotpotqa": (0.776, 0.765, 0.760),
    "swebench-lite": (0.411, 0.300, 0.595),
    "sphinx": (0.171, 0.071, 0.460),
    "sympy": (0.353, 0.101, 0.571),
}
TARGET = Path(__file__).resolve().parent.parent / "docs" / "results.png"


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(RESULTS)
    width = 0.27
    fig, ax = plt.subplots(figsize=(8, 3.4), dpi=110)
    labels = ("BM25", "MiniLM over every file", "rrg -q (default)")
    colours = ("#b8b8b8", "#7a9cc6", "#d9822b")
    for k, (label, colour) in enumerate(zip(labels, colours, strict=True)):
        xs = [i + (k - 1) * width for i in range(len(names))]
        ax.bar(xs, [RESULTS[n][k] for n in names], width, label=label, color=colour)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("nDCG@10 (file order)")
    ax.set_title("File order on the test halves (prose sets, then code)", fontsize=10)
    ax.set_ylim(0, 1.0)
    ax.legend(fontsize=8, frameon=False, loc="upper left", ncol=3)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    fig.savefig(TARGET)
    print(f"wrote {TARGET.name}")


if __name__ == "__main__":
    main()
