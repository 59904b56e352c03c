"""Which files rg takes for binary once it has decoded them (``-z``, ``--pre``, ``-E``).

The index reads a file's bytes, and a file whose bytes hold a NUL is one that rg skips while
walking. Where rg decompresses (``-z``) or preprocesses (``--pre``) files, it searches what
comes out instead: a ``.gz`` log is text to it, a ``.tar.gz`` still binary. Only rg knows,
so rrg asks it about the files whose bytes look binary, and only those.
"""

from __future__ import annotations

import base64
import json
import subprocess

from rrg.rg.args import RgArgs
from rrg.rg.ordered import batches

#: The flags that change what rg reads of a file, so the bytes it takes for binary or not.
_DECODING = frozenset(
    {
        "--search-zip",
        "--no-search-zip",
        "--pre",
        "--no-pre",
        "--pre-glob",
        "--encoding",
        "--no-encoding",
    }
)


def binary_once_decoded(rg: str, args: RgArgs, files: list[bytes]) -> set[bytes]:
    """Those of ``files`` that rg, decoding them as the user's flags ask, finds a NUL in:
    its walk stops there, and a count gives such a file none (where the NUL lies past the
    lines it printed, docs/differences.md).

    rg reads each by name as one piece (-U: a multi-line search reads the whole file before
    it matches the file's start, once) and says in its JSON where it found the first NUL.
    Read line by line instead, up to the first line (``--max-count 1``), a decoder's first
    piece is smaller than rg's buffer (8 KiB under ``-E latin1``), and a NUL past it went
    unseen: an Illustrator file's at 19,966 bytes made rrg name it, and rg printed "binary
    file matches" where its walk prints nothing (one at 80,518 bytes under -E utf-16: rg's
    JSON reports the matches past it, which --rerank printed). A file it cannot read (a preprocessor
    that fails) counts as text: the search reports it in rg's own words."""
    # The config file's decoding flags too, and none of its others: its -v or -x would
    # leave the first line unmatched, and rg then says nothing of a file (no end message).
    decoding = ["--no-config", *args.typed_args(_DECODING.__contains__, with_config=True)]
    found: set[bytes] = set()
    for batch in batches(files):
        cmd: list[str | bytes] = [
            rg,
            *decoding,
            "--json",
            "--multiline",
            "--max-count=1",
            "--regexp=\\A",
            "-j1",
            "--",
            *batch,
        ]
        done = subprocess.run(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
        )
        for line in done.stdout.splitlines():
            if not line.startswith(b'{"type":"end"'):
                continue
            data = json.loads(line)["data"]
            if data.get("binary_offset") is not None:
                found.add(_path(data["path"]))
    return found


def _path(field: dict[str, str]) -> bytes:
    """A path as rg's JSON gives it: text, or base64 bytes where it is no UTF-8."""
    if "text" in field:
        return field["text"].encode()
    return base64.b64decode(field["bytes"])
