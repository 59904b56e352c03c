"""rrg's own command line: parse the options once, run the chosen command.

Every failure becomes one ``rrg: ...`` line and exit code 2 here, in one place.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from rrg import __version__, streams, timings
from rrg.cli.argsplit import SplitArgs
from rrg.cli.settings import Mode, Options, parse_options
from rrg.environment import check_environment
from rrg.errors import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_MATCH, RrgError, limit_hint
from rrg.rg.args import reads_stdin, streamed_paths
from rrg.rg.binary import find_rg
from rrg.rg.config import parse_rg_command

if TYPE_CHECKING:
    from rrg.rg.walk import CountWalk


def warn(message: str) -> None:
    streams.err(streams.encoded(f"rrg: {message}\n"))


#: Errors of the machine, not of rrg: a full disk or quota, a read-only file system, a
#: limit on open files or memory (a sandbox's ``ulimit``).
_THE_SYSTEMS = {
    errno.ENOSPC,
    errno.EDQUOT,
    errno.EROFS,
    errno.EMFILE,
    errno.ENFILE,
    errno.ENOMEM,
}


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
        streams.leave_gone_readers()
        return EXIT_MATCH
    except RrgError as err:
        warn(str(err))
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as err:  # noqa: BLE001 - the one place that turns a bug into a message
        if os.environ.get("RRG_DEBUG"):
            raise
        if isinstance(err, OSError) and err.errno in _THE_SYSTEMS:
            # A write that no layer said more of: the system's fault, not rrg's.
            named = f": {os.fsdecode(err.filename)}" if err.filename else ""
            warn(f"{err.strerror}{named}{limit_hint(err.errno)}")
        elif _out_of_memory(err):
            warn(f"out of memory{_what_ran_out(err)}{limit_hint(errno.ENOMEM)}")
        else:
            warn(f"internal error: {type(err).__name__}: {err} (RRG_DEBUG=1 shows a traceback)")
        return EXIT_ERROR
    finally:
        if walk is not None:
            walk.stop()
        timings.report()  # with RRG_TIMINGS: after every command, whatever its way out


def _out_of_memory(err: Exception) -> bool:
    """Whether ``err`` is the machine's memory running out: Python's own, or a library the
    model needs that the system could not map (a low ``ulimit -v``)."""
    return isinstance(err, MemoryError) or (
        isinstance(err, ImportError) and "failed to map segment" in str(err)
    )


def _what_ran_out(err: Exception) -> str:
    """The line of a library's own (often several-line) message that names what could not
    be mapped: one line, as every rrg message."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    named = [line for line in lines if "failed to map segment" in line]
    return f": {(named or lines)[-1]}" if lines else ""


def _dispatch(opts: Options, rg_args: list[str], walk: CountWalk | None) -> int:
    """The function of the options' mode: those that need no search first, then the
    searches, each after the checks every search needs."""
    mode = opts.mode
    alone = _ALONE.get(mode)
    if alone is not None:
        return alone(opts, rg_args)
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
    return _SEARCHES[mode](opts, rg, rg_args, walk)


def _help(opts: Options, rg_args: list[str]) -> int:
    from rrg.cli.helptext import help_text

    try:
        rg_name = find_rg()
    except RrgError:
        rg_name = "rg"
    sys.stdout.write(help_text(rg_name))
    return EXIT_MATCH


def _version(opts: Options, rg_args: list[str]) -> int:
    from rrg.output import reports
    from rrg.rg.version import rg_version

    rg = find_rg()
    reports.version(__version__, rg_version(rg), rg)
    return EXIT_MATCH


def _import_model(opts: Options, rg_args: list[str]) -> int:
    from rrg.model.importer import import_model
    from rrg.output import reports

    assert opts.import_model is not None
    reports.model_imported(
        opts.import_model, import_model(opts.import_model, opts.trust_remote_code)
    )
    return EXIT_MATCH


def _agent_guide(opts: Options, rg_args: list[str]) -> int:
    from rrg.cli.guide import agent_guide

    sys.stdout.write(agent_guide())
    return EXIT_MATCH


def _list_models(opts: Options, rg_args: list[str]) -> int:
    from rrg.search.commands import list_models

    return list_models()


def _index(opts: Options, rg: str, rg_args: list[str], walk: CountWalk | None) -> int:
    from rrg.search.commands import index_command

    return index_command(rg, rg_args, opts.request(), warn)


def _index_status(opts: Options, rg: str, rg_args: list[str], walk: CountWalk | None) -> int:
    from rrg.search.commands import index_status_command

    return index_status_command(rg_args, opts.request())


def _index_clear(opts: Options, rg: str, rg_args: list[str], walk: CountWalk | None) -> int:
    from rrg.search.commands import index_clear_command

    return index_clear_command(rg_args, opts.request())


def _recall(opts: Options, rg: str, rg_args: list[str], walk: CountWalk | None) -> int:
    from rrg.search.commands import recall_command

    return recall_command(rg, rg_args, opts.request(), warn)


def _scope(opts: Options, rg: str, rg_args: list[str], walk: CountWalk | None) -> int:
    from rrg.search.commands import scope_command

    return scope_command(rg, rg_args, opts.request())


def _query(opts: Options, rg: str, rg_args: list[str], walk: CountWalk | None) -> int:
    from rrg.search.commands import query_command
    from rrg.search.plan import QueryPlan

    request = opts.request()
    if opts.query is None:
        raise RrgError(
            "this rrg option needs -q QUERY (or one of --recall, --scope-file, --index, "
            "--index-status, --index-clear, --list-models)"
        )
    if not opts.query.strip():
        raise RrgError("the query is empty: give -q a few words saying what you look for")
    args = parse_rg_command(rg_args)
    if args.info_mode:  # rg's report on itself: nothing to order
        return _plain_rg(rg, rg_args)
    if reads_stdin(args):
        warn("searching standard input: nothing to order, running plain rg")
        return _plain_rg(rg, rg_args)
    streams = streamed_paths(args)
    if streams:
        warn(f"{streams[0]} is a stream (a FIFO or a device), read once: running plain rg")
        return _plain_rg(rg, rg_args)
    return query_command(QueryPlan.make(rg, rg_args, args, request), warn, walk)


def _plain_rg(rg: str, rg_args: list[str]) -> int:
    """rg itself over the command line, its standard streams this process's; stopped with
    this process (``rrg.rg.children``)."""
    from rrg.rg.children import started

    return started([rg, *rg_args], stdout=None, stderr=None, stdin=None).wait()


def _serve(opts: Options, rg_args: list[str]) -> int:
    """``rrg --mcp [PATH]``: the library's answers served as MCP tools."""
    from rrg.model.encoder import share_sessions
    from rrg.server.mcp import serve

    if len(rg_args) > 1 or (rg_args and rg_args[0].startswith("-")):
        raise RrgError("--mcp takes one PATH to serve and no other flag")
    check_environment()
    share_sessions()  # the model loads once, for the first call that needs it
    return serve(rg_args[0] if rg_args else ".")


#: The modes that run before, and without, the checks a search needs.
_ALONE: dict[Mode, Callable[[Options, list[str]], int]] = {
    Mode.HELP: _help,
    Mode.VERSION: _version,
    Mode.IMPORT_MODEL: _import_model,
    Mode.AGENT_GUIDE: _agent_guide,
    Mode.LIST_MODELS: _list_models,
    Mode.MCP: _serve,
}
_SEARCHES: dict[Mode, Callable[[Options, str, list[str], CountWalk | None], int]] = {
    Mode.INDEX: _index,
    Mode.INDEX_STATUS: _index_status,
    Mode.INDEX_CLEAR: _index_clear,
    Mode.RECALL: _recall,
    Mode.SCOPE: _scope,
    Mode.QUERY: _query,
}
