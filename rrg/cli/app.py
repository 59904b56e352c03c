"""rrg's own command line: parse the options once, run the chosen command.

Every failure becomes one ``rrg: ...`` line and exit code 2 here, in one place.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

from rrg import __version__, streams, timings
from rrg.cli.argsplit import SplitArgs
from rrg.cli.settings import Options, parse_options
from rrg.environment import check_environment
from rrg.errors import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_MATCH, RrgError
from rrg.rg.args import reads_stdin
from rrg.rg.binary import find_rg
from rrg.rg.config import parse_rg_command

if TYPE_CHECKING:
    from rrg.rg.walk import CountWalk


def warn(message: str) -> None:
    streams.err(f"rrg: {message}\n".encode())


def version_text() -> str:
    from rrg.rg.version import rg_version

    rg = find_rg()
    return f"rrg {__version__}\nripgrep {rg_version(rg)} at {rg}\n"


def run(split: SplitArgs, walk: CountWalk | None = None) -> int:
    """Run rrg with options present; returns the exit code. ``walk``: the counting walk
    started for a plain query (rrg.cli.prestart), stopped here if no query takes it."""
    try:
        return _dispatch(parse_options(split), split.rg, walk)
    except BrokenPipeError:
        # The reader left (`| head`): rg takes that for a graceful end and exits 0, so that
        # a pipeline under `set -o pipefail` does not fail; rrg does as rg. (Python ignores
        # SIGPIPE, so a write raises this instead of killing rrg with status 141.)
        if streams.capturing():  # a server's call: its stdout is the protocol's, not gone
            return EXIT_ERROR
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # what is still buffered goes nowhere
        os.close(devnull)
        return EXIT_MATCH
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
    finally:
        if walk is not None:
            walk.stop()
        timings.report()  # with RRG_TIMINGS: after every command, whatever its way out


def _dispatch(opts: Options, rg_args: list[str], walk: CountWalk | None) -> int:
    if opts.help:
        from rrg.cli.helptext import help_text

        try:
            rg_name = find_rg()
        except RrgError:
            rg_name = "rg"
        sys.stdout.write(help_text(rg_name))
        return EXIT_MATCH
    if opts.version:
        sys.stdout.write(version_text())
        return EXIT_MATCH
    if opts.import_model is not None:
        from rrg.model.importer import import_model

        folder = import_model(opts.import_model, opts.trust_remote_code)
        sys.stdout.write(
            f"imported {opts.import_model} into {folder}\n"
            f"use it with: rrg --model {folder.name} -q ...\n"
        )
        return EXIT_MATCH
    if opts.agent_guide:
        from rrg.cli.guide import AGENT_GUIDE

        sys.stdout.write(AGENT_GUIDE)
        return EXIT_MATCH
    if opts.list_models:
        from rrg.search.commands import list_models

        return list_models()
    if opts.mcp:
        return _serve(rg_args)
    check_environment()  # before any work: deep in a search, a bad value would be a fault
    try:
        os.getcwd()  # paths, the index's root and scope files are all told from it
    except FileNotFoundError as err:
        raise RrgError("the current directory no longer exists: cd to one that does") from err
    if opts.rerank_query is not None and not opts.rerank_query.strip():
        raise RrgError("the --rerank-query is empty: give it the words the best lines should hold")
    rg = find_rg()
    from rrg.rg.version import check_version

    check_version(rg, warn)
    from rrg.search import commands
    from rrg.search.plan import QueryPlan

    request = opts.request()
    if opts.index or opts.index_status or opts.index_clear:
        action = "status" if opts.index_status else "clear" if opts.index_clear else "build"
        return commands.index_command(rg, rg_args, request, action, warn)
    if opts.recall is not None:
        return commands.recall_command(rg, rg_args, request, warn)
    if opts.scope_file is not None:
        return commands.scope_command(rg, rg_args, request)
    if opts.query is None:
        raise RrgError(
            "this rrg option needs -q QUERY (or one of --recall, --scope-file, --index, "
            "--index-status, --index-clear, --list-models)"
        )
    if not opts.query.strip():
        raise RrgError("the query is empty: give -q a few words saying what you look for")
    args = parse_rg_command(rg_args)
    if args.info_mode:  # rg's report on itself: nothing to order
        return subprocess.run([rg, *rg_args]).returncode
    if reads_stdin(args):
        warn("searching standard input: nothing to order, running plain rg")
        return subprocess.run([rg, *rg_args]).returncode
    return commands.query_command(QueryPlan.make(rg, rg_args, args, request), warn, walk)


def _serve(rg_args: list[str]) -> int:
    """``rrg --mcp [PATH]``: the library's answers served as MCP tools."""
    from rrg.model.encoder import share_sessions
    from rrg.server.mcp import serve

    if len(rg_args) > 1 or (rg_args and rg_args[0].startswith("-")):
        raise RrgError("--mcp takes one PATH to serve and no other flag")
    check_environment()
    share_sessions()  # the model loads once, for the first call that needs it
    return serve(rg_args[0] if rg_args else ".")
