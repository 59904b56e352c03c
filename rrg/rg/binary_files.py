"""Which of the files rrg would name rg's walk takes for binary, asked of rg itself.

rrg names the files it searches, and rg searches a file it is given by name whole ("binary
file matches"), where its walk gives up a file at a NUL. The index knows a NUL in a file's
first 64 KiB, and that settles most files; where it does not, only rg's walk knows:

- where rg decodes files (``-z``, ``--pre``, ``-E``) it searches what comes out: a ``.gz``
  log is text to it, a ``.tar.gz`` still binary;
- a NUL further on ends a line-by-line search wherever it lies, a multi-line one (which
  reads the file at once) only where a match or its context reaches it, and never past
  ``--max-count``'s last match.

So rg walks the doubtful files themselves, with the user's search.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import tempfile

from rrg.rg.args import RgArgs
from rrg.rg.flags import FILE_SELECTION_LONG
from rrg.rg.replies import count_records
from rrg.rg.walk import COUNT_FLAGS

#: The flags that change what rg reads of a file: kept, though they also choose files.
_DECODING = frozenset({"--search-zip", "--no-search-zip", "--pre", "--no-pre", "--pre-glob"})
#: After the user's flags: a count of each file rg's walk reads as text, its path printed as
#: the walk's counts print it (``COUNT_FLAGS``: the last mode flag wins, whatever -I or
#: --path-separator the user gave). ``--include-zero`` prints a count of none too; a file
#: given up as binary prints nothing (rg's binary filter of counts).
_COUNT_EACH = ["--follow", "--no-ignore", "--hidden", "--include-zero", "-j1", *COUNT_FLAGS]


def binary_to_walk(rg: str, args: RgArgs, files: list[bytes]) -> set[bytes]:
    """Those of ``files`` that rg's walk, searching as the user asks, gives up as binary.

    rg walks a folder of links to them, each at its own path below the folder (which
    decides what -z decompresses and --pre-glob preprocesses, as in the user's walk), with
    --follow, the user's flags and patterns, and none that choose files. Asked of each file
    named instead, read at once as rg's JSON reports it, a NUL past 64 KiB went unseen (a
    log under -E latin1), and past a decoder's first piece when read a line at a time (an
    Illustrator file's NUL at 19,966 bytes under -E latin1, 8 KiB the piece). A file rg
    cannot read (a preprocessor that fails) is no binary file: the search reports it in
    rg's own words. Where no such folder can be made, every one of ``files`` counts as
    binary (the index's rule)."""
    if not files:
        return set()
    try:
        with tempfile.TemporaryDirectory(prefix="rrg-binary-") as farm:
            links = _linked(os.fsencode(farm), files)
            cmd = [rg, "--no-config", *_searching(args, quiet=False), *_COUNT_EACH, "--", "."]
            done = subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL, cwd=farm)
    except OSError:
        return set(files)
    counted = {path for path, _ in count_records(io.BytesIO(done.stdout))}
    return {
        path
        for link, path in links.items()
        if b"./" + link not in counted and link not in done.stderr
    }


#: After the user's flags, for rg's walk to one file alone: the entries of the file's folder
#: (rg walks to it there, as the user's walk did), whatever rule would hide it (the user's
#: walk chose it already), the file itself picked by a glob of its name.
_TO_ONE_FILE = ["--max-depth=1", "--hidden", "--no-ignore", "--follow", "-j1"]
#: What a glob reads as more than a letter: each escaped in the glob that names a file.
_GLOB_SPECIAL = re.compile(rb"([\\*?\[\]{}!,])")


def walks_alone(path: bytes) -> bool:
    """Whether rg can walk to ``path`` alone: a glob names it, and rg takes only UTF-8 in a
    glob ("value is not valid UTF-8"), where a file's name may be any bytes."""
    try:
        path.rpartition(b"/")[2].decode()
    except UnicodeDecodeError:
        return False
    return True


def walk_alone_command(
    rg: str, args: RgArgs, path: bytes, extra: list[str], counting: bool = False
) -> list[str | bytes]:
    """rg's walk to ``path`` alone, searching as the user asks (the config file's flags
    too, but none that choose files), then ``extra``: it prints what the user's walk printed
    of that file, byte for byte, its path spelled as that walk spelled it (the folder is
    rg's PATH, the implicit one where the path names none). ``counting``: less --quiet,
    for a run whose output is read (``extra`` a --json, say)."""
    folder, slash, name = path.rpartition(b"/")
    if slash and not folder:
        folder = b"/"  # a file at the root of the file system
    glob = _GLOB_SPECIAL.sub(rb"\\\1", name)
    return [
        rg,
        "--no-config",
        *_searching(args, quiet=not counting),
        *extra,
        *_TO_ONE_FILE,
        b"--glob=" + glob,
        "--",
        *([folder] if folder else []),
    ]


def _searching(args: RgArgs, quiet: bool) -> list[str]:
    """The user's search for a run that reads no config file: its flags (the config file's
    first) less those that choose files (but those that decode them), then its patterns.
    ``quiet``: --quiet kept; a run whose output rrg reads drops it."""
    flags = args.typed_args(
        lambda name: (
            (name not in FILE_SELECTION_LONG or name in _DECODING) and (quiet or name != "--quiet")
        ),
        with_config=True,
    )
    return [*flags, *(args.pattern_args if args.has_pattern else ["--regexp="])]


def _linked(farm: bytes, files: list[bytes]) -> dict[bytes, bytes]:
    """Links under ``farm`` to ``files``, each at the path rrg names it by (a --pre-glob of
    ``logs/*.gz`` matches there as in the user's walk; a leading ``/`` or ``..`` made a
    folder's name): each link's path below ``farm``, and the file it links to."""
    links: dict[bytes, bytes] = {}
    for path in files:
        parts = [b"up" if p == b".." else p for p in path.split(b"/") if p not in (b"", b".")]
        link = b"/".join(parts)
        if link in links:  # two spellings of one path: the second in a folder apart
            link = b".rrg-%d/%s" % (len(links), link)
        where = os.path.join(farm, link)
        os.makedirs(os.path.dirname(where), exist_ok=True)
        os.symlink(os.path.abspath(path), where)
        links[link] = path
    return links
