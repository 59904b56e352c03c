"""Running rg over files in a given order and stopping at a global cap.

Lines mode uses two passes so that every printed byte is rg's own: a count pass
(``rg -j1 --count``) streams per-file match counts in order and is killed as soon as the cap
is reached; a print pass runs rg with the user's own flags over just the files needed, the
last one cut with ``--max-count``. rg separates files inside one run; between runs this
module writes the separator rg would have written.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from rrg import streams, timings
from rrg.errors import EXIT_ERROR, EXIT_MATCH, EXIT_NO_MATCH
from rrg.excerpt import MARK_FLAGS, NO_LINKS, Paints, cut_line, painted, plain, prefix_pattern
from rrg.rg.args import RgArgs, unescape
from rrg.rg.binary_files import walk_alone_command, walks_alone
from rrg.rg.children import started
from rrg.rg.chosen_lines import (
    LINES_FLAGS,
    LINES_PASS_MOST,
    LeftOut,
    LineSpans,
    Segments,
    choice_applies,
    chosen,
    first_lines,
    kept_lines,
    kept_messages,
    matching_line_numbers,
)
from rrg.rg.replies import StderrFilter, count_records, reaped
from rrg.rg.stats import StatsTally
from rrg.rg.walk import COUNT_FLAGS, CountWalk, count_command

#: One of rg's JSON messages, or a part of one, as ``json.loads`` gives it.
Json = dict[str, Any]
#: One print run: its files, the flags added for it (a ``--max-count``), the places of the
#: matching lines each file prints (``rrg.rg.chosen_lines``; None: all rg prints), and the
#: matches a one-file run prints where each prints as a line (None: all rg prints).
PrintRun = tuple[list[bytes], list[str], Segments | None, int | None]


def _batch_bytes() -> int:
    """Bytes of paths per rg run: a quarter of ARG_MAX (which also holds the environment),
    at most 1 MiB, at least 96 KiB. Each rg run costs a process start, so on a large tree
    fewer, longer runs are faster."""
    try:
        arg_max = os.sysconf("SC_ARG_MAX")
    except (ValueError, OSError):
        arg_max = -1
    return min(max(arg_max // 4, 96 * 1024), 1 << 20)


_BATCH_BYTES = _batch_bytes()
_FIRST_BATCH = 32  # small at first so the best files print at once
#: rg reads a file it is given by name at about this cost against a file it walks to (two
#: stats and an lstat before the open): 1.45x at 20,000 files, 1.7x at 1M.
NAMED_COST = 1.5
#: Files with matches handed to one print run once the walk found them.
_PRINT_GROUP = 4096
#: The most a file cut under --vimgrep may print whole (its matches by its longest line)
#: for its first matches to come from a shared run: sympy's files fit (a file's longest
#: line of 100-300 bytes by its matches), a minified line of 300 KB does not.
VIMGREP_ALL_BYTES = 4 << 20
#: The share of the cap a file prints before later files print theirs (what the shares
#: leave goes to the best files): at the default --limit 30, 1 line a file, so the cap
#: shows up to 30 files where the first ones match often. Chosen on the whole-repository
#: dev half of semble-code (a labelled file's line within the cap, the query's words as
#: the pattern): no share .629, 5 lines .862, 3 .918, 2 .938, 1 .969
#: (docs/benchmarks.md, "A cap that reaches the answer").
FILE_SHARE = 1 / 30


@dataclass(frozen=True)
class HeldBack:
    """What the per-file share of the cap left unprinted."""

    lines: int  # matching lines (matches, where each prints as a line) not printed
    files: int  # in how many files
    share: int  # the lines each file printed first
    rest_to_best: bool  # the shares left room in the cap, given to the best files
    unit: str = "line"  # what the counts count: "line", or "match" (-o, --vimgrep)


@dataclass
class StreamResult:
    printed: int = 0  # matching lines (or records) printed
    matched: bool = False
    error: bool = False
    capped: bool = False  # the cap stopped the search with matches left
    held: HeldBack | None = None
    facts: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if self.error:
            return EXIT_ERROR
        return EXIT_MATCH if self.matched else EXIT_NO_MATCH


def batches(paths: list[bytes]) -> Iterator[list[bytes]]:
    """Consecutive slices of paths, small first, each under the argument budget."""
    size = _FIRST_BATCH
    i = 0
    while i < len(paths):
        batch: list[bytes] = []
        used = 0
        while i < len(paths) and len(batch) < size and used + len(paths[i]) + 1 < _BATCH_BYTES:
            batch.append(paths[i])
            used += len(paths[i]) + 1
            i += 1
        if not batch:  # a single path over the budget still goes, alone
            batch = [paths[i]]
            i += 1
        yield batch
        size *= 4


@dataclass(frozen=True)
class StreamSettings:
    """How one ordered search streams: the cap, rg's layout choices that rrg must repeat
    between its runs, and whether a walk may replace reading files by name."""

    cap: int  # matching lines (or records) printed before rg is stopped; 0 = no cap
    with_filename: bool
    excerpt: int = 0  # characters kept around a long line's match; 0 = lines whole
    terminal: bool = False  # standard output is a terminal: rg then prints file headings
    # The user's PATHs when the files to search are exactly what rg lists under them (minus
    # binary files): then one walking count pass may replace the named ones.
    walk_paths: list[str] | None = None
    early_walk: CountWalk | None = None  # that walk, started before the ranking
    # Where in each file the query is answered best: a file the cap's share cuts prints
    # its matching lines there (``rrg.rg.chosen_lines``); a file without: its first lines.
    spans: LineSpans | None = None
    # The spans of cut files that ``spans`` lacks (files below the order's head), asked
    # once the count pass has found them.
    more_spans: Callable[[list[bytes]], LineSpans] | None = None
    # The user's colours for the excerpt's marks, where colour is wanted; None: plain.
    excerpt_paints: Paints | None = None
    # Leaves out of a batch of files named to rg, before the walk has ended, those its walk
    # would skip as binary that the ranking could not tell (files not indexed yet).
    named_filter: Callable[[list[bytes]], list[bytes]] | None = None
    # Of files rrg would name, those holding a NUL past rg's first read
    # (``rrg.rg.searched_files.late_nul_filter``): rg's walk gives such a file up at the
    # NUL, having printed its lines before it, and named it searches it whole; so rg walks
    # to it alone (``walk_alone_command``). None: no such file can be told (-a, -z ...).
    late_nul: Callable[[list[bytes]], list[bytes]] | None = None
    # Files rg walks to alone whatever the counting walk counted of them: a binary file
    # whose first line rg reads alone, where -m stops it before the NUL (named, rg would
    # print "binary file matches").
    walked_to: frozenset[bytes] = frozenset()


class OrderedSearch:
    """One ``-q`` search: rg's flags, the ordered files, the cap. What rrg itself prints
    between rg's runs goes to ``write`` (rg's own runs write to the inherited stdout)."""

    def __init__(
        self, rg: str, args: RgArgs, settings: StreamSettings, write: Callable[[bytes], None]
    ) -> None:
        self.rg = rg
        self.write = write
        self.terminal = settings.terminal
        self.walk_paths = settings.walk_paths
        self.early_walk = settings.early_walk if settings.walk_paths is not None else None
        self.excerpt = settings.excerpt
        self.excerpt_paints = settings.excerpt_paints
        self.named_filter = settings.named_filter
        self.late_nul = settings.late_nul
        self.walked_to = settings.walked_to
        self.walked_alone: set[bytes] = set()  # files printed by a walk to each alone
        applies = choice_applies(args, settings.terminal)
        self.spans = settings.spans if applies else None
        self.more_spans = settings.more_spans if applies else None
        self.lines_cut = 0
        self.summary: Json | None = None
        self.args = args
        self.cap = settings.cap
        self.user_flags = args.search_args()
        self.count_flags = args.count_args()
        # Each match a line of its own (-o, --vimgrep): the cap counts matches.
        self.each_match = args.prints_each_match
        self.patterns = args.pattern_args
        self.prefix = ["-H"] if settings.with_filename else []
        # Each run's --stats block is taken off its output; one is written at the end.
        self.stats = StatsTally() if args.stats_block else None

    def _cmd(
        self, extra: list[str], files: Sequence[str | bytes], counting: bool = False
    ) -> list[str | bytes]:
        return [
            self.rg,
            *self.prefix,
            *(self.count_flags if counting else self.user_flags),
            *self.patterns,
            *extra,
            "-j1",
            "--",
            *files,
        ]

    # ---- lines mode --------------------------------------------------------------------
    def run_lines(self, paths: list[bytes]) -> StreamResult:
        result = StreamResult()
        json_mode = self.args.output_mode == "--json"
        separator = b"" if json_mode else self._file_separator()
        self.summary = None
        first_output = True
        for files, extra, segments, matches in self._print_runs(paths, result):
            if not files:
                continue
            if not first_output and separator:
                self.write(separator)
            first_output = False
            result.error |= self._print(files, extra, json_mode, segments, matches)
        if json_mode:
            self.write(summary_message(self.summary))
        return result

    def _print_runs(self, paths: list[bytes], result: StreamResult) -> Iterator[PrintRun]:
        """The print runs of a lines search: files with matches in order, each run with
        the ``--max-count`` its files are cut at (none: every matching line), or, for files
        whose lines are chosen, each file's count and the places among its matching lines
        of those it prints (``rrg.rg.chosen_lines``). Where each match prints as a line
        (``-o``, ``--vimgrep``), the counts are matches and a file cut prints that many
        (``-m`` cuts lines, and one line may hold thousands): its first ones."""
        each_match = self.each_match
        share = self.file_share()
        if share is None:
            for group, last_cut in self._counted_groups(paths, result):
                whole = group if last_cut is None else group[:-1]
                for run in self._walked_apart(whole):
                    yield run, [], None, None
                if last_cut is not None:
                    cut_run = ["--max-count", str(last_cut)]
                    yield group[-1:], cut_run, None, last_cut if each_match else None
            return
        cuts = list(self._shared_cuts(paths, result, share))
        chosen_places = self._chosen_places(cuts)
        # The counts are exact there, so a cut file prints its first matches from a shared
        # run, rg printing all of them (one file a run: 0.03 -> 0.25 s for 30 files on
        # sympy). Where that is cheap: -o prints a match's text alone, no more than the
        # file's bytes; --vimgrep a match's whole line, which a minified file's thousands
        # of matches print thousands of times: such a file prints alone and stops there.
        places_apart = each_match and not (
            self.args.heading(self.terminal) and self.args.has("--null")
        )
        vimgrep = self.args.has("--vimgrep")
        runs: list[PrintRun] = []
        for path, count, cut in cuts:
            if path in self.walked_alone:
                extra = [] if cut is None else ["--max-count", str(cut)]
                runs.append(([path], extra, None, cut if each_match else None))
                continue
            places = chosen_places.get(path)
            if places is None and cut is not None and places_apart:
                # Read only for a file cut (the shares' few), and only under --vimgrep.
                places = (
                    set(range(cut)) if not vimgrep or self._prints_little(path, count) else None
                )
            last = runs[-1] if runs else None
            if places is not None:
                if last is not None and last[2] is not None:
                    last[0].append(path)
                    last[2].append((count, places))
                else:
                    runs.append(([path], [], [(count, places)], None))
                continue
            extra = [] if cut is None else ["--max-count", str(cut)]
            if each_match and cut is not None:
                runs.append(([path], extra, None, cut))
            elif (
                last is not None
                and last[1] == extra
                and last[2] is None
                and last[3] is None
                and last[0][0] not in self.walked_alone
            ):
                last[0].append(path)
            else:
                runs.append(([path], extra, None, None))
        yield from runs

    def _prints_little(self, path: bytes, count: int) -> bool:
        """Whether ``count`` matches of a file printed with their whole lines (--vimgrep)
        print little: at most ``VIMGREP_ALL_BYTES`` where each is of its longest line. A file
        rg decodes (-z, --pre, -E) is not what its bytes say: no."""
        if self.args.decodes_files:
            return False
        try:
            with open(path, "rb") as fh:
                longest = max(map(len, fh.read(VIMGREP_ALL_BYTES).split(b"\n")))
                whole = not fh.read(1)
        except OSError:
            return False
        return whole and longest * count <= VIMGREP_ALL_BYTES

    def _walked_apart(self, files: list[bytes]) -> Iterator[list[bytes]]:
        """``files`` as consecutive runs, each file rg walks to alone a run of its own."""
        run: list[bytes] = []
        for path in files:
            if path in self.walked_alone:
                if run:
                    yield run
                yield [path]
                run = []
            else:
                run.append(path)
        if run:
            yield run

    def late_nul_in(self, files: list[bytes]) -> set[bytes]:
        """Those of ``files`` holding a NUL past rg's first read (none where no such file
        can be told)."""
        return set(self.late_nul(files)) if self.late_nul is not None and files else set()

    def _walked_count(self, path: bytes) -> int:
        """What rg's walk prints of a file with a NUL past its first read, as the count
        pass counts it: its matching lines (matches, where each prints as a line) before
        the NUL, which ``_print`` then prints by the same walk; 1 under -l and --quiet where
        the walk lists it (exits 0); none under -c and --count-matches, where rg's walk
        prints no count of a file it gave up."""
        mode = self.args.output_mode
        if not walks_alone(path):
            return 0  # a name no glob can give: left out
        if mode in ("--count", "--count-matches"):
            self._tally_unprinted(path)
            return 0
        if mode in ("--files-with-matches", "--quiet"):
            # rg stops at a file's first match there, and lists it (exits 0) only where it
            # met that match before the NUL's buffer, which under -v it may not have
            # though it prints such lines: the walk is asked as the user asks it.
            done = self._walk_to(path, [])
            if done.returncode != EXIT_MATCH:
                self._tally(done.stdout)
                return 0
            self.walked_alone.add(path)
            return 1
        done = self._walk_to(path, ["--json"], counting=True)
        count = 0
        for line in done.stdout.splitlines():
            if not line.startswith(b'{"type":"match"'):
                continue
            if self.each_match:  # -v's lines (no submatch) print as one each
                count += len(json.loads(line)["data"]["submatches"]) or 1
            else:
                count += 1
        if count:
            self.walked_alone.add(path)
        return count

    def _tally_unprinted(self, path: bytes) -> None:
        """Under --stats, what rg's walk counts of a file with a NUL past its first read that
        it prints nothing of (-c, --count-matches, --files-without-match): its matches
        before the NUL, as rg's block counts them."""
        if self.stats is not None and walks_alone(path):
            self._tally(self._walk_to(path, []).stdout)

    def _walk_to(
        self, path: bytes, extra: list[str], counting: bool = False
    ) -> subprocess.CompletedProcess[bytes]:
        """rg's walk to one file alone (``walk_alone_command``), run to its end, read."""
        cmd = walk_alone_command(self.rg, self.args, path, extra, counting)
        return subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL)

    def _tally(self, output: bytes) -> None:
        """The --stats block of a walk to one file that printed nothing else, counted."""
        if self.stats is not None:
            for _ in self.stats.strip([output]):
                pass  # nothing printed but the block, which the tally keeps

    def _chosen_places(self, cuts: list[tuple[bytes, int, int | None]]) -> dict[bytes, set[int]]:
        """For each file the share cuts, the places among its matching lines of those it
        prints: the lines of its best passages (its first lines where the ranking gave it
        none). One rg run lists the cut files' matching lines by number; a file whose list
        disagrees with its count (changed since, or a binary file's notice), or a search
        whose cut files match too often for the list to pay, keeps rg's ``--max-count``."""
        cut_files = {
            path: (count, cut) for path, count, cut in cuts if cut and path not in self.walked_alone
        }
        if self.spans is None or not cut_files:
            return {}
        if sum(count for count, _ in cut_files.values()) > LINES_PASS_MOST:
            return {}
        spans = self.spans
        lacking = [path for path in cut_files if path not in spans]
        if lacking and self.more_spans is not None:
            with timings.phase("more line spans"):
                spans = {**spans, **self.more_spans(lacking)}
        if not any(path in spans for path in cut_files):
            return {}
        with timings.phase("matching lines"):
            proc = started(
                self._cmd(LINES_FLAGS, list(cut_files), counting=True),
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,  # the print pass says what rg says of these files
                stdin=subprocess.DEVNULL,
            )
            assert proc.stdout is not None
            with proc:
                numbers = matching_line_numbers(proc.stdout)
        places: dict[bytes, set[int]] = {}
        for path, (count, cut) in cut_files.items():
            lines = numbers.get(path, [])
            if len(lines) == count:
                places[path] = set(chosen(lines, spans.get(path, []), cut))
        return places

    def file_share(self) -> int | None:
        """Matching lines a file prints at first under the cap (``FILE_SHARE`` of it), so
        that the first files do not take the whole cap; None where there is no cap, or the
        user set a count a file (``-m``)."""
        if not self.cap or self.args.has("--max-count", "--passthru"):
            return None
        return max(1, round(self.cap * FILE_SHARE))

    def _shared_cuts(
        self, paths: list[bytes], result: StreamResult, share: int
    ) -> Iterator[tuple[bytes, int, int | None]]:
        """Each file with matches, in order, with its count and the lines it prints (None:
        all of them).
        Counted until the files' shares fill the cap (then each prints its share, the last
        one what is left of the cap), or to the end (then what the shares left of the cap
        goes to the best files first): output waits for that, so every file prints once."""
        found: list[tuple[bytes, int]] = []
        shown = 0
        counts = self._counts_in_order(paths, result)
        for path, count in counts:
            if path is None:
                continue
            result.matched = True
            found.append((path, count))
            shown += min(count, share)
            result.printed = min(shown, self.cap)  # the walk's estimate reads it
            if shown >= self.cap:
                counts.close()  # kills the count run still going
                result.capped = True
                break
        lines = [min(count, share) for _, count in found]
        if shown > self.cap:
            lines[-1] -= shown - self.cap
        left = self.cap - sum(lines)
        rest_to_best = left > 0
        for k, (_, count) in enumerate(found):
            extra = min(count - lines[k], left)
            lines[k] += extra
            left -= extra
        held = [count - n for (_, count), n in zip(found, lines, strict=True) if count > n]
        if held:  # matches left unprinted: the cap stopped the search
            result.capped = True
            unit = "match" if self.each_match else "line"
            result.held = HeldBack(sum(held), len(held), share, rest_to_best, unit)
        result.printed = sum(lines)
        for (path, count), n in zip(found, lines, strict=True):
            yield path, count, None if n >= count else n

    def _print(
        self,
        files: list[bytes],
        extra: list[str],
        json_mode: bool,
        segments: Segments | None = None,
        matches: int | None = None,
    ) -> bool:
        """The print pass over files with matches (each printing only its matching lines at
        the places ``segments`` gives, where given; a one-file run only its first
        ``matches`` output lines, where given); True when rg reported an error that stands
        (a file that vanished since the count pass is no error, as in a walk)."""
        marks = MARK_FLAGS if self.excerpt and not json_mode else []
        if marks and self.excerpt_paints is None:
            marks = [*marks, NO_LINKS]  # the output is plain: no link either
        piped = (
            json_mode
            or bool(self.excerpt)
            or self.stats is not None
            or streams.capturing()
            or segments is not None
            or matches is not None
        )
        shown = self._as_on_terminal() if piped and not json_mode else []
        if files[0] in self.walked_alone:  # a run of its own
            cmd = walk_alone_command(self.rg, self.args, files[0], [*shown, *marks, *extra])
        else:
            cmd = self._cmd([*shown, *marks, *extra], files)
        proc = started(
            cmd,
            stdout=subprocess.PIPE if piped else None,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        messages = StderrFilter(proc, set(files))
        if json_mode:
            self._relay_json(proc, segments)
        elif self.excerpt:
            self._relay_excerpted(proc, segments, matches)
        elif piped:
            self._relay(proc, segments, matches)
        code = reaped(proc)
        if matches is not None and code == -signal.SIGTERM:
            return False  # stopped by rrg once its matches printed
        return code == EXIT_ERROR and messages.finish()

    def _as_on_terminal(self) -> list[str]:
        """The flags that make rg print into a pipe as it prints on the user's terminal
        (none where standard output is no terminal): rg heads, numbers and colours its
        lines only where it writes to one itself, and a run whose output rrg reads (to keep
        a file's chosen lines, take off --stats, count the records of
        --files-without-match) writes to a pipe. Each only where the user's flags leave it
        on, as rg's own reading would; the excerpt's marks bring their own colours."""
        flags: list[str] = []
        if not self.terminal:
            return flags
        if self.args.heading(True):
            flags.append("--heading")
        if self.args.line_numbers(True):
            flags.append("--line-number")
        if self.args.colour_wanted(True) and not self.excerpt:
            flags.append("--color=always")
        return flags

    def _stdout(
        self,
        proc: subprocess.Popen[bytes],
        segments: Segments | None = None,
        matches: int | None = None,
    ) -> Iterator[bytes]:
        """A run's output as it comes, less its --stats block (kept for the one at the end)
        and, for files printing their chosen lines, the matching lines not chosen; for a
        one-file run of ``matches``, its lines past them (rg stopped there)."""
        assert proc.stdout is not None
        stream = proc.stdout
        chunks: Iterator[bytes] = iter(lambda: stream.read1(65536), b"")  # type: ignore[attr-defined]
        if self.stats is not None:
            chunks = self.stats.strip(chunks)
        if segments is not None:
            chunks = kept_lines(chunks, segments, self.args.heading(self.terminal))
        if matches is not None:
            # A heading is a line of its own, but where --null joins it to the first match.
            heading = self.args.heading(self.terminal) and not self.args.has("--null")
            chunks = first_lines(chunks, matches + heading, proc.terminate)
        return chunks

    def _relay(
        self,
        proc: subprocess.Popen[bytes],
        segments: Segments | None = None,
        matches: int | None = None,
    ) -> None:
        for chunk in self._stdout(proc, segments, matches):
            self.write(chunk)

    def write_stats(self) -> None:
        """The search's one --stats block, where one was asked for."""
        if self.stats is not None:
            self.write(self.stats.block())

    def _counted_groups(
        self, paths: list[bytes], result: StreamResult, per_file: bool = False
    ) -> Iterator[tuple[list[bytes], int | None]]:
        """Files with matches, grouped for printing, with the cut for the last one at the cap
        (lines; with ``per_file`` each file counts one, as a record)."""
        group: list[bytes] = []
        counts = self._counts_in_order(paths, result)
        for path, count in counts:
            if path is None:  # the end of one count run: print what it found
                if group:
                    yield group, None
                group = []
                continue
            result.matched = True
            count = 1 if per_file else count
            group.append(path)
            if self.cap and result.printed + count >= self.cap:
                cut = self.cap - result.printed if result.printed + count > self.cap else None
                result.printed = self.cap
                result.capped = True
                counts.close()  # kills the count run still going
                yield group, cut
                return
            result.printed += count
        if group:
            yield group, None

    def _counts_in_order(
        self, paths: list[bytes], result: StreamResult
    ) -> Generator[tuple[bytes | None, int], None, None]:
        """(path, count) for each file with matches, in the given order; (None, 0) ends the
        output of each rg run. rg reads the files by name, batch after batch, until one
        walking pass over the user's PATHs is expected to cost less than reading on, or
        the walk started early has ended: its counts then cost nothing more."""
        scanned = 0
        try:
            for batch in batches(paths):
                if self._early_walk_ended() or self._walk_pays(scanned, result.printed, len(paths)):
                    yield from self._walked_counts(paths[scanned:], result)
                    return
                named = self.named_filter(batch) if self.named_filter else batch
                if named:
                    yield from self._named_counts(named, result)
                scanned += len(batch)
        finally:
            if self.early_walk is not None:  # the cap came first, or nothing was left
                self.early_walk.stop()
                self.early_walk = None

    def _early_walk_ended(self) -> bool:
        walk = self.early_walk
        return walk is not None and walk.usable and walk.ended()

    def _walk_pays(self, scanned: int, found: int, total: int) -> bool:
        """Whether walking every file once costs less than reading on by name until the cap
        is reached, at the match rate seen so far (one more match assumed, so that a rate
        of zero after a few files does not yet mean none will follow)."""
        if self.walk_paths is None or not scanned:
            return False
        if not self.cap:
            return NAMED_COST * (total - scanned) > total
        to_read = (self.cap - found) * scanned / (found + 1)
        return NAMED_COST * min(to_read, total - scanned) > total

    def _named_counts(
        self, batch: list[bytes], result: StreamResult
    ) -> Iterator[tuple[bytes | None, int]]:
        """The counts of a batch read by name, in its order; a file with a NUL past rg's
        first read counted by rg's walk to it alone (named, rg would search it whole)."""
        late = self.late_nul_in(batch)
        place = {path: k for k, path in enumerate(batch)}
        walked = [(place[p], p, n) for p in batch if p in late and (n := self._walked_count(p))]
        named = [p for p in batch if p not in late]
        if named:
            counts = self._read_counts(named, result)
            try:
                for path, count in counts:
                    while walked and walked[0][0] < place.get(path, len(batch)):
                        yield walked[0][1], walked.pop(0)[2]
                    yield path, count
            finally:
                counts.close()  # the consumer met the cap: the count run is killed now
        for _, path, count in walked:
            yield path, count
        yield None, 0

    def _read_counts(
        self, batch: list[bytes], result: StreamResult
    ) -> Generator[tuple[bytes, int], None, None]:
        """rg's count of each file read by name that holds a match, in rg's order; closed
        early, its rg run is killed."""
        proc = started(
            self._cmd(COUNT_FLAGS, batch, counting=True),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        messages = StderrFilter(proc, set(batch))
        assert proc.stdout is not None
        read_all = False
        try:
            for path, count in count_records(proc.stdout):
                if count > 0:
                    yield path, count
            read_all = True
        finally:
            # Not poll(): rg may close its output before it exits. Stopped early, the
            # consumer met the cap.
            if read_all:
                result.error |= reaped(proc) == EXIT_ERROR and messages.finish()
            else:
                proc.kill()
                reaped(proc)
                messages.finish()

    def _walked_counts(
        self, remaining: list[bytes], result: StreamResult
    ) -> Iterator[tuple[bytes | None, int]]:
        """The counts of ``remaining`` from one rg run that walks the user's PATHs (the
        walk started early, or one started now), given back in the order of ``remaining``."""
        assert self.walk_paths is not None
        walk = self.early_walk
        self.early_walk = None
        if walk is None or not walk.usable:
            walk = CountWalk(
                count_command(self.rg, self.args, self.walk_paths), 0, self.args.nul_ended
            )
        found, error = walk.counts(set(remaining))
        result.error |= error
        # Files the walk gave up at a NUL past its first read, having printed lines of them.
        gave_up = walk.gave_up_after_match()
        in_group = 0
        for path in remaining:
            count = found.get(path)
            if path in self.walked_to or (not count and gave_up and self.late_nul_in([path])):
                count = self._walked_count(path)
            if count:
                yield path, count
                in_group += 1
                if in_group == _PRINT_GROUP:
                    yield None, 0
                    in_group = 0
        yield None, 0

    def _file_separator(self) -> bytes:
        ctx_sep: bytes | None = b"--"
        for name, value in self.args.flags:
            if name == "--context-separator" and value is not None:
                ctx_sep = unescape(value)
            elif name == "--no-context-separator":
                ctx_sep = None
        if self.args.heading(self.terminal):
            return b"\n"
        if self.args.prints_context and ctx_sep is not None:
            return ctx_sep + b"\n"
        return b""

    def _relay_excerpted(
        self,
        proc: subprocess.Popen[bytes],
        segments: Segments | None = None,
        matches: int | None = None,
    ) -> None:
        """The run's marked output as rg prints it plain, each line longer than the excerpt
        cut around its match. A block of lines at a time, a line at a time only where one
        needs a cut: a line at a time cost 20 us in Python (`--limit 0 -n .` over sympy's
        623,000 lines: 5 s against rg's 0.25 s)."""
        limit = self.excerpt
        paints = self.excerpt_paints
        unmarked: Callable[[bytes], bytes] = (
            plain if paints is None else lambda marked: painted(marked, paints)
        )
        # NUL ends the path under --null.
        prefix = prefix_pattern([*self.args.field_separators, b"\0"])
        for block in _line_blocks(self._stdout(proc, segments, matches)):
            lines = block.split(b"\n")  # the last: what follows the block's last newline
            # A line whose marked bytes fit the limit holds no more characters than that.
            if max(map(len, lines)) <= limit:
                self.write(unmarked(block))
                continue
            out: list[bytes] = []
            at = 0
            for k in [k for k, line in enumerate(lines) if len(line) > limit]:
                if k > at:
                    out.append(unmarked(b"\n".join(lines[at:k])) + b"\n")
                text, was_cut = cut_line(lines[k], limit, prefix, paints)
                self.lines_cut += was_cut
                out.append(text + b"\n" if k < len(lines) - 1 else text)
                at = k + 1
            out.append(unmarked(b"\n".join(lines[at:])))
            self.write(b"".join(out))

    def _relay_json(self, proc: subprocess.Popen[bytes], segments: Segments | None = None) -> None:
        assert proc.stdout is not None
        lines: Iterable[bytes] = proc.stdout
        left_out = LeftOut()
        if segments is not None:
            lines = kept_messages(lines, segments, left_out)
        for line in lines:
            if line.startswith(b'{"data":{"elapsed_total"') or b'"type":"summary"' in line[-40:]:
                summary = left_out.taken_from(line)
                self.summary = _merge_summary(self.summary, json.loads(summary))
                continue
            self.write(line)

    # ---- one record per file: -l, -c, --count-matches, --files-without-match --------------
    def run_records(self, paths: list[bytes]) -> StreamResult:
        if self.args.output_mode == "--files-without-match" or self.args.counts_zeros:
            return self._run_direct(paths)
        result = StreamResult()
        piped = subprocess.PIPE if self.stats is not None else None
        shown = self._as_on_terminal() if piped else []
        for group, _ in self._counted_groups(paths, result, per_file=True):
            proc = started(
                self._cmd(shown, group),
                stdout=piped,
                stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
            )
            messages = StderrFilter(proc, set(group))
            if piped:
                self._relay(proc)
            result.error |= reaped(proc) == EXIT_ERROR and messages.finish()
        return result

    def _run_direct(self, paths: list[bytes]) -> StreamResult:
        """--files-without-match and --include-zero: their records are (or include) files a
        count pass does not report, so rg prints them itself, batch after batch, until the
        cap."""
        result = StreamResult()
        counts = self.args.output_mode in ("--count", "--count-matches")
        line_end = b"\0" if self.args.nul_ended else b"\n"
        # A path alone ends with NUL under --null; a count ends its line ("path\0N\n").
        sep = line_end if counts or not self.args.has("--null") else b"\0"
        shown = self._as_on_terminal()
        for batch in batches(paths):
            late = self.late_nul_in(batch)
            if late:
                # rg's walk gives such a file up and prints nothing of it here (a search
                # kept it for --stats, whose block counts what the walk read of it); it
                # counts as a file without a match, so --files-without-match exits 0.
                for path in batch:
                    if path in late:
                        self._tally_unprinted(path)
                result.matched |= self.args.lists_files_without_match
                batch = [path for path in batch if path not in late]
                if not batch:
                    continue
            proc = started(
                self._cmd(shown, batch),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
            )
            # A file deleted since rg listed it is no error, as in rg's own walk.
            messages = StderrFilter(proc, set(batch))
            for record in _records(self._stdout(proc), sep):
                self.write(record)
                if not record.endswith(sep):
                    break  # the output's unended tail: no record to count
                result.printed += 1
                # rg's exit code says whether a line matched: a file printed without a
                # match, or one counted 0 under --include-zero, is no match.
                result.matched |= not counts or _counts_a_match(record[: -len(sep)])
                if self.cap and result.printed >= self.cap:
                    result.capped = True
                    proc.kill()
                    reaped(proc)
                    result.error |= messages.finish()  # of the files read before the cap
                    if not result.matched:
                        # Zeros alone so far (--include-zero): rg's exit code says whether
                        # any file matched, which one quiet run over the files asks.
                        result.matched = self._any_match(paths)
                    return result
            rc = reaped(proc)
            result.error |= rc == EXIT_ERROR and messages.finish()
            result.matched |= rc == EXIT_MATCH
        return result

    def _any_match(self, paths: list[bytes]) -> bool:
        """Whether any of the files holds a match (``--quiet``: rg stops at the first)."""
        for batch in batches(paths):
            done = subprocess.run(
                self._cmd(["--quiet"], batch),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
            )
            if done.returncode == EXIT_MATCH:
                return True
        return False

    # ---- --quiet -------------------------------------------------------------------------
    def run_quiet(self, paths: list[bytes]) -> StreamResult:
        result = StreamResult()
        piped = subprocess.PIPE if self.stats is not None else None
        for batch in batches(paths):
            late = self.late_nul_in(batch)
            if any(self._walked_count(path) for path in batch if path in late):
                result.matched = True  # rg's walk matched before the NUL
                if self.stats is None:
                    break
            batch = [path for path in batch if path not in late]
            if not batch:
                continue
            proc = started(
                self._cmd([], batch), stdout=piped, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
            )
            messages = StderrFilter(proc, set(batch))
            if piped:
                self._relay(proc)
            rc = reaped(proc)
            if rc == EXIT_MATCH:
                messages.finish()  # said, but a match wins under --quiet, as in rg
                result.matched = True
                if self.stats is None:
                    break
                continue  # rg searches every file where --stats counts them
            result.error |= rc == EXIT_ERROR and messages.finish()
        result.error &= not result.matched
        return result


def _counts_a_match(record: bytes) -> bool:
    """Whether a count record (``path:N``, ``path\0N`` under --null, ``N`` alone for one
    file) counts one match or more."""
    count = _TRAILING_COUNT.search(record)
    return count is not None and int(count.group()) > 0


_TRAILING_COUNT = re.compile(rb"[0-9]+$")


def _line_blocks(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """A run's output as it comes, cut after the last newline read so far: each block holds
    whole lines (the last may lack its newline). A line longer than a read is joined once."""
    pending: list[bytes] = []
    for chunk in chunks:
        cut = chunk.rfind(b"\n") + 1
        if not cut:
            pending.append(chunk)
            continue
        yield b"".join([*pending, chunk[:cut]])
        pending = [chunk[cut:]] if cut < len(chunk) else []
    if pending:
        yield b"".join(pending)


def _records(chunks: Iterator[bytes], sep: bytes = b"\n") -> Iterator[bytes]:
    """The records of a run's output as they come, each with its ``sep`` (the last may lack
    one)."""
    rest = b""
    for chunk in chunks:
        rest += chunk
        *whole, rest = rest.split(sep)
        for record in whole:
            yield record + sep
    if rest:
        yield rest


def summary_message(summary: Json | None) -> bytes:
    """The one summary message of a ``--json`` search, as rg ends its own: the statistics
    of rrg's print runs added up, zeros where no file needed printing."""
    if summary is None:
        elapsed = {"human": "0.000000s", "nanos": 0, "secs": 0}
        counts = ("bytes_printed", "bytes_searched", "matched_lines", "matches", "searches")
        stats: Json = {name: 0 for name in counts}
        stats.update(elapsed=elapsed, searches_with_match=0)
        summary = {"data": {"elapsed_total": elapsed, "stats": stats}, "type": "summary"}
    return json.dumps(summary, separators=(",", ":")).encode() + b"\n"


def _merge_summary(total: Json | None, new: Json) -> Json:
    """Add up rg's summary stats across runs, so a JSON consumer sees one summary."""
    if total is None:
        return new

    def add(a: object, b: object) -> object:
        if isinstance(a, dict) and isinstance(b, dict):
            if a.keys() >= _DURATION_KEYS and b.keys() >= _DURATION_KEYS:
                return _duration_sum(a, b)
            return {k: add(a.get(k), v) if k in a else v for k, v in b.items()}
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return a + b
        return b

    return add(total, new)  # type: ignore[return-value]


#: The fields of a time in rg's JSON (its ``NiceDuration``).
_DURATION_KEYS = {"human", "nanos", "secs"}


def _duration_sum(a: Json, b: Json) -> Json:
    """Two of rg's JSON times added up as rg writes one: the nanoseconds carried into
    seconds past a second, and the ``human`` text (``{:0.6}s``) said again for the sum,
    so that a reader of either field reads the same time."""
    nanos = int(a["secs"]) * 10**9 + int(a["nanos"]) + int(b["secs"]) * 10**9 + int(b["nanos"])
    secs, nanos = divmod(nanos, 10**9)
    return {"human": f"{secs + nanos / 1e9:.6f}s", "nanos": nanos, "secs": secs}
