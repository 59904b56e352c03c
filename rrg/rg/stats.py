"""rg's ``--stats`` block over several runs: read off the end of each run's output, added
up, written once at the end, as rg ends its own search with one.

rrg runs rg many times for one ``-q`` search (batches, the last file cut at the cap); each
run would end its output with a block of its own, so blocks fell amid the matches. The one
block counts what the runs that printed saw, as ``--json``'s one summary does.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator

#: rg's block: a blank line, then six counts and two times, each on a line of its own.
_BLOCK = re.compile(
    rb"\n(\d+) matches\n(\d+) matched lines\n(\d+) files contained matches\n"
    rb"(\d+) files searched\n(\d+) bytes printed\n(\d+) bytes searched\n"
    rb"([\d.]+) seconds spent searching\n[\d.]+ seconds total\n\Z"
)
#: More than a block can take up (eight lines of a count and a few words): the bytes held
#: back at the end of a run's output until it ends, in case they are its block.
_HOLD = 512
_COUNTS = (
    "matches",
    "matched lines",
    "files contained matches",
    "files searched",
    "bytes printed",
    "bytes searched",
)


def files_with_matches(output: bytes | bytearray) -> int | None:
    """The files the ``--stats`` block that ends ``output`` says held a match (None: it
    ends with no block). Its tail alone is read (a walk's report may be megabytes)."""
    block = _BLOCK.search(bytes(output[-_HOLD:]))
    return None if block is None else int(block.group(3))


class StatsTally:
    """The blocks of one search's rg runs, added up."""

    def __init__(self) -> None:
        self.counts = [0] * len(_COUNTS)
        self.searching = 0.0
        self.started = time.monotonic()

    def strip(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """A run's output as it comes, less the block it ends with (counted here)."""
        held = b""
        for chunk in chunks:
            held += chunk
            if len(held) > _HOLD:
                yield held[:-_HOLD]
                held = held[-_HOLD:]
        block = _BLOCK.search(held)
        if block is not None:
            for i in range(len(_COUNTS)):
                self.counts[i] += int(block.group(i + 1))
            self.searching += float(block.group(7))
            held = held[: block.start()]
        if held:
            yield held

    def block(self) -> bytes:
        """The one block, in rg's words; its total time is rrg's search's."""
        lines = [f"{n} {name}" for n, name in zip(self.counts, _COUNTS, strict=True)]
        lines.append(f"{self.searching:.6f} seconds spent searching")
        lines.append(f"{time.monotonic() - self.started:.6f} seconds total")
        return ("\n" + "\n".join(lines) + "\n").encode()
