"""rg's ``--hyperlink-format`` links on the lines rrg prints itself (``--rerank``'s).

rg links a line's prelude (its path, line and column numbers) to the match: with
``--hyperlink-format vscode``, ``vscode://file/abs/path:12:5``. rg alone knows a path's link
(its absolute form, its percent-encoding, the host, the WSL prefix), so rrg asks rg for each
file's link as ``rg --files`` prints it (``rrg.rg.palette.painted_paths``), where the line
and the column are 1, and writes another line's and column's into the same format: the
format's other variables are read off that link.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rrg.rg.args import RgArgs

#: rg's aliases (crates/printer/src/hyperlink/aliases.rs, ripgrep 15; ``default`` as on
#: Unix). A format rg does not know, or an alias of a later rg, gives no line link.
ALIASES = {
    "cursor": "cursor://file{path}:{line}:{column}",
    "default": "file://{host}{path}",
    "file": "file://{host}{path}",
    "grep+": "grep+://{path}:{line}",
    "kitty": "file://{host}{path}#{line}",
    "macvim": "mvim://open?url=file://{path}&line={line}&column={column}",
    "none": "",
    "textmate": "txmt://open?url=file://{path}&line={line}&column={column}",
    "vscode": "vscode://file{path}:{line}:{column}",
    "vscode-insiders": "vscode-insiders://file{path}:{line}:{column}",
    "vscodium": "vscodium://file{path}:{line}:{column}",
}
_VARIABLES = ("host", "wslprefix", "path", "line", "column")
#: OSC 8, as rg opens and closes a link.
_OPEN = re.compile(rb"\x1b\]8;;(.*?)\x1b\\")
CLOSE = b"\x1b]8;;\x1b\\"

#: The link of one line: its number (None where none is printed) and its column, 1-based.
LineLink = Callable[[int | None, int], bytes]


def parts(format_: str) -> list[tuple[str, str]] | None:
    """The format as rg parses it: ``("text", ...)`` and ``("var", name)`` pieces; ``{{``
    and ``}}`` are a brace. None where rg would refuse it (it has then said so)."""
    out: list[tuple[str, str]] = []
    text = ""
    k = 0
    while k < len(format_):
        if format_.startswith(("{{", "}}"), k):
            text += format_[k]
            k += 2
        elif format_[k] == "{":
            end = format_.find("}", k)
            if end < 0 or format_[k + 1 : end] not in _VARIABLES:
                return None
            out += [("text", text)] if text else []
            out.append(("var", format_[k + 1 : end]))
            text = ""
            k = end + 1
        elif format_[k] == "}":
            return None
        else:
            text += format_[k]
            k += 1
    return [*out, ("text", text)] if text else out


def format_of(args: RgArgs) -> str | None:
    """The ``--hyperlink-format`` in force (the last given, rg's config file's first), its
    alias written out; None where none is set."""
    given = [value for name, value in args.flags if name == "--hyperlink-format"]
    if not given or given[-1] is None:
        return None
    return ALIASES.get(given[-1], given[-1])


def line_links(format_: str, painted: bytes) -> LineLink | None:
    """Each line's link for a file that ``rg --files`` printed as ``painted``; None where rg
    drew no link around it, or the link does not read as the format written out."""
    opened = _OPEN.match(painted)
    split = parts(format_)
    if opened is None or not split:
        return None
    listed = opened.group(1)
    # The link as rg wrote it for line 1, column 1: each other variable a group.
    pattern = b""
    seen: set[str] = set()
    for kind, value in split:
        if kind == "text":
            pattern += re.escape(value.encode())
        elif value in ("line", "column"):
            pattern += b"1"
        elif value in seen:
            pattern += b"(?P=" + value.encode() + b")"
        else:
            seen.add(value)
            pattern += b"(?P<" + value.encode() + b">.*?)"
    found = re.fullmatch(pattern, listed, re.S)
    if found is None:
        return None
    values = {name: found.group(name) for name in seen}

    def link(line: int | None, column: int) -> bytes:
        values["line"] = str(line or 1).encode()
        values["column"] = str(column).encode()
        url = b"".join(value.encode() if kind == "text" else values[value] for kind, value in split)
        return b"\x1b]8;;" + url + b"\x1b\\"

    return link
