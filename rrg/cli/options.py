"""rrg's own options, defined once.

This table is plain data so that the pass-through path can split argv without importing
click; ``rrg.cli.app`` builds its click command, ``--help`` and the shell completions from it.
"""

from __future__ import annotations


class RrgOption:
    """One rrg option: its spellings, whether it takes a value, and its one-line help.

    A plain class rather than a dataclass: importing dataclasses costs the pass-through path
    several milliseconds.
    """

    __slots__ = ("long", "help", "short", "metavar")

    def __init__(
        self, long: str, help: str, short: str | None = None, metavar: str | None = None
    ) -> None:
        self.long = long
        self.help = help
        self.short = short
        self.metavar = metavar  # None: a flag that takes no value

    @property
    def takes_value(self) -> bool:
        return self.metavar is not None

    @property
    def dest(self) -> str:
        return self.long.lstrip("-").replace("-", "_")


OPTIONS: tuple[RrgOption, ...] = (
    RrgOption(
        "--query",
        "Search in relevance order for this natural-language query "
        "(rrg's -q; rg's quiet mode is --quiet).",
        short="-q",
        metavar="TEXT",
    ),
    RrgOption(
        "--limit", "Stop after N matching lines (default 30 with -q; 0 = no cap).", metavar="N"
    ),
    RrgOption(
        "--cascade",
        "Re-score the K best files with the embedding model (default 0 = off; 20 lifts "
        "scifact nDCG@10 from .672 to .702 for ~0.25 s).",
        metavar="K",
    ),
    RrgOption(
        "--excerpt",
        "Cut printed lines to N characters around their first match, marked [...] "
        "(with -q; default 1000 in a pipe, off on a terminal or with colour; 0 = off).",
        metavar="N",
    ),
    RrgOption("--index", "Build or refresh the index of PATH (default .) and exit."),
    RrgOption("--index-status", "Say what is indexed for PATH (default .), how fresh, how big."),
    RrgOption("--index-clear", "Remove the index of PATH (default .)."),
    RrgOption(
        "--model",
        "Embedding model: a name from --list-models or a model folder.",
        metavar="NAME|PATH",
    ),
    RrgOption("--list-models", "List the installed embedding models and exit."),
    RrgOption("--no-progress", "Never show a progress bar while indexing."),
    RrgOption(
        "--rerank",
        "Collect up to --pool matches in relevance order, print the --limit best by the "
        "embedding model (for one-answer questions).",
    ),
    RrgOption(
        "--rerank-query",
        "Score matches against this text instead of the query plus the pattern's keywords "
        "(implies --rerank).",
        metavar="TEXT",
    ),
    RrgOption("--pool", "Matches collected for --rerank (default 500).", metavar="N"),
    RrgOption(
        "--recall",
        "Rank files for QUERY, write them best first to a scope file, show entry points.",
        metavar="TEXT",
    ),
    RrgOption("--scope-size", "Paths kept in a --recall scope file (default 10000).", metavar="N"),
    RrgOption(
        "--paragraphs",
        "Entry-point paragraphs shown by --recall (default 10; 0 = none).",
        metavar="N",
    ),
    RrgOption(
        "--scope-file",
        "Search the files of a scope file in its order, with the cap of -q.",
        metavar="FILE",
    ),
    RrgOption(
        "--import-model",
        "Turn a sentence-transformers model (a folder, or a hub name where the network "
        "allows) into an ONNX model folder for --model; needs pip install 'rrg[import]'.",
        metavar="SRC",
    ),
    RrgOption(
        "--trust-remote-code",
        "Let --import-model run code shipped with the model (off: such code never runs).",
    ),
    RrgOption("--agent-guide", "Print a short usage guide for an LLM agent's system prompt."),
    RrgOption("--help", "Show rrg's options and how to reach rg's help.", short="-h"),
    RrgOption("--version", "Show rrg's version and the rg it uses."),
)

BY_SPELLING: dict[str, RrgOption] = {}
for _opt in OPTIONS:
    BY_SPELLING[_opt.long] = _opt
    if _opt.short:
        BY_SPELLING[_opt.short] = _opt
