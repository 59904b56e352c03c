"""Which of a file's matching lines print when the cap's share holds some back: those in the
passages that answer the query best, not the file's first ones.

With the cap's share (one line a file at the default --limit), rg's ``--max-count`` printed a
file's first match: for "how are exception handlers registered for the app" with
``-n 'def \\w+'``, fastapi's ``applications.py`` showed ``61: def __init__(`` where its
``4704: def exception_handler(`` answers. The ranking knows which passages of a file answer
best; this module picks the matching lines inside them and keeps rg's bytes for each: rg
prints the file whole and only the chosen lines' output goes on.

Where rg prints other than one output line a matching line (context lines, ``-o``,
``--vimgrep``, multiline matches, ``--null-data``, a heading joined to its first line by
``--null``), or where its statistics would count the lines left out (``--stats``), the first
lines print, as rg's ``-m`` prints them. Under ``--json`` a file's end message and the run's
summary count the lines it printed, as ``-m`` makes rg count them.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from rrg.rg.args import RgArgs

#: Each file's passages as line spans (first, last; 1-based), the best answer first, by
#: its path as rg prints it (a file left out prints its first lines).
LineSpans = dict[bytes, list[tuple[int, int]]]
#: One print run's files, each as its count of matching lines and the places among them of
#: those it prints.
Segments = list[tuple[int, set[int]]]

#: The most matching lines, over the files the cap's share cuts, whose numbers a pass lists
#: to choose among them (``--limit 30`` over files dense with matches: about 1,200 on sympy
#: for ``def \w+``); past it the first lines print, read no further than rg's -m reads.
LINES_PASS_MOST = 20_000

#: Flags under which rg's output is not one line a matching line (any of them, even
#: turned off again later: the first lines then print, as rg's -m would); and ``--stats``,
#: whose counts would hold the lines left out.
_KEEPS_FIRST_LINES = (
    "--stats",
    "--after-context",
    "--before-context",
    "--context",
    "--only-matching",
    "--vimgrep",
    "--multiline",
    "--null-data",
    "--passthru",
)

#: Added to the matching flags of a pass that lists each file's matching lines by number:
#: one short line each (``--max-columns=1`` leaves out the text), the path as given.
LINES_FLAGS = [
    "--line-number",
    "--with-filename",
    "--null",
    "--no-heading",
    "--color=never",
    "--no-stats",
    "--path-separator=/",
    "--max-columns=1",
    "--no-max-columns-preview",
    "--no-json",
]

_NUMBERED = re.compile(rb"([^\0]*)\0(\d+)")


def choice_applies(args: RgArgs, terminal: bool) -> bool:
    """Whether a file's chosen lines can be told in this command's output by their place:
    rg prints each matching line as one output line, or as one ``--json`` match message."""
    if any(args.has(name) for name in _KEEPS_FIRST_LINES):
        return False
    if args.output_mode == "--json":
        return True
    return not (args.heading(terminal) and args.has("--null"))


def matching_line_numbers(output: Iterable[bytes]) -> dict[bytes, list[int]]:
    """Each file's matching lines, by number in file order, from a pass run with
    ``LINES_FLAGS``."""
    found: dict[bytes, list[int]] = {}
    for line in output:
        numbered = _NUMBERED.match(line)
        if numbered:
            found.setdefault(numbered[1], []).append(int(numbered[2]))
    return found


def chosen(lines: list[int], spans: list[tuple[int, int]], count: int) -> list[int]:
    """``count`` of a file's matching lines (by number, in file order), as places among
    them, in file order: the first that the best span holds; then, since rg prints a file's
    lines in its order and the best should print first, those after it (inside the spans
    in their order, then the rest), and only where too few follow it those before it
    (likewise). A file whose spans hold none of them prints its first lines, as rg's -m."""
    span_of: dict[int, int] = {}  # a place: the first span that holds it
    for k, (first, last) in enumerate(spans):
        for place in range(bisect_left(lines, first), bisect_right(lines, last)):
            span_of.setdefault(place, k)
        if len(span_of) == len(lines):
            break
    if not span_of:
        return list(range(min(count, len(lines))))
    ranked = sorted(span_of, key=lambda place: (span_of[place], place))
    best = ranked[0]
    rest = [place for place in range(len(lines)) if place not in span_of]
    order = (
        [place for place in ranked if place >= best]
        + [place for place in rest if place > best]
        + [place for place in ranked if place < best]
        + [place for place in rest if place < best]
    )
    return sorted(order[:count])


def kept_lines(chunks: Iterable[bytes], segments: Segments, heading: bool) -> Iterator[bytes]:
    """A run's output as rg printed it over files that each print ``count`` matching lines
    (under its heading, and after the first file a blank line, where rg prints headings),
    less each file's matching lines not at its places."""
    kept_at = _kept_places(segments, heading)
    pending = b""
    at = 0
    for chunk in chunks:
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        kept = []
        for line in lines:
            if at >= len(kept_at) or kept_at[at]:
                kept.append(line + b"\n")
            at += 1
        if kept:
            yield b"".join(kept)
    if pending and (at >= len(kept_at) or kept_at[at]):
        yield pending


def first_lines(chunks: Iterable[bytes], count: int, stop: Callable[[], None]) -> Iterator[bytes]:
    """A run's output up to the end of its ``count``-th line; ``stop`` is called there, to
    end the run (whose output past it nobody reads)."""
    left = count
    for chunk in chunks:
        ends = chunk.count(b"\n")
        if ends < left:
            left -= ends
            yield chunk
            continue
        at = -1
        for _ in range(left):
            at = chunk.index(b"\n", at + 1)
        if at >= 0:
            yield chunk[: at + 1]
        stop()
        return


@dataclass
class LeftOut:
    """What a ``--json`` run's match messages left out count in rg's statistics, so that a
    file's end message and the run's summary count what printed."""

    matched_lines: int = 0
    matches: int = 0
    bytes_printed: int = 0

    def add(self, message: bytes) -> None:
        self.matched_lines += 1
        # Each submatch is one ``{"match":{`` outside the JSON strings, whose quotes rg
        # escapes: the count needs no parse.
        self.matches += message.count(b'{"match":{')
        self.bytes_printed += len(message)

    def taken_from(self, message: bytes) -> bytes:
        """An end or summary message with these taken off its statistics, every other byte
        as rg wrote it."""

        def less(found: re.Match[bytes]) -> bytes:
            name = found[1].decode()
            return b'"%s":%d' % (found[1], int(found[2]) - getattr(self, name))

        return _COUNTED.sub(less, message)

    def plus(self, other: LeftOut) -> None:
        self.matched_lines += other.matched_lines
        self.matches += other.matches
        self.bytes_printed += other.bytes_printed


_COUNTED = re.compile(rb'"(matched_lines|matches|bytes_printed)":(\d+)')


def kept_messages(
    lines: Iterable[bytes], segments: Segments, run_left_out: LeftOut
) -> Iterator[bytes]:
    """A ``--json`` run's messages, less each file's match messages not at its places (a
    file's messages start with its ``begin``), its end message counting what it printed;
    ``run_left_out`` adds up what the run left out, for its summary."""
    file, place = -1, 0
    left_out = LeftOut()
    for line in lines:
        if line.startswith(b'{"type":"begin"'):
            file, place, left_out = file + 1, 0, LeftOut()
        elif line.startswith(b'{"type":"match"'):
            place += 1
            if file < len(segments) and place - 1 not in segments[file][1]:
                left_out.add(line)
                continue
        elif line.startswith(b'{"type":"end"') and left_out.matched_lines:
            line = left_out.taken_from(line)
            run_left_out.plus(left_out)
            left_out = LeftOut()
        yield line


def _kept_places(segments: Segments, heading: bool) -> list[bool]:
    """Whether each line of the run's output is kept, in order: a file's heading and the
    blank line before it are; its matching lines are where chosen. Lines past them (none
    where the files did not change since they were counted) are kept."""
    kept: list[bool] = []
    for k, (count, places) in enumerate(segments):
        if heading:
            kept += [True] * (2 if k else 1)
        kept += [place in places for place in range(count)]
    return kept
