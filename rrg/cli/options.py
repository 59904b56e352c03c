"""rrg's own options, defined once: spelling, value, default, help, and what each needs.

This table is plain data so that the pass-through path can split argv without importing
click or dataclasses; ``rrg.cli.settings`` builds the typed options from it, and ``--help``,
the README's option table and the shell completions are all rendered from it.
"""

from __future__ import annotations

from rrg import defaults

#: The options that choose what rrg does; at most one is given (``-q`` may join
#: ``--scope-file``, whose rerank then scores against it).
COMMANDS = (
    "--query",
    "--recall",
    "--scope-file",
    "--index",
    "--index-status",
    "--index-clear",
    "--list-models",
    "--import-model",
    "--agent-guide",
    "--mcp",
)
_SEARCHES = ("--query", "--scope-file")
_INDEXING = ("--query", "--recall", "--index")


class RrgOption:
    """One rrg option.

    ``help`` may hold ``{default}``, filled from ``default``; ``readme`` adds an example
    for the README's table only. ``needs`` lists options of which one must be given for this
    one to apply (empty: it applies alone). ``minimum`` bounds an integer value.

    A plain class rather than a dataclass: importing dataclasses costs the pass-through path
    several milliseconds.
    """

    __slots__ = ("long", "help", "short", "metavar", "default", "needs", "minimum", "readme")

    def __init__(
        self,
        long: str,
        help: str,
        short: str | None = None,
        metavar: str | None = None,
        default: int | None = None,
        needs: tuple[str, ...] = (),
        minimum: int | None = None,
        readme: str = "",
    ) -> None:
        self.long = long
        self.help = help
        self.short = short
        self.metavar = metavar  # None: a flag that takes no value
        self.default = default
        self.needs = needs
        self.minimum = minimum
        self.readme = readme

    @property
    def takes_value(self) -> bool:
        return self.metavar is not None

    @property
    def dest(self) -> str:
        return self.long.lstrip("-").replace("-", "_")

    @property
    def spelling(self) -> str:
        """``-q, --query TEXT`` as help and README show it."""
        names = f"{self.short}, {self.long}" if self.short else self.long
        return f"{names} {self.metavar}" if self.metavar else names

    def help_text(self) -> str:
        # The ranking's chosen constants are read when help is shown, never on the
        # pass-through path (which reads this table too).
        from rrg.rank.tuning import TUNING

        return self.help.format(
            default=self.default,
            passages=TUNING.stage_passages,
            words=f"{TUNING.passage_words:,}",
        )


def _number(
    long: str, help: str, default: int | None, minimum: int, needs: tuple[str, ...]
) -> RrgOption:
    """An option whose value is a count."""
    metavar = "K" if long == "--cascade" else "N"
    return RrgOption(long, help, metavar=metavar, default=default, needs=needs, minimum=minimum)


OPTIONS: tuple[RrgOption, ...] = (
    RrgOption(
        "--query",
        "Search in relevance order for this natural-language query "
        "(rrg's -q; rg's quiet mode is --quiet).",
        short="-q",
        metavar="TEXT",
        readme="`rrg -q \"retry logic\" 'retry\\|backoff'`",
    ),
    _number(
        "--limit",
        "Stop after N matching lines (each file first prints N/30 of them, at least 1, so "
        "that more files show, from its passages that answer best; -m sets your own), N "
        "matches with -o, --vimgrep or a search across lines (-U: as rg counts them, a "
        "match of several lines once), N files with -l or -c, or N passages "
        "without a PATTERN (default {default}; 0 = no cap); with --files, print the N best "
        "files (default all).",
        defaults.LINE_CAP,
        0,
        _SEARCHES,
    ),
    _number(
        "--cascade",
        "Files the transformer re-orders through their best passages (default {default}, "
        "fewer where they hold more than {words} words; it reads {passages} of their "
        "passages, or one a file where K is larger; 0 = off, as --fast).",
        defaults.STAGE_FILES,
        0,
        ("--query", "--recall"),
    ),
    RrgOption(
        "--fast",
        "Order by BM25 and static vectors alone: no transformer at query time (the "
        "cheapest order; entry points and paragraphs by the same cheap scores).",
        needs=("--query", "--recall"),
    ),
    _number(
        "--excerpt",
        "Cut printed lines to N characters around their first match, marked [...] "
        "(default {default} in a pipe, off on a terminal or with colour; 0 = off).",
        defaults.EXCERPT,
        0,
        _SEARCHES,
    ),
    RrgOption(
        "--index",
        "Build or refresh the index of PATH (default .) and exit.",
        readme="`rrg --index src`",
    ),
    RrgOption(
        "--embed",
        "With --index: also embed every passage with the model (minutes of CPU once; a "
        "root once embedded stays so, later --index runs embed only new and changed files; "
        "RRG_EMBED=1 embeds on every --index).",
        needs=("--index",),
        readme="`rrg --index --embed src`",
    ),
    RrgOption(
        "--index-status",
        "Say which index serves PATH (default .): its files, how fresh, every cache file "
        "and its size.",
    ),
    RrgOption(
        "--index-clear",
        "Remove the index of PATH (default .) and its vector cache, under the writer lock.",
    ),
    RrgOption(
        "--model",
        "Embedding model: a name from --list-models or a model folder.",
        metavar="NAME|PATH",
        needs=(*_INDEXING, "--scope-file", "--index-status", "--index-clear"),
    ),
    RrgOption("--list-models", "List the installed embedding models and exit."),
    RrgOption(
        "--no-progress",
        "Never show a progress bar while indexing (it shows only on a terminal).",
        needs=_INDEXING,
    ),
    RrgOption(
        "--rerank",
        "Collect up to --pool matches in relevance order, print the --limit best by the "
        "embedding model (for one-answer questions).",
        needs=_SEARCHES,
        readme="`rrg -q \"who founded the clinic\" --rerank 'Copacabana\\|clinic\\|1958'`",
    ),
    RrgOption(
        "--rerank-query",
        "Score matches against this text instead of the query plus the pattern's keywords "
        "(implies --rerank).",
        metavar="TEXT",
        needs=_SEARCHES,
    ),
    _number(
        "--pool",
        "Matches collected for --rerank (default {default}).",
        defaults.POOL,
        1,
        ("--rerank", "--rerank-query"),
    ),
    RrgOption(
        "--recall",
        "Rank files for QUERY, write them best first to a scope file, show entry points.",
        metavar="TEXT",
        readme='`rrg --recall "retry on timeout" src/`',
    ),
    _number(
        "--scope-size",
        "Paths kept in a --recall scope file (default {default}).",
        defaults.SCOPE_SIZE,
        1,
        ("--recall",),
    ),
    _number(
        "--paragraphs",
        "Entry-point paragraphs shown by --recall (default {default}; 0 = none).",
        defaults.PARAGRAPHS,
        0,
        ("--recall",),
    ),
    RrgOption(
        "--scope-file",
        "Search the files of a scope file in its order, with the cap of -q.",
        metavar="FILE",
        readme="`rrg --scope-file SCOPE -i retry` (SCOPE: the path --recall printed)",
    ),
    RrgOption(
        "--import-model",
        "Turn a sentence-transformers model (a folder, or a hub name where the network "
        "allows) into an ONNX model folder for --model; needs pip install '.[import]'.",
        metavar="SRC",
    ),
    RrgOption(
        "--trust-remote-code",
        "Let --import-model run code shipped with the model (off: such code never runs).",
        needs=("--import-model",),
    ),
    RrgOption("--agent-guide", "Print a short usage guide for an LLM agent's system prompt."),
    RrgOption(
        "--mcp",
        "Serve PATH (default .) to an agent host over MCP on stdio: the tools search, files "
        "and recall (needs pip install '.[mcp]').",
        readme="`rrg --mcp ~/src/project`",
    ),
    RrgOption("--help", "Show rrg's options and how to reach rg's help.", short="-h"),
    RrgOption("--version", "Show rrg's version and the rg it uses."),
)

BY_SPELLING: dict[str, RrgOption] = {}
for _opt in OPTIONS:
    BY_SPELLING[_opt.long] = _opt
    if _opt.short:
        BY_SPELLING[_opt.short] = _opt
