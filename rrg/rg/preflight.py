"""What rg would refuse before it searched anything: a bad pattern, PATHs that are not there.

rrg ranks before it runs rg over the files, and ranking takes up to a second: an error
found only then arrives late, after work that could not be used. One rg run over nothing
(``/dev/null``) with the user's flags and patterns compiles the pattern as the search will,
so a bad regex is reported at once, in rg's own words. A PATH that does not exist is
reported as rg reports it in the same mode (its wording differs between ``--json`` and the
rest), by rg itself run over that PATH alone.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass

from rrg.errors import EXIT_ERROR, RrgError
from rrg.rg.args import RgArgs


@dataclass(frozen=True)
class Refusal:
    """rg's exit code and its messages for a run it refused."""

    code: int
    messages: bytes


@dataclass(frozen=True)
class Checked:
    """What rg says of a search before it runs: its refusal of the flags or pattern, or
    the PATHs that are not there, its messages for them, and the arguments over the rest."""

    args: RgArgs
    refusal: Refusal | None = None
    missing: tuple[str, ...] = ()
    #: rg's messages for the missing PATHs, where other PATHs are searched.
    said: bytes = b""

    @property
    def nothing_there(self) -> bool:
        """Every PATH given is missing: nothing to rank, rg's own run says the rest."""
        return bool(self.missing) and not self.args.paths


def check_search(rg: str, args: RgArgs, what: str, rerank: bool) -> Checked:
    """Everything rg would refuse of a search in relevance order (``what``: the rrg option
    asking for it), found before a second of ranking, not after it: a flag that undoes the
    order (raised as rrg's error), rg's refusal of the pattern or flags, then PATHs that
    are not there (a search's alone: a listing says so as it lists)."""
    refused = order_refusal(args, what, rerank)
    if refused:
        raise RrgError(refused)
    refusal = pattern_refusal(rg, args)
    if refusal is not None:
        return Checked(args, refusal)
    missing = missing_paths(args) if args.has_pattern and not args.files_mode else []
    if not missing:
        return Checked(args)
    others = len(missing) < len(args.paths)
    said = missing_messages(rg, args, missing) if others else b""
    kept = args.with_paths([p for p in args.paths if p not in missing])
    return Checked(kept, None, tuple(missing), said)


def order_refusal(args: RgArgs, what: str, rerank: bool) -> str | None:
    """Why these flags cannot run in relevance order (``what``: the rrg option asking for
    it), or None: a flag that undoes the order or prints every file whatever it holds
    (``--passthru``), or with ``rerank`` one whose output has no lines to score one at a
    time."""
    breaker = args.order_breaker()
    if breaker:
        return (
            f"{breaker} cannot be used with {what}: rrg runs rg with one thread in "
            "relevance order, and it would undo that order"
        )
    given = any(name == "--passthru" for name, _ in args.cli_flags)
    searched = args.has_pattern and not args.files_mode
    if given or (searched and args.has("--passthru")):
        # rg prints every line of every file it searches, matching or not: nothing is left
        # for an order to put first or for the cap to stop, and rrg's runs over the files
        # with matches would print fewer files than rg does. From rg's config file too,
        # which each rg search of rrg's reads (rg has no flag that turns it off); passages
        # and file lists run no such search.
        where = "" if given else " (in rg's config file)"
        instead = "use rg --passthru" if given else "run rrg --no-config, or rg"
        return (
            f"--passthru{where} cannot be used with {what}: it prints every line of every "
            f"file, so no order or cap applies; {instead}"
        )
    if rerank:
        from rrg.rg.matches import unsupported_with_rerank

        flag = unsupported_with_rerank(args)
        if flag:
            return (
                f"{flag} cannot be used with --rerank: it prints matching lines, "
                "one at a time, in score order"
            )
    return None


def rg_over(rg: str, args: RgArgs, paths: list[str], extra: list[str] | None = None) -> list[str]:
    """rg with the user's flags and patterns (and ``extra`` flags) over ``paths``."""
    return [rg, *args.search_args(), *args.pattern_args, *(extra or []), "--", *paths]


def pattern_refusal(rg: str, args: RgArgs) -> Refusal | None:
    """rg's error for the pattern and flags (a bad regex, a missing -f file, a bad flag
    value, a flag rg does not know), or None where rg accepts them."""
    if not args.has_pattern or args.files_mode:
        return flags_refusal(rg, args)
    # --no-pre: a preprocessor fed the empty file may fail (zcat), which is no fault of the
    # pattern; it runs on the real files, where rg reports its failures.
    no_pre = ["--no-pre"] if args.turned_on("--pre") else []
    return _refused(rg_over(rg, args, [os.devnull], no_pre))


def flags_refusal(rg: str, args: RgArgs) -> Refusal | None:
    """rg's error for the flags of a search without a pattern (``-q Q`` alone, ``--files``,
    ``--recall``, the library's globs), or None: rg parses them as ``rg --files`` does.
    Such a search runs rg only to list the files, with the flags that choose them, so a
    flag rg does not know (a typo: ``--hiden``) or a bad value (a glob) went unsaid, and
    the search ran without it."""
    return _refused(rg_over(rg, args, [os.devnull], ["--files"]))


def _refused(cmd: list[str]) -> Refusal | None:
    """rg run over the empty file: its refusal, or None where it ran (an error about the
    empty file itself is no refusal of the flags)."""
    done = subprocess.run(
        cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    if done.returncode != EXIT_ERROR or os.fsencode(os.devnull) in done.stderr:
        return None
    return Refusal(done.returncode, done.stderr)


def missing_paths(args: RgArgs) -> list[str]:
    """The PATHs given that do not exist (a dangling symlink exists: rg reports it itself)."""
    return [p for p in args.paths if p != "-" and not os.path.lexists(p)]


def missing_messages(rg: str, args: RgArgs, missing: list[str]) -> bytes:
    """rg's own messages for PATHs that do not exist, in the wording of this search's mode
    (none under ``--no-messages``); what rg prints on stdout for them is not wanted. rg
    words a missing PATH one way when it is the only PATH and another beside others: the
    search goes on over other PATHs, so rg is given one more, an empty folder (it holds
    no file for a ``--pre`` command to read: the empty file was given to it)."""
    with tempfile.TemporaryDirectory(prefix="rrg-") as empty:
        done = subprocess.run(
            rg_over(rg, args, [*missing, empty]),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
    return done.stderr


def one_line(messages: str) -> str:
    """rg's or rrg's error as one line: the first line that says what is wrong. rg words a
    bad regex over four lines (a heading, the pattern, a caret under the fault, the
    fault); they become one, the fault and where it lies."""
    lines = [line for line in messages.splitlines() if line.strip()]
    if not lines:
        return ""
    first = lines[0].rstrip()
    fault = next((line for line in lines[1:] if line.startswith("error: ")), None)
    if first.endswith("regex parse error:") and fault is not None:
        where = ""
        carets = [k for k, line in enumerate(lines) if line.strip().startswith("^")]
        if carets and carets[0] > 0:
            shown, caret = lines[carets[0] - 1], lines[carets[0]]
            indent = len(shown) - len(shown.lstrip())
            column = caret.index("^") - indent + 1
            where = f" at column {column} of {shown.strip()}"
        return f"{first} {fault[len('error: ') :].strip()}{where}"
    if first.endswith(":") and len(lines) > 1:
        return f"{first} {lines[1].strip()}"
    return first
