"""Sparse matches in a large listing: one rg run that walks the PATHs counts the files
(rg reads a named file at about 1.5x the cost of a walked one), started beside the ranking
or after the first files read by name. Its results must be rg's own, in the order of the
ranking; where nothing matches rrg stops when it ends."""

from __future__ import annotations

import gzip
import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from conftest import crashed_log, opening_logger, openings, rrg_cmd, run
from rrg.output import stdout
from rrg.rg import walk as walk_module
from rrg.rg.args import parse_rg_args
from rrg.rg.ordered import NAMED_COST, OrderedSearch, StreamSettings
from rrg.rg.searched_files import late_nul_filter, unread_binary_filter
from rrg.rg.walk import DENSE_FACTOR, CountWalk, count_command, walk_applies

QUERY = "river boats on the water"


@pytest.fixture
def sparse(tmp_path: Path) -> Path:
    """300 files in three folders; the word "needle" in six of them, one of them hidden,
    one ignored, one binary."""
    root = tmp_path / "sparse"
    for k in range(300):
        folder = root / f"d{k % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{k:03d}.txt").write_text(f"river boat {k} floats on the water\n" * 2)
    for k in (7, 150, 299):
        path = root / f"d{k % 3}" / f"f{k:03d}.txt"
        path.write_text(path.read_text() + f"a needle here, number {k}\nand a needle again\n")
    (root / "d0" / ".hidden.txt").write_text("a hidden needle\n")
    (root / ".gitignore").write_text("ignored.txt\n")
    (root / "ignored.txt").write_text("an ignored needle\n")
    (root / "d1" / "blob.bin").write_bytes(b"needle\x00\x01\x02" * 10)
    (root / ".git").mkdir()
    return root


def files_in_order(out: bytes) -> list[bytes]:
    seen: list[bytes] = []
    for line in out.splitlines():
        path = re.match(rb"^(.*?\.(?:txt|bin))", line)
        if path and path.group(1) not in seen:
            seen.append(path.group(1))
    return seen


CASES = [
    ["-n", "needle"],
    ["-C1", "needle"],
    ["-l", "needle"],
    ["-c", "needle"],
    ["--count-matches", "needle"],
    ["--hidden", "needle"],
    ["-g", "*.txt", "needle"],
    ["needle", "d0", "d2"],
    ["needle", "d0", "d1/f007.txt"],
    ["-a", "needle"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_walked_counts_give_rgs_lines_in_rank_order(
    args: list[str], sparse: Path, rg: str, env: dict[str, str]
) -> None:
    ours = run([*rrg_cmd(), "-q", QUERY, "--excerpt", "0", *args], sparse, env)
    theirs = run([rg, *args], sparse, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())
    selection = [a for a in args if a not in ("needle", "-n", "-C1", "-l", "-c", "--count-matches")]
    ranked = run([*rrg_cmd(), "-q", QUERY, "--files", *selection], sparse, env).stdout.split()
    printed = files_in_order(ours.stdout)
    assert printed == [p for p in ranked if p in printed]


@pytest.mark.parametrize("mode", [[], ["-c"], ["-l"]], ids=["lines", "-c", "-l"])
def test_without_a_cap_every_match_is_rgs(
    mode: list[str], sparse: Path, rg: str, env: dict[str, str]
) -> None:
    """--limit 0: everything is read (by one walk); every file matches "river"."""
    ours = run([*rrg_cmd(), "-q", QUERY, "--limit", "0", *mode, "river"], sparse, env)
    theirs = run([rg, *mode, "river"], sparse, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())
    assert len(theirs.stdout.splitlines()) >= 300


def test_one_walk_reads_every_file_only_when_matches_are_sparse(
    sparse: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    """A --pre hook logs every file rg opens, and which rg run opened it. Sparse matches:
    one run walks all 300 files (the walk started beside the ranking, or one started after
    the first files read by name). Dense matches: the cap is met by name and the walk is
    stopped early; no run reads more than a few dozen files."""
    hook, log = opening_logger(tmp_path)

    run([*rrg_cmd(), "-q", QUERY, f"--pre={hook}", "-l", "needle"], sparse, env)
    per_run = Counter(pid for pid, _ in openings(log))
    assert max(per_run.values()) >= 300, per_run

    log.unlink()
    out = run([*rrg_cmd(), "-q", QUERY, f"--pre={hook}", "river"], sparse, env)
    assert len(out.stdout.splitlines()) == 30  # the default cap
    per_run = Counter(pid for pid, _ in openings(log))
    assert max(per_run.values()) < 100, per_run
    assert len({path for _, path in openings(log)}) < 200


def test_a_walk_that_finds_nothing_says_so(sparse: Path, rg: str, monkeypatch) -> None:
    monkeypatch.chdir(sparse)
    nothing = CountWalk(count_command(rg, parse_rg_args(["haystack"]), []), 30)
    nothing.proc.wait()
    nothing.reader.join()
    assert nothing.found_nothing()
    assert nothing.counts({b"d0/f000.txt"}) == ({}, False)

    found = CountWalk(count_command(rg, parse_rg_args(["needle"]), []), 30)
    found.proc.wait()
    found.reader.join()
    assert not found.found_nothing()
    counts, error = found.counts({b"d1/f007.txt", b"d0/f150.txt", b"d0/f000.txt"})
    assert counts == {b"d1/f007.txt": 2, b"d0/f150.txt": 2} and not error


def test_a_walk_is_stopped_once_matches_prove_dense(sparse: Path, rg: str, monkeypatch) -> None:
    """Every file holds "river": with --limit 5, the walk is stopped once it has reported
    more than ten (here rg may well have ended first) and gives no counts; without a cap
    it reads on to the end."""
    monkeypatch.chdir(sparse)
    capped = CountWalk(count_command(rg, parse_rg_args(["river"]), []), 5)
    capped.proc.wait()
    capped.reader.join()
    assert capped.stopped and not capped.usable and not capped.found_nothing()
    assert capped.files > DENSE_FACTOR * 5

    whole = CountWalk(count_command(rg, parse_rg_args(["river"]), []), 0)
    counts, _ = whole.counts({f"d{k % 3}/f{k:03d}.txt".encode() for k in range(300)})
    assert whole.usable and len(counts) == 300


def test_a_walk_without_a_cap_reads_to_the_end_however_long_its_report(
    sparse: Path, rg: str, monkeypatch
) -> None:
    """A walk that serves the counts (no cap, or chosen once it paid) is never cut for the
    size of its report: that would drop matches. Only a capped, speculative one is."""
    monkeypatch.chdir(sparse)
    monkeypatch.setattr(walk_module, "OUTPUT_LIMIT", 100)
    whole = CountWalk(count_command(rg, parse_rg_args(["river"]), []), 0)
    counts, _ = whole.counts({f"d{k % 3}/f{k:03d}.txt".encode() for k in range(300)})
    assert whole.usable and len(counts) == 300
    capped = CountWalk(count_command(rg, parse_rg_args(["river"]), []), 1000)
    capped.proc.wait()
    capped.reader.join()
    assert capped.stopped and capped.files < 1000


def test_no_walk_where_a_count_pass_cannot_give_the_records() -> None:
    assert walk_applies(parse_rg_args(["-l", "needle"]), reranking=False)
    assert not walk_applies(parse_rg_args(["-l", "needle"]), reranking=True)
    for args in (["--files-without-match", "x"], ["--include-zero", "-c", "x"], ["-q", "x"]):
        assert not walk_applies(parse_rg_args(args), reranking=False), args
    assert not walk_applies(parse_rg_args(["--files"]), reranking=False)
    # --include-zero changes rg's counts alone: under -l or lines a walk counts as without it
    assert walk_applies(parse_rg_args(["--include-zero", "-l", "x"]), reranking=False)
    assert walk_applies(parse_rg_args(["--include-zero", "x"]), reranking=False)


def test_when_the_walk_pays() -> None:
    search = OrderedSearch(
        "rg", parse_rg_args(["needle"]), StreamSettings(30, False, walk_paths=[]), stdout.write
    )
    assert not search._walk_pays(0, 0, 10_000)  # the best files are always read first
    assert not search._walk_pays(160, 0, 10_000)  # none in 160: 4,800 more may hold 30
    assert search._walk_pays(672, 0, 10_000)  # none in 672: 20,160 more, past the walk
    assert not search._walk_pays(160, 20, 10_000)  # 20 in 160: about 80 more files
    unlimited = OrderedSearch(
        "rg", parse_rg_args(["needle"]), StreamSettings(0, False, walk_paths=[]), stdout.write
    )
    assert unlimited._walk_pays(32, 5, 10_000)  # everything is read: walk at once
    assert not unlimited._walk_pays(32, 5, 40)  # unless few are left
    named_only = OrderedSearch(
        "rg", parse_rg_args(["needle"]), StreamSettings(30, False), stdout.write
    )
    assert not named_only._walk_pays(160, 0, 10_000)  # a scope's files: never walk
    assert NAMED_COST > 1


def _walked_lines(rg: str, args: list[str], folder: Path) -> list[bytes]:
    """What rg's own walk of ``folder`` on one thread prints, its lines sorted."""
    return sorted(run([rg, "-j1", *args], folder, dict(os.environ)).stdout.splitlines())


def test_files_named_before_the_walk_ends_leave_out_those_it_skips_as_binary(
    tmp_path: Path,
    rg: str,
    capfdbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A first search of a large tree names to rg, while the walk still runs, files the
    index has not read yet: rg searched a binary one whole and printed "binary file
    matches" (a first search under /usr, 116,000 files), where its walk prints nothing of
    it. The batches named leave such files out; a file given as a PATH stays."""
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(f"a needle in {name}\n")
    (tmp_path / "z.bin").write_bytes(b"water\0 a needle past the NUL\n")
    (tmp_path / "u16.txt").write_bytes("\ufeffa needle, UTF-16\n".encode("utf-16-le"))
    (tmp_path / "n.gz").write_bytes(gzip.compress(b"a needle, compressed\n"))
    order = [b"a.txt", b"z.bin", b"u16.txt", b"n.gz", b"b.txt"]
    unread = order[1:]

    def printed(args: list[str], named_filter: bool) -> list[bytes]:
        parsed = parse_rg_args(args)
        kept = unread_binary_filter(rg, parsed, unread) if named_filter else None
        settings = StreamSettings(30, True, walk_paths=["."], named_filter=kept)
        OrderedSearch(rg, parsed, settings, stdout.write).run_lines(order)
        return sorted(capfdbinary.readouterr().out.splitlines())

    monkeypatch.chdir(tmp_path)
    walked = _walked_lines(rg, ["needle"], tmp_path)
    assert printed(["needle"], named_filter=False) != walked  # rg searched z.bin whole
    assert printed(["needle"], named_filter=True) == walked
    assert b"z.bin: binary file matches" in b"".join(printed(["needle", "z.bin", "."], True))
    # -z decompresses n.gz, and reads z.bin as it is (told by its bytes, not asked of rg).
    unzipped = _walked_lines(rg, ["-z", "needle"], tmp_path)
    assert b"n.gz:a needle, compressed" in unzipped
    assert printed(["-z", "needle"], named_filter=True) == unzipped
    assert unread_binary_filter(rg, parse_rg_args(["needle"]), []) is None


@pytest.mark.parametrize(
    "mode", [[], ["-c"], ["-l"], ["--vimgrep"], ["-z"], ["-z", "-c"], ["-E", "latin1"]]
)
def test_a_file_named_before_the_walk_ends_with_a_nul_past_rgs_first_read_prints_as_walked(
    mode: list[str],
    tmp_path: Path,
    rg: str,
    capfdbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read by name (the walk not ended: a large tree), a log whose NULs lie past rg's
    first read was searched whole: its count held the match past the NULs and rg printed
    "binary file matches" where its walk prints the lines before the NUL's buffer and
    stops. It is walked to alone; a file given as a PATH stays named, as rg names it.
    Where rg decodes files (-z, -E), rg's walk of the batch's doubtful files says which."""
    (tmp_path / "a.txt").write_text("a Moriarty line\n")
    crashed_log(tmp_path / "service.dump")
    (tmp_path / "b.txt").write_text("another Moriarty line\n")
    order = [b"a.txt", b"service.dump", b"b.txt"]

    def printed(args: list[str], late: bool) -> list[bytes]:
        parsed = parse_rg_args(args)
        settings = StreamSettings(
            0, True, late_nul=late_nul_filter(parsed, None, rg) if late else None
        )
        search = OrderedSearch(rg, parsed, settings, stdout.write)
        if {"-c", "-l"} & set(args):
            search.run_records(order)
        else:
            search.run_lines(order)
        return sorted(capfdbinary.readouterr().out.splitlines())

    monkeypatch.chdir(tmp_path)
    args = [*mode, "Moriarty"]
    walked = _walked_lines(rg, args, tmp_path)
    assert printed(args, late=True) == walked
    if "-l" not in mode:  # -l lists it named too: its first match comes before the NULs
        assert printed(args, late=False) != walked
    named = b"".join(printed([*args, "service.dump", "a.txt"], late=True))
    assert b"service.dump" in named  # rg's count and listing of a file named: whole
    if mode in ([], ["--vimgrep"]):  # rg decoding it reads it otherwise
        assert b"near the NULs" in named


@pytest.mark.parametrize("mode", [["-v"], ["-m", "1", "-v"], ["-n", "-v"]])
def test_a_binary_file_named_before_the_walk_ends_whose_first_line_rg_reads_alone(
    mode: list[str],
    tmp_path: Path,
    rg: str,
    capfdbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read by name (the walk not ended), a binary file whose first line rg's walk reads
    alone (``/*``) would print "binary file matches"; the search walks to it alone, as
    ``searched_files`` tells it (``Searched.walked_to``), and prints the walk's lines."""
    (tmp_path / "a.txt").write_text("a line\n")
    (tmp_path / "two.c").write_bytes(b"/*\nline two\0bin\n")
    order = [b"two.c", b"a.txt"]
    parsed = parse_rg_args([*mode, "zzz"])
    walked_to = frozenset({b"two.c"})
    late = late_nul_filter(parsed, None, rg, walked_to)
    settings = StreamSettings(0, True, late_nul=late, walked_to=walked_to)
    monkeypatch.chdir(tmp_path)
    OrderedSearch(rg, parsed, settings, stdout.write).run_lines(order)
    ours = sorted(capfdbinary.readouterr().out.splitlines())
    walked = _walked_lines(rg, [*mode, "zzz"], tmp_path)
    assert any(line.startswith(b"two.c:") and b"/*" in line for line in walked)
    assert ours == walked


NOTHING = [
    ["haystack"],
    ["-l", "haystack"],
    ["-c", "haystack", "d0"],
    ["haystack", "d0", "no-such-folder"],
    ["--quiet", "haystack"],
    ["--files-without-match", "-g", "*.txt", "river"],
]


def test_a_json_search_that_matches_nothing_ends_with_a_summary(
    sparse: Path, rg: str, env: dict[str, str]
) -> None:
    """rg --json ends every search with a summary message, matches or none; so does rrg
    (its statistics add up rrg's print runs: none here)."""
    ours = run([*rrg_cmd(), "-q", QUERY, "--json", "haystack"], sparse, env)
    theirs = run([rg, "--json", "haystack"], sparse, env)
    assert ours.returncode == theirs.returncode == 1
    (message,) = [json.loads(line) for line in ours.stdout.splitlines()]
    (expected,) = [json.loads(line) for line in theirs.stdout.splitlines()]
    assert message["type"] == expected["type"] == "summary"
    assert message["data"]["stats"].keys() == expected["data"]["stats"].keys()
    assert message["data"]["stats"]["matches"] == 0


@pytest.mark.parametrize("args", NOTHING, ids=[" ".join(c) for c in NOTHING])
def test_a_search_that_matches_nothing_ends_as_rg_does(
    args: list[str], sparse: Path, rg: str, env: dict[str, str]
) -> None:
    """Where the walk beside the ranking finds nothing, rrg may stop before ranking; its
    output, messages and exit code stay rg's (a missing folder is rg's error, exit 2)."""
    ours = run([*rrg_cmd(), "-q", QUERY, *args], sparse, env)
    theirs = run([rg, *args], sparse, env)
    assert ours.returncode == theirs.returncode
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())
    assert ours.stderr.count(b"no-such-folder") == theirs.stderr.count(b"no-such-folder")
