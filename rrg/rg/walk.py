"""One counting walk: ``rg -j1 --count`` over the user's PATHs, read in the background.

A walk reads every file rg lists, so its counts do not depend on the order rrg chooses: it
can start before the ranking does, on the other core, while rrg imports, lists and ranks.
Where matches are sparse its counts replace the reads by name (rg opens a file it walks to
at about two thirds of the cost of a named one); where nothing matches at all, rrg has
nothing to order and stops as soon as the walk says so. Where matches are dense and the
search has a cap, the walk is stopped: the first files read by name reach the cap. A walk
serving a search's counts (no cap, or chosen once it paid) always reads to the end.
"""

from __future__ import annotations

import io
import subprocess
import threading

from rrg.errors import EXIT_ERROR, EXIT_NO_MATCH
from rrg.rg.args import RgArgs
from rrg.rg.children import started
from rrg.rg.replies import StderrFilter, count_records, reaped
from rrg.rg.stats import files_with_matches

# Appended after the user's flags: rg lets the last mode flag win. The paths of a count
# record are matched against the listing's, so they keep rg's own separator whatever
# --path-separator the user's printed lines take.
COUNT_FLAGS = [
    "--count",
    "--with-filename",
    "--null",
    "--no-stats",
    "--color=never",
    "--path-separator=/",
]
#: A walk is stopped once it found matches in this many times --limit files. Reading by name
#: pays where matches lie in more than NAMED_COST x the cap's files (evenly spread, the cap
#: is then reached before NAMED_COST**-1 of the files are read); twice leaves a margin.
DENSE_FACTOR = 2
#: A capped walk whose report grows past this is stopped too (paths that long, that many):
#: it was started on speculation, and its report would cost memory.
OUTPUT_LIMIT = 8 << 20


def count_command(rg: str, args: RgArgs, paths: list[str] | list[bytes]) -> list[str | bytes]:
    """rg walking PATHs on one thread, counting matches per file with the user's flags and
    patterns. Line-buffered: each file's count arrives as it is found, so that a dense walk
    is stopped after a few files rather than a pipe buffer's worth. Where a file the walk
    gives up at a NUL past its first read may print lines (``tells_given_up``), with rg's
    --stats block: it counts such a file among those that matched, its count unprinted."""
    # No count of 0 (a user's --include-zero under -l, which rg ignores there): the walk
    # counts the files it reports as the files with matches.
    flags = [*COUNT_FLAGS, "--no-include-zero", "--line-buffered", "-j1"]
    if tells_given_up(args):
        flags.append("--stats")
    return [rg, *args.count_args(), *args.pattern_args, *flags, "--", *paths]


def tells_given_up(args: RgArgs) -> bool:
    """Whether a walk's count should tell the files it gave up as binary after a match:
    rg's walk prints such a file's lines before its NUL (and lists it under -l), or under
    -c and --count-matches, which print nothing of it, its --stats block counts them; not
    where rg reads binary files whole (-a)."""
    counting = args.output_mode in ("--count", "--count-matches")
    return not args.binary_ok and (not counting or args.stats_block)


def walk_applies(args: RgArgs, reranking: bool) -> bool:
    """Whether a ``-q`` search with these arguments may take its counts from a walk: a
    search whose records a count pass gives (not --files-without-match, --include-zero,
    --quiet or a rerank, which read files their own way)."""
    mode = args.output_mode
    return (
        args.has_pattern
        and not args.files_mode
        and not reranking
        and mode not in ("--quiet", "--files-without-match")
        and not args.counts_zeros
    )


def start_query_walk(rg: str, args: RgArgs, reranking: bool, cap: int) -> CountWalk | None:
    """The walk a ``-q`` search with these arguments starts at once (``cap``: its
    --limit), or None where a walk cannot give its counts (``walk_applies``)."""
    if not walk_applies(args, reranking):
        return None
    return CountWalk(count_command(rg, args, args.paths), cap, args.nul_ended)


class CountWalk:
    """The walk, started at once; its report is read by threads so rg never waits."""

    def __init__(self, cmd: list[str | bytes], cap: int = 0, nul_ended: bool = False) -> None:
        # ``cap``: the search's --limit, for a walk started on speculation, which stops
        # where matches prove dense. 0 (no cap, or a walk chosen to serve the counts): it
        # reads to the end, since its counts are the search's.
        self.most_files = DENSE_FACTOR * cap if cap else None
        self.nuls_a_record = 2 if nul_ended else 1
        self.proc = started(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
        )
        self.report = bytearray()
        self.nuls = 0  # in the report so far: one a record, two under --null-data
        self.stopped = False  # for density or size: its report is not whole
        self.messages = StderrFilter(self.proc, set(), only_listed=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        while chunk := self.proc.stdout.read1(65536):  # type: ignore[attr-defined]
            self.report += chunk
            self.nuls += chunk.count(b"\0")
            limit = self.most_files
            if limit is not None and (self.files > limit or len(self.report) > OUTPUT_LIMIT):
                self.stopped = True
                self.report = bytearray()
                self.proc.kill()
                break

    @property
    def files(self) -> int:
        """Files with matches reported so far."""
        return self.nuls // self.nuls_a_record

    @property
    def usable(self) -> bool:
        return not self.stopped

    def ended(self) -> bool:
        """rg has exited and its report is read."""
        return self.proc.poll() is not None and not self.reader.is_alive()

    def found_nothing(self) -> bool:
        """Finished, without a match, a message or an error: nothing to order or print."""
        if not self.ended():
            return False
        self.messages.reader.join()
        return (
            self.proc.returncode == EXIT_NO_MATCH
            and not self.files
            and not self.gave_up_after_match()
            and not self.messages.lines
            and not self.stopped
        )

    def gave_up_after_match(self) -> bool:
        """Whether, by its --stats block, the walk matched in more files than it counted:
        it gave up those as binary at a NUL past its first read, having printed lines of
        them. Only where it ended whole; False where it printed no block."""
        if self.stopped or not self.ended():
            return False
        matched = files_with_matches(self.report)
        return matched is not None and matched > self.files

    def counts(self, wanted: set[bytes]) -> tuple[dict[bytes, int], bool]:
        """Waits for the walk: the count of each wanted file with matches, and whether rg
        reported an error about one of them (its message is written then)."""
        self.reader.join()
        rc = reaped(self.proc)
        found = {p: c for p, c in count_records(io.BytesIO(self.report)) if c > 0 and p in wanted}
        # Only messages about wanted files stand: the listing already reported the folders
        # it could not read, and the named runs the files read before the walk.
        self.messages.listed = wanted
        return found, rc == EXIT_ERROR and self.messages.finish()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.reader.join()
        self.messages.reader.join()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
