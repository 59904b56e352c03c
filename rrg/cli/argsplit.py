"""Splitting argv into rrg's options and the arguments that go to rg untouched.

rrg's options may stand anywhere before a bare ``--``. To find them, the splitter must
know which rg flags take a value, so that ``rg -e --limit`` keeps ``--limit`` as rg's
pattern rather than reading it as rrg's option.
"""

from __future__ import annotations

from rrg.cli.options import BY_SPELLING, RrgOption
from rrg.errors import RrgError
from rrg.rg.flags import VALUE_LONG, VALUE_SHORT


class SplitArgs:
    """rrg's options in order (option, value or None) and rg's arguments in order."""

    __slots__ = ("rrg", "rg")

    def __init__(self) -> None:
        self.rrg: list[tuple[RrgOption, str | None]] = []
        self.rg: list[str] = []


def split_argv(argv: list[str]) -> SplitArgs:
    """Take rrg's options out of argv; everything else goes to rg, in order."""
    out = SplitArgs()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            out.rg.extend(argv[i:])
            break
        if arg.startswith("--"):
            name, eq, inline = arg.partition("=")
            opt = BY_SPELLING.get(name)
            if opt is not None:
                i = _take(out, opt, argv, i, inline if eq else None)
                continue
            out.rg.append(arg)
            if name in VALUE_LONG and not eq and i + 1 < len(argv):
                out.rg.append(argv[i + 1])
                i += 1
        elif arg.startswith("-") and len(arg) > 1:
            opt = BY_SPELLING.get(arg)
            if opt is not None:
                i = _take(out, opt, argv, i, None)
                continue
            out.rg.append(arg)
            if _short_cluster_wants_next(arg) and i + 1 < len(argv):
                out.rg.append(argv[i + 1])
                i += 1
        else:
            out.rg.append(arg)
        i += 1
    return out


def _take(out: SplitArgs, opt: RrgOption, argv: list[str], i: int, inline: str | None) -> int:
    if not opt.takes_value:
        if inline is not None:
            raise RrgError(f"{opt.long} takes no value (got {opt.long}={inline})")
        out.rrg.append((opt, None))
        return i + 1
    if inline is not None:
        out.rrg.append((opt, inline))
        return i + 1
    if i + 1 >= len(argv):
        raise RrgError(f"{opt.short or opt.long} needs a value: {opt.long} {opt.metavar}")
    out.rrg.append((opt, argv[i + 1]))
    return i + 2


def _short_cluster_wants_next(arg: str) -> bool:
    """True when a short cluster such as ``-iA`` ends in a flag whose value is the next arg."""
    for pos, char in enumerate(arg[1:], start=1):
        if char in VALUE_SHORT:
            return pos == len(arg) - 1
        if char == "q":
            raise RrgError(
                f"-q is rrg's --query and cannot be bundled in {arg!r}; "
                "for rg's quiet mode write --quiet"
            )
    return False
