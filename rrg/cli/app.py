"""rrg's own command line: validates rrg's options (click) and runs the chosen action.

Every failure becomes one ``rrg: ...`` line and exit code 2 here, in one place.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from typing import Any

import click

from rrg import __version__
from rrg.cli.argsplit import SplitArgs
from rrg.cli.options import OPTIONS
from rrg.errors import EXIT_ERROR, EXIT_INTERRUPTED, RrgError
from rrg.rg.binary import find_rg

DEFAULT_LIMIT = 30

_TYPES: dict[str, Any] = {
    "limit": click.IntRange(min=0),
    "cascade": click.IntRange(min=0),
    "excerpt": click.IntRange(min=0),
    "pool": click.IntRange(min=1),
    "scope_size": click.IntRange(min=1),
    "paragraphs": click.IntRange(min=0),
}


def _command() -> click.Command:
    params: list[click.Parameter] = [
        click.Option([opt.long], type=_TYPES.get(opt.dest, click.STRING), help=opt.help)
        if opt.takes_value
        else click.Option([opt.long], is_flag=True, help=opt.help)
        for opt in OPTIONS
    ]
    return click.Command(
        "rrg", params=params, callback=lambda **kw: kw, context_settings={"help_option_names": []}
    )


def parse_rrg_options(split: SplitArgs) -> dict[str, Any]:
    tokens: list[str] = []
    for opt, value in split.rrg:
        # "--opt=value" keeps a value such as "-1" from being read as an option.
        tokens.append(opt.long if value is None else f"{opt.long}={value}")
    try:
        parsed: dict[str, Any] = _command().main(tokens, standalone_mode=False)
        return parsed
    except click.ClickException as err:
        raise RrgError(err.format_message()) from err


def warn(message: str) -> None:
    sys.stderr.write(f"rrg: {message}\n")
    sys.stderr.flush()


def help_text() -> str:
    lines = [
        f"rrg {__version__}: ripgrep in relevance order.",
        "",
        "Usage: rrg -q QUERY [RG OPTIONS] PATTERN [PATH...]   search, most relevant files first",
        "       rrg -q QUERY [PATH...]                        most relevant paragraphs",
        "       rrg -q QUERY --files [PATH...]                files, most relevant first",
        "       rrg [RG ARGS...]                              exactly rg (no rrg option given)",
        "",
        "rrg's options (anywhere before a bare --; everything else goes to rg unchanged):",
    ]
    for opt in OPTIONS:
        spelling = f"{opt.short}, {opt.long}" if opt.short else f"    {opt.long}"
        if opt.metavar:
            spelling += f" {opt.metavar}"
        lines.append(f"  {spelling:<28} {opt.help}")
    lines += [
        "",
        "Differences from rg: -q is rrg's --query, not rg's quiet mode (use --quiet);",
        "-h/--help and --version are rrg's. With -q, -j/--threads and --sort are refused,",
        "since they would undo the relevance order.",
        "",
        f"rg's own help: {_rg_for_help()} --help",
    ]
    return "\n".join(lines) + "\n"


def _rg_for_help() -> str:
    try:
        return find_rg()
    except RrgError:
        return "rg"


def version_text() -> str:
    rg = find_rg()
    out = subprocess.run([rg, "--version"], capture_output=True, text=True).stdout
    first = out.splitlines()[0] if out else "rg (unknown version)"
    return f"rrg {__version__}\n{first} at {rg}\n"


def run(split: SplitArgs) -> int:
    """Run rrg with options present; returns the exit code."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        return _dispatch(split)
    except RrgError as err:
        warn(str(err))
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as err:  # noqa: BLE001 - the one place that turns a bug into a message
        if os.environ.get("RRG_DEBUG"):
            raise
        warn(f"internal error: {type(err).__name__}: {err} (RRG_DEBUG=1 shows a traceback)")
        return EXIT_ERROR


def _dispatch(split: SplitArgs) -> int:
    opts = parse_rrg_options(split)
    if opts["help"]:
        sys.stdout.write(help_text())
        return 0
    if opts["version"]:
        sys.stdout.write(version_text())
        return 0
    if opts["import_model"] is not None:
        from rrg.model.importer import import_model

        folder = import_model(opts["import_model"], opts["trust_remote_code"])
        sys.stdout.write(
            f"imported {opts['import_model']} into {folder}\n"
            f"use it with: rrg --model {folder.name} -q ...\n"
        )
        return 0
    if opts["agent_guide"]:
        from rrg.cli.guide import AGENT_GUIDE

        sys.stdout.write(AGENT_GUIDE)
        return 0
    if opts["list_models"]:
        from rrg.cli.commands import list_models

        return list_models()
    rg = find_rg()
    if opts["index"] or opts["index_status"] or opts["index_clear"]:
        from rrg.cli.commands import index_action

        return index_action(rg, split.rg, opts, warn)
    if opts["recall"] is not None:
        from rrg.cli.commands import recall_action

        return recall_action(rg, split.rg, opts, warn)
    opts["rerank"] = opts["rerank"] or opts["rerank_query"] is not None
    if (opts["rerank"] or opts["pool"]) and not (opts["query"] or opts["scope_file"]):
        raise RrgError("--rerank, --rerank-query and --pool work with -q QUERY or --scope-file")
    if opts["scope_file"] is not None:
        from rrg.cli.commands import scope_action

        return scope_action(rg, split.rg, opts, warn)
    if opts["query"] is None:
        raise RrgError(
            "this rrg option needs -q QUERY (or one of --index, --index-status, "
            "--index-clear, --list-models)"
        )
    if not opts["query"].strip():
        raise RrgError("the query is empty: give -q a few words saying what you look for")
    if _reads_stdin(split.rg):
        warn("searching standard input: nothing to order, running plain rg")
        return subprocess.run([rg, *split.rg]).returncode
    from rrg.cli.commands import query_action

    return query_action(rg, split.rg, opts, warn)


def _reads_stdin(rg_args: list[str]) -> bool:
    """Whether rg would search stdin: a ``-`` path, or no path with stdin a pipe or file."""
    from rrg.rg.args import parse_rg_args

    parsed = parse_rg_args(rg_args)
    if "-" in parsed.paths:
        return True
    if parsed.paths or not parsed.has_pattern or parsed.files_mode:
        return False
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)
