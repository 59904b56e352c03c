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

import os
import subprocess
import tempfile

from rrg.rg.args import RgArgs
from rrg.rg.flags import FILE_SELECTION_LONG

#: The flags that change what rg reads of a file: kept, though they also choose files.
_DECODING = frozenset({"--search-zip", "--no-search-zip", "--pre", "--no-pre", "--pre-glob"})
#: After the user's flags: a count of each file rg's walk reads as text (the last mode flag
#: wins). ``--include-zero`` prints a count of none too; a file given up as binary prints
#: nothing (rg's binary filter of counts).
_COUNT_EACH = [
    "--follow",
    "--no-ignore",
    "--hidden",
    "--count",
    "--include-zero",
    "--null",
    "--color=never",
    "--no-stats",
    "-j1",
]


def binary_to_walk(rg: str, args: RgArgs, files: list[bytes]) -> set[bytes]:
    """Those of ``files`` that rg's walk, searching as the user asks, gives up as binary.

    rg walks a folder of links to them, each under its own name (which decides how -z and
    --pre-glob decode it; a second file of one name goes in a second folder), with
    --follow, the user's flags and patterns, and none that choose files (a glob of the
    user's own folders would match no link). Asked of each file named instead, read at
    once as rg's JSON reports it, a NUL past 64 KiB went unseen (a log under -E latin1),
    and past a decoder's first piece when read a line at a time (an Illustrator file's
    NUL at 19,966 bytes under -E latin1, 8 KiB the piece). A file rg cannot read (a
    preprocessor that fails) is no binary file: the search reports it in rg's own words.
    Where no such folder can be made, every one of ``files`` counts as binary (the index's
    rule)."""
    if not files:
        return set()
    # The config file's flags too, but for those choosing files.
    searching = args.typed_args(
        lambda name: name != "--quiet" and (name not in FILE_SELECTION_LONG or name in _DECODING),
        with_config=True,
    )
    pattern = args.pattern_args if args.has_pattern else ["--regexp="]
    try:
        with tempfile.TemporaryDirectory(prefix="rrg-binary-") as farm:
            links = _linked(os.fsencode(farm), files)
            cmd = [rg, "--no-config", *searching, *pattern, *_COUNT_EACH, "--", farm]
            done = subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL)
    except OSError:
        return set(files)
    counted = _counted_paths(done.stdout)
    return {path for link, path in links.items() if link not in counted and link not in done.stderr}


def _linked(farm: bytes, files: list[bytes]) -> dict[bytes, bytes]:
    """Links under ``farm`` to ``files``, each under its own name: the file of each link."""
    links: dict[bytes, bytes] = {}
    taken: dict[bytes, int] = {}
    for path in files:
        name = os.path.basename(path)
        folder = os.path.join(farm, b"%d" % taken.get(name, 0))
        taken[name] = taken.get(name, 0) + 1
        os.makedirs(folder, exist_ok=True)
        link = os.path.join(folder, name)
        os.symlink(os.path.abspath(path), link)
        links[link] = path
    return links


def _counted_paths(counts: bytes) -> set[bytes]:
    """The paths of rg's ``--count --null`` records (``PATH NUL COUNT LF``; a path may
    hold a line end, never a NUL)."""
    paths: set[bytes] = set()
    at = 0
    while (end := counts.find(b"\0", at)) >= 0:
        paths.add(counts[at:end])
        at = counts.find(b"\n", end) + 1
        if at == 0:
            break
    return paths
