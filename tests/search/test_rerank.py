"""--rerank: the pool, the skip rule, rg's formats in score order, JSON with scores."""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import rrg_cmd, run
from rrg.index.vectors import VectorCache
from rrg.model.encoder import Encoder
from rrg.model.registry import default_model
from rrg.rank.rerank import score
from rrg.rg.args import parse_rg_args
from rrg.rg.hyperlinks import ALIASES, line_links, parts
from rrg.rg.matches import Match


@pytest.fixture
def facts(tmp_path: Path) -> Path:
    """Sixty lines that all say 'river'; one answers where the river meets the sea."""
    root = tmp_path / "facts"
    root.mkdir()
    for k in range(6):
        lines = [f"The river {k}-{j} flows past farm {j} and a mill." for j in range(10)]
        (root / f"river{k}.txt").write_text("\n".join(lines) + "\n")
    (root / "delta.txt").write_text(
        "Notes.\nThe river reaches the sea at a wide delta where salt water meets fresh water.\n"
    )
    return root


def rerank(*args: str) -> list[str]:
    return [*rrg_cmd(), "-q", "where does the river meet the sea", "--rerank", *args]


def test_rerank_puts_the_answer_first_and_says_so(facts: Path, env: dict[str, str]) -> None:
    out = run(rerank("--limit", "3", "river"), facts, env)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3 and lines[0].startswith(b"delta.txt:The river reaches the sea")
    assert out.stderr == b"[rrg: reranked top 3 of 61 matches]\n"


def test_no_rerank_when_matches_fit_the_limit(facts: Path, env: dict[str, str]) -> None:
    plain = run([*rrg_cmd(), "-q", "sea", "--limit", "5", "salt"], facts, env)
    ours = run(rerank("--limit", "5", "salt"), facts, env)
    assert ours.stdout == plain.stdout and b"reranked" not in ours.stderr


@pytest.mark.parametrize(
    "flags",
    [
        [],
        ["-n"],
        ["--column"],
        ["--vimgrep"],
        ["-o"],
        ["-H", "-n"],
        ["-0"],
        ["-I", "-n"],
        ["-n", "--column", "--field-match-separator=\\t|"],  # rg reads \t as a tab
        ["--path-separator=\\", "-n"],
        # -n and -N decide over --column and --vimgrep, and --no-column over --vimgrep.
        ["--vimgrep", "--no-column"],
        ["-N", "--vimgrep"],
        ["--column", "-N"],
        ["--column"],
    ],
)
def test_reranked_lines_are_rg_lines(
    flags: list[str], facts: Path, rg: str, env: dict[str, str]
) -> None:
    # From above the folder: paths then hold a separator for --path-separator to change.
    ours = run(
        rerank("--limit", "7", "--excerpt", "0", *flags, "river|sea", "facts"), facts.parent, env
    )
    theirs = run([rg, *flags, "river|sea", "facts"], facts.parent, env)
    assert ours.returncode == 0
    got = ours.stdout.splitlines()
    assert len(got) >= 7 and set(got) <= set(theirs.stdout.splitlines())


@pytest.mark.parametrize(
    "flags",
    [
        ["-U", "-n", "--column", "ends\\nriver"],  # a match across two lines
        ["-U", "-n", "-o", "ends\\nriver"],
        # A match that starts with a line's end: rg prints no part of it on that line.
        ["-U", "-n", "-o", "\\nriver"],
        ["-U", "-n", "-o", "--column", "ends\\n\\s*river"],
        ["-U", "--vimgrep", "ends\\nriver"],
        ["-U", "--color=always", "-n", "ends\\nriver"],
        # PCRE2 under -U reports adjacent matching lines as one match of several lines.
        ["-P", "-U", "-n", "--column", "sea|river"],
        ["-P", "-U", "-o", "-n", "--column", "sea|river"],
        ["-P", "-U", "--vimgrep", "sea|river"],
    ],
)
def test_a_match_of_several_lines_prints_as_rg_prints_it(
    flags: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Each line of a match of several lines is printed with its own prefix and number,
    as rg prints it; the reranked printer wrote the prefix once, before the first line."""
    root = tmp_path / "coast"
    root.mkdir()
    for k in range(6):
        lines = [f"where the sea {k}-{j} ends\nriver {j} begins\n(a rest)" for j in range(5)]
        (root / f"coast{k}.txt").write_text("\n".join(lines) + "\n")
    ours = run(rerank("--limit", "6", "--excerpt", "0", *flags), root, env)
    theirs = run([rg, *flags], root, env)
    assert ours.returncode == 0, ours.stderr
    assert b"reranked top 6" in ours.stderr
    got = ours.stdout.splitlines()
    assert len(got) >= 6 and set(got) <= set(theirs.stdout.splitlines()), got


@pytest.mark.parametrize("flags", [[], ["--vimgrep"], ["-n", "--column"]])
def test_reranked_matches_are_coloured_as_rg_colours_them(
    flags: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """rg stays in a match's colour from one match to the next that touches it (``foo|bar``
    paints ``foobar`` once), and under --vimgrep each line colours its own match alone."""
    root = tmp_path / "words"
    root.mkdir()
    for k in range(4):
        (root / f"w{k}.txt").write_text(f"foobar {k}\nfoo bar foo {k}\nnone\n" * 3)
    args = ["--color=always", *flags, "foo|bar"]
    ours = run(rerank("--limit", "8", "--excerpt", "0", *args), root, env)
    theirs = run([rg, *args], root, env)
    assert ours.returncode == 0 and b"reranked top 8" in ours.stderr, ours.stderr
    got = ours.stdout.splitlines()
    assert len(got) >= 8 and set(got) <= set(theirs.stdout.splitlines()), got


@pytest.mark.parametrize(
    "flags", [["--null-data", "foo|bar"], ["-o", "--color=always", "-H", "-n", "^$"]]
)
def test_reranked_records_and_empty_matches_are_rgs(
    flags: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Under --null-data a record holds its newlines and prints as one (the printer cut it
    into lines, each with a prefix); rg paints no empty match under -o."""
    root = tmp_path / "records"
    root.mkdir()
    for k in range(6):
        (root / f"r{k}.txt").write_text(f"foo one {k}\n\nbar two {k}\n\nfoo three\n")
    ours = run(rerank("--limit", "3", "--excerpt", "0", *flags), root, env)
    theirs = run([rg, *flags], root, env)
    assert ours.returncode == 0 and b"reranked top 3" in ours.stderr, ours.stderr

    def pieces(out: bytes) -> set[bytes]:
        return {p for line in out.split(b"\0") for p in line.splitlines() if p}

    assert pieces(ours.stdout) and pieces(ours.stdout) <= pieces(theirs.stdout)
    if "--null-data" in flags:  # each record once, its path once
        records = ours.stdout.split(b"\0")[:-1]
        assert len(records) == 3 and all(record.startswith(b"r") for record in records)
        assert ours.stdout.count(b"\0") == 3 and ours.stdout.endswith(b"\n\0")


def _beside_rg(
    root: Path, files: dict[str, bytes], args: list[str], limit: int, rg: str, env: dict[str, str]
) -> tuple[bytes, bytes]:
    """``--rerank --limit LIMIT ARGS`` over ``files`` (written in ``root``), and rg's own
    output for ``ARGS``; the rerank must have run (the printer is what these tests test)."""
    root.mkdir()
    for name, data in files.items():
        (root / name).write_bytes(data)
    ours = run(rerank("--limit", str(limit), "--excerpt", "0", *args), root, env)
    theirs = run([rg, *args], root, env)
    assert ours.returncode == 0 and b"reranked top %d" % limit in ours.stderr, ours.stderr
    return ours.stdout, theirs.stdout


@pytest.mark.parametrize(
    "flags",
    [
        ["-o"],
        ["--max-columns", "12"],
        ["--max-columns", "12", "--max-columns-preview"],
        ["--max-columns", "12", "--max-columns-preview", "--column"],
        ["-o", "--max-columns", "2", "--max-columns-preview"],
    ],
)
def test_reranked_records_end_with_a_nul_however_cut(
    flags: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Under --null-data rg ends every record it prints with a NUL: a match of -o, a long
    record's notice and its preview (whose newlines are the record's own text) as well as
    a whole record. The printer ended those three with a newline."""
    files = {f"r{k}.txt": f"foo one {k}\nfoo two\n\0bar {k}\0".encode() for k in range(6)}
    ours, theirs = _beside_rg(
        tmp_path / "records", files, ["--null-data", *flags, "foo"], 3, rg, env
    )
    records = ours.split(b"\0")
    assert records[-1] == b"" and len(records) >= 4, ours
    assert set(records) <= set(theirs.split(b"\0")), (ours, theirs)


@pytest.mark.parametrize(
    "flags",
    [
        ["--column"],
        ["--vimgrep"],
        ["-o"],
        ["-o", "--column", "--color=always"],
        ["--column", "--max-columns", "15", "--max-columns-preview"],
        ["-U", "--column", "-n"],
    ],
)
def test_reranked_inverted_lines_print_as_rg_prints_them(
    flags: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """A line -v reports holds no match: rg prints it whole after a prelude with no column,
    under -o and --vimgrep as well (the printer gave it column 1 and, under -o and
    --vimgrep, printed nothing)."""
    files = {f"r{k}.txt": f"a river line {k} that runs on and on\nfoo\n".encode() for k in range(6)}
    ours, theirs = _beside_rg(tmp_path / "inverted", files, ["-v", *flags, "foo"], 3, rg, env)
    lines = ours.splitlines()
    assert len(lines) == 3 and set(lines) <= set(theirs.splitlines()), ours


@pytest.mark.parametrize("colour", [[], ["--color=always"]])
def test_a_reranked_vimgrep_preview_counts_the_matches_rg_counts(
    colour: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Under --vimgrep a line too long prints once a match, its preview ending with the
    matches past the cut: in colour rg counts the one match that line paints, without
    colour every match of the line. The printer counted every match in colour too."""
    files = {f"r{k}.txt": f"banana bandana cabana {k}\nplain\n".encode() for k in range(6)}
    args = [*colour, "--vimgrep", "--max-columns=5", "--max-columns-preview", "an"]
    ours, theirs = _beside_rg(tmp_path / "vimgrep", files, args, 4, rg, env)
    lines = ours.splitlines()  # each line once a match: 5 a line
    assert len(lines) == 20 and set(lines) <= set(theirs.splitlines()), ours


@pytest.mark.parametrize("width", ["2", "4", "6", "9", "12"])
@pytest.mark.parametrize("records", [False, True])
def test_a_reranked_preview_counts_characters_as_rg_does(
    width: str, records: bool, tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """--max-columns-preview keeps a line's first N grapheme clusters, as rg counts them:
    bytes that are not UTF-8 one cluster a longest bad run (rg's bstr), a mark after a
    control character or bad bytes a cluster of its own, CR LF one, an emoji sequence
    joined by ZWJ one, two regional indicators one. The printer counted each bad byte,
    joined a mark to whatever stood before it and split the others."""
    lines = [
        b"\x08\xdc\xb6\xf1\x8c\xbd\xcf\x1eriver\xd6\xad end",
        b"a\xf2\xd6\xadriver z\xd2\x88 end of it",
        "river \U0001f469\u200d\u2764\ufe0f\u200d\U0001f468".encode(),
        "river \U0001f1eb\U0001f1f7\U0001f1e9 flags".encode(),
        b"river\r\nrun\r\n on and on",
    ]
    end = b"\0" if records else b"\n"
    files = {f"{copy}{k}.txt": line + end for k, line in enumerate(lines) for copy in "rs"}
    args = [f"--max-columns={width}", "--max-columns-preview", "river"]
    args += ["--null-data"] if records else []
    ours, theirs = _beside_rg(tmp_path / "clusters", files, args, 8, rg, env)
    printed = ours.split(end)[:-1]
    assert len(printed) == 8 and set(printed) <= set(theirs.split(end)), ours


@pytest.mark.parametrize(
    ("flags", "ended"),
    [
        (["--null-data", "--crlf"], b"\n"),
        (["--crlf", "--null-data"], b"\0"),
        (["--null-data", "--crlf", "--no-crlf"], b"\n"),
    ],
)
def test_the_last_of_null_data_and_crlf_ends_the_reranked_lines(
    flags: list[str], ended: bytes, tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """--null-data and --crlf each set rg's line terminator, the last given wins (and
    --no-crlf sets none back): the printer read --null-data as on wherever it stood."""
    # No NUL: rg reads a file with one as binary where lines end in LF.
    files = {f"r{k}.txt": f"foo one {k}\nfoo two\nbar {k}\n".encode() for k in range(6)}
    ours, theirs = _beside_rg(tmp_path / "terminators", files, [*flags, "foo"], 3, rg, env)
    assert ours.endswith(ended) and theirs.endswith(ended)
    records = ours.split(ended)
    assert len(records) == 4 and set(records) <= set(theirs.split(ended)), ours


@pytest.mark.parametrize(
    "flags",
    [
        ["-o"],
        ["--max-columns=3"],
        ["--max-columns=3", "--max-columns-preview"],
        ["--color=always"],
        ["--color=always", "--column"],
        [],
        ["-v", "--trim"],
    ],
)
def test_reranked_lines_end_as_rg_ends_them_under_crlf(
    flags: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Under --crlf rg ends with CRLF what it ends itself: a match of -o, a long line's
    notice or preview, a coloured line, a last line with no end; a plain line keeps its
    own end. The printer ended them all with LF (a preview kept the line's CR)."""
    files = {
        f"r{k}.txt": f"river {k} flows\r\nriver mouth\nsea\nriver's end {k}".encode()
        for k in range(6)
    }
    args = ["--crlf", *flags, "-e", "river" if "-v" not in flags else "mouth"]
    ours, theirs = _beside_rg(tmp_path / "crlf", files, args, 4, rg, env)
    lines = ours.splitlines(keepends=True)
    assert len(lines) >= 4 and set(lines) <= set(theirs.splitlines(keepends=True)), ours


@pytest.mark.parametrize(
    ("flags", "named"), [(["-v"], True), ([], True), (["-I"], False), (["-I", "-H"], True)]
)
def test_vimgrep_names_the_one_file_searched_as_rg_does(
    flags: list[str], named: bool, tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """--vimgrep names each line's file even where one file is searched, unless -I says
    otherwise (rg's rule); the reranked lines of one file left it out."""
    text = "".join(f"river {k} flows\n" for k in range(8)).encode()
    root = tmp_path / "one"
    args = [*flags, "--vimgrep", "-e", "flows" if "-v" not in flags else "none", "one.txt"]
    ours, theirs = _beside_rg(root, {"one.txt": text}, args, 3, rg, env)
    lines = ours.splitlines()
    assert len(lines) == 3 and set(lines) <= set(theirs.splitlines()), (ours, theirs)
    assert all(line.startswith(b"one.txt:") == named for line in lines)


@pytest.mark.parametrize("colour", [[], ["--color=always"]])
def test_a_trimmed_preview_counts_the_matches_rg_counts(
    colour: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """--trim with a preview that counts matches (--column): rg's plain printer counts the
    matches by their offsets in the whole line against the trimmed line's, so an indented
    line's last matches go uncounted ("0 more matches"); in colour it counts them right.
    The printer counted them right in both."""
    files = {f"r{k}.txt": f"{' ' * 16}river = flow({k}, 20)\nsea\n".encode() for k in range(6)}
    args = [*colour, "--trim", "--column", "--max-columns=3", "--max-columns-preview", r"\d+"]
    ours, theirs = _beside_rg(tmp_path / "indented", files, args, 3, rg, env)
    lines = ours.splitlines()
    assert len(lines) == 3 and set(lines) <= set(theirs.splitlines()), (ours, theirs)


def test_a_reranked_record_is_trimmed_of_its_leading_newlines(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """--trim under --null-data: a record's newlines are white space like any other (rg
    stops trimming at its line terminator, a NUL there); the printer stopped at the first
    newline, as in a line."""
    files = {f"r{k}.txt": f"\0\n  \n river {k}\nsea\0".encode() for k in range(6)}
    args = ["--null-data", "--trim", "--column", "river"]
    ours, theirs = _beside_rg(tmp_path / "records", files, args, 3, rg, env)
    records = ours.split(b"\0")[:-1]
    assert len(records) == 3 and set(records) <= set(theirs.split(b"\0")), ours


@pytest.mark.parametrize(
    ("flags", "pattern"),
    [
        (["-U", "--vimgrep"], "^$"),
        (["-U", "-o"], "^$"),
        (["-U", "-o"], "d*$"),
        (["-U", "--vimgrep"], "d*$"),
        # A NUL ends a line: ^$ cannot match one, so rg prints as without -U.
        (["-U", "-o", "--null-data"], "^$"),
        (["-U", "--vimgrep", "--null-data"], "^$"),
    ],
)
def test_reranked_empty_matches_under_multiline_are_rgs(
    flags: list[str], pattern: str, tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """rg's multi-line printer (-U) writes no empty match under -o, and under --vimgrep
    none at a line's start; the printer wrote each as rg does without -U. rg prints
    multi-line only where the pattern may match the line terminator: under --null-data,
    hardly ever."""
    files = {f"r{k}.txt": f"river {k}\n\nsea and\n\nend\n".encode() for k in range(6)}
    args = [*flags, "-e", pattern]
    ours, theirs = _beside_rg(tmp_path / "multiline", files, args, 3, rg, env)
    end = b"\0" if "--null-data" in flags else b"\n"
    assert set(ours.split(end)) <= set(theirs.split(end)), ours
    assert bool(ours) == bool(theirs), (ours, theirs)


@pytest.mark.parametrize(
    ("flags", "pattern"),
    [
        (["-U", "-o"], "e*"),
        (["-U", "--vimgrep"], "e*"),
        (["-U", "-P", "-o", "--null-data"], "^$"),
        (["-U", "-P", "--vimgrep", "--null-data"], "^$"),
    ],
)
def test_reranked_lines_print_as_rg_searches_them_multi_line_or_not(
    flags: list[str], pattern: str, tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """-U alone does not make rg's search multi-line: a pattern that may match the line
    terminator does, or PCRE2, which does not say what it matches. ``e*`` cannot match a
    newline, so rg prints its empty matches under -U -o as without -U, and the printer
    left them out; under -P even a NUL may be matched, so rg prints no empty match of
    ``^$`` (an empty line, to PCRE2) under --null-data, and the printer printed each.
    Every line reranked prints what rg prints of it."""
    end = b"\0" if "--null-data" in flags else b"\n"
    files = {f"r{k}.txt": b"river %d\n\nsea\n" % k for k in range(6)}
    args = ["-H", "-n", *flags, "-e", pattern]
    ours, theirs = _beside_rg(tmp_path / "multiline", files, args, 3, rg, env)

    def by_line(out: bytes) -> Counter[bytes]:
        return Counter(b":".join(row.split(b":")[:2]) for row in out.split(end)[:-1])

    reranked, rgs = by_line(ours), by_line(theirs)
    assert all(rgs[line] == count for line, count in reranked.items()), (ours, theirs)
    assert bool(ours) == bool(theirs), (ours, theirs)


@pytest.mark.parametrize(
    "flags",
    [
        ["-n", "--max-columns=12"],
        ["-n", "--column", "--max-columns=12", "--color=always"],
        ["--vimgrep", "--max-columns=12"],
        ["--vimgrep", "--max-columns=12", "--max-columns-preview"],
    ],
)
def test_reranked_long_lines_of_a_multi_line_search_count_as_rgs(
    flags: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """A multi-line search (-P -U) reports adjacent matching lines as one block, and rg's
    notice for each long line of it counts the block's matches ("with 3 matches" for a
    line holding 2); under --vimgrep a line's preview counts its own match alone. The
    printer counted each line's own matches, and every match after the preview's cut."""
    files = {
        f"r{k}.txt": b"  go foo(1) then bar(2) to the river %d\n  go foo(3) to the sea\n" % k
        for k in range(6)
    }
    args = ["-P", "-U", *flags, "-e", "foo|bar"]
    ours, theirs = _beside_rg(tmp_path / "blocks", files, args, 3, rg, env)
    assert ours and set(ours.splitlines()) <= set(theirs.splitlines()), (ours, theirs)


@pytest.mark.parametrize(
    "flags",
    [
        ["--crlf", "-U", "--column"],
        ["--crlf", "-U", "--column", "--trim"],
        ["--crlf", "-U", "--vimgrep"],
        ["--crlf", "-U"],
    ],
)
def test_reranked_lines_of_a_multi_line_search_end_as_rgs(
    flags: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Where a multi-line search finds each match (--column, --vimgrep), rg writes each
    line less its end, then its own terminator: CRLF under --crlf, on a file of LF lines.
    The printer wrote the line's own end, as rg does elsewhere without colour."""
    files = {f"r{k}.txt": b"  the river %d\n  meets the sea\n" % k for k in range(6)}
    args = ["-H", "-n", *flags, "-e", "\\w\\n\\s*\\w"]
    ours, theirs = _beside_rg(tmp_path / "ends", files, args, 3, rg, env)

    def by_line(out: bytes) -> Counter[bytes]:
        return Counter(out.split(b"\n"))

    reranked, rgs = by_line(ours), by_line(theirs)
    assert ours and all(rgs[row] >= count for row, count in reranked.items()), (ours, theirs)


@pytest.mark.parametrize(
    "colours",
    [
        [],
        ["--column"],
        # The user's colours: names, a 256-colour number, RGB, styles, "none".
        [
            "--column",
            "--colors=path:fg:cyan",
            "--colors=line:style:bold",
            "--colors=column:fg:201",
            "--colors=match:bg:0x10,0x20,0x30",
            "--colors=match:style:underline",
        ],
        ["--colors=path:none", "--colors=match:none"],
        # rg's links around each prelude: its aliases, a format of one's own (a brace
        # written twice is a brace), with and without line numbers and columns, -o, -0.
        ["--hyperlink-format=vscode"],
        ["--hyperlink-format=default", "--column"],
        ["--hyperlink-format=kitty", "-N"],
        ["--hyperlink-format=x://{host}/{path}?l={line}&c={column}{{and}}", "-o", "-0"],
    ],
)
def test_rerank_colours_like_rg(
    facts: Path, rg: str, env: dict[str, str], colours: list[str]
) -> None:
    ours = run(rerank("--limit", "4", "--color=always", "-n", *colours, "river"), facts, env)
    theirs = run([rg, "--color=always", "-n", *colours, "river"], facts, env)
    assert ours.returncode == 0, ours.stderr
    lines = ours.stdout.splitlines()
    assert len(lines) == 4 and set(lines) <= set(theirs.stdout.splitlines()), lines
    assert all(b"\x1b]8;;" in line for line in lines) == any("hyperlink" in c for c in colours)


def test_a_line_link_is_the_files_link_as_rg_listed_it_at_another_line() -> None:
    listed = b"\x1b]8;;vscode://file/r/a%20b.py:1:1\x1b\\\x1b[0m\x1b[35ma b.py\x1b[0m\x1b]8;;\x1b\\"
    link = line_links(ALIASES["vscode"], listed)
    assert link is not None and link(12, 5) == b"\x1b]8;;vscode://file/r/a%20b.py:12:5\x1b\\"
    assert link(None, 3) == b"\x1b]8;;vscode://file/r/a%20b.py:1:3\x1b\\"  # -N: line 1
    own = line_links("x://{host}{path}#{line}{{1}}", b"\x1b]8;;x://h/r/1.py#1{1}\x1b\\")
    assert own is not None and own(7, 1) == b"\x1b]8;;x://h/r/1.py#7{1}\x1b\\"
    assert line_links("x://{path}:{line}", b"\x1b[35ma.py") is None  # rg drew no link
    assert line_links("y://{path}:{line}", listed) is None  # not the format rg used
    assert parts("{nope}") is None and parts("a}b") is None  # formats rg refuses
    assert parts("a{{b}}{path}") == [("text", "a{b}"), ("var", "path")]


def test_colours_from_rg_config_file_and_a_bad_one(
    tmp_path: Path, facts: Path, rg: str, env: dict[str, str]
) -> None:
    """rg's config file colours rrg's own lines as rg's; a bad spec is refused in one line
    where rrg would colour (in a pipe without colour rg's own run reports it)."""
    config = tmp_path / "ripgreprc"
    config.write_text("--colors=path:fg:green\n--colors=line:fg:yellow\n")
    configured = {**env, "RIPGREP_CONFIG_PATH": str(config)}
    ours = run(rerank("--limit", "2", "--color=always", "-n", "river"), facts, configured)
    theirs = run([rg, "--color=always", "-n", "river"], facts, configured)
    assert ours.returncode == 0, ours.stderr
    assert set(ours.stdout.splitlines()) <= set(theirs.stdout.splitlines())
    assert b"\x1b[32m" in ours.stdout and b"\x1b[35m" not in ours.stdout
    passages = run(
        [*rrg_cmd(), "-q", "river mouth", "--color=always", "--limit", "1"], facts, configured
    )
    assert passages.returncode == 0, passages.stderr
    # The flat form's path and lines in the config's colours, as rg writes them above.
    path_colour = _escapes_ahead(theirs.stdout)
    line_colour = _escapes_ahead(theirs.stdout.split(b"\x1b[0m:", 1)[1])
    title = passages.stdout.split(b"\n")[0]
    assert title.startswith(path_colour) and b"\x1b[0m:" + line_colour in title, title
    bad = ["--color=always", "--colors=path:fg:mauve"]
    # rg's own refusal, with a pattern and without one (rg parses the flags first in both).
    for cmd in (rerank(*bad, "river"), [*rrg_cmd(), "-q", "sea", *bad]):
        out = run(cmd, facts, env)
        assert out.returncode == 2 and out.stdout == b"", cmd
        assert out.stderr.startswith(b"rg: ") and out.stderr.count(b"\n") == 1, out.stderr
        assert b"error parsing flag --colors: unrecognized color name 'mauve'" in out.stderr


def _escapes_ahead(line: bytes) -> bytes:
    """The colour escapes a line starts with."""
    found = re.match(rb"(?:\x1b\[[0-9;]*m)*", line)
    assert found is not None and found.group(0), line[:40]
    return found.group(0)


def test_rerank_json_carries_scores(facts: Path, env: dict[str, str]) -> None:
    out = run(rerank("--limit", "4", "--json", "river"), facts, env)
    messages = [json.loads(line) for line in out.stdout.splitlines()]
    assert [m["type"] for m in messages] == ["begin", "match", "end"] * 4 + ["summary", "rrg"]
    assert messages[-1]["data"]["notices"] == ["reranked top 4 of 61 matches"]
    scores = [m["data"]["score"] for m in messages if m["type"] == "match"]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) > 1
    assert messages[1]["data"]["path"]["text"] == "delta.txt"


def test_rerank_query_overrides(facts: Path, env: dict[str, str]) -> None:
    out = run(
        [*rrg_cmd(), "-q", "x", "--rerank-query", "farm 3 and a mill", "--limit", "1", "river"],
        facts,
        env,
    )
    assert b"farm 3" in out.stdout


@pytest.mark.parametrize("flag", [["-l"], ["-c"], ["-C", "1"], ["-r", "x"], ["--stats"]])
def test_rerank_refuses_output_it_cannot_order(
    flag: list[str], facts: Path, env: dict[str, str]
) -> None:
    out = run(rerank(*flag, "river"), facts, env)
    assert out.returncode == 2 and b"cannot be used with --rerank" in out.stderr


def test_rerank_reads_context_as_rg_does(facts: Path, env: dict[str, str]) -> None:
    """rg's -A and -B override -C whatever their order, and each flag's last count counts:
    ``-C 1 -C 0`` and ``-C 2 -A 0 -B 0`` print no context (a config file's ``--context=2``
    turned off on the command line), and ``-C 2 -A 0`` still prints the lines before."""
    for flags in (["-C", "1", "-C", "0"], ["-C", "2", "-A", "0", "-B", "0"]):
        out = run(rerank(*flags, "river"), facts, env)
        assert out.returncode == 0, (flags, out.stderr)
        assert out.stdout == run(rerank("river"), facts, env).stdout
    out = run(rerank("-C", "2", "-A", "0", "river"), facts, env)
    assert out.returncode == 2 and b"--context cannot be used with --rerank" in out.stderr


def test_rerank_reads_the_mode_rg_keeps(facts: Path, env: dict[str, str]) -> None:
    """rg keeps the last mode given and a flag turned off again is off: ``-c --json`` is a
    --json search, ``-b --no-byte-offset`` prints no offsets; ``--json -c`` counts."""
    plain = run(rerank("river"), facts, env)
    assert run(rerank("-b", "--no-byte-offset", "river"), facts, env).stdout == plain.stdout
    as_json = run(rerank("-c", "--json", "river"), facts, env)
    assert as_json.returncode == 0 and b'"type":"match"' in as_json.stdout, as_json.stderr
    out = run(rerank("--json", "-c", "river"), facts, env)
    assert out.returncode == 2 and b"--count cannot be used with --rerank" in out.stderr


@pytest.mark.parametrize(
    ("flags", "context"),
    [
        ([], False),
        (["-A", "1"], True),
        (["-C", "1", "-C", "0"], False),
        (["-C", "2", "-A", "0", "-B", "0"], False),
        (["-C", "2", "-A", "0"], True),
        (["-A", "0", "-C", "2"], True),
        (["-B", "3", "-C", "0"], True),
    ],
)
def test_context_is_read_as_rg_reads_it(flags: list[str], context: bool) -> None:
    assert parse_rg_args([*flags, "river"]).prints_context is context


def test_rerank_takes_stats_turned_off_or_carried_by_json(facts: Path, env: dict[str, str]) -> None:
    for flags in (["--stats", "--no-stats"], ["--stats", "--json"]):
        out = run(rerank(*flags, "river"), facts, env)
        assert out.returncode == 0, (flags, out.stderr)


def test_rerank_needs_a_query(facts: Path, env: dict[str, str]) -> None:
    out = run([*rrg_cmd(), "--rerank", "river"], facts, env)
    assert out.returncode == 2 and out.stderr.startswith(b"rrg: --rerank")


def test_scope_file_rerank_uses_the_remembered_query(facts: Path, env: dict[str, str]) -> None:
    recall = run(
        [*rrg_cmd(), "--recall", "where does the river meet the sea", "--paragraphs", "0"],
        facts,
        env,
    ).stdout.decode()
    scope = recall.split(" \u2192 ")[1].split(" (")[0]
    out = run([*rrg_cmd(), "--scope-file", scope, "--rerank", "--limit", "1", "river"], facts, env)
    assert out.stdout.startswith(b"delta.txt:"), out.stderr


def test_pool_bounds_what_is_collected(facts: Path, env: dict[str, str]) -> None:
    out = subprocess.run(
        rerank("--pool", "10", "--limit", "3", "river"), cwd=facts, env=env, capture_output=True
    )
    assert out.stderr == b"[rrg: reranked top 3 of 10 matches; more matches lie beyond --pool 10]\n"


@pytest.fixture
def long_lines(tmp_path: Path) -> Path:
    """Matching lines long and short, indented, with accents, so -M, its preview and --trim
    have something to cut."""
    root = tmp_path / "long"
    root.mkdir()
    for k in range(8):
        lines = [
            f"   \tshort river line {k}",
            "x" * 30 + f" river {k} " + "y" * 30,
            "  café river " + "é" * 40,
            f"river river river {k} " + "z" * 50,
        ]
        (root / f"f{k}.txt").write_text("\n".join(lines) + "\n")
    return root


def _reranked_and_rgs(
    root: Path, query: str, limit: int, flags: list[str], rg: str, env: dict[str, str]
) -> tuple[list[bytes], list[bytes]]:
    """The lines ``rrg -q QUERY --rerank`` prints for the pattern "river" with these flags,
    and the lines rg prints for the same search; split at newlines only (splitlines() would
    also drop a CR, which rg prints)."""
    ours = run(
        [*rrg_cmd(), "-q", query, "--rerank", "--limit", str(limit), "-n", *flags, "river"],
        root,
        env,
    )
    assert ours.returncode == 0, ours.stderr
    theirs = run([rg, "-n", *flags, "river"], root, env)
    return ours.stdout.split(b"\n")[:-1], theirs.stdout.split(b"\n")[:-1]


@pytest.mark.parametrize(
    "flags",
    [
        ["-M", "20"],
        ["-M", "20", "--max-columns-preview"],
        ["--trim"],
        ["-M", "20", "--trim"],
        ["-M", "30", "--max-columns-preview", "--trim"],
        ["-M", "20", "--column"],
        ["-M", "20", "--vimgrep"],
        ["-M", "20", "--vimgrep", "--max-columns-preview"],
        ["-M", "3", "-o"],
        ["-M", "3", "-o", "--max-columns-preview"],
        ["-M", "20", "--color=always"],
        ["-M", "20", "--max-columns-preview", "--color=always"],
        ["-M", "60", "--max-columns-preview"],
    ],
)
def test_reranked_long_lines_are_cut_as_rg_cuts_them(
    flags: list[str], long_lines: Path, rg: str, env: dict[str, str]
) -> None:
    got, theirs = _reranked_and_rgs(long_lines, "river", 20, flags, rg, env)
    assert len(got) >= 20 and set(got) <= set(theirs), (got, theirs)


def test_rerank_json_summary_holds_no_made_up_figures(facts: Path, env: dict[str, str]) -> None:
    out = run(rerank("--limit", "4", "--json", "river"), facts, env)
    messages = [json.loads(line) for line in out.stdout.splitlines()]
    summary = next(m for m in messages if m["type"] == "summary")["data"]
    assert summary["stats"] == {"matched_lines": 4, "matches": 4}
    elapsed = summary["elapsed_total"]
    assert elapsed["secs"] + elapsed["nanos"] > 0
    ends = [m for m in messages if m["type"] == "end"]
    assert ends and all("stats" not in m["data"] for m in ends)


def test_rerank_reads_long_lines_back_from_their_files(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Lines past the size kept in memory are re-read at print time, byte for byte."""
    root = tmp_path / "huge"
    root.mkdir()
    for k in range(5):
        line = ("filler " * 5000) + f"river mouth {k} " + ("tail " * 5000)
        (root / f"h{k}.txt").write_text(f"river {k}\n{line}\n")
    search = ["river mouth", "--rerank", "--limit", "3", "--excerpt", "0", "river mouth"]
    out = run([*rrg_cmd(), "-q", *search], root, env)
    lines = out.stdout.splitlines()
    # Only the long lines match: each printed one was re-read, and is rg's line byte for byte.
    assert len(lines) == 3 and all(len(line) > 50_000 for line in lines)
    assert set(lines) <= set(run([rg, "river mouth"], root, env).stdout.splitlines())


def test_an_excerpts_score_does_not_depend_on_what_was_read_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The int8 graph quantises a run's activations with one scale: excerpts read in one
    batch would change each other's vectors, and near-equal lines could swap with what an
    earlier search left in the cache."""
    monkeypatch.setenv("RRG_CACHE_DIR", str(tmp_path / "cache"))
    encoder = Encoder(default_model())
    texts = [
        "The river reaches the sea at a wide delta",
        "river mouth",
        "salt WATER meets fresh water where the river ends, 9000 metres out",
        "The river 3-4 flows past farm 4 and a mill.",
    ]

    def scores(index: Path, only: list[str]) -> list[float]:
        matches = [Match(b"a.txt", {}, None, 0, 0, "", [], text, None) for text in only]
        score(matches, "where does the river meet the sea", encoder, VectorCache(index))
        return [m.score for m in matches]

    together = scores(tmp_path / "together.sqlite", texts)
    scores(tmp_path / "apart.sqlite", texts[1:2])  # one excerpt read first, alone
    assert scores(tmp_path / "apart.sqlite", texts) == together


@pytest.mark.parametrize(
    "flags",
    [[], ["-M", "20"], ["-M", "20", "--color=always"], ["-M", "3", "-o"], ["-M", "20", "--column"]],
)
def test_reranked_crlf_lines_keep_their_cr_as_rg_prints_them(
    flags: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Issue 27: rg writes a CRLF line's bytes as they are, CR and all (omitted or not);
    the rerank printer dropped the CR of every line it printed whole."""
    root = tmp_path / "crlf"
    root.mkdir()
    for k in range(6):
        lines = [f"river {k}", "x" * 30 + f" river {k} " + "y" * 30, f"the river mouth {k}"]
        (root / f"w{k}.txt").write_bytes(("\r\n".join(lines) + "\r\n").encode())
    got, theirs = _reranked_and_rgs(root, "river mouth", 8, flags, rg, env)
    assert len(got) == 8 and set(got) <= set(theirs), (got, theirs)
    if not flags:  # printed whole, every one keeps its CR
        assert all(line.endswith(b"\r") for line in got)


def test_reranked_json_lines_are_rgs_lines(tmp_path: Path, rg: str, env: dict[str, str]) -> None:
    """The match messages carry each line's bytes as rg's do (CR included)."""
    root = tmp_path / "crlf-json"
    root.mkdir()
    for k in range(6):
        (root / f"j{k}.txt").write_bytes(f"river {k}\r\nthe river mouth {k}\r\n".encode())

    def lines_of(out: bytes) -> list[str]:
        messages = [json.loads(line) for line in out.splitlines()]
        return [m["data"]["lines"]["text"] for m in messages if m["type"] == "match"]

    ours = run(
        [*rrg_cmd(), "-q", "river mouth", "--rerank", "--limit", "4", "--json", "river"], root, env
    )
    theirs = run([rg, "--json", "river"], root, env)
    got = lines_of(ours.stdout)
    assert len(got) == 4 and set(got) <= set(lines_of(theirs.stdout))
    assert all(text.endswith("\r\n") for text in got)


def _failing_preprocessor(tmp_path: Path) -> str:
    script = tmp_path / "failing-pre"
    script.write_text("#!/bin/sh\necho cannot read it >&2\nexit 3\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize("limit", ["1", "30"])
def test_rgs_messages_are_said_once_under_rerank(
    facts: Path, tmp_path: Path, rg: str, env: dict[str, str], limit: str
) -> None:
    """The pool's rg run and (where the pool fits the limit) the ordered search's each meet
    the same failures: rg says each once."""
    pre = _failing_preprocessor(tmp_path)
    theirs = run([rg, "--pre", pre, "river"], facts, env)
    ours = run(rerank("--limit", limit, "--pre", pre, "river"), facts, env)
    failures = theirs.stderr.count(b"preprocessor command failed")
    assert failures == 7 and ours.stderr.count(b"preprocessor command failed") == failures
    assert ours.returncode == theirs.returncode == 2


def test_a_file_deleted_after_the_listing_is_no_error_under_rerank(
    facts: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    """As in rg's own walk: a file gone by the time rg reads it is no failure. The
    preprocessor of the first file read deletes the least relevant one, which rrg listed."""
    victim = facts / "victim.txt"
    victim.write_text("a river\n")
    script = tmp_path / "deleting-pre"
    script.write_text(f'#!/bin/sh\n[ "$1" = victim.txt ] || rm -f {victim}\ncat "$1"\n')
    script.chmod(0o755)
    out = run(rerank("--limit", "3", "--pre", str(script), "river"), facts, env)
    assert not victim.exists()
    assert out.returncode == 0 and b"No such file" not in out.stderr, out.stderr
    assert out.stdout.splitlines()[0].startswith(b"delta.txt:The river reaches the sea")
