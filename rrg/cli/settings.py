"""rrg's parsed options as one typed, frozen object, built once from the command line.

click checks each value against the option table (integers, their bounds); this module then
refuses combinations that cannot apply, so that no option is silently ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

import click

from rrg.cli.argsplit import SplitArgs
from rrg.cli.options import BY_SPELLING, COMMANDS, OPTIONS, RrgOption
from rrg.errors import RrgError
from rrg.search.plan import SearchRequest, readable_words


def _default(long: str) -> int:
    default = BY_SPELLING[long].default
    assert default is not None
    return default


class Mode(Enum):
    """What a command line asks rrg to do: one function each (``rrg.cli.app``)."""

    HELP = "--help"
    VERSION = "--version"
    IMPORT_MODEL = "--import-model"
    AGENT_GUIDE = "--agent-guide"
    LIST_MODELS = "--list-models"
    MCP = "--mcp"
    INDEX_STATUS = "--index-status"
    INDEX_CLEAR = "--index-clear"
    INDEX = "--index"
    RECALL = "--recall"
    SCOPE = "--scope-file"
    QUERY = "--query"  # where none of the above is given


@dataclass(frozen=True)
class Options:
    """rrg's options; a value not given is None, except flags (False) and the defaults that
    the option table sets."""

    query: str | None = None
    limit: int | None = None  # None: not given (30 for lines, every file for --files)
    cascade: int = _default("--cascade")
    fast: bool = False
    excerpt: int | None = None  # None: the table's default in a pipe, off on a terminal
    index: bool = False
    embed: bool = False
    index_status: bool = False
    index_clear: bool = False
    model: str | None = None
    list_models: bool = False
    no_progress: bool = False
    rerank: bool = False
    rerank_query: str | None = None
    pool: int = _default("--pool")
    recall: str | None = None
    scope_size: int = _default("--scope-size")
    paragraphs: int = _default("--paragraphs")
    scope_file: str | None = None
    import_model: str | None = None
    trust_remote_code: bool = False
    agent_guide: bool = False
    mcp: bool = False
    help: bool = False
    version: bool = False

    @property
    def mode(self) -> Mode:
        """The one thing these options ask for (the option table refuses two commands
        together; --help and --version win over everything, as they are not checked)."""
        chosen = {
            Mode.HELP: self.help,
            Mode.VERSION: self.version,
            Mode.IMPORT_MODEL: self.import_model is not None,
            Mode.AGENT_GUIDE: self.agent_guide,
            Mode.LIST_MODELS: self.list_models,
            Mode.MCP: self.mcp,
            Mode.INDEX_STATUS: self.index_status,
            Mode.INDEX_CLEAR: self.index_clear,
            Mode.INDEX: self.index,
            Mode.RECALL: self.recall is not None,
            Mode.SCOPE: self.scope_file is not None,
        }
        return next((mode for mode, given in chosen.items() if given), Mode.QUERY)

    @property
    def line_cap(self) -> int:
        """Matching lines (or records) printed before rrg stops rg; 0 = no cap."""
        return _default("--limit") if self.limit is None else self.limit

    @property
    def stage_files(self) -> int:
        """Files the transformer stage re-orders; 0 with --fast."""
        return 0 if self.fast else self.cascade

    @property
    def reranking(self) -> bool:
        return self.rerank or self.rerank_query is not None

    @property
    def show_progress(self) -> bool:
        return not self.no_progress

    def request(self) -> SearchRequest:
        """What these options ask of the query pipeline."""
        return SearchRequest(
            query=self.query if self.query is not None else (self.recall or ""),
            line_cap=self.line_cap,
            file_limit=self.limit,
            passage_limit=self.line_cap,
            stage_files=self.stage_files,
            excerpt=self.excerpt,
            pipe_excerpt=_default("--excerpt"),
            model=self.model,
            rerank=self.reranking,
            rerank_query=self.rerank_query,
            pool=self.pool,
            show_progress=self.show_progress,
            scope_size=self.scope_size,
            paragraphs=self.paragraphs,
            scope_file=self.scope_file,
            embed=self.embed,
        )


if TYPE_CHECKING:  # generic from click 8.2 on; rrg takes 8.1 too
    _ParamType = click.ParamType[int, Any]
else:
    _ParamType = click.ParamType


class _Count(_ParamType):
    """A count of ``minimum`` or more, said so where the value is none: click's own words
    were "'abc' is not a valid integer range", of an option that takes no range."""

    name = "count"

    def __init__(self, minimum: int) -> None:
        self.minimum = minimum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        text = str(value).strip()
        if not text.isdigit() or int(text) < self.minimum:
            raise click.BadParameter(f"takes a whole number, {self.minimum} or more, not {value!r}")
        return int(text)


def _click_type(opt: RrgOption) -> Any:
    if opt.minimum is not None:
        return _Count(opt.minimum)
    return click.STRING


def _command() -> click.Command:
    params: list[click.Parameter] = [
        click.Option([opt.long], type=_click_type(opt))
        if opt.takes_value
        else click.Option([opt.long], is_flag=True)
        for opt in OPTIONS
    ]
    return click.Command(
        "rrg", params=params, callback=lambda **kw: kw, context_settings={"help_option_names": []}
    )


def parse_options(split: SplitArgs) -> Options:
    """The typed options of a command line, or RrgError saying what cannot be."""
    tokens: list[str] = []
    for opt, value in split.rrg:
        # "--opt=value" keeps a value such as "-1" from being read as an option.
        tokens.append(opt.long if value is None else f"{opt.long}={value}")
    try:
        parsed: dict[str, Any] = _command().main(tokens, standalone_mode=False)
    except click.BadParameter as err:
        named = err.param.opts[0] if err.param is not None and err.param.opts else "an option"
        raise RrgError(f"{named} {err.message}") from err
    except click.ClickException as err:
        raise RrgError(err.format_message()) from err
    except click.exceptions.Abort:
        # Click turns a Ctrl-C while it parses into Abort: it is the user's Ctrl-C (exit
        # 130), not "internal error: Abort" (a search handed to the resident process met
        # it, its counting walk started before the parse).
        raise KeyboardInterrupt from None
    given = {opt.long for opt, _ in split.rrg}
    if not given & {"--help", "--version"}:
        _check_combinations(given)
    for key in TEXTS:
        if parsed.get(key) is not None:
            # Bytes that are no UTF-8 reach Python as lone surrogates, which no tokenizer
            # takes: a query is words, so they read as U+FFFD (paths keep their bytes).
            parsed[key] = readable_words(parsed[key])
    # Options not given keep the table's defaults (the dataclass's own).
    return Options(**{k: v for k, v in parsed.items() if v is not None})


#: The options whose values are text to read, not names of files.
TEXTS = ("query", "recall", "rerank_query")


def _name(long: str) -> str:
    opt = BY_SPELLING[long]
    return f"{opt.short}/{opt.long}" if opt.short else opt.long


def _check_combinations(given: set[str]) -> None:
    commands = [c for c in COMMANDS if c in given]
    if len(commands) > 1 and set(commands) != {"--query", "--scope-file"}:
        listed = " and ".join(_name(c) for c in commands[:2])
        raise RrgError(f"{listed} cannot be used together: each chooses what rrg does")
    if {"--fast", "--cascade"} <= given:
        raise RrgError("--fast and --cascade cannot be used together: --fast turns the stage off")
    for opt in OPTIONS:
        if opt.long in given and opt.needs and not given & set(opt.needs):
            wanted = " or ".join(_name(n) for n in opt.needs)
            raise RrgError(f"{opt.long} applies only with {wanted}")
