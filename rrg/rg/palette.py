"""The bytes rg colours each part of a line with, for the lines rrg prints itself (passages,
``--rerank``'s lines, the ranked file list): rg's defaults, or, where ``--colors`` is given
(on the command line or in rg's config file), what rg itself prints for those specs, asked
of rg once; and a path as ``rg --files`` paints it, its ``--hyperlink-format`` link too.

rg's colour specs have names, 256-colour numbers, RGB triples, styles and intensities, and
"none", each written its own way; asking rg keeps its bytes exactly, for any version of it.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

from rrg.errors import RrgError
from rrg.excerpt import Paints
from rrg.rg.args import RgArgs, as_printed
from rrg.rg.ordered import batches

_RESET = b"\x1b[0m"


@dataclass(frozen=True)
class Paint:
    """The bytes rg writes before and after one part of a line."""

    before: bytes
    after: bytes

    def __call__(self, text: bytes) -> bytes:
        return self.before + text + self.after


@dataclass(frozen=True)
class Palette:
    """How rg colours each part of a line: ``palette.path(b"a.py")``."""

    path: Paint
    line: Paint
    column: Paint
    match: Paint

    def of_marks(self) -> Paints:
        """The paints of the excerpt's marks (``rrg.excerpt.MARK_FLAGS``), by mark."""
        parts = {b"3": self.path, b"4": self.line, b"5": self.column, b"6": self.match}
        return {mark: (paint.before, paint.after) for mark, paint in parts.items()}


#: ``rg --color=always`` with no ``--colors``: paths magenta, line numbers green, columns
#: plain (but reset around, as rg writes them), matches bold red.
DEFAULT = Palette(
    path=Paint(b"\x1b[0m\x1b[35m", _RESET),
    line=Paint(b"\x1b[0m\x1b[32m", _RESET),
    column=Paint(_RESET, _RESET),
    match=Paint(b"\x1b[0m\x1b[1m\x1b[31m", _RESET),
)

#: What rg prints, its escapes left out, for the one line "x" of standard input with
#: every part shown; each part's escapes are told by where they stand in that text.
_PROBED = b"<stdin>:1:1:x\n"
_PLACES = {"path": (0, 7), "line": (8, 9), "column": (10, 11), "match": (12, 13)}
_ESCAPE_OR_TEXT = re.compile(rb"\x1b\[[0-9;]*m|[^\x1b]+|\x1b")


def colour_specs(args: RgArgs) -> list[str]:
    """The ``--colors`` specs of the command line and rg's config file, in rg's order; those
    of ``highlight`` (the whole matching line's colour) are left out: rrg does not draw it."""
    return [
        value
        for name, value in args.flags
        if name == "--colors" and value is not None and not value.startswith("highlight:")
    ]


def palette_of(rg: str, args: RgArgs) -> Palette:
    """The palette rg would colour this command's lines with."""
    specs = colour_specs(args)
    if not specs:
        return DEFAULT
    cmd = [rg, "--no-config", "--color=always", "--with-filename", "--line-number"]
    cmd += ["--column", "--no-heading", *(f"--colors={spec}" for spec in specs)]
    cmd += ["--regexp", "x", "-"]
    try:
        done = subprocess.run(cmd, input=b"x\n", capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise RrgError(f"cannot run {rg}: {err}") from err
    escapes = _escapes_by_place(done.stdout)
    if done.returncode != 0 or escapes is None:
        said = done.stderr.decode("utf-8", "replace").strip() or "no line printed"
        raise RrgError(said.removeprefix("rg: ").removeprefix("rrg: "))
    return Palette(
        **{
            part: Paint(escapes.get(before, b""), escapes.get(after, b""))
            for part, (before, after) in _PLACES.items()
        }
    )


def _escapes_by_place(shown: bytes) -> dict[int, bytes] | None:
    """The escapes rg wrote, by the place in its text (escapes left out) where they stand;
    None where the text is not the line asked for."""
    text = b""
    escapes: dict[int, bytes] = {}
    for token in _ESCAPE_OR_TEXT.findall(shown):
        if token.startswith(b"\x1b[") and token.endswith(b"m"):
            escapes[len(text)] = escapes.get(len(text), b"") + token
        else:
            text += token
    return escapes if text == _PROBED else None


#: The flags of a command line that change how ``rg --files`` prints a path with colour
#: (rg reads its config file's own).
_LISTING_FLAGS = frozenset(
    {"--colors", "--hyperlink-format", "--hostname-bin", "--path-separator", "--null"}
)


def painted_paths(rg: str, args: RgArgs, paths: list[bytes], palette: Palette) -> list[bytes]:
    """Each path as ``rg --files --color=always`` prints it (no line end): in the palette's
    colour, with the command's path separator; and where a ``--hyperlink-format`` is set
    (on the command line or in rg's config file), with rg's own link around it, asked of
    rg: its aliases, host, WSL prefix and percent-encoding are rg's to write."""
    plain = [palette.path(as_printed(path, args.path_separator)) for path in paths]
    if not args.has("--hyperlink-format"):
        return plain
    flags = args.typed_args(lambda name: name in _LISTING_FLAGS)
    end = b"\0" if args.has("--null") else b"\n"
    out: list[bytes] = []
    for batch in batches(paths):
        cmd: list[str | bytes] = [rg, "--files", "--color=always", "-j1", *flags, "--", *batch]
        try:
            done = subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
            listed = done.stdout.split(end)[:-1]
        except (OSError, subprocess.TimeoutExpired):
            listed = []
        if len(listed) != len(batch):  # a path rg would not list (gone meanwhile, a newline
            listed = plain[len(out) : len(out) + len(batch)]  # in it): its colour alone
        out += listed
    return out
