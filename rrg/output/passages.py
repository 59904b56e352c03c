"""Passages as the user reads them: the no-pattern mode's passages (as rg prints lines
under a heading on a terminal, as ``path:start-end:`` blocks in a pipe) and ``--recall``'s
entry points grouped by file (RARG+)."""

from __future__ import annotations

from dataclasses import dataclass

from rrg.excerpt import MARKER
from rrg.rank.paragraphs import Paragraph
from rrg.rg.palette import Palette


@dataclass(frozen=True)
class PassageStyle:
    """How rg would print lines here: under a heading, numbered, in rg's colours (None: no
    colour); ``null``: a NUL after each path (``--null``), where rg would print ``:`` or a
    line's end."""

    heading: bool
    numbers: bool
    palette: Palette | None
    null: bool = False
    #: Each path as ``rg --files`` prints it in colour (its link too, where the user set a
    #: ``--hyperlink-format``); a path not in it is painted in the palette's colour.
    painted: dict[bytes, bytes] | None = None

    def path(self, path: bytes) -> bytes:
        """The path as printed: as rg paints it where colour is on."""
        if self.painted is not None and path in self.painted:
            return self.painted[path]
        return self.palette.path(path) if self.palette else path


def _text(passage: Paragraph) -> bytes:
    """The passage as printed: a piece of a line longer than a passage marked ``[...]``
    where the line goes on, as rrg marks a line cut to its excerpt."""
    text = passage.text.encode("utf-8", "surrogateescape")
    before = MARKER if passage.starts_mid_line else b""
    after = MARKER if passage.ends_mid_line else b""
    return before + text + after


def passage_blocks(found: list[tuple[bytes, Paragraph]], style: PassageStyle) -> bytes:
    """Best first. Under headings (a terminal, ``--heading``): the path above its passage,
    as rg prints a file's path above its lines, each line numbered (unless ``-N``), ``--``
    between passages of one file, a blank line before the next file. Else, for pipes and
    the programs reading them, each as ``path:start-end:`` then its text (the path and the
    lines in rg's colours where colour is asked for: ``--color always``)."""
    if not style.heading:
        return b"".join(_flat_title(path, p, style) + _text(p) + b"\n" for path, p in found)
    out: list[bytes] = []
    previous: bytes | None = None
    for path, passage in found:
        if path == previous:
            out.append(b"--\n")
        else:
            if previous is not None:
                out.append(b"\n")
            out.append(style.path(path) + (b"\0" if style.null else b"\n"))
        previous = path
        out.append(_numbered(passage, style))
    return b"".join(out)


def most_relevant(count: int) -> str:
    """How a notice names the ``count`` passages printed: "the most relevant passage" for
    one (the CLI's and the MCP server's notices say it alike)."""
    return "most relevant passage" if count == 1 else f"{count} most relevant passages"


def _flat_title(path: bytes, passage: Paragraph, style: PassageStyle) -> bytes:
    lines = f"{passage.start}-{passage.end}".encode()
    after = b"\0" if style.null else b":"
    if style.palette:
        lines = style.palette.line(lines)
    return style.path(path) + after + lines + b":\n"


def _numbered(passage: Paragraph, style: PassageStyle) -> bytes:
    lines = _text(passage).split(b"\n")
    if not style.numbers:
        return b"".join(line + b"\n" for line in lines)
    out = []
    for k, line in enumerate(lines):
        # The pieces of one long line, cut apart, share its number.
        number = str(min(passage.start + k, passage.end)).encode()
        if style.palette:
            number = style.palette.line(number)
        out.append(number + b":" + line + b"\n")
    return b"".join(out)


def entry_points(found: list[tuple[bytes, Paragraph]]) -> bytes:
    """Grouped by file, files in order of their best passage, passages by line."""
    groups: dict[bytes, list[Paragraph]] = {}
    for path, p in found:
        groups.setdefault(path, []).append(p)
    out = []
    for path, passages in groups.items():
        out.append(path + b":\n")
        for p in sorted(passages, key=lambda p: p.start):
            out.append(f"Line {p.start}-{p.end}: ".encode() + _text(p) + b"\n")
    return b"".join(out)
