"""Notices: every cap, cut, skip and rerank said once, so a reader of stdout or stderr alone
knows what rrg did to rg's output."""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rrg import streams

if TYPE_CHECKING:
    from rrg.rg.ordered import HeldBack


def report_facts(facts: list[str], json_mode: bool) -> None:
    """Each fact as one bracketed stderr line; with --json also as a final ``rrg`` message."""
    if not facts:
        return
    if json_mode:
        message = {"type": "rrg", "data": {"notices": facts}}
        streams.out(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    streams.err(streams.encoded("".join(f"[rrg: {fact}]\n" for fact in facts)))


@dataclass(frozen=True)
class CapWords:
    """How a front end names what the cap's notice points to: the command line's options,
    or the parameters of the library's and the MCP tools' calls (an agent told "-m N" over
    MCP had no such thing to set)."""

    limit: str  # the setting that raises the cap
    per_file: str | None  # the one that sets a count a file; None where there is none


COMMAND_LINE = CapWords("--limit", "-m N")
PARAMETERS = CapWords("limit", None)


def lines_cut(count: int, width: int) -> str:
    """The notice of lines cut to their excerpt (the command line adds how to print them
    whole; the MCP tools take no such setting)."""
    return (
        f"{count} long line{'s' * (count > 1)} cut to {width} characters around their "
        "match, marked [...]"
    )


def cap_reached(cap: int, held: HeldBack | None, words: CapWords) -> str:
    """The notice of a search the cap stopped: where the per-file share held lines back,
    how many in how many files, and whether the shares' rest went to the best files (the
    notice then says so rather than "at most 1 line a file" above a file's 6 lines)."""
    spread = ""
    if held is not None:
        each = f"{_counted(held.share, held.unit)} a file"
        how = (
            f"{each} first so that more files show, then the rest to the best files"
            if held.rest_to_best
            else f"at most {each} so that more files show"
        )
        own = f"; {words.per_file} sets your own count a file" if words.per_file else ""
        what = _counted(held.lines, "matching line" if held.unit == "line" else held.unit)
        spread = f", {how} ({what} held back in {_counted(held.files, 'file')}{own})"
    return (
        f"stopped at {words.limit} {cap}{spread}; more matches may follow: raise "
        f"{words.limit} (0 = no cap) or narrow the pattern"
    )


def _counted(count: int, unit: str) -> str:
    """``1 line``, ``3 matching lines``, ``2 matches``."""
    if count == 1:
        return f"{count} {unit}"
    return f"{count} {unit}{'es' if unit.endswith('ch') else 's'}"


def files_printed(shown: int, total: int, ranked: int) -> str:
    """The notice of a list of files cut short: the best of them, or, where the index ranked
    fewer (none could serve: a cache that cannot be written, a build under way), what
    stands in rg's order."""
    if shown <= ranked:
        return f"printed the {shown} best of {total} files"
    if not ranked:
        return f"printed the first {shown} of {total} files, in rg's order"
    return f"printed {shown} of {total} files: the {ranked} ranked, then rg's order"


def pattern_names_a_path(query: str, pattern: str, is_dir: bool) -> str:
    """The notice of a search that found nothing for a PATTERN that names a path: rg reads
    the first word after the options as the pattern, and the way to the path's passages
    (a glob where the path is under the working folder, else a search run from it)."""
    what = "a folder" if is_dir else "a file"
    glob = os.path.normpath(pattern)
    if os.path.isabs(glob) or glob == ".." or glob.startswith("../"):
        way = f"run rrg -q {shlex.quote(query)} in {'it' if is_dir else 'its folder'}"
    else:
        where = f"{glob}/**" if is_dir and glob != "." else glob
        way = f"rrg -q {shlex.quote(query)} -g {shlex.quote(where)}"
    return (
        f"nothing matched the PATTERN {shlex.quote(pattern)}, which names {what} (rg reads "
        f"the first word after the options as the PATTERN); for its most relevant passages: {way}"
    )
