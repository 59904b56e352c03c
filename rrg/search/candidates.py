"""Steps one and two of a query: the files rg would search, ranked against the query."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from rrg import timings
from rrg.environment import index_wait_s
from rrg.index.textstats import BINARY_SNIFF_BYTES, looks_binary, utf16_marked
from rrg.paths import relative_to, search_root
from rrg.rg.args import RgArgs
from rrg.rg.binary_files import binary_to_walk, may_be_decompressed, walk_gives_up
from rrg.rg.candidates import Candidates, list_candidates
from rrg.rg.chosen_lines import LineSpans
from rrg.rg.walk import CountWalk
from rrg.search.background import finish_in_background
from rrg.search.plan import QueryPlan

if TYPE_CHECKING:
    from rrg.index.refresh import Listing
    from rrg.index.scopes import Scope
    from rrg.index.served import ServedRoot
    from rrg.model.registry import ModelSpec
    from rrg.rank.files import Ranking

Warn = Callable[[str], None]
#: Of files rrg would name, those it has rg walk to alone (``late_nul_filter``).
LateNul = Callable[[list[bytes]], list[bytes]]
#: Binary files whose first line a search checks rg reads alone (``_first_lines_read_alone``):
#: a cost bound, not a tuned constant.
FIRST_LINES_READ = 2_000
#: Bytes read at a time where a file is read to its end for a NUL.
_PIECE = 1 << 20


class NothingMatches(Exception):
    """The early walk ended with no match and no message: there is nothing to order."""


def rank_candidates(
    plan: QueryPlan,
    warn: Warn,
    walk: CountWalk | None = None,
    order_only: bool = False,
    line_spans: bool = False,
) -> tuple[Candidates, Ranking]:
    """The files rg would search for these arguments, ranked against the plan's query. With a
    walk counting matches meanwhile: NothingMatches as soon as it found none. ``order_only``:
    the caller reads the order alone, not the passages the stage read (a repeated query may
    then read back the order it kept); ``line_spans``: the caller keeps where each file
    answers best (``Ranking.spans``) for a later search (a recall's scope)."""
    from rrg.rank.files import RankSettings, rank_files

    def check_walk() -> None:
        if walk is not None and walk.found_nothing():
            raise NothingMatches

    request = plan.request
    check_walk()
    with timings.phase("list+stat"):
        candidates, served, listing = list_and_stat(plan.rg, plan.args, plan.spec)
        if listing is not None and len(listing.paths) == len(candidates.paths):
            rows = (listing.size > BINARY_SNIFF_BYTES).nonzero()[0].tolist()
            candidates.long = frozenset(candidates.paths[k] for k in rows)
    settings = RankSettings(
        request.stage_files,
        warn,
        request.show_progress,
        checkpoint=check_walk,
        index_wait=index_wait_s(),
        order_only=order_only,
        line_spans=line_spans,
    )
    ranking = rank_files(request.query, served, candidates.paths, settings, listing)
    report = ranking.report
    if ranking.ahead_wanted:  # a whole index: its passages computed ahead, then embedded
        finish_in_background(served, plan.args.paths, request.model)
    if report is not None and report.left:
        started = finish_in_background(served, plan.args.paths, request.model)
        then = (
            "while the index is finished in the background"
            if started
            else "(each search indexes more; rrg --index builds it all)"
        )
        # Said where the tree has source to read first: in a tree of prose nothing is.
        first = ", the source first," if report.ahead else ""
        warn(
            f"indexed {report.listed - report.left:,} of {report.listed:,} files{first} in "
            f"the {settings.index_wait or 0:g} s a search waits for its index "
            f"(RRG_INDEX_WAIT_S); the others follow in rg's order {then}"
        )
    return candidates, ranking


def list_and_stat(
    rg: str, args: RgArgs, spec: ModelSpec
) -> tuple[Candidates, ServedRoot, Listing | None]:
    """rg's candidates, the root whose index serves them, and each one stat-ed for the
    freshness check while rg was still listing (None where the root cannot be opened: the
    refresh then stats them itself, or says why it cannot)."""
    from rrg.index.refresh import StatPass
    from rrg.index.served import serve

    served = serve(search_root(args.paths), spec)
    try:
        stat_pass = StatPass(served.folder)
    except OSError:
        return list_candidates(rg, args), served, None
    try:
        candidates = list_candidates(
            rg, args, lambda printed: stat_pass.add(relative_to(served.root, printed))
        )
    finally:
        listing = stat_pass.finish()
    return candidates, served, listing


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
    ranking: Ranking,
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
        return Searched(ranking.ordered, None)
    binary = ranking.binary
    unread = ranking.unread
    doubtful: set[bytes] = set()
    if not walked and unread:
        # The files the index has not read yet (a first search that stopped indexing
        # at RRG_INDEX_WAIT_S) say nothing of their NULs, and no walk leaves them out:
        # rg's walk prints nothing of a binary file, where one named is searched whole.
        binary = binary | {p for p in unread if p not in binary and _looks_binary(p)}
    if (not walked and not walks_late) or args.decodes_files:
        unsettled = [p for p in ranking.ordered if p not in binary]
        doubtful = set(_nul_past_first_read(unsettled, long))
    given = _given_files(args)
    binary, doubtful = binary - given, doubtful - given
    # rg reads a file's first bytes alone (looking for a byte-order mark), so a first line
    # of two bytes at most (``/*``) is searched before the read that finds the NUL, and
    # printed (-v, a pattern it matches) before rg gives the file up, or stops there (-m
    # 1), where named it would print "binary file matches".
    short = _first_lines_read_alone(ranking.ordered, binary) if walks_late else set()
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
        asked = [p for p in ranking.ordered if p in doubtful]
        given_up, printed = walk_gives_up(rg, args, asked, walks_late)
        # Those it stops in before the NUL print as a walk prints them, where lines print
        # (a count or a listing of one is the same named).
        lines = args.output_mode in ("lines", "--json")
        walked_to = frozenset(printed | (short - given_up if lines else set()))
        binary = binary | (given_up - walked_to)
    late = late_nul_filter(args, long, rg, walked_to) if walks_late else None
    if not binary:
        return Searched(ranking.ordered, late, walked_to)
    return Searched([p for p in ranking.ordered if p not in binary], late, walked_to)


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


def more_spans_of(ranking: Ranking) -> Callable[[list[bytes]], LineSpans]:
    """Where the files the cap's share cuts below the ranking's head answer best
    (``rrg.rank.cheap_spans``), imported only where a search asks: it loads the passages'
    scoring, 50 ms to a process that read its order back."""

    def spans(printed: list[bytes]) -> LineSpans:
        from rrg.rank.cheap_spans import spans_below_head

        return spans_below_head(ranking, printed)

    return spans


def more_scope_spans(
    scope: Scope, asked: ServedRoot, query: str
) -> Callable[[list[bytes]], LineSpans]:
    """Where the files a scope's search cuts answer ``query`` best, for those the scope
    holds no spans of (``rrg.rank.cheap_spans``, in the index that serves ``asked``); kept
    in the scope's sidecar where the query is the one the scope was recalled for (another
    query's are not the scope's)."""

    def spans(printed: list[bytes]) -> LineSpans:
        from rrg.index.scopes import keep_spans
        from rrg.index.served import serve
        from rrg.rank.cheap_spans import spans_in_root

        found = spans_in_root(serve(asked.root, asked.spec), query, printed)
        if query == scope.query:
            keep_spans(scope, found)
        return found

    return spans
