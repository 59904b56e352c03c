"""Which of the ranked files rrg names to rg: those rg's own walk would search.

rg searches a file it is given by name whole, even where it holds NULs ("binary file
matches"), where its walk of a folder gives such a file up. So a search in relevance order,
which names its files, leaves out those the walk would skip: told by their first bytes
where the index has not read them (``rrg.binary_sniff``), asked of rg itself where the
bytes do not settle it (``rrg.rg.binary_files``: rg decodes files, a NUL past its first
read), and walked to alone where rg's walk prints some of a file before giving it up.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import NamedTuple, Protocol

from rrg.binary_sniff import BINARY_SNIFF_BYTES, looks_binary, utf16_marked
from rrg.rg.args import RgArgs
from rrg.rg.binary_files import binary_to_walk, may_be_decompressed, walk_gives_up

#: Of files rrg would name, those it has rg walk to alone (``late_nul_filter``).
LateNul = Callable[[list[bytes]], list[bytes]]
#: Binary files whose first line a search checks rg reads alone (``_first_lines_read_alone``):
#: a cost bound, not a tuned constant.
FIRST_LINES_READ = 2_000
#: Bytes read at a time where a file is read to its end for a NUL.
_PIECE = 1 << 20


class RankedFiles(Protocol):
    """What the ranking tells of the files it ordered (``rrg.rank.files.Ranking``)."""

    @property
    def ordered(self) -> list[bytes]: ...  # best first, as rg prints their paths

    @property
    def binary(self) -> set[bytes]: ...  # those the index read as binary

    @property
    def unread(self) -> list[bytes]: ...  # those the index has not read yet


class Searched(NamedTuple):
    """The ranked files rg would search while walking, and how the search tells those it
    has rg walk to alone."""

    files: list[bytes]
    #: What tells, of files rrg names, those rg's walk gives up at a NUL past its first
    #: read, or, where rg decodes files, gives up having printed some of them
    #: (``late_nul_filter``); None where the search does not walk to them.
    late_nul: LateNul | None
    #: Those rg's walk prints something of that rg named would print otherwise, whatever
    #: rg's walk counted of them (it stops in a binary file's first line under -m).
    walked_to: frozenset[bytes] = frozenset()


def searched_files(
    rg: str,
    args: RgArgs,
    ranked: RankedFiles,
    walked: bool = False,
    walks_late: bool = False,
    long: frozenset[bytes] | None = None,
) -> Searched:
    """The ranked files rg would search while walking: not those it gives up as binary. rg
    reads a file it is given by name even where it holds NULs ("binary file matches"), so
    rrg names only these. Where the bytes do not settle it (rg decodes files: a .gz log is
    text to rg -z; a NUL past rg's first read), rg is asked (``rrg.rg.binary_files``).
    ``walked``: rg's own walk counts the matches (``rrg.rg.walk``), and leaves binary files
    out itself; those the index has not read that rrg names before it ends are left out a
    batch at a time (``unread_binary_filter``). ``walks_late``: the search has rg walk to
    each file with a NUL past its first read itself (``late_nul_filter``), so such files
    stay, and where rg decodes files, so do those it gives up having printed some of them
    (a crashed log rotated and compressed, under -z). ``long``: the files longer than rg's
    first read (``Candidates.long``), the only ones that can hold such a NUL (None: each
    is stat-ed)."""
    if args.binary_ok:
        return Searched(ranked.ordered, None)
    binary = ranked.binary
    unread = ranked.unread
    doubtful: set[bytes] = set()
    if not walked and unread:
        # The files the index has not read yet (a first search that stopped indexing
        # at RRG_INDEX_WAIT_S) say nothing of their NULs, and no walk leaves them out:
        # rg's walk prints nothing of a binary file, where one named is searched whole.
        binary = binary | {p for p in unread if p not in binary and _looks_binary(p)}
    if (not walked and not walks_late) or args.decodes_files:
        unsettled = [p for p in ranked.ordered if p not in binary]
        doubtful = set(_nul_past_first_read(unsettled, long))
    given = _given_files(args)
    binary, doubtful = binary - given, doubtful - given
    # rg reads a file's first bytes alone (looking for a byte-order mark), so a first line
    # of two bytes at most (``/*``) is searched before the read that finds the NUL, and
    # printed (-v, a pattern it matches) before rg gives the file up, or stops there (-m
    # 1), where named it would print "binary file matches".
    short = _first_lines_read_alone(ranked.ordered, binary) if walks_late else set()
    if args.unzips_only:
        # -z reads a file its name does not call compressed as without -z: such a binary
        # file is told by its bytes as there, not asked of rg's walk through a link each
        # (abseil's 598 time-zone files: a repeated -z search 0.73 s, 0.22 s now, as
        # without -z; benchmarks/decoder_cost.py).
        raw = {p for p in binary if not may_be_decompressed(p)}
        binary, doubtful = raw - short, (binary - raw) | doubtful | (raw & short)
    elif args.decodes_files:
        binary, doubtful = set(), binary | doubtful
    else:
        binary, doubtful = binary - short, doubtful | short
    walked_to: frozenset[bytes] = frozenset()
    if doubtful:
        asked = [p for p in ranked.ordered if p in doubtful]
        given_up, printed = walk_gives_up(rg, args, asked, walks_late)
        # Those it stops in before the NUL print as a walk prints them, where lines print
        # (a count or a listing of one is the same named).
        lines = args.output_mode in ("lines", "--json")
        walked_to = frozenset(printed | (short - given_up if lines else set()))
        binary = binary | (given_up - walked_to)
    late = late_nul_filter(args, long, rg, walked_to) if walks_late else None
    if not binary:
        return Searched(ranked.ordered, late, walked_to)
    return Searched([p for p in ranked.ordered if p not in binary], late, walked_to)


def unread_binary_filter(
    rg: str, args: RgArgs, unread: list[bytes]
) -> Callable[[list[bytes]], list[bytes]] | None:
    """For a search whose walk counts the files (``searched_files(..., walked=True)``): what
    leaves out of each batch rrg names to rg before that walk has ended the ``unread``
    files (those the index has not read yet: ``Ranking.unread``) that rg's walk would skip
    as binary; None where there are none. A first search of a large tree (116,000 files
    under /usr, 512 of them indexed in its wait on a busy machine) reads unread files by
    name while the walk runs, and rg, given a binary file by name, printed "binary file
    matches". Read a batch at a time, not ahead as ``searched_files`` reads them: most
    searches reach the cap long before."""
    if args.binary_ok or not unread:
        return None
    suspects = set(unread) - _given_files(args)

    def searched(batch: list[bytes]) -> list[bytes]:
        binary = [p for p in batch if p in suspects and _looks_binary(p)]
        if binary and args.decodes_files:
            # Under -z alone, one -z cannot decompress is told by its bytes, as without -z.
            asked = [p for p in binary if not args.unzips_only or may_be_decompressed(p)]
            gave_up = binary_to_walk(rg, args, asked)
            told = set(asked)
            binary = [p for p in binary if p in gave_up or p not in told]
        if not binary:
            return batch
        left_out = set(binary)
        return [p for p in batch if p not in left_out]

    return searched


def late_nul_filter(
    args: RgArgs,
    long: frozenset[bytes] | None,
    rg: str | None = None,
    walked_to: frozenset[bytes] | None = None,
) -> LateNul | None:
    """What tells, of files rrg would name, those holding a NUL past rg's first read
    (``long``: the files longer than it, where the listing knows them). rg's walk gives
    such a file up at that NUL, having printed its lines before it (a service's log whose
    last blocks a crash left as NULs), where rg given it by name searches it whole
    (``rrg.rg.ordered`` and ``rrg.rg.matches`` have rg walk to it alone); and
    ``walked_to``, those ``searched_files`` found rg's walk gives up having printed some
    of them (a first line read alone), or, where it did not look and ``rg`` is given, each
    binary file whose first line rg reads alone. Where rg decodes files (-z, --pre, -E), their
    bytes cannot tell it: ``walked_to`` alone, where ``searched_files`` asked rg already
    (it left the others out); else those rg's walk gives up, asked of it a batch at a
    time (``rg``). None where no such file can be told: rg reads binary files whole (-a),
    or decodes them and cannot be asked."""
    if args.binary_ok:
        return None
    given = _given_files(args)
    if args.decodes_files:
        if walked_to is not None:
            return lambda files: [p for p in files if p in walked_to]
        if rg is None:
            return None
        asking = rg

        def given_up(files: list[bytes]) -> list[bytes]:
            # Each is walked to alone (a run each) or left out: not named to rg, which
            # would search it whole.
            doubtful = [p for p in files if p not in given and _looks_binary(p)]
            doubtful += _nul_past_first_read([p for p in files if p not in given], long)
            gave_up = binary_to_walk(asking, args, doubtful)
            return [p for p in files if p in gave_up]

        return given_up

    also = walked_to or frozenset()
    # Where searched_files did not look (a --scope-file search), a binary file whose first
    # line rg reads alone is told here: walked to alone, it prints what rg's walk prints.
    first_lines = walked_to is None and rg is not None

    def late(files: list[bytes]) -> list[bytes]:
        asked = [p for p in files if p not in given]
        found = set(_nul_past_first_read(asked, long))
        if first_lines:
            found |= {p for p in asked if _first_line_read_alone(p) and _looks_binary(p)}
        return [p for p in files if p in found or p in also]

    return late


def _given_files(args: RgArgs) -> set[bytes]:
    """The PATHs given that are no folder: rg searches a file named as a PATH whatever it
    holds, as rrg must."""
    return {os.fsencode(p) for p in args.paths if not os.path.isdir(p)}


def _first_lines_read_alone(ordered: list[bytes], binary: set[bytes]) -> set[bytes]:
    """Those of the ``binary`` files whose first line rg reads alone, of the first
    ``FIRST_LINES_READ`` of them in the order: a bound on what every search pays (a read
    of 3 bytes a file, 29 ms for 3,000 on this machine), where a tree may hold a hundred
    thousand images; files that rank so late seldom print before the cap."""
    if not binary:
        return set()
    first = itertools.islice((p for p in ordered if p in binary), FIRST_LINES_READ)
    return {p for p in first if _first_line_read_alone(p)}


def _first_line_read_alone(path: bytes) -> bool:
    """Whether rg's first read of a file, of its first 3 bytes alone (a UTF-8 byte-order
    mark's length), holds a whole line: a first line of two bytes at most."""
    try:
        with open(path, "rb") as file:
            return b"\n" in file.read(3)
    except OSError:
        return False


def _looks_binary(path: bytes) -> bool:
    """Whether the index would mark a file binary once it reads it (``looks_binary``: a NUL
    in rg's first read, no UTF-16 byte order mark), read as the index reads it."""
    try:
        with open(path, "rb") as file:
            return looks_binary(file.read(BINARY_SNIFF_BYTES))
    except OSError:
        return False  # rg says what it cannot read, in its own words


def _nul_past_first_read(files: list[bytes], long: frozenset[bytes] | None) -> list[bytes]:
    """Those of ``files`` (text to rg's first 64 KiB read) that hold a NUL further on (a
    log with a stray NUL, a database dump): a line-by-line walk gives such a file up at
    its NUL and lists or counts it no more, where rg given it by name searched it whole.
    Only a longer file can hold one: those in ``long`` (None: each file is stat-ed)."""
    found: list[bytes] = []
    for path in files:
        if long is not None and path not in long:
            continue
        try:
            if os.stat(path).st_size <= BINARY_SNIFF_BYTES:
                continue
            with open(path, "rb") as file:
                head = file.read(BINARY_SNIFF_BYTES)
                if utf16_marked(head) or b"\x00" in head:
                    continue  # a UTF-16 file rg decodes, or binary by the index's rule
                while piece := file.read(_PIECE):
                    if b"\x00" in piece:
                        found.append(path)
                        break
        except OSError:
            continue  # rg says what it cannot read, in its own words
    return found
