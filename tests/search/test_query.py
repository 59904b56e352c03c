"""``rrg -q``: relevance order, the cap, and rg's own output for every mode."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import (
    crashed_log,
    make_code_tree,
    on_a_terminal,
    opening_logger,
    openings,
    outcome,
    rrg_cmd,
    run,
    without_timings,
)
from rrg.rg.args import parse_rg_args
from rrg.rg.binary_files import may_be_decompressed


def q(query: str, *args: str) -> list[str]:
    return [*rrg_cmd(), "-q", query, *args]


def lines(data: bytes) -> list[bytes]:
    return sorted(line for line in without_timings(data).split(b"\n") if line)


def blocks(data: bytes) -> list[bytes]:
    """Heading output as per-file blocks, order-free."""
    return sorted(b.strip(b"\n") for b in data.split(b"\n\n") if b.strip())


@pytest.fixture
def topical(tmp_path: Path) -> Path:
    """Twenty files that all say 'error'; one is about database connection timeouts."""
    root = tmp_path / "topical"
    root.mkdir()
    subjects = [
        "gardening tomatoes",
        "baking bread",
        "bicycle repair",
        "knitting scarves",
        "river fishing",
        "painting walls",
        "guitar chords",
        "tax forms",
        "bird song",
        "chess openings",
        "mountain hiking",
        "coffee roasting",
        "car tyres",
        "jazz history",
        "poetry meter",
        "roof tiles",
        "dog training",
        "sewing",
        "pottery glaze",
    ]
    for k, subject in enumerate(subjects):
        (root / f"note{k:02d}.txt").write_text(
            f"Notes on {subject}.\nAn error in {subject} is common.\n" * 3
        )
    (root / "zz_db.txt").write_text(
        "The database connection timed out.\nerror: connection timeout after 30 s talking to "
        "the database server\nRetry the database connection with a longer timeout.\n"
    )
    return root


def test_relevant_file_comes_first(topical: Path, env: dict[str, str]) -> None:
    out = run(q("database connection timeout", "error"), topical, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(b"\n")[0].startswith(b"zz_db.txt:"), out.stdout[:200]


def test_a_pattern_that_names_a_path_says_how_to_get_its_passages(
    topical: Path, rg: str, env: dict[str, str]
) -> None:
    """Other search tools take ``QUERY PATH``; rg reads the first word after the options as
    the PATTERN, and so does rrg. ``rrg -q Q sub`` searched for "sub" and exited 1 in
    silence; where nothing matched a pattern that names a path, a notice says how to get
    that path's passages, and the way it gives works. rg's reading stays: a pattern that
    matches prints its lines, and --quiet and a pattern that names nothing stay silent."""
    sub = topical / "sub"
    sub.mkdir()
    (sub / "pump.txt").write_text("The water pump needs a new seal.\n")
    query = "water pump seal"
    out = run(q(query, "sub"), topical, env)
    theirs = run([rg, "sub"], topical, env)
    assert out.returncode == theirs.returncode == 1 and out.stdout == theirs.stdout == b""
    notice = out.stderr.decode()
    assert notice.count("\n") == 1 and "names a folder" in notice, notice
    way = notice.split("passages: ")[1].rstrip("]\n")
    assert way == "rrg -q 'water pump seal' -g 'sub/**'", way
    passages = run(q(query, "-g", "sub/**"), topical, env)
    assert passages.returncode == 0, passages.stderr
    assert passages.stdout.startswith(b"sub/pump.txt:1-1:\nThe water pump"), passages.stdout
    a_file = run(q(query, "./sub/pump.txt"), topical, env).stderr.decode()
    assert a_file.endswith(
        "names a file (rg reads the first word after the options as the "
        "PATTERN); for its most relevant passages: rrg -q 'water pump seal' "
        "-g sub/pump.txt]\n"
    ), a_file
    for quiet in (q(query, "--quiet", "sub"), q(query, "nowhere"), q(query, "-e", "sub", ".")):
        silent = run(quiet, topical, env)
        assert silent.returncode == 1 and silent.stderr == b"", (quiet, silent.stderr)


def test_files_mode_ranks_all_candidates(topical: Path, rg: str, env: dict[str, str]) -> None:
    out = run(q("database connection timeout", "--files"), topical, env)
    assert out.returncode == 0
    ranked = out.stdout.split(b"\n")[:-1]
    assert ranked[0] == b"zz_db.txt"
    assert sorted(ranked) == lines(run([rg, "--files"], topical, env).stdout)


@pytest.mark.parametrize(
    "extra",
    [["-0"], ["--path-separator=\\"], ["-g", "*.py", "sub"], ["--quiet"], ["-l", "--files"]],
)
def test_files_mode_prints_paths_as_rg(
    extra: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    ours = run(q("doctor watson", "--files", *extra), corpus, env)
    theirs = run([rg, "--files", *extra], corpus, env)
    sep = b"\0" if "-0" in extra else b"\n"
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert sorted(ours.stdout.split(sep)) == sorted(theirs.stdout.split(sep))


def test_rgs_reports_on_itself_are_rgs(corpus: Path, rg: str, env: dict[str, str]) -> None:
    """--type-list and the like search nothing: there is nothing to order (``-V``, rg's
    version, with a pattern too; ``--version`` is rrg's own)."""
    for args in (
        ["--type-list"],
        ["--pcre2-version"],
        ["--generate", "complete-bash"],
        ["-V", "Watson"],
    ):
        ours = run(q("doctor watson", *args), corpus, env)
        theirs = run([rg, *args], corpus, env)
        assert outcome(ours) == outcome(theirs)


def test_a_query_of_bytes_that_are_no_utf8_still_searches(
    corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """A shell passes bytes; the tokenizer takes text: such bytes read as U+FFFD."""
    for option in (b"-q", b"--recall"):
        cmd = [*rrg_cmd(), option, b"doctor \xff\xfe watson", "--limit", "0", "Watson"]
        if option == b"--recall":
            cmd = [*rrg_cmd(), option, b"doctor \xff\xfe watson", "--paragraphs", "1"]
        out = run(cmd, corpus, env)  # type: ignore[arg-type]
        assert out.returncode == 0 and b"rrg: " not in out.stderr.replace(b"[rrg: ", b""), (
            out.stderr
        )
        assert b"Watson" in out.stdout


def test_rrgs_words_naming_bytes_no_encoding_reads_are_those_bytes(
    corpus: Path, env: dict[str, str]
) -> None:
    """rrg's own lines (a message, the scope line) name paths and arguments as the bytes
    they came in as, as rg does: a scope file's name that is not UTF-8 printed a Python
    traceback (its message could not be encoded), and under an ASCII locale
    (``LC_ALL=C PYTHONUTF8=0``) every ``--recall`` ended in an internal error (the scope
    line's arrow)."""
    missing = os.fsencode(corpus) + b"/caf\xe9.txt"
    out = run([*rrg_cmd(), "--scope-file", missing, "Watson"], corpus, env)  # type: ignore[list-item]
    assert out.returncode == 2
    assert (
        out.stderr == b"rrg: cannot read scope file " + missing + b": No such file or directory\n"
    )
    ascii_locale = {**env, "LC_ALL": "C", "PYTHONUTF8": "0"}
    for query in ("doctor watson", "docteur Watson \u00e9l\u00e9mentaire"):
        out = run([*rrg_cmd(), "--recall", query, "--paragraphs", "1"], corpus, ascii_locale)
        assert out.returncode == 0 and out.stderr == b"", out.stderr
        head = out.stdout.splitlines()[0]
        assert head.startswith(f'"{query}" \u2192 '.encode()), head


@pytest.mark.parametrize(
    "mode", [["-q", "doctor watson"], ["-q", "doctor watson", "--files"], ["--recall", "doctor"]]
)
def test_a_flag_rg_does_not_know_is_refused_in_rgs_words_without_a_pattern(
    mode: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """Without a pattern rg runs only to list the files, with the flags that choose them: a
    typo (``--hiden``) or a bad value went unsaid, and the search ran without the flag.
    rg's own refusal now comes first, as with a pattern, and nothing is ranked."""
    for flag in (["--hiden"], ["--max-depth", "x"], ["--path-separator", "::"]):
        ours = run([*rrg_cmd(), *mode, *flag], corpus, env)
        theirs = run([rg, *flag, "--files"], corpus, env)
        assert theirs.returncode == 2
        assert outcome(ours) == (2, b"", theirs.stderr), flag


@pytest.mark.parametrize("args", [["Watson"], ["-c", "Watson"], ["-g", "*.zzz", "Watson"]])
def test_a_search_of_no_file_says_what_rg_says(
    args: list[str], corpus: Path, tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """An empty folder, or globs that leave no file: rg warns that no file was searched and
    exits 2; with nothing to order, rrg must not answer 1 in silence."""
    where = corpus if "-g" in args else tmp_path / "empty"
    where.mkdir(exist_ok=True)
    ours = run(q("doctor watson", *args), where, env)
    theirs = run([rg, *args], where, env)
    assert theirs.returncode == 2 and b"No files were searched" in theirs.stderr
    assert outcome(ours) == outcome(theirs)


def test_cap_stops_and_says_so(topical: Path, env: dict[str, str]) -> None:
    out = run(q("database connection timeout", "--limit", "4", "error"), topical, env)
    assert out.returncode == 0
    assert len(out.stdout.splitlines()) == 4
    assert b"--limit 4" in out.stderr and out.stderr.startswith(b"[rrg:")


def test_default_cap_is_30(topical: Path, env: dict[str, str]) -> None:
    out = run(q("anything", "-i", "notes|error"), topical, env)
    assert len(out.stdout.splitlines()) == 30


def test_rg_really_stops_at_the_cap(tmp_path: Path, env: dict[str, str]) -> None:
    """A --pre hook logs every file rg opens: with the cap met in the first batch,
    most of a 400-file tail is never read (the walk started beside the ranking is stopped
    once it has found more than twice the cap's files with matches)."""
    root = tmp_path / "tail"
    root.mkdir()
    for k in range(400):
        (root / f"f{k:03d}.txt").write_text("match me\n" * 5)
    hook, log = opening_logger(tmp_path)
    out = run(q("match", "--limit", "3", f"--pre={hook}", "match"), root, env)
    assert out.returncode == 0 and len(out.stdout.splitlines()) == 3
    opened = {path for _, path in openings(log)}
    assert 0 < len(opened) <= 100, len(opened)


MODES = [
    ["Watson"],
    ["-i", "watson"],
    ["-w", "Doc"],
    ["-n", "Watson"],
    ["--vimgrep", "Watson"],
    ["-o", "Wat\\w+"],
    ["-r", "W", "Watson"],
    ["-A", "1", "Holmes"],
    ["-C", "1", "Watson"],
    ["-m", "1", "Watson"],
    ["-v", "Watson"],
    ["-e", "Watson", "-e", "Holmes"],
    ["-l", "Watson"],
    ["-c", "Watson"],
    ["--count-matches", "o"],
    ["--files-without-match", "-g", "!*.bin", "Holmes"],
    ["-g", "*.md", "Watson"],
    ["-t", "py", "Holmes"],
    ["--hidden", "Watson"],
    ["--no-ignore", "Watson"],
    ["-a", "binary"],
    ["binary"],
    ["caf"],
    ["--column", "Holmes"],
    ["-F", "a dash"],
    ["Watson", "sub"],
    ["Watson", "--", "-dash.txt", "sherlock.txt"],
    ["-uuu", "Watson"],
    ["nomatchanywhere"],
    ["-l", "--null", "Watson"],
    ["-x", "No match here."],
    ["--path-separator=\\", "-l", "Watson"],
    ["--path-separator=\\", "-n", "Watson"],
    ["--sort=none", "-c", "Watson"],
    ["--sort", "path", "--sortr=none", "-j1", "Watson"],
    # rrg runs rg on one thread, as rg's own --sort does whatever -j says.
    ["-j4", "Watson"],
    ["--threads", "0", "-l", "Watson"],
    ["--files", "-c", "Watson"],
    ["--null-data", "Watson"],
    ["--null-data", "-c", "Watson"],
    ["--null-data", "-n", "-o", "Holmes"],
    ["--include-zero", "-c", "nomatchanywhere"],  # exit 1: zeros printed, no match
    ["--include-zero", "--count-matches", "Watson"],
    ["--files-without-match", "--null-data", "Holmes"],  # each path ends with NUL
    ["-l", "Watson", "binary.bin", "sub"],  # a binary file named as a PATH is searched
    ["Watson", "binary.bin", "sub"],
]


@pytest.mark.parametrize("args", MODES, ids=[" ".join(m) for m in MODES])
def test_same_lines_as_rg(args: list[str], corpus: Path, rg: str, env: dict[str, str]) -> None:
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "0", *args), corpus, env)
    theirs = run([rg, *args], corpus, env)
    assert ours.returncode == theirs.returncode, ours.stderr
    sep = b"\0" if "--null" in args or "--null-data" in args else b"\n"
    assert sorted(ours.stdout.split(sep)) == sorted(theirs.stdout.split(sep))


def test_a_capped_count_of_zeros_exits_as_rg_does(
    corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """--include-zero under a cap that printed zeros alone: rg's exit code says whether any
    file matched, not whether a printed one did."""
    ours = run(
        q("doctor watson notes", "--limit", "1", "--include-zero", "-c", "Holmes"), corpus, env
    )
    assert ours.stdout.endswith(b":0\n"), ours.stdout  # the best file holds no Holmes
    assert (
        ours.returncode == run([rg, "--include-zero", "-c", "Holmes"], corpus, env).returncode == 0
    )
    none = run(q("doctor watson", "--limit", "1", "--include-zero", "-c", "zzqqx"), corpus, env)
    assert none.returncode == 1 and none.stdout.endswith(b":0\n")


@pytest.mark.parametrize(
    ("args", "record"),
    [
        (["--include-zero", "-c", "--null", "Watson"], rb"[^\0\n]+\0[0-9]+\n"),
        (["--include-zero", "-c", "nomatchanywhere"], rb"[^\n]+:0\n"),
        (["--files-without-match", "--null-data", "Holmes"], rb"[^\0]+\0"),
    ],
)
def test_a_capped_record_mode_prints_whole_records(
    args: list[str], record: bytes, corpus: Path, env: dict[str, str]
) -> None:
    """The cap counts records as rg ends them: a count's line ("path\\0N\\n" under
    --null), a path alone ending with NUL under --null-data."""
    out = run(q("doctor watson", "--limit", "2", *args), corpus, env)
    assert re.fullmatch(rb"(?:" + record + rb"){2}", out.stdout), out.stdout
    assert b"stopped at --limit 2" in out.stderr


@pytest.mark.parametrize(
    "args", [["--heading", "Watson"], ["--heading", "-C1", "Watson"], ["-p", "Holmes"]]
)
def test_heading_blocks_as_rg(args: list[str], corpus: Path, rg: str, env: dict[str, str]) -> None:
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "0", *args), corpus, env)
    theirs = run([rg, *args], corpus, env)
    assert blocks(ours.stdout) == blocks(theirs.stdout)
    assert ours.stdout.count(b"\n\n") == theirs.stdout.count(b"\n\n")


def test_context_separator_between_runs_is_read_as_rg_reads_it(
    topical: Path, rg: str, env: dict[str, str]
) -> None:
    """rrg writes the separator between its rg runs (here the cut at the cap parts two):
    escapes such as \\t stand for their bytes there too."""
    args = ["-C1", "--context-separator", "\\x41\\t", "error"]
    ours = run(q("database connection timeout", "--limit", "3", *args), topical, env)
    theirs = run([rg, *args], topical, env)
    separators = {
        line for line in theirs.stdout.splitlines() if b":" not in line and b"-" not in line
    }
    assert separators == {b"A\t"}
    assert ours.stdout.count(b"\nA\t\n") >= 1 and b"\\" not in ours.stdout


@pytest.mark.parametrize("context", [["-C1", "-C0"], ["-C2", "-A0", "-B0"], ["-A1", "-A0"]])
def test_context_turned_off_again_puts_no_separator_between_runs(
    context: list[str], topical: Path, rg: str, env: dict[str, str]
) -> None:
    """A context flag whose count a later one sets to 0 (a config file's --context=2, -C0
    on the command line), or that -A and -B override: rg prints no context and no
    separator, and rrg wrote "--" between its runs."""
    args = [*context, "error"]
    ours = run(q("database connection timeout", "--limit", "3", *args), topical, env)
    theirs = run([rg, *args], topical, env)
    assert b"--" not in theirs.stdout.splitlines()
    assert ours.returncode == 0 and len(ours.stdout.splitlines()) == 3
    assert b"--" not in ours.stdout.splitlines()


def test_vimgrep_prints_no_heading_between_runs(
    topical: Path, rg: str, env: dict[str, str]
) -> None:
    """rg prints no heading under --vimgrep, wherever --heading stands; rrg read the last of
    the two and wrote a blank line, a heading's separator, between its capped runs."""
    args = ["--vimgrep", "--heading", "error"]
    ours = run(q("database connection timeout", "--limit", "3", *args), topical, env)
    assert b"" not in run([rg, *args], topical, env).stdout.splitlines()
    assert ours.returncode == 0 and len(ours.stdout.splitlines()) == 3
    assert b"" not in ours.stdout.splitlines()


@pytest.mark.parametrize(
    ("flags", "tty", "heading", "numbers"),
    [
        ([], False, False, False),
        ([], True, True, True),
        (["--vimgrep", "--heading"], True, False, True),
        (["-N", "--vimgrep"], False, False, False),
        (["--column"], False, False, True),
        (["--column", "--no-column"], False, False, False),
        (["-p", "-N"], False, True, False),
        (["--no-heading", "-p"], False, True, True),
    ],
)
def test_heading_and_line_numbers_are_read_as_rg_reads_them(
    flags: list[str], tty: bool, heading: bool, numbers: bool
) -> None:
    args = parse_rg_args([*flags, "error"])
    assert (args.heading(tty), args.line_numbers(tty)) == (heading, numbers)


@pytest.mark.parametrize("args", [["-f", "-"], ["-if-", "sub", "sherlock.txt"], ["--file=-", "-c"]])
def test_patterns_from_stdin_serve_every_run(
    args: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """rg reads -f - from stdin, which only the first of rrg's runs could: the walk took
    the patterns and the search found nothing (exit 1), or rrg took stdin for the haystack
    and ran plain rg, out of order and with no cap."""
    patterns = b"Watson\nholmes\n"
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "0", *args), corpus, env, patterns)
    theirs = run([rg, *args], corpus, env, patterns)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stderr == b""
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


@pytest.mark.parametrize(
    ("config", "args"),
    [
        ("--search-zip\n", ["Watson"]),
        ("# binary files too\n  --text  \n", ["-c", "Watson"]),
        ("--null\n", ["--files"]),
        ("--stats\n", ["-i", "watson"]),
        ("--sort=path\n", ["Watson"]),
        # rrg's listing read these too: no listed path named a file, and -q printed
        # nothing; and -H of its own undid the config's -I.
        ("--color=always\n", ["Watson"]),
        ("--pretty\n", ["Watson"]),
        ("--path-separator=@\n", ["Watson"]),
        ("--path-separator=@\n", ["--files"]),
        ("--no-filename\n", ["Watson"]),
    ],
)
def test_rgs_config_file_counts_as_given(
    config: str, args: list[str], corpus: Path, tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """rg takes flags from RIPGREP_CONFIG_PATH in every run rrg starts, and rrg must know
    them where it acts on flags itself: a .gz file kept for rg -z, binary files for
    --text, NUL-ended records, one --stats block. A sort there is no order breaker: rg
    keeps the order of the files it is given by name."""
    (corpus / "rotated.log.gz").write_bytes(gzip.compress(b"Watson in a rotated log\n"))
    rc = tmp_path / "ripgreprc"
    rc.write_text(config)
    env = {**env, "RIPGREP_CONFIG_PATH": str(rc)}
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "0", *args), corpus, env)
    theirs = run([rg, "-j1", *args], corpus, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    sep = b"\0" if "null" in config else b"\n"
    body, rg_body = ours.stdout, theirs.stdout
    if "stats" in config:
        body, rg_body = _stats(body)[0], _stats(rg_body)[0]
        capped = run(q("doctor watson", "--limit", "2", *args), corpus, env)
        assert capped.stdout.count(b" files contained matches\n") == 1  # one for all runs
    assert sorted(body.split(sep)) == sorted(rg_body.split(sep))


@pytest.mark.parametrize("args", [["--limit", "1", "Watson"], ["--limit", "0", "-l", "Watson"]])
def test_what_rg_says_in_every_run_is_said_once(
    args: list[str], corpus: Path, tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """rg says once that it cannot read its config file; rrg's runs (the listing, each
    printing run) each said it."""
    env = {**env, "RIPGREP_CONFIG_PATH": str(tmp_path / "no-such-rc")}
    ours = run(q("doctor watson", *args), corpus, env)
    theirs = run([rg, "Watson"], corpus, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    said = [line for line in ours.stderr.splitlines() if line.startswith(b"rg: ")]
    assert said == theirs.stderr.splitlines() and len(said) == 1, ours.stderr


def test_json_is_rg_json_with_one_summary(corpus: Path, rg: str, env: dict[str, str]) -> None:
    ours = run(q("doctor watson", "--limit", "0", "--json", "Watson"), corpus, env)
    theirs = run([rg, "--json", "Watson"], corpus, env)
    messages = [json.loads(line) for line in ours.stdout.splitlines()]
    assert [m["type"] for m in messages].count("summary") == 1
    assert messages[-1]["type"] == "summary"
    ours_matches = sorted(json.dumps(m) for m in messages if m["type"] == "match")
    theirs_matches = sorted(
        json.dumps(json.loads(line))
        for line in theirs.stdout.splitlines()
        if b'"type":"match"' in line
    )
    assert ours_matches == theirs_matches
    summary = messages[-1]["data"]["stats"]
    assert summary["matched_lines"] == len(ours_matches)


def test_json_summary_times_read_as_rgs_over_several_runs(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The capped search prints its files in several rg runs (a share of the cap a file);
    the one summary adds up their times, and each time still reads as rg writes one: its
    text the same time as its numbers, its nanoseconds under a second."""
    for i in range(40):
        # One line or three: a file whole, the next cut to its share, a run each.
        (tmp_path / f"note{i:02}.txt").write_text("river water\n" * (1 + 2 * (i % 2)))
    out = run(q("river water", "--json", "river"), tmp_path, env)
    assert out.returncode == 0, out.stderr
    summary = [json.loads(line) for line in out.stdout.splitlines()][-2]["data"]
    for elapsed in (summary["elapsed_total"], summary["stats"]["elapsed"]):
        assert 0 <= elapsed["nanos"] < 10**9, elapsed
        assert elapsed["human"] == f"{elapsed['secs'] + elapsed['nanos'] / 1e9:.6f}s", elapsed


def test_cap_cuts_inside_a_file_like_max_count(corpus: Path, rg: str, env: dict[str, str]) -> None:
    ours = run(q("holmes", "--limit", "1", "-n", "Holmes", "sherlock.txt"), corpus, env)
    theirs = run([rg, "-n", "-m", "1", "Holmes", "sherlock.txt"], corpus, env)
    assert ours.stdout == theirs.stdout


def test_exit_codes_follow_rg(corpus: Path, rg: str, env: dict[str, str]) -> None:
    """rg's exit code and messages, a flag's error naming the flag as it was typed."""
    for args in (
        ["(unclosed"],
        ["Watson", "missing.txt"],
        ["zzzz-nothing"],
        ["-m", "abc", "Watson"],
        ["-nA", "x", "Watson"],
        ["--maxdepth", "x", "Watson"],
        ["-uuuu", "Watson"],
        ["-A", "", "Watson"],
        ["--files", "-uuuu"],  # the listing's flags too
    ):
        ours = run(q("x", *args), corpus, env)
        theirs = run([rg, *args], corpus, env)
        assert ours.returncode == theirs.returncode, args
        assert sorted(ours.stderr.splitlines()) == sorted(theirs.stderr.splitlines())


@pytest.mark.parametrize(
    "args",
    [
        ["--files-without-match", "alpha"],
        ["--files-without-match", "--quiet", "alpha"],
        ["--files-without-match", "alpha", "a.txt", "c.bin"],  # named: searched whole
        ["--files-without-match", "-a", "alpha"],
        ["--files-without-match", "zeta"],
        ["--count", "--files-without-match", "alpha"],
    ],
)
def test_files_without_match_exits_as_rg_past_a_binary_file(
    tmp_path: Path, rg: str, env: dict[str, str], args: list[str]
) -> None:
    """rg's walk stops reading a binary file at its NUL: unprinted by --files-without-match,
    yet a file without a match, so rg exits 0 though it printed nothing; rrg exited 1."""
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "c.bin").write_bytes(b"bin\0ary alpha\n")
    ours = run(q("alpha", *args), tmp_path, env)
    theirs = run([rg, *args], tmp_path, env)
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout), args


def test_passages_name_their_paths_as_rg_prints_paths(corpus: Path, env: dict[str, str]) -> None:
    """--path-separator applies to every path rrg prints: the passages' headings and
    --recall's entry points (its scope file keeps the paths that open)."""
    out = run(q("doctor watson", "--limit", "0", "--path-separator", "\\"), corpus, env)
    heads = [line for line in out.stdout.splitlines() if re.fullmatch(rb".+:\d+-\d+:", line)]
    assert b"sub\\watson.md:1-2:" in heads and not any(b"/" in head for head in heads)
    recall = run([*rrg_cmd(), "--recall", "doctor watson", "--path-separator", "\\"], corpus, env)
    assert recall.returncode == 0, recall.stderr
    assert b"\nsub\\watson.md:\n" in recall.stdout and b"sub/watson.md" not in recall.stdout
    scope = Path(recall.stdout.split(b" \xe2\x86\x92 ")[1].split(b" (")[0].decode())
    assert "sub/watson.md" in scope.read_text().splitlines()


def test_passages_exit_2_where_rgs_listing_failed(
    corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """As --files and the searches do, and rg does: a bad glob is said once, exit code 2."""
    theirs = run([rg, "doctor", "-g", "["], corpus, env)
    for extra in ([], ["--files"]):
        ours = run(q("doctor watson", *extra, "-g", "["), corpus, env)
        assert ours.returncode == theirs.returncode == 2, extra
        assert ours.stderr == theirs.stderr, extra


def test_a_long_lines_pieces_are_printed_marked_where_the_line_goes_on(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A line longer than a passage is read in pieces: each is printed with [...] where the
    line goes on, as a line cut to its excerpt is, so no piece reads as the whole line."""
    root = tmp_path / "long"
    root.mkdir()
    line = " ".join(f"lighthouse{k}" for k in range(400))
    (root / "keepers.txt").write_text(f"The lighthouse keepers.\n{line}\n")
    out = run(q("lighthouse keepers", "--limit", "0"), root, env)
    assert out.returncode == 0, out.stderr
    blocks = re.split(r"^keepers\.txt:\d+-\d+:\n", out.stdout.decode(), flags=re.M)[1:]
    assert len(blocks) > 2
    pieces = {block.removesuffix("\n") for block in blocks}
    first = f"The lighthouse keepers.\n{line[:100]}"
    # The piece that begins the line: marked at its end only; the one that ends it, at its
    # start only; those between, at both.
    assert sum(p.startswith(first) and p.endswith("[...]") for p in pieces) == 1
    assert sum(p.startswith("[...]") and p.endswith(line[-100:]) for p in pieces) == 1
    middle = [p for p in pieces if not p.startswith(first) and not p.endswith(line[-100:])]
    assert all(p.startswith("[...]") and p.endswith("[...]") for p in middle)
    assert all(p.removeprefix("[...]").removesuffix("[...]") in line for p in middle)
    heading = run(q("lighthouse keepers", "--limit", "0", "--heading", "-N"), root, env)
    assert heading.stdout.count(b"[...]") == out.stdout.count(b"[...]")


def test_passages_print_a_files_text_as_rg_prints_it_without_its_byte_order_mark(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """rg leaves a UTF-8 file's byte order mark out of the line it prints (and reads UTF-16
    by its mark); a passage printed it, an invisible character an agent still reads."""
    root = tmp_path / "marked"
    root.mkdir()
    (root / "utf8.txt").write_bytes(b"\xef\xbb\xbflighthouse keepers of the coast\n")
    (root / "utf16.txt").write_bytes("lighthouse keepers inland\n".encode("utf-16"))
    out = run(q("lighthouse keepers", "--limit", "0", "-n"), root, env)
    assert out.returncode == 0, out.stderr
    theirs = run([rg, "-n", "--no-heading", "lighthouse"], root, env).stdout
    lines = {line.split(b":", 1)[0]: line.split(b":", 1)[1] for line in theirs.splitlines()}
    assert b"\xef\xbb\xbf" not in out.stdout
    assert out.stdout.count(b"\n" + lines[b"utf8.txt"].removeprefix(b"1:") + b"\n") == 1
    assert out.stdout.count(b"\n" + lines[b"utf16.txt"].removeprefix(b"1:") + b"\n") == 1


def test_passages_print_a_files_own_bytes_where_they_are_no_utf8(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """rg prints a Latin-1 line's bytes as the file holds them; a passage printed each byte
    that is not UTF-8 as U+FFFD, the text the ranking read. Each line rg prints (a CRLF
    line with its ``\\r``, a UTF-8 file's line) is printed as rg prints it."""
    root = tmp_path / "latin1"
    root.mkdir()
    (root / "shop.py").write_bytes(
        b'def caf\xe9_price():\r\n    """The caf\xe9 price in \xa3."""\r\n    return 3\r\n'
    )
    (root / "menu.txt").write_bytes("the café menu lists each price\n".encode())
    theirs = run([rg, "-N", "--no-heading", "-I", "caf"], root, env).stdout.split(b"\n")
    assert b'    """The caf\xe9 price in \xa3."""\r' in theirs
    out = run(q("cafe price", "--limit", "0", "-N", "--heading"), root, env)
    assert out.returncode == 0, out.stderr
    shown = out.stdout.split(b"\n")
    assert b"\xef\xbf\xbd" not in out.stdout
    assert all(line in shown for line in theirs), out.stdout
    recalled = run([*rrg_cmd(), "--recall", "cafe price"], root, env)
    assert recalled.returncode == 0, recalled.stderr
    assert b"def caf\xe9_price():" in recalled.stdout
    assert b"\xef\xbf\xbd" not in recalled.stdout


def numbered_lines_shown(root: Path, pattern: str, rg: str, env: dict[str, str]) -> list[bytes]:
    """The lines ``rg -n PATTERN`` prints of a one-file tree, each checked to be one of the
    lines the passages of ``rrg -q "lighthouse keepers" -n`` print: numbered and written
    as rg prints them."""
    out = run(q("lighthouse keepers", "--limit", "0", "-n", "--heading"), root, env)
    assert out.returncode == 0, out.stderr
    theirs = run([rg, "-n", "--no-filename", pattern], root, env).stdout.split(b"\n")[:-1]
    shown = out.stdout.split(b"\n")
    assert all(line in shown for line in theirs), out.stdout
    return theirs


def test_passages_number_lines_as_rg_does_past_form_feeds_and_lone_returns(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """rg ends a line at ``\\n`` alone; a passage also ended one at a form feed (sources
    part pages with ``^L``), a lone ``\\r``, a vertical tab: every line after one was
    numbered one later than rg numbers it."""
    root = tmp_path / "paged"
    root.mkdir()
    text = "the harbour log\n\f\nold entry\rkept\vhere\nlighthouse keepers watch\n"
    (root / "log.txt").write_text(text)
    theirs = numbered_lines_shown(root, "keepers|kept", rg, env)
    assert theirs == [b"3:old entry\rkept\x0bhere", b"4:lighthouse keepers watch"]


def test_passages_print_a_line_of_spaces_as_the_file_holds_it(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """A passage of short blocks printed a line holding only spaces as an empty line: an
    agent that edits the file by the text it was shown (an edit tool matching it exactly)
    found no such text. Every line rg prints of the file, blank ones too, is printed so."""
    root = tmp_path / "indented"
    root.mkdir()
    text = "lighthouse keepers\n    \nwatch the coast\n\t\nand log the ships\n"
    (root / "notes.txt").write_text(text)
    theirs = numbered_lines_shown(root, "", rg, env)
    assert theirs[1] == b"2:    " and theirs[3] == b"4:\t"


def test_a_passage_query_with_no_file_to_read_says_so(tmp_path: Path, env: dict[str, str]) -> None:
    """rg says why a search searched nothing; a passage query in a folder where rg lists
    no file (the wrong folder, a glob that leaves none) printed nothing at all."""
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "kept.txt").write_text("lighthouse keepers\n")
    for where, extra in ((empty, []), (tmp_path, ["-g", "!*"])):
        out = run(q("lighthouse keepers", *extra), where, env)
        assert (out.returncode, out.stdout) == (1, b""), out.stderr
        assert out.stderr.startswith(b"[rrg: no file to read: rg lists none"), out.stderr
    found = run(q("lighthouse keepers"), tmp_path, env)
    assert found.returncode == 0 and b"no file to read" not in found.stderr
    # --recall wrote an empty scope and said only "(0 docs)".
    recalled = run([*rrg_cmd(), "--recall", "lighthouse keepers", "-g", "!*"], tmp_path, env)
    assert recalled.returncode == 1 and b"[rrg: no file to read" in recalled.stderr
    recalled = run([*rrg_cmd(), "--recall", "lighthouse keepers"], tmp_path, env)
    assert recalled.returncode == 0 and b"no file to read" not in recalled.stderr


def test_passages_follow_each_path_with_nul_under_null(corpus: Path, env: dict[str, str]) -> None:
    """--null puts a NUL after each path rrg prints, as rg does: a program splits the
    passages' headings at it."""
    out = run(q("doctor watson", "--limit", "3", "--null"), corpus, env)
    assert out.returncode == 0, out.stderr
    heads = [line for line in out.stdout.split(b"\n") if re.fullmatch(rb"[^\0]+\0\d+-\d+:", line)]
    assert len(heads) == 3


def test_no_pattern_prints_paragraphs(topical: Path, env: dict[str, str]) -> None:
    out = run(q("database connection timeout", "--limit", "2"), topical, env)
    assert out.returncode == 0, out.stderr
    first = out.stdout.split(b"\n")[0]
    assert first == b"zz_db.txt:1-3:", out.stdout[:300]


def test_no_pattern_keeps_flags_a_passage_can_take(topical: Path, env: dict[str, str]) -> None:
    """Flags that shape a match (``--vimgrep``, ``-o``, ...) are refused without a PATTERN
    (tests/cli/test_options.py); one turned off again, and a pattern's flags of habit
    (``-i``, ``-w``, ``-A 2``), leave the passages as they are."""
    plain = run(q("database connection timeout", "--limit", "2"), topical, env)
    for flags in (["--column", "--no-column"], ["-v", "--no-invert-match"], ["-i", "-w", "-A2"]):
        out = run(q("database connection timeout", "--limit", "2", *flags), topical, env)
        assert (out.returncode, out.stdout) == (0, plain.stdout), (flags, out.stderr)


def test_no_pattern_prints_like_rg_under_headings(topical: Path, env: dict[str, str]) -> None:
    """Issue 35, item 4: on a terminal (``--heading``, ``-p``) each passage comes under its
    path, its lines numbered and coloured as rg colours them; ``-N`` drops the numbers; a
    pipe keeps the ``path:start-end:`` blocks programs read."""
    out = run(q("database connection timeout", "--limit", "2", "--heading", "-n"), topical, env)
    assert out.returncode == 0, out.stderr
    head, first = out.stdout.split(b"\n")[:2]
    assert head == b"zz_db.txt", out.stdout[:300]
    assert first.startswith(b"1:"), out.stdout[:300]
    assert b"\n\n" in out.stdout  # a blank line before the next file, as rg
    plain = run(q("database connection timeout", "--limit", "2", "--heading", "-N"), topical, env)
    assert plain.stdout.split(b"\n")[1] == first[2:], plain.stdout[:300]
    pretty = run(q("database connection timeout", "--limit", "2", "-p"), topical, env)
    assert pretty.stdout.startswith(b"\x1b[0m\x1b[35mzz_db.txt\x1b[0m\n\x1b[0m\x1b[32m1\x1b[0m:")
    piped = run(q("database connection timeout", "--limit", "2"), topical, env)
    assert piped.stdout.startswith(b"zz_db.txt:1-3:\n"), piped.stdout[:300]


def test_passages_of_one_file_are_parted_by_a_separator(
    tmp_path: Path, env: dict[str, str]
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    body = "\n\n".join(
        f"Harbour tides note {k}: " + "the harbour tide rises. " * 40 for k in range(3)
    )
    (root / "tides.txt").write_text(body + "\n")
    out = run(q("harbour tide", "--limit", "0", "--heading", "-N"), root, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(b"tides.txt\n"), out.stdout[:200]
    assert out.stdout.count(b"\n--\n") == 2 and out.stdout.count(b"tides.txt") == 1


def test_a_symbol_querys_passage_starts_at_its_definition(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Issue 35, item 4: a query that is a class's name showed its constructor's lines; it
    shows the class from its first line (the comment and decorator above it)."""
    root = tmp_path / "code"
    root.mkdir()
    methods = "".join(
        f"    def handle_{k}(self, request):\n"
        f"        '''Handle request kind {k} for the Dispatcher.'''\n"
        f"        return self.routes.get({k}, request) or Dispatcher.fallback(request)\n\n"
        for k in range(40)
    )
    (root / "dispatch.py").write_text(
        "import functools\n\n\n"
        "# The one place requests are routed.\n"
        "@functools.total_ordering\n"
        "class Dispatcher:\n"
        "    '''Routes each request to its handler.'''\n\n"
        "    def __init__(self, routes):\n"
        "        self.routes = Dispatcher.normalise(routes)\n\n" + methods
    )
    (root / "app.py").write_text("from dispatch import Dispatcher\n\nd = Dispatcher({})\n")
    out = run(q("Dispatcher", "--limit", "1"), root, env)
    assert out.returncode == 0, out.stderr
    title, comment, decorator, line = out.stdout.split(b"\n")[:4]
    assert title.startswith(b"dispatch.py:4-"), out.stdout[:400]
    assert comment == b"# The one place requests are routed.", out.stdout[:400]
    assert (decorator, line) == (b"@functools.total_ordering", b"class Dispatcher:")


#: A file of no topic in each language, its name and its text (``{k}``: its number).
_OTHER_FILES = {
    ".rs": ("other_{k}.rs", "pub fn unrelated_{k}() -> u8 {{\n    {k}\n}}\n"),
    ".py": ("other_{k}.py", "def unrelated_{k}():\n    return {k}\n"),
    ".java": (
        "Other{k}.java",
        "public class Other{k} {{\n    public static int other{k}() {{\n"
        "        return {k};\n    }}\n}}\n",
    ),
}


def _other_files(root: Path, suffix: str) -> None:
    """Forty files of no topic beside the ones a test reads: enough that the cap's share
    prints one line of each (rg's order would print a lone file's lines from its top)."""
    name, text = _OTHER_FILES[suffix]
    for k in range(40):
        (root / name.format(k=k)).write_text(text.format(k=k))


def _channel(root: Path) -> None:
    """A Rust file that defines ``send`` for three owners, as tokio's ``bounded.rs`` does:
    the last one's comments name ``Sender`` often, and it returns one."""
    docs = "".join(
        f"    /// Sending step {k}: the value goes to the receiver.\n" for k in range(60)
    )
    (root / "chan.rs").write_text(
        "pub struct Sender<T> { inner: Vec<T> }\n"
        "pub struct Permit<T> { inner: Vec<T> }\n"
        "pub struct OwnedPermit<T> { inner: Vec<T> }\n\n"
        "impl<T> Sender<T> {\n" + docs + "    pub async fn send(&self, value: T) -> bool {\n"
        "        self.inner.len() > 0\n    }\n\n"
        "    pub fn capacity(&self) -> usize {\n        self.inner.len()\n    }\n}\n\n"
        "impl<T> Permit<T> {\n"
        "    /// Sends the value on the permit.\n"
        "    pub fn send(self, value: T) {\n        drop(value)\n    }\n}\n\n"
        "impl<T> OwnedPermit<T> {\n"
        "    /// Sends a value and gives the Sender back: unlike the Sender's send, this\n"
        "    /// returns the Sender, so that the Sender can send again. Sender send Sender.\n"
        "    pub fn send(self, value: T) -> Sender<T> {\n"
        "        Sender { inner: vec![value] }\n    }\n}\n"
    )
    _other_files(root, ".rs")


def test_a_member_asked_by_its_owner_is_that_owners(tmp_path: Path, env: dict[str, str]) -> None:
    """``Sender::send`` asks for the ``send`` that ``Sender`` holds: tokio's ``bounded.rs``
    defines it for three owners, and the capped search printed ``OwnedPermit``'s line (a
    question naming it printed a line of its comments' example)."""
    root = tmp_path / "code"
    root.mkdir()
    _channel(root)
    for fast in ([], ["--fast"]):
        out = run(q("Sender::send", "-n", r"fn \w+", *fast), root, env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith(b"chan.rs:66:    pub async fn send(&self"), out.stdout[:300]
        out = run(q("Permit::send", "-n", r"fn \w+", *fast), root, env)
        assert out.stdout.startswith(b"chan.rs:77:    pub fn send(self, value: T) {"), out.stdout
        passage = run(q("Sender::send", "--limit", "1", *fast), root, env)
        assert passage.stdout.startswith(b"chan.rs:5-"), passage.stdout[:300]
    # A question that names the member so asks for it too.
    out = run(q("where is Permit::send defined", "-n", r"fn \w+"), root, env)
    assert out.stdout.startswith(b"chan.rs:77:    pub fn send(self, value: T) {"), out.stdout


def test_a_member_asked_by_its_owner_lists_the_owners_file_first(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """pydantic's ``BaseModel.model_dump`` listed ``root_model.py`` first, whose
    ``RootModel(BaseModel)`` defines a ``model_dump`` of its own and says it more often;
    ``main.py`` defines ``BaseModel`` and its ``model_dump``."""
    root = tmp_path / "code"
    root.mkdir()
    (root / "main.py").write_text(
        "class BaseModel:\n"
        "    def model_validate(self, data):\n"
        "        return data\n\n"
        "    def model_dump(self):\n"
        "        return dict(self.__dict__)\n"
    )
    (root / "root_model.py").write_text(
        "from main import BaseModel\n\n\n"
        "class RootModel(BaseModel):\n"
        '    """A model of one root: model_dump dumps the root; a BaseModel\'s model_dump\n'
        '    dumps its fields, so model_dump here returns the root alone."""\n\n'
        "    def model_dump(self):\n"
        "        # model_dump: the root, not BaseModel.model_dump's dict\n"
        "        return self.root\n"
    )
    for fast in ([], ["--fast"]):
        out = run(q("BaseModel.model_dump", "--files", *fast), root, env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split(b"\n")[:2] == [b"main.py", b"root_model.py"], out.stdout


def test_a_java_method_asked_for_is_its_declaration(tmp_path: Path, env: dict[str, str]) -> None:
    """commons-lang's ``StringUtils.isBlank`` printed ``isNotBlank``'s line: no definer
    keyword opens a Java method, and its 400 KB file is cut at blank lines, past the
    parser's bound, so no passage knew which method it held."""
    root = tmp_path / "code"
    root.mkdir()
    filler = "".join(
        f"    /** Pads {k}. */\n    public static String pad{k}(final String s) {{\n"
        f"        return s + {k};\n    }}\n\n"
        for k in range(3000)
    )
    (root / "StringUtils.java").write_text(
        "public class StringUtils {\n\n"
        "    /** Not isBlank: isNotBlank is !isBlank, so isBlank(cs) false means isNotBlank. */\n"
        "    public static boolean isNotBlank(final CharSequence cs) {\n"
        "        return !isBlank(cs); // isBlank isBlank\n    }\n\n"
        "    /** Whether the text is blank. */\n"
        "    public static boolean isBlank(final CharSequence cs) {\n"
        "        return cs == null || cs.length() == 0;\n    }\n\n" + filler + "}\n"
    )
    _other_files(root, ".java")
    pattern = r"public static \w+ \w+\("
    for query in ("StringUtils.isBlank", "where is isBlank defined"):
        out = run(q(query, "-n", pattern), root, env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith(b"StringUtils.java:9:    public static boolean isBlank("), (
            query,
            out.stdout[:300],
        )


def test_a_long_definitions_passage_starts_at_its_comments(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A definition longer than a passage is cut in pieces, its comments first: a symbol
    query showed the piece that holds its signature, from the middle of its comments; it
    shows the first, and a capped search still prints the signature's line."""
    root = tmp_path / "code"
    root.mkdir()
    _channel(root)
    out = run(q("Sender::send", "--limit", "1"), root, env)
    title, first = out.stdout.split(b"\n")[:2]
    assert title == b"chan.rs:5-25:", out.stdout[:300]
    assert first == b"impl<T> Sender<T> {", out.stdout[:300]


def test_a_question_naming_an_identifier_shows_its_definition(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """ "where is as_coeff_Mul defined" on sympy printed ``def as_coeff_mul`` (its words,
    lower-cased, are the same) from each file that defines both; the question names the
    identifier as written, and its definition is what it asks for."""
    root = tmp_path / "code"
    root.mkdir()
    (root / "mul.py").write_text(
        "def as_coeff_mul(expr, *deps):\n"
        '    """The coefficient and the other factors of a Mul, as a tuple: the\n'
        "    coeff of a Mul and its mul args, as_coeff_mul splits the coeff from the\n"
        '    Mul. The coeff Mul coeff mul: see as_coeff_Mul."""\n'
        "    return expr.args[0], expr.args[1:]\n\n\n"
        "def as_coeff_Mul(expr, rational=False):\n"
        '    """The coefficient first."""\n'
        "    return expr.args[0], expr\n"
    )
    _other_files(root, ".py")
    out = run(q("where is as_coeff_Mul defined", "-n", r"def \w+"), root, env)
    assert out.stdout.startswith(b"mul.py:8:def as_coeff_Mul(expr"), out.stdout[:300]
    out = run(q("where is as_coeff_Mul defined", "--limit", "1"), root, env)
    assert out.stdout.startswith(b"mul.py:8-"), out.stdout[:300]


def test_a_one_word_querys_passage_is_the_definition_of_that_name(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A query of one lower-case word that a passage defines (sympy's ``sympify``) showed
    the passage that says the word most (``class CantSympify``'s docstring); it shows the
    definition of that name."""
    root = tmp_path / "code"
    root.mkdir()
    (root / "convert.py").write_text(
        "class CantConvert:\n"
        '    """Mix in to refuse convert: convert(x) raises for these, since convert cannot\n'
        "    convert them. To convert such a value, convert its parts; convert is strict"
        ' here."""\n\n'
        "    __slots__ = ()\n\n\n"
        "def convert(value, strict=False):\n"
        '    """Turn a value into an expression."""\n'
        "    if strict:\n"
        "        return build(value)\n"
        "    return build(normalise(value))\n"
    )
    (root / "other.py").write_text("def unrelated():\n    return 1\n")
    for fast in ([], ["--fast"]):
        out = run(q("convert", "--limit", "1", *fast), root, env)
        assert out.returncode == 0, out.stderr
        title, line = out.stdout.split(b"\n")[:2]
        assert title == b"convert.py:8-12:", out.stdout[:400]
        assert line == b"def convert(value, strict=False):", out.stdout[:400]


def test_no_pattern_limit_counts_passages_and_0_prints_all(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Issue 35, item 4: --limit 0 printed 30 passages, and a cap held passages back
    without a word."""
    root = tmp_path / "notes"
    root.mkdir()
    for k in range(20):
        # Paragraphs of about 900 characters: one passage each.
        paragraphs = [
            " ".join(f"Note {k}.{p} on river water quality, sample {k * 3 + p}." for _ in range(18))
            for p in range(3)
        ]
        (root / f"n{k:02d}.txt").write_text("\n\n".join(paragraphs) + "\n")
    every = run(q("river water quality", "--limit", "0"), root, env)
    assert every.returncode == 0 and every.stderr == b"", every.stderr
    headings = [line for line in every.stdout.splitlines() if line.endswith(b":")]
    assert len(headings) > 30, len(headings)
    two = run(q("river water quality", "--limit", "2"), root, env)
    assert len([line for line in two.stdout.splitlines() if line.endswith(b":")]) == 2
    assert two.stderr.decode().startswith("[rrg: printed the 2 most relevant passages")
    assert two.stdout == b"".join(every.stdout.splitlines(keepends=True)[:4])
    one = run(q("river water quality", "--limit", "1"), root, env)
    assert one.stderr.decode().startswith("[rrg: printed the most relevant passage (--limit)")


def test_incremental_refresh(topical: Path, env: dict[str, str]) -> None:
    def index() -> str:
        out = run([*rrg_cmd(), "--index", "."], topical, env)
        assert out.returncode == 0, out.stderr
        return out.stdout.decode()

    index()
    assert " 0 read, 0 unchanged content, 0 removed" in index()
    (topical / "note03.txt").write_text("an edited note about sourdough\n")
    (topical / "note04.txt").unlink()
    (topical / "new.txt").write_text("sourdough starter\n")
    os.rename(topical / "note05.txt", topical / "renamed.txt")
    report = index()
    assert "3 read" in report and "2 removed" in report, report
    os.utime(topical / "note06.txt")  # touched, same bytes: hashed, not re-read
    assert "0 read, 1 unchanged content" in index()
    out = run(q("sourdough", "--files"), topical, env)
    assert out.stdout.split(b"\n")[:2] in ([b"new.txt", b"note03.txt"], [b"note03.txt", b"new.txt"])


def test_concurrent_cold_runs_agree(topical: Path, env: dict[str, str]) -> None:
    """Six runs at once on a root never indexed: one builds, the others wait, all agree."""
    cmd = q("database connection timeout", "--limit", "0", "error")
    with ThreadPoolExecutor(6) as pool:
        outs = list(pool.map(lambda _: run(cmd, topical, env), range(6)))
    assert {o.returncode for o in outs} == {0}, [o.stderr for o in outs]
    assert all(not o.stderr for o in outs), [o.stderr for o in outs]
    firsts = [o.stdout.split(b"\n")[0] for o in outs]
    assert len({o.stdout for o in outs}) == 1, firsts


def test_corrupt_index_is_rebuilt(topical: Path, env: dict[str, str]) -> None:
    run([*rrg_cmd(), "--index", "."], topical, env)
    status = run([*rrg_cmd(), "--index-status", "."], topical, env).stdout.decode()
    index_path = Path(status.split("file: ")[1].splitlines()[0])
    index_path.write_bytes(os.urandom(4096))
    for side in ("-wal", "-shm"):
        Path(f"{index_path}{side}").unlink(missing_ok=True)
    out = run(q("database connection timeout", "error"), topical, env)
    assert out.returncode == 0
    assert out.stdout.startswith(b"zz_db.txt:")
    assert out.stderr.count(b"\n") == 2 and b"rebuilding" in out.stderr  # + the cap notice


def test_unwritable_cache_still_searches(
    topical: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache dir should be")
    env = {**env, "RRG_CACHE_DIR": str(blocked / "cache")}
    out = run(q("database", "--limit", "0", "error"), topical, env)
    assert out.returncode == 0
    assert len(out.stdout.splitlines()) == 19 * 3 + 1
    assert out.stderr.startswith(b"rrg: ")
    # Paragraphs too: ranked in rg's order, read by the model without a cache to keep.
    paragraphs = run(q("database connection timeout", "--limit", "2"), topical, env)
    assert paragraphs.returncode == 0, paragraphs.stderr
    assert paragraphs.stdout.count(b":\n") >= 1 and b"Traceback" not in paragraphs.stderr


def test_stdin_is_searched_plainly(tmp_path: Path, env: dict[str, str]) -> None:
    out = subprocess.run(
        q("x", "hello"), cwd=tmp_path, env=env, input=b"hello\n", capture_output=True
    )
    assert out.stdout == b"hello\n" and out.returncode == 0


def test_cascade_reorders_only_the_top_and_caches_vectors(
    topical: Path, env: dict[str, str]
) -> None:
    plain = run(q("database connection timeout", "--fast", "--files"), topical, env).stdout.split()
    deep = run(q("database connection timeout", "--cascade", "5", "--files"), topical, env)
    assert deep.returncode == 0, deep.stderr
    ranked = deep.stdout.split()
    assert sorted(ranked[:5]) == sorted(plain[:5]) and ranked[5:] == plain[5:]
    assert ranked[0] == b"zz_db.txt"
    again = run(q("database connection timeout", "--cascade", "5", "--files"), topical, env)
    assert again.stdout.split() == ranked


@pytest.mark.parametrize(
    "args",
    [
        ["Watson"],
        ["-n", "-C1", "Watson"],
        ["--heading", "-n", "Holmes"],
        ["--column", "Watson"],
        ["--vimgrep", "Watson"],
        ["-o", "Wat\\w+"],
        ["-b", "-H", "luck", "sherlock.txt"],
    ],
)
def test_excerpt_without_a_cut_is_rg_bytes(
    args: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "100000", *args), corpus, env)
    theirs = run([rg, *args], corpus, env)
    if "--heading" in args:
        assert blocks(ours.stdout) == blocks(theirs.stdout)
    else:
        assert lines(ours.stdout) == lines(theirs.stdout)


def test_long_lines_are_cut_around_the_match_in_a_pipe(corpus: Path, env: dict[str, str]) -> None:
    out = run(q("doctor watson", "--limit", "0", "Watson", "long.txt"), corpus, env)
    line = out.stdout.rstrip(b"\n")
    assert b"Watson" in line and line.startswith(b"[...]") and line.endswith(b"[...]")
    assert len(line) == 1000 + 2 * len(b"[...]")
    cut = run(q("doctor watson", "--excerpt", "20", "-n", "Watson", "long.txt"), corpus, env)
    # 20 characters: 7 before the 6-character match, 7 after it.
    assert cut.stdout == b"1:[...]xxxxxx Watson yyyyyy[...]\n"
    whole = run(q("doctor watson", "--excerpt", "0", "Watson", "long.txt"), corpus, env)
    assert len(whole.stdout) == 6000 + len(" Watson \n")


def test_no_messages_silences_the_listing_too(corpus: Path, rg: str, env: dict[str, str]) -> None:
    args = ["--no-messages", "-c", "Watson", "sub", "no-such-dir"]
    ours = run(q("doctor watson", *args), corpus, env)
    theirs = run([rg, *args], corpus, env)
    assert (ours.returncode, ours.stderr) == (theirs.returncode, b"")
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


def test_excerpt_stays_off_for_null_data(corpus: Path, rg: str, env: dict[str, str]) -> None:
    """Under --null-data a record is a whole file (a NUL ends it, newlines lie within), not
    a line to cut."""
    args = ["--null-data", "Watson", "long.txt", "sherlock.txt"]
    ours = run(q("doctor watson", "--limit", "0", *args), corpus, env)
    assert sorted(ours.stdout.split(b"\0")) == sorted(
        run([rg, *args], corpus, env).stdout.split(b"\0")
    )
    assert b"[...]" not in ours.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["-z", "Watson"],
        ["-z", "-n", "-c", "Watson"],
        ["--search-zip", "-l", "Watson"],
        ["-z", "--no-search-zip", "Watson"],
        ["-z", "Watson", "rotated.log.gz", "sub"],
        ["-z", "--files-without-match", "nomatchanywhere"],
        ["-z", "--include-zero", "-c", "Watson"],
    ],
)
def test_compressed_files_are_searched_as_rg_z_searches_them(
    args: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """A .gz file's bytes look binary, but rg -z reads its text: a rotated log was
    dropped as binary. One that is binary once unpacked is skipped, as rg skips it."""
    (corpus / "rotated.log.gz").write_bytes(gzip.compress(b"Watson in a rotated log\n"))
    (corpus / "packed.gz").write_bytes(gzip.compress(b"Watson\0 binary once unpacked\n"))
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "0", *args), corpus, env)
    theirs = run([rg, *args], corpus, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert (b"rotated.log.gz" in theirs.stdout) == ("--no-search-zip" not in args)
    assert b"packed.gz" not in theirs.stdout
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


@pytest.mark.parametrize(
    "args",
    [
        ["-E", "utf-16le", "--files-without-match", "nomatchanywhere"],
        ["-E", "utf-16le", "-c", "Watson"],
        ["-E", "utf-16le", "--no-encoding", "--files-without-match", "nomatchanywhere"],
        ["--encoding=utf-16le", "-E", "auto", "-l", "Watson"],
    ],
)
def test_a_named_encoding_decides_which_files_are_binary(
    args: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """Read as UTF-16, a file of NULs is text to rg (its NULs pair with other bytes):
    rrg skipped it by its bytes, as rg skips it without -E (the fuzz of
    benchmarks/differential.py found it)."""
    (corpus / "wide.txt").write_text("Watson wrote it wide\n", encoding="utf-16-le")
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "0", *args), corpus, env)
    theirs = run([rg, *args], corpus, env)
    named_encoding = "--no-encoding" not in args and "auto" not in args
    assert (b"wide.txt" in theirs.stdout) == named_encoding
    assert ours.returncode == theirs.returncode, ours.stderr
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


@pytest.mark.parametrize("config", ["--invert-match\n", "-x\n", "-E\nutf-16le\n"])
def test_which_files_rg_decodes_to_binary_holds_with_rgs_config(
    config: str, corpus: Path, tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """The run that asks rg which files it decodes to binary matched each file's first line
    once: with -v in rg's config file it matched none, rg said nothing of any file, and
    every file passed for text (a gzip file read as UTF-16 was searched by name, where rg's
    walk skips it). It counts the lines of each file, under the config's flags as rg's
    walk searches them."""
    (corpus / "packed.gz").write_bytes(gzip.compress(b"Watson\0 binary\n" * 50))
    rc = tmp_path / "ripgreprc"
    rc.write_text(config)
    env = {**env, "RIPGREP_CONFIG_PATH": str(rc)}
    for args in (
        ["-E", "utf-16le", "--files-without-match", "Watson"],
        ["-E", "utf-16le", "-c", "o"],
    ):
        ours = run(q("doctor watson", "--limit", "0", *args), corpus, env)
        theirs = run([rg, *args], corpus, env)
        assert ours.returncode == theirs.returncode, (args, ours.stderr)
        assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines()), args


@pytest.mark.parametrize("mode", [["--files-without-match"], ["--include-zero", "-c"]])
def test_a_file_rg_decodes_to_binary_past_a_decoders_first_piece_is_left_out(
    mode: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """Under -E latin1 the run that asks rg which files decode to binary read each up to its
    first line, and a decoder hands rg 8 KiB at first: a NUL at 20 KB (an Illustrator
    file) went unseen, rrg named the file, and rg printed it where its walk prints
    nothing."""
    line = b"%PDF-1.6\r%\xe2\xe3\xcf\xd3\r\n"
    (corpus / "logo.ai").write_bytes(line * 1500 + b"\0 end\n")
    args = ["-E", "latin1", *mode, "Watson"]
    ours = run(q("doctor watson", "--limit", "0", *args), corpus, env)
    theirs = run([rg, *args], corpus, env)
    assert b"logo.ai" not in theirs.stdout
    assert ours.returncode == theirs.returncode, ours.stderr
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


@pytest.mark.parametrize(
    "mode",
    [
        ["--files-without-match"],
        ["--include-zero", "-c"],
        ["--rerank"],
        ["-E", "latin1", "--files-without-match"],
        ["-z", "--include-zero", "-c"],
        ["-U", "--include-zero", "-c"],  # can match no line end: searched line by line
    ],
)
def test_a_file_whose_first_nul_lies_past_rgs_first_read_is_left_out(
    mode: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """rg's walk quits a file at its first NUL wherever it lies, and then neither lists it
    without a match nor counts it; the index looked for a NUL in rg's first 64 KiB read
    only, called such a file text, and rrg named it to rg, which searched it whole. Under
    -E or -z the question went to rg, for a file named, read at once: the first 64 KiB."""
    (corpus / "holmes.dump").write_bytes(b"Holmes\n" * 12_000 + b"\0 Watson\n")
    (corpus / "blank.dump").write_bytes(b"Holmes\n" * 12_000 + b"\0\n")
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "0", *mode, "Watson"), corpus, env)
    theirs = run([rg, *[f for f in mode if f != "--rerank"], "Watson"], corpus, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert b".dump" not in ours.stdout and b".dump" not in theirs.stdout
    if "--rerank" in mode:
        assert set(ours.stdout.splitlines()) == set(theirs.stdout.splitlines())
    else:
        assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


_BYTES_SEARCHED = re.compile(rb'"bytes_searched":\d+,')


def _shown(out: bytes) -> list[bytes]:
    """An output's lines in rg's order-free form: sorted, less the JSON summary and the
    timings, which differ run to run."""
    lines = without_timings(out).splitlines()
    return sorted(line for line in lines if b'"type":"summary"' not in line)


@pytest.mark.parametrize(
    "mode",
    [
        [],
        ["-n"],
        ["-l"],
        ["-c"],
        ["--count-matches"],
        ["-o"],
        ["--vimgrep"],
        ["-C", "1"],
        ["--heading", "-n"],
        ["-m", "1"],
        ["--json"],
        ["--quiet"],
        # Under -v rg's walk prints such a file's lines, but -l (which stops at the first
        # match) lists it not: it met its first match past the NUL's read.
        ["-l", "-v"],
        ["-o", "-v"],
        # --include-zero changes nothing but counts: -l under it is -l (it read by name)
        ["--include-zero", "-l"],
        ["--include-zero"],
    ],
)
@pytest.mark.parametrize("pattern", ["Moriarty", "Moriarty|Watson"])
def test_a_file_given_up_at_a_nul_past_rgs_first_read_prints_what_rgs_walk_prints(
    mode: list[str], pattern: str, corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """A log a crash ended in NULs: rg's walk prints its lines before the NUL's buffer and
    a warning (lists it under -l, counts it not under -c), and exits 0. rrg printed nothing
    of it and, where it alone matched, exited 1: its walk's counts have no count of such
    a file, and named, rg would search it whole. rg now walks to it alone (--quiet: a match
    before the NUL is a match)."""
    crashed_log(corpus / "service.dump")
    args = [*mode, pattern]
    theirs = run([rg, "-j1", *args], corpus, env)
    counted = "-c" in mode or "--count-matches" in mode
    assert theirs.returncode == (1 if counted and pattern == "Moriarty" else 0)
    if mode in ([], ["-n"]):
        assert b"timed out" in theirs.stdout and b"near the NULs" not in theirs.stdout
    query = q("why was the connection refused", "--excerpt", "0")
    ours = run([*query, "--limit", "0", *args], corpus, env)
    assert ours.returncode == theirs.returncode, ours.stderr

    assert _shown(ours.stdout) == _shown(theirs.stdout)
    capped = run([*query, *args], corpus, env)
    assert capped.returncode == theirs.returncode, capped.stderr
    assert set(_shown(capped.stdout)) <= set(_shown(theirs.stdout))


@pytest.mark.parametrize(
    "mode",
    [
        ["-z"],
        ["-z", "-n"],
        ["-z", "-l"],
        ["-z", "-c"],
        ["-z", "-o"],
        ["-z", "-m", "1"],
        ["-z", "--json"],
        ["-z", "--quiet"],
        ["-z", "-l", "-v"],
        ["-z", "--files-without-match"],
        ["-E", "latin1"],
        ["-E", "latin1", "-l"],
        ["--pre", "PRE"],
        ["--pre", "PRE", "-n", "--rerank"],
    ],
)
def test_a_log_rg_decodes_and_gives_up_after_a_match_prints_what_rgs_walk_prints(
    mode: list[str], corpus: Path, rg: str, env: dict[str, str], tmp_path: Path
) -> None:
    """The crashed log rotated and compressed (logrotate's ``.gz``), searched with -z; or
    any such log where rg decodes files (-E, --pre): rg's walk prints its lines before
    the NUL's buffer and a warning, as for the log itself. rrg asked rg only whether such
    a file was binary, and left it out: ``rrg -q Q -z ERROR logs/`` printed nothing of
    the log that holds the answer. It walks to it alone now, as without decoding."""
    crashed_log(corpus / "service.dump")
    with gzip.open(corpus / "service.dump.1.gz", "wb") as packed:
        packed.write((corpus / "service.dump").read_bytes())
    hook = tmp_path / "pass-on.sh"
    hook.write_text('#!/bin/sh\nexec cat -- "$1"\n')
    hook.chmod(0o755)
    args = [str(hook) if flag == "PRE" else flag for flag in mode]
    # --rerank prints its pool's best 2, of more than 2: the walk's lines and others.
    pattern = "Moriarty|Watson" if "--rerank" in mode else "Moriarty"
    theirs = run([rg, "-j1", *[f for f in args if f != "--rerank"], pattern], corpus, env)
    counted = "-c" in mode or "--files-without-match" in mode
    assert theirs.returncode == (1 if "-c" in mode else 0)
    if not counted and "--quiet" not in mode and "-v" not in mode:
        assert b"service.dump" in theirs.stdout
    query = q("why was the connection refused", "--excerpt", "0")
    limit = "2" if "--rerank" in mode else "0"
    ours = run([*query, "--limit", limit, *args, pattern], corpus, env)
    assert ours.returncode == theirs.returncode, ours.stderr

    # The bytes rg read of a file it decompresses are what the pipe gave it before the
    # NUL's read: they differ run to run, rg's own runs alike.
    def shown(out: bytes) -> list[bytes]:
        return _shown(_BYTES_SEARCHED.sub(b"", out))

    if "--rerank" in mode:  # the walk's warning is no line of the pool
        lines = [line for line in shown(theirs.stdout) if b"WARNING" not in line]
        assert set(shown(ours.stdout)) <= set(lines)
        assert f"reranked top 2 of {len(lines)} matches".encode() in ours.stderr
    else:
        assert shown(ours.stdout) == shown(theirs.stdout)


@pytest.mark.parametrize(
    "args",
    [
        ["-v", "zzz"],
        ["-n", "-v", "zzz"],
        ["\\*"],
        ["-o", "\\*"],
        ["-l", "a|/"],
        ["-c", "\\*"],
        ["--json", "-v", "zzz"],
        ["--quiet", "\\*"],
        ["-m", "1", "-v", "zzz"],
        ["-m", "1", "-c", "-v", "zzz"],
        ["-z", "-m", "1", "-v", "zzz"],
    ],
)
def test_a_binary_files_first_line_that_rg_reads_alone_prints_as_rgs_walk_prints_it(
    args: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """rg reads a file's first 3 bytes alone (a byte-order mark's length), so a first line
    of two bytes at most (a C file's ``/*``) is searched before the read that finds the
    file's NUL: rg's walk prints it (-v, a pattern it matches) and its warning, or under
    -m 1 stops there. rrg left every file with a NUL in its first 64 KiB out (exit 1 where
    rg printed), or, under -m 1, named it to rg, which printed "binary file matches"."""
    (tmp_path / "two.c").write_bytes(b"/*\nline two\0bin\n")
    (tmp_path / "one.c").write_bytes(b"a\nline two\0bin\n")
    (tmp_path / "zero.c").write_bytes(b"\nline two\0bin\n")
    (tmp_path / "three.c").write_bytes(b"abc\nline two\0bin\n")  # read with its NUL
    (tmp_path / "bom.c").write_bytes(b"\xef\xbb\xbf/*\nline two\0bin\n")
    (tmp_path / "notes.txt").write_text("a comment starts with a slash and a star: /*\n")
    theirs = run([rg, "-j1", *args], tmp_path, env)
    assert theirs.returncode == 0, theirs.stderr
    if "-c" not in args and "--quiet" not in args:
        assert b"two.c" in theirs.stdout
    ours = run(q("where a comment starts", "--limit", "0", "--excerpt", "0", *args), tmp_path, env)
    assert ours.returncode == theirs.returncode, ours.stderr

    assert _shown(ours.stdout) == _shown(theirs.stdout)


@pytest.mark.parametrize(
    "args",
    [["Watson"], ["-v", "zzz"], ["-c", "Watson"], ["-l", "Watson"], ["-m", "1", "-v", "zzz"]],
)
def test_z_reads_a_binary_file_its_name_does_not_call_compressed_as_without_z(
    args: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Under -z alone rrg asks rg's walk only of the binary files that -z may decompress
    (by name, ``*.gz``, or by a compressed file's first bytes); any other binary file is
    told by its bytes as without -z: left out, or walked to alone where rg reads its first
    line alone (``/*``). The lines are rg's either way."""
    (tmp_path / "zone.bin").write_bytes(b"TZif2 Watson\0\0\0bin\n")
    (tmp_path / "two.c").write_bytes(b"/*\nWatson two\0bin\n")
    (tmp_path / "notes.txt.gz").write_bytes(gzip.compress(b"Watson in a gz\n"))
    (tmp_path / "notes.dat").write_bytes(gzip.compress(b"Watson packed, no .gz\n"))
    (tmp_path / "archive.tar.gz").write_bytes(gzip.compress(b"Watson\0 in a tar\n"))
    (tmp_path / "notes.txt").write_text("Watson in plain text\n")
    theirs = run([rg, "-j1", "-z", *args], tmp_path, env)
    assert theirs.returncode == 0, theirs.stderr
    ours = run(q("Watson", "--limit", "0", "--excerpt", "0", "-z", *args), tmp_path, env)
    assert ours.returncode == theirs.returncode, ours.stderr
    assert _shown(ours.stdout) == _shown(theirs.stdout)


def test_what_z_may_decompress() -> None:
    """By name as rg's globs (wider: without case), or by a compressed file's first bytes
    (a newer rg's check); a file that cannot be read is left to rg's walk."""
    assert may_be_decompressed(b"logs/app.log.1.gz") and may_be_decompressed(b"a.tar.Z")
    assert may_be_decompressed(b"no/such/file.png")
    assert not may_be_decompressed(__file__.encode())


def test_rerank_pools_what_rgs_walk_prints_of_a_log_given_up_at_a_late_nul(
    corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """--rerank's pool held none of such a log's lines (the file was left out), and read by
    name it would hold the lines past the NUL: it holds rg's walk's, the two before it."""
    crashed_log(corpus / "service.dump")
    args = ["--rerank", "--limit", "2", "--excerpt", "0", "Moriarty|Watson"]
    ours = run(q("why was the connection refused", *args), corpus, env)
    theirs = run([rg, "Moriarty|Watson"], corpus, env)
    lines = [line for line in theirs.stdout.splitlines() if b"WARNING" not in line]
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert set(ours.stdout.splitlines()) <= set(lines)
    assert f"reranked top 2 of {len(lines)} matches".encode() in ours.stderr


def test_a_log_given_up_at_a_late_nul_is_walked_to_whatever_its_name_holds(
    corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """rg walks to such a file by a glob of its name, read as a line of a .gitignore, so
    each character a glob reads as more than a letter is escaped: ``[crash] {a,b}*?.dump``
    matched no file, or others; ``#crash.dump`` was a comment (the walk printed every file
    of its folder again) and ``crash.dump `` (trailing white space is trimmed) named
    ``crash.dump``."""
    (corpus / "sub" / "[crash] {a,b}*?.dump").parent.mkdir(exist_ok=True)
    crashed_log(corpus / "sub" / "[crash] {a,b}*?.dump")
    crashed_log(corpus / "!first\\.dump")
    crashed_log(corpus / "#crash.dump")
    crashed_log(corpus / "sub" / "crash.dump ")
    crashed_log(corpus / "sub" / "crash.dump\t")
    (corpus / "sub" / "[crash] a.dump").write_text("Moriarty in a file a glob could name\n")
    (corpus / "sub" / "crash.dump").write_text("Moriarty where the white space ends\n")
    ours = run(q("why was the connection refused", "--limit", "0", "Moriarty"), corpus, env)
    theirs = run([rg, "-j1", "Moriarty"], corpus, env)
    assert theirs.stdout.count(b"WARNING") == 5
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


def test_a_log_given_up_at_a_late_nul_with_a_name_not_utf8_is_walked_to_alone(
    corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """rg takes no glob that is not UTF-8, so such a name's bytes are ``?`` in the glob,
    which names it alone where no other name of its folder differs only there: that log's
    lines print as rg's walk prints them (they were left out); two logs whose names differ
    at such a byte each stay left out (a glob naming one names both)."""
    (corpus / "sub").mkdir(exist_ok=True)
    crashed_log(corpus / os.fsdecode(b"crash-\xff.dump"))
    crashed_log(corpus / "sub" / os.fsdecode(b"twin-\xfe.dump"))
    crashed_log(corpus / "sub" / os.fsdecode(b"twin-\xfd.dump"))
    ours = run(q("why was the connection refused", "--limit", "0", "Moriarty"), corpus, env)
    theirs = run([rg, "-j1", "Moriarty"], corpus, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert theirs.stdout.count(b"WARNING") == 3
    twins = re.compile(rb"^sub/twin-")
    expected = [line for line in theirs.stdout.splitlines() if not twins.match(line)]
    assert any(line.startswith(b"crash-\xff.dump:") for line in expected)
    assert sorted(ours.stdout.splitlines()) == sorted(expected)


@pytest.mark.parametrize(
    "pattern, counted",
    [
        ("Holmes\\nHolmes", True),  # no match reaches the NUL: rg searches the file on
        ("Holmes\\nHolmes|Watson", False),  # the last match holds it: given up there
    ],
)
@pytest.mark.parametrize("mode", [[], ["-E", "latin1"], ["-m", "3"]])
def test_a_multi_line_search_gives_up_a_file_at_a_late_nul_as_rg_does(
    pattern: str, counted: bool, mode: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """A multi-line search reads a file at once and rg looks for a NUL in its first 64 KiB,
    then in each match it reports: a later NUL gives the file up only where a match (not
    past --max-count's last) reaches it."""
    (corpus / "holmes.dump").write_bytes(b"Holmes\n" * 12_000 + b"\0 Watson\n")
    printed = []
    for counting in (["--include-zero", "-c"], ["--files-without-match"]):
        args = [*mode, "-U", *counting, pattern]
        ours = run(q("doctor watson", "--limit", "0", *args), corpus, env)
        theirs = run([rg, *args], corpus, env)
        assert ours.returncode == theirs.returncode, ours.stderr
        assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines()), args
        printed.append(theirs.stdout)
    assert (b"holmes.dump" in printed[0]) == (counted or "-m" in mode)


def test_a_preprocessor_fails_in_rgs_own_words(
    corpus: Path, tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """rg reports a failed --pre command over several lines (the command's stderr between
    rules): all of them reach the user. A command that fails on an empty file, as zcat
    does, is no bad pattern: rrg checked the pattern on one and gave up."""
    hook = tmp_path / "pre.sh"
    hook.write_text(
        '#!/bin/sh\n[ -s "$1" ] || { echo "empty input" >&2; exit 1; }\n'
        'case "$1" in *.md) echo "cannot read $1" >&2; exit 3;; esac\nexec cat -- "$1"\n'
    )
    hook.chmod(0o755)
    args = ["--pre", str(hook), "-g", "!*.bin", "Watson"]
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "0", *args), corpus, env)
    theirs = run([rg, *args], corpus, env)
    assert b"cannot read sub/watson.md" in theirs.stderr
    assert ours.returncode == theirs.returncode == 2
    assert ours.stderr == theirs.stderr  # one message: rrg's order is rg's here
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


def test_rgs_messages_under_a_preprocessor_name_every_file_as_rg_does(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """A failed --pre command's message about a file whose name is not UTF-8 (rg writes
    U+FFFD in its name) was dropped: rrg kept the messages about the files it searched by
    their bytes. A missing PATH beside others is worded as rg words it under --pre too
    (rrg asked rg about it alone, which rg words otherwise)."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "plain.txt").write_text("river\n")
    (root / os.fsdecode(b"name-\xff.txt")).write_text("river\n")
    hook = tmp_path / "pre.sh"
    hook.write_text('#!/bin/sh\necho "cannot read" >&2\nexit 3\n')
    hook.chmod(0o755)
    args = ["--pre", str(hook), "river", ".", "missing"]
    ours = run(q("where the river runs", "--limit", "0", *args), root, env)
    theirs = run([rg, *args], root, env)
    assert b"missing: No such file or directory" in theirs.stderr
    assert b"name-\xef\xbf\xbd.txt" in theirs.stderr
    assert ours.returncode == theirs.returncode == 2
    assert sorted(ours.stderr.splitlines()) == sorted(theirs.stderr.splitlines())


def _stats(out: bytes) -> tuple[bytes, list[bytes]]:
    """Output split into what comes before its --stats block and the block's counts
    (timings, which differ run to run, left out)."""
    body, _, block = out.rpartition(b"\n\n")
    return body, [line for line in block.splitlines() if b"seconds" not in line]


@pytest.mark.parametrize(
    "args",
    [
        ["--stats", "-i", "watson"],
        ["--stats", "-c", "Watson"],
        ["--stats", "-C1", "-i", "holmes"],
        ["--stats", "--files-without-match", "Holmes"],
        ["--stats", "--quiet", "Holmes"],
    ],
)
def test_stats_is_one_block_at_the_end(
    args: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """rrg runs rg several times for one search (batches; the last file cut at the cap),
    and each run's block fell amid the matches. One block ends the output, adding up the
    runs that printed: with no cap, rg's own counts of what was printed (rg -j1, which
    prints no stray context separator before its block, as a threaded rg may)."""
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "0", *args), corpus, env)
    theirs = run([rg, "-j1", *args], corpus, env)
    assert ours.returncode == theirs.returncode, ours.stderr
    assert ours.stdout.count(b" files contained matches\n") == 1
    (body, counts), (rg_body, rg_counts) = _stats(ours.stdout), _stats(theirs.stdout)
    assert sorted(body.splitlines()) == sorted(rg_body.splitlines())
    printed = (b"matches", b"matched lines", b"files contained matches", b"bytes printed")
    assert [c for c in counts if c.endswith(printed)] == [
        c for c in rg_counts if c.endswith(printed)
    ]
    capped = run(q("doctor watson", "--limit", "2", "--excerpt", "0", *args), corpus, env)
    assert capped.stdout.count(b" files contained matches\n") == 1
    assert capped.stdout.endswith(b" seconds total\n")


@pytest.mark.parametrize(
    "mode",
    [
        ["-c"],
        ["--count-matches"],
        ["-l"],
        ["--quiet"],
        [],
        ["-z", "-c"],
        ["-z", "-l"],
        ["-z", "--quiet"],
        ["--files-without-match"],
        ["--include-zero", "-c"],
        ["-z", "--files-without-match"],
    ],
)
def test_stats_counts_what_rgs_walk_read_of_a_log_given_up_at_a_late_nul(
    mode: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """rg's --stats block counts the matches its walk read of a crashed log before the
    NUL, where -c prints no count of it and, under --stats, -l reads past its first match
    and meets the NUL, listing it not (nor --files-without-match, nor --include-zero's
    counts). rrg's block left them out (and under -z rrg left the log out altogether, the
    compressed one too): rg's walk to it alone counts them now."""
    crashed_log(corpus / "service.dump")
    with gzip.open(corpus / "service.dump.1.gz", "wb") as packed:
        packed.write((corpus / "service.dump").read_bytes())
    args = ["--stats", *mode, "Moriarty|Watson"]
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "0", *args), corpus, env)
    theirs = run([rg, "-j1", *args], corpus, env)
    assert ours.returncode == theirs.returncode, ours.stderr
    (body, counts), (rg_body, rg_counts) = _stats(ours.stdout), _stats(theirs.stdout)
    assert sorted(body.splitlines()) == sorted(rg_body.splitlines())
    printed = (b"matches", b"matched lines", b"files contained matches", b"bytes printed")
    assert [c for c in counts if c.endswith(printed)] == [
        c for c in rg_counts if c.endswith(printed)
    ]


def test_quiet_with_stats_searches_every_file(tmp_path: Path, rg: str, env: dict[str, str]) -> None:
    """rg stops at its first match under --quiet, but not where --stats counts what it
    searched: rrg stopped at its first batch of files with a match, and its block counted
    32 of 100 files (found by benchmarks/differential.py on tokio)."""
    root = tmp_path / "many"
    root.mkdir()
    for k in range(100):
        (root / f"f{k:03}.txt").write_text(f"match {k}\n")
    args = ["--quiet", "--stats", "match"]
    ours = run(q("a match", "--limit", "0", *args), root, env)
    theirs = run([rg, "-j1", *args], root, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    counts, rg_counts = _stats(ours.stdout)[1], _stats(theirs.stdout)[1]
    assert b"100 files searched" in rg_counts
    assert [c for c in counts if b"bytes" not in c] == [c for c in rg_counts if b"bytes" not in c]
    quiet = run(q("a match", "--limit", "0", "--quiet", "match"), root, env)
    assert quiet.returncode == 0 and quiet.stdout == b""


@pytest.mark.parametrize(
    "args",
    [
        ["Watson"],
        ["-n", "Watson$"],
        ["-c", "Watson"],
        ["-o", "-b", "Wat\\w+"],
        ["--vimgrep", "Watson"],
    ],
)
def test_crlf_lines_are_rg_bytes(
    args: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """Under --crlf rg's coloured output ends every line with CRLF, one whose file ends it
    with LF too: the excerpt's marked pass would print bytes rg does not (and cut long.txt's
    line, which rg prints whole), so it stays off."""
    (corpus / "dos.txt").write_bytes(b"Watson\r\nno match\r\nDoctor Watson\r\n")
    for crlf in (["--crlf"], ["--no-crlf", "--crlf"]):
        ours = run(q("doctor watson", "--limit", "0", *crlf, *args), corpus, env)
        theirs = run([rg, *crlf, *args], corpus, env)
        assert ours.returncode == theirs.returncode == 0, ours.stderr
        assert sorted(ours.stdout.split(b"\n")) == sorted(theirs.stdout.split(b"\n"))


def test_an_excerpt_asked_for_with_crlf_is_refused(corpus: Path, env: dict[str, str]) -> None:
    out = run(q("doctor watson", "--excerpt", "50", "--crlf", "Watson"), corpus, env)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.startswith(b"rrg: --excerpt cannot be used with --crlf") and (
        out.stderr.count(b"\n") == 1
    )
    off = run(q("doctor watson", "--excerpt", "0", "--crlf", "-c", "Watson"), corpus, env)
    assert off.returncode == 0, off.stderr


@pytest.mark.parametrize(
    "flags",
    [["--quiet", "-c"], ["-c", "--quiet"], ["--quiet", "-l"], ["--count-matches", "--quiet"]],
)
@pytest.mark.parametrize("pattern", ["Watson", "nomatchanywhere"])
def test_quiet_silences_every_mode_wherever_it_stands(
    flags: list[str], pattern: str, corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """rg's --quiet prints nothing in any mode, before or after the mode's flag, and exits 0
    on a match: it is not one more mode that a later -c overrides."""
    ours = run(q("doctor watson", *flags, pattern), corpus, env)
    theirs = run([rg, *flags, pattern], corpus, env)
    assert (
        (ours.returncode, ours.stdout)
        == (theirs.returncode, theirs.stdout)
        == (
            int(pattern != "Watson"),
            b"",
        )
    )


@pytest.mark.parametrize("flags", [["--json", "--quiet"], ["--quiet", "--json"]])
def test_json_prints_its_summary_alone_under_quiet(
    flags: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """--json prints on under --quiet, its matches silenced: the summary alone (rrg's
    counts come from a pass that reads them without --quiet)."""
    ours = run(q("doctor watson", "--limit", "0", *flags, "Watson"), corpus, env)
    theirs = run([rg, *flags, "Watson"], corpus, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    kinds = [json.loads(line)["type"] for line in ours.stdout.splitlines()]
    assert kinds == [json.loads(line)["type"] for line in theirs.stdout.splitlines()]
    assert kinds == ["summary"]


def test_excerpt_stays_off_when_colour_is_asked_for(corpus: Path, env: dict[str, str]) -> None:
    out = run(q("doctor watson", "--color=always", "Watson", "long.txt"), corpus, env)
    assert len(out.stdout) > 6000 and b"\x1b[" in out.stdout


def test_an_excerpt_asked_for_with_colour_is_coloured_as_rg_colours(
    corpus: Path, env: dict[str, str]
) -> None:
    """``--excerpt N`` where colour is wanted (a terminal, ``--color=always``) printed its
    lines plain: its marks were taken off, the user's colours not put back. A line it does
    not cut is rg's coloured bytes; a cut one is the plain cut, coloured."""
    colours = ["--colors=match:fg:green", "--colors=path:bg:0x33,0x66,0xFF", "--colors=line:none"]
    for flags in ([], colours):
        args = [*flags, "-n", "--column", "-C1", "--limit", "0", "Watson|Holmes"]
        whole = run(q("doctor watson", "--color=always", *args), corpus, env).stdout
        uncut = run(q("doctor watson", "--color=always", "--excerpt", "9000", *args), corpus, env)
        assert b"\x1b[" in whole and uncut.stdout == whole, flags
    cut = ["-n", "Watson", "long.txt"]
    plain_cut = run(q("doctor watson", "--excerpt", "20", *cut), corpus, env).stdout
    coloured = run(q("doctor watson", "--color=always", "--excerpt", "20", *cut), corpus, env)
    assert plain_cut == b"1:[...]xxxxxx Watson yyyyyy[...]\n"
    red, green, reset = b"\x1b[0m\x1b[1m\x1b[31m", b"\x1b[0m\x1b[32m", b"\x1b[0m"
    assert coloured.stdout == (
        green + b"1" + reset + b":[...]xxxxxx " + red + b"Watson" + reset + b" yyyyyy[...]\n"
    )
    code, shown = on_a_terminal(q("doctor watson", "--excerpt", "20", *cut), corpus, env)
    assert code == 0 and shown.replace(b"\r\n", b"\n") == coloured.stdout
    # A match the cut splits is painted as far as it is kept.
    split = run(q("doctor watson", "--color=always", "--excerpt", "3", *cut), corpus, env)
    assert split.stdout.endswith(b":[...]" + red + b"Wat" + reset + b"[...]\n")


def test_an_excerpt_in_colour_carries_rgs_links(
    corpus: Path, rg: str, env: dict[str, str], tmp_path: Path
) -> None:
    """``--hyperlink-format`` where colour is wanted: rg links each line's prelude, and an
    excerpt's pass turned the links off; a line it does not cut is rg's bytes, links and
    all, and a cut one keeps rg's prelude. A plain output (a pipe, the format in rg's
    config file) gets no link, as from rg."""
    for link in (["--hyperlink-format=vscode"], ["--hyperlink-format=default", "--heading"]):
        args = [*link, "--color=always", "-n", "--limit", "0", "Watson|Holmes"]
        whole = run(q("doctor watson", *args), corpus, env).stdout
        uncut = run(q("doctor watson", "--excerpt", "9000", *args), corpus, env).stdout
        assert b"\x1b]8;;" in whole and uncut == whole, link
    cut = ["--hyperlink-format=vscode", "--color=always", "-n", "Watson", "long.txt", "sub"]
    ours = run(q("doctor watson", "--excerpt", "20", *cut), corpus, env).stdout.splitlines()
    theirs = run([rg, *cut], corpus, env).stdout.splitlines()
    prelude = re.compile(rb"^(.*\x1b\]8;;\x1b\\:)")
    assert sorted(prelude.match(line)[1] for line in ours) == sorted(  # type: ignore[index]
        prelude.match(line)[1]
        for line in theirs  # type: ignore[index]
    )
    config = tmp_path / "linked.rgrc"
    config.write_text("--hyperlink-format=vscode\n")
    piped = run(
        q("doctor watson", "--excerpt", "20", "-n", "Watson"),
        corpus,
        {**env, "RIPGREP_CONFIG_PATH": str(config)},
    )
    assert piped.returncode == 0 and b"\x1b" not in piped.stdout


def test_a_terminal_that_takes_no_colour_gets_none(
    corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """rrg prints passages and reranked lines itself: on a terminal it colours them only where
    rg would colour its own lines (TERM unset or ``dumb``, as in Emacs and many agents'
    terminals, or NO_COLOR set: none), and keeps the lines whole and the headings."""
    plain = {k: v for k, v in env.items() if k not in ("TERM", "NO_COLOR")}
    terminals = [{"TERM": "xterm"}, {"TERM": "dumb"}, {"TERM": "xterm", "NO_COLOR": ""}, {}]
    coloured = []
    for terminal in terminals:
        seen = {**plain, **terminal}
        rgs = b"\x1b[" in on_a_terminal([rg, "Watson"], corpus, seen)[1]
        coloured.append(rgs)
        for args in (["detective luck", "--limit", "2"], ["Holmes", "--rerank", "Watson"]):
            code, shown = on_a_terminal(q(*args), corpus, seen)
            assert code == 0 and (b"\x1b[" in shown) == rgs, (terminal, args)
        code, shown = on_a_terminal(q("doctor watson", "Watson", "long.txt"), corpus, seen)
        assert code == 0 and len(shown) > 6000, terminal  # whole, not cut to an excerpt
    assert coloured == [True, False, False, False]


def test_a_ranked_file_list_is_coloured_as_rgs(corpus: Path, rg: str, env: dict[str, str]) -> None:
    """``rg --files`` colours its paths on a terminal (and with ``--color=always``, in the
    user's ``--colors``, separator and ``--null``); ``rrg -q Q --files`` printed them plain."""
    order = run(q("detective luck", "--files"), corpus, env).stdout.splitlines()
    assert len(order) > 2

    def rgs(*flags: str) -> bytes:
        return b"".join(
            run([rg, "--files", *flags, "--", path], corpus, env).stdout for path in order
        )

    code, shown = on_a_terminal(q("detective luck", "--files"), corpus, env)
    assert code == 0 and b"\x1b[" in shown
    assert shown.replace(b"\r\n", b"\n") == rgs("--color=always")
    flags = ["--color=always", "--colors=path:fg:blue", "--null", "--path-separator=\\"]
    assert run(q("detective luck", "--files", *flags), corpus, env).stdout == rgs(*flags)
    assert run(q("detective luck", "--files"), corpus, env).stdout == rgs()


def test_a_hyperlink_format_links_the_paths_rrg_prints(
    corpus: Path, rg: str, env: dict[str, str], tmp_path: Path
) -> None:
    """rg links each path it prints where a ``--hyperlink-format`` is set (with colour); the
    paths rrg prints itself (the ranked file list, the passages' headings and titles) had
    none. They are now rg's own bytes, link and all, from the command line or rg's config
    file (its aliases, host and percent-encoding are rg's to write)."""
    order = run(q("detective luck", "--files"), corpus, env).stdout.splitlines()

    def listed(path: bytes, *flags: str) -> bytes:
        return run([rg, "--files", "--color=always", *flags, "--", path], corpus, env).stdout

    linked = ["--color=always", "--hyperlink-format=vscode"]
    out = run(q("detective luck", "--files", *linked), corpus, env)
    assert out.stdout == b"".join(listed(path, "--hyperlink-format=vscode") for path in order)
    assert b"\x1b]8;;vscode://file/" in out.stdout

    config = tmp_path / "ripgreprc"
    config.write_text("--hyperlink-format=default\n")
    configured = {**env, "RIPGREP_CONFIG_PATH": str(config)}
    shown = run(
        q("detective luck", "--limit", "2", "--heading", "--color=always"), corpus, configured
    )
    heading = shown.stdout.split(b"\n")[0]
    path = re.sub(rb"\x1b\]8;;[^\x1b]*\x1b\\|\x1b\[[0-9;]*m", b"", heading)
    assert heading + b"\n" == listed(path, "--hyperlink-format=default")
    assert heading.startswith(b"\x1b]8;;file://")


def test_recall_writes_numbered_scopes_with_their_query(topical: Path, env: dict[str, str]) -> None:
    out = run(
        [*rrg_cmd(), "--recall", "database connection timeout", "--paragraphs", "0"], topical, env
    )
    assert out.returncode == 0, out.stderr
    head = out.stdout.decode().splitlines()
    assert len(head) == 1 and head[0].startswith('"database connection timeout" \u2192 ')
    scope = Path(head[0].split(" \u2192 ")[1].split(" (")[0])
    assert head[0].endswith("(20 docs)")
    assert scope.read_text().splitlines()[0] == "zz_db.txt"
    assert json.loads(scope.with_suffix(".json").read_text())["query"] == (
        "database connection timeout"
    )
    again = run(
        [*rrg_cmd(), "--recall", "bread", "--scope-size", "3", "--paragraphs", "0"], topical, env
    ).stdout.decode()
    second = Path(again.split(" \u2192 ")[1].split(" (")[0])
    assert second != scope and again.rstrip().endswith("(3 docs)")
    assert len(second.read_text().splitlines()) == 3


def test_a_path_holding_a_newline_is_left_out_of_a_scope(corpus: Path, env: dict[str, str]) -> None:
    """A scope file is one path a line: such a path would come back as two that do not
    exist, and the scope search would say so of a file that does."""
    (corpus / "new\nline.txt").write_text("Watson, in a file whose name breaks a line\n")
    out = run([*rrg_cmd(), "--recall", "doctor watson", "--paragraphs", "0"], corpus, env)
    assert out.returncode == 0
    assert out.stderr == b"[rrg: 1 path holding a newline left out of the scope]\n"
    scope = out.stdout.decode().split(" \u2192 ")[1].split(" (")[0]
    assert "new" not in Path(scope).read_text().splitlines()
    found = run([*rrg_cmd(), "--scope-file", scope, "-l", "Watson"], corpus, env)
    assert found.returncode == 0 and b"no longer exist" not in found.stderr, found.stderr


def test_a_scope_holds_what_a_search_would_read(corpus: Path, rg: str, env: dict[str, str]) -> None:
    """A --scope-file search reads its files by name, where rg prints "binary file matches"
    for a file it skips while walking: binary files stay out of the scope, as out of -q,
    unless the recall's flags ask rg to search them."""
    out = run([*rrg_cmd(), "--recall", "binary watson", "--paragraphs", "0"], corpus, env)
    scope = out.stdout.decode().split(" \u2192 ")[1].split(" (")[0]
    assert "binary.bin" not in Path(scope).read_text().splitlines()
    found = run([*rrg_cmd(), "--scope-file", scope, "--limit", "0", "-l", "Watson"], corpus, env)
    theirs = run([rg, "-l", "Watson"], corpus, env)
    assert sorted(found.stdout.splitlines()) == sorted(theirs.stdout.splitlines())
    asked = run([*rrg_cmd(), "--recall", "binary watson", "-a", "--paragraphs", "0"], corpus, env)
    scope = asked.stdout.decode().split(" \u2192 ")[1].split(" (")[0]
    assert "binary.bin" in Path(scope).read_text().splitlines()


@pytest.mark.parametrize("decoding", [[], ["-z"]])
def test_a_scope_search_prints_what_rgs_walk_prints_of_a_log_given_up_at_a_late_nul(
    decoding: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """A log a crash ended in NULs past rg's first read was left out of the scope, so a
    --scope-file search printed nothing of it where -q prints its lines before the NULs;
    with -z, the same log compressed too."""
    crashed_log(corpus / "service.dump")
    if decoding:
        with gzip.open(corpus / "service.dump.1.gz", "wb") as packed:
            packed.write((corpus / "service.dump").read_bytes())
    recall = [*rrg_cmd(), "--recall", "connection refused", "--paragraphs", "0", *decoding]
    out = run(recall, corpus, env)
    scope = out.stdout.decode().split(" \u2192 ")[1].split(" (")[0]
    assert "service.dump" in Path(scope).read_text().splitlines()
    if decoding:
        assert "service.dump.1.gz" in Path(scope).read_text().splitlines()
    args = ["--limit", "0", "--excerpt", "0", *decoding, "Moriarty|Watson"]
    found = run([*rrg_cmd(), "--scope-file", scope, *args], corpus, env)
    theirs = run([rg, *decoding, "Moriarty|Watson"], corpus, env)
    assert found.returncode == theirs.returncode == 0, found.stderr
    assert sorted(found.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


@pytest.mark.parametrize("args", [["-v", "zzz"], ["-m", "1", "-v", "zzz"]])
def test_a_scope_search_prints_what_rgs_walk_prints_of_a_first_line_read_alone(
    args: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """A recall's scope keeps a binary file whose first line rg's walk reads alone and
    prints (``/*``); a --scope-file search named it, and rg printed "binary file
    matches" where its walk prints the line and its warning."""
    (tmp_path / "two.c").write_bytes(b"/*\nline two\0bin\n")
    (tmp_path / "notes.txt").write_text("a comment starts with a slash and a star\n")
    out = run([*rrg_cmd(), "--recall", "comment start", "--paragraphs", "0"], tmp_path, env)
    scope = out.stdout.decode().split(" \u2192 ")[1].split(" (")[0]
    assert "two.c" in Path(scope).read_text().splitlines()
    found = run([*rrg_cmd(), "--scope-file", scope, "--limit", "0", *args], tmp_path, env)
    theirs = run([rg, *args], tmp_path, env)
    assert b"two.c:/*" in theirs.stdout
    assert found.returncode == theirs.returncode == 0, found.stderr
    assert sorted(found.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


def test_a_scope_file_with_crlf_line_ends_names_its_paths(
    topical: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    """A list of paths written with CRLF line ends (on Windows, by an editor or a tool):
    each CR read as part of a name, and every path "no longer existed"."""
    scope = tmp_path / "crlf-scope.txt"
    scope.write_bytes(b"note07.txt\r\ngone.txt\r\nzz_db.txt\r\n")
    out = run([*rrg_cmd(), "--scope-file", str(scope), "--limit", "0", "-l", "error"], topical, env)
    assert out.stdout.split() == [b"note07.txt", b"zz_db.txt"]
    assert out.stderr == b"[rrg: 1 path of crlf-scope.txt no longer exists; skipped]\n"


def test_recall_shows_entry_points_grouped_by_file(topical: Path, env: dict[str, str]) -> None:
    out = run(
        [*rrg_cmd(), "--recall", "database connection timeout", "--paragraphs", "3"], topical, env
    )
    lines_out = out.stdout.decode().splitlines()
    assert lines_out[1] == "zz_db.txt:" and lines_out[2].startswith("Line 1-3: The database")


def test_scope_file_search_keeps_the_file_order(
    topical: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    scope = tmp_path / "my-scope.txt"
    scope.write_text("note07.txt\ngone.txt\nzz_db.txt\nnote01.txt\n")
    out = run([*rrg_cmd(), "--scope-file", str(scope), "--limit", "0", "-l", "error"], topical, env)
    assert out.stdout.split() == [b"note07.txt", b"zz_db.txt", b"note01.txt"]
    assert out.stderr == b"[rrg: 1 path of my-scope.txt no longer exists; skipped]\n"
    capped = run([*rrg_cmd(), "--scope-file", str(scope), "--limit", "2", "error"], topical, env)
    # The scope's order, each file its share of the cap first (one line a file at --limit 2).
    assert [line.split(b":")[0] for line in capped.stdout.splitlines()] == [
        b"note07.txt",
        b"zz_db.txt",
    ]


@pytest.mark.parametrize("content", [None, b"a\0binary\0file"])
def test_bad_scope_file_is_exit_2(
    content: bytes | None, topical: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    scope = tmp_path / "scope.txt"
    if content is not None:
        scope.write_bytes(content)
    out = run([*rrg_cmd(), "--scope-file", str(scope), "error"], topical, env)
    assert out.returncode == 2 and out.stderr.startswith(b"rrg: ")
    assert out.stderr.count(b"\n") == 1


def test_notices_reach_both_streams(corpus: Path, topical: Path, env: dict[str, str]) -> None:
    """A cap or a cut says so on stderr, and --json output carries the same facts last."""
    capped = run(q("database", "--limit", "2", "--json", "error"), topical, env)
    messages = [json.loads(line) for line in capped.stdout.splitlines()]
    assert messages[-2]["type"] == "summary" and messages[-1]["type"] == "rrg"
    notice = messages[-1]["data"]["notices"][0]
    assert (
        notice.startswith("stopped at --limit 2") and capped.stderr == f"[rrg: {notice}]\n".encode()
    )
    cut = run(q("doctor watson", "Watson", "long.txt"), corpus, env)
    assert cut.stderr == (
        b"[rrg: 1 long line cut to 1000 characters around their match, "
        b"marked [...] (--excerpt 0 prints them whole)]\n"
    )


def test_entry_points_read_a_bounded_number_of_paragraphs(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Files of many paragraphs: the transformer reads at most ``stage_passages`` of them, and
    the query (their vectors land in the root's cache), and the cheap tier still hands it
    the one that answers the query."""
    from rrg.rank.tuning import TUNING

    root = tmp_path / "many"
    root.mkdir()
    for f in range(25):
        blocks = [
            f"Block {b} of file {f} talks about gardening, compost and tomatoes. " * 6
            for b in range(40)
        ]
        if f == 7:
            blocks[23] = "The lighthouse keeper logs every passing ship and the tide at dawn. " * 6
        (root / f"notes{f:02d}.txt").write_text("\n\n".join(blocks) + "\n")
    out = run(
        [*rrg_cmd(), "--recall", "lighthouse keeper logging ships", "--paragraphs", "3"],
        root,
        env,
    )
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode()
    assert "notes07.txt:\n" in text and "lighthouse keeper" in text
    status = run([*rrg_cmd(), "--index-status", "."], root, env).stdout.decode()
    vectors = int(status.split("vector cache: ")[1].split(" model vectors")[0])
    assert 0 < vectors <= TUNING.stage_passages + 1


def test_fast_is_the_cheap_order_and_runs_no_model(tmp_path: Path, env: dict[str, str]) -> None:
    """--fast: the same order as --cascade 0, and nothing read by the model."""
    root = tmp_path / "fast"
    root.mkdir()
    for k in range(12):
        (root / f"f{k:02d}.txt").write_text(f"notes {k} on databases and timeouts\n" * (k + 1))
    fast = run(q("database timeout", "--fast", "--files"), root, env)
    zero = run(q("database timeout", "--cascade", "0", "--files"), root, env)
    assert fast.returncode == 0 and fast.stdout == zero.stdout
    status = run([*rrg_cmd(), "--index-status", "."], root, env).stdout.decode()
    assert "vector cache: 0 model vectors, 0 static" in status
    staged = run(q("database timeout", "--files"), root, env)
    assert sorted(staged.stdout.split()) == sorted(fast.stdout.split())
    status = run([*rrg_cmd(), "--index-status", "."], root, env).stdout.decode()
    assert "vector cache: 0 model vectors" not in status


def _dense_tree(root: Path, files: int, lines: int) -> Path:
    root.mkdir()
    for k in range(files):
        body = "".join(f"needle {k}-{n} river water\n" for n in range(lines))
        (root / f"f{k:02d}.txt").write_text(f"river water quality report {k}\n" + body)
    return root


def test_the_cap_is_shared_between_files_and_every_line_is_rgs(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Issue 35, item 3: the first files took the whole cap (30 lines from one or two
    files); now each prints its share first (1 line at --limit 30), each file's lines
    exactly what ``rg -m 1`` prints of it, the files in relevance order, and the notice
    says what was held back."""
    tree = _dense_tree(tmp_path / "dense", 40, 10)
    order = run(q("river water", "-l", "--limit", "0", "needle"), tree, env).stdout.split()
    out = run(q("river water", "needle"), tree, env)
    assert out.returncode == 0, out.stderr
    want = b"".join(run([rg, "-H", "-m", "1", "needle", f], tree, env).stdout for f in order[:30])
    assert out.stdout == want
    notice = out.stderr.decode()
    assert notice.count("\n") == 1 and "at most 1 line a file" in notice, notice
    assert "270 matching lines held back in 30 files" in notice, notice
    # -m given by the user wins: its count a file, the cap as before.
    own = run(q("river water", "-m", "5", "needle"), tree, env)
    assert [line.split(b":")[0] for line in own.stdout.splitlines()] == [
        f for f in order[:6] for _ in range(5)
    ]
    assert b"held back" not in own.stderr


def test_a_file_cut_by_the_cap_prints_the_lines_of_its_best_passage(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """With one line a file, rg's -m 1 printed each file's first match: a module's
    ``def setup_logging`` where its ``def parse_config_file`` answers the question (issue
    35: a query's 30 lines showed constructors, not the functions asked about). The line
    printed is now the match in the passage that answers best, rg's bytes for it, in a
    pipe, under headings and in colour; the same command again prints the same; where rg
    prints more than one line a match (context lines), the first lines print, as -m 1."""
    tree = make_code_tree(tmp_path / "code")
    query = "parse the configuration file into settings"
    pattern = r"def \w+"

    def rg_lines(*flags: str) -> list[bytes]:
        return run([rg, *flags, pattern, "config.py"], tree, env).stdout.splitlines(True)

    out = run(q(query, "-n", "--limit", "3", pattern), tree, env)
    assert out.returncode == 0, out.stderr
    [answer] = [line for line in rg_lines("-H", "-n") if b"parse_config_file" in line]
    assert out.stdout.splitlines(True)[0] == answer
    assert len(out.stdout.splitlines()) == 3 and b"held back" in out.stderr
    assert run(q(query, "-n", "--limit", "3", pattern), tree, env).stdout == out.stdout

    shown = run(q(query, "--heading", "--color=always", "--limit", "3", pattern), tree, env)
    heading, *matches = rg_lines("-H", "--heading", "--color=always")
    [coloured] = [line for line in matches if b"parse_config_file" in line]
    assert shown.stdout.split(b"\n\n")[0] + b"\n" == heading + coloured

    context = run(q(query, "-n", "-A1", "--limit", "3", pattern), tree, env)
    assert context.stdout.startswith(b"".join(rg_lines("-H", "-n", "-m1", "-A1")))

    # The agent's protocol: a recall, then searches of its scope; the scope keeps where each
    # of its files answers the recall's question, so they print the same line; a question
    # of their own (-q) asks another thing, and its own answer's line prints.
    recalled = run([*rrg_cmd(), "--recall", query, "--paragraphs", "0"], tree, env)
    assert recalled.returncode == 0, recalled.stderr
    scope = recalled.stdout.decode().split(" \u2192 ")[1].split(" (")[0]
    scoped = run([*rrg_cmd(), "--scope-file", scope, "-n", "--limit", "3", pattern], tree, env)
    assert scoped.returncode == 0, scoped.stderr
    assert scoped.stdout.splitlines(True)[0] == answer
    other = run(
        [*rrg_cmd(), "--scope-file", scope, "-q", "render an HTML page template", "-n"]
        + ["--limit", "3", pattern],
        tree,
        env,
    )
    [render] = [line for line in rg_lines("-H", "-n") if b"render_template" in line]
    assert other.stdout.splitlines(True)[0] == render

    # An embedded root: the stage reads no passage there (files are scored by their stored
    # ones); the lines come from the passages whose stored vectors answer best.
    embedded = {**env, "RRG_CACHE_DIR": str(tmp_path / "embedded-cache")}
    assert run([*rrg_cmd(), "--index", "--embed", "."], tree, embedded).returncode == 0
    out = run(q(query, "-n", "--limit", "3", pattern), tree, embedded)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines(True)[0] == answer


def test_on_a_terminal_a_capped_search_prints_as_rg_prints_there(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """rg heads, numbers and colours its lines only where it writes to a terminal itself;
    the runs whose output rrg reads (a cut file's chosen lines, a --stats block taken off,
    --files-without-match's records counted) write to a pipe. On a terminal they printed
    bare ``path:text`` lines, and with headings assumed the chosen lines were told apart
    wrong (16 lines at --limit 6 on gin). They print now what those flags print, given in
    a pipe; -N and --color=never still win."""
    tree = make_code_tree(tmp_path / "code")
    seen = {**env, "TERM": "xterm"}
    query = "parse the configuration file into settings"
    for flags, pattern, defs in (
        ([], r"def \w+", 3),
        (["--stats"], r"def \w+", 3),
        (["-N", "--color=never"], r"def \w+", 3),
        (["-c", "--stats"], r"def \w+", 0),
        (["--files-without-match"], "config", 0),
    ):
        code, shown = on_a_terminal(q(query, *flags, "--limit", "3", pattern), tree, seen)
        tty = ["--heading", *(["-n"] if "-N" not in flags else []), "--color=always"]
        piped = run(q(query, *tty, *flags, "--limit", "3", pattern), tree, seen)
        assert code == piped.returncode == 0, piped.stderr
        # --stats' timings differ run to run.
        untimed = [line for line in shown.split(b"\r\n") if b"seconds" not in line]
        assert untimed == [line for line in piped.stdout.split(b"\n") if b"seconds" not in line]
        assert (b"\x1b[" in shown) == ("--color=never" not in flags), flags
        assert shown.count(b"def ") == defs, shown


def test_a_files_licence_and_imports_are_its_last_passage(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A module's imports name what it is about, so its head (licence, imports) was often
    scored its best passage and printed first; it now comes after the module's others
    (``rrg.rank.preamble``): the passage shown, and the line a cut file prints, come from
    the function. A module that holds nothing else still shows its head."""
    tree = tmp_path / "web"
    tree.mkdir()
    (tree / "responses.py").write_text(
        "# Copyright 2024 Example Corp. Licensed under the MIT licence.\n"
        "import json\nfrom render import json_render, json_response, render_json\n"
        "from response import json_response_headers, response_json\n\n\n"
        "def write_json(handler, payload):\n"
        '    """Render the payload as the body of a JSON response."""\n'
        "    handler.write(json.dumps(payload))\n"
    )
    (tree / "reexports.py").write_text("from responses import write_json\nimport render\n")
    out = run(q("render a json response", "--limit", "2"), tree, env)
    assert out.returncode == 0, out.stderr
    blocks = out.stdout.decode().split("\n")
    assert blocks[0] == "responses.py:7-9:" and "def write_json" in blocks[1], out.stdout
    assert "reexports.py:1-2:" in blocks, out.stdout  # its head is all it holds
    lines = run(q("render a json response", "-n", "--limit", "2", "json"), tree, env)
    assert lines.stdout.splitlines()[0] == b"responses.py:7:def write_json(handler, payload):"


def test_files_below_the_head_print_the_lines_of_their_best_passage(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """The ranking scores the passages of its 20-25 best files; a file below them printed
    its first match, on real trees most often an import (a third of the lines at places
    26-30). Now every file the cap's share cuts prints the match in its best passage by
    the cheap scores: here each of 40 modules imports the word first and answers later."""
    tree = tmp_path / "modules"
    tree.mkdir()
    for k in range(40):
        (tree / f"module{k:02d}.py").write_text(
            f"from water_utils{k} import helpers\n\n\n"
            + "".join(f"def unrelated_{j}(x):\n    return x + {j}\n\n\n" for j in range(6))
            + "def pump_water(volume):\n"
            '    """Pump the river water through the sand filter."""\n'
            "    return helpers.filter(volume)\n"
        )
    query = "pump the river water through the sand filter"
    timed = {**env, "RRG_TIMINGS": "1"}
    out = run(q(query, "-n", "water"), tree, timed)
    assert out.returncode == 0, out.stderr
    assert b"more line spans" in out.stderr  # the files below the head were scored
    printed = out.stdout.splitlines()
    assert len(printed) == 30 and len({line.split(b":")[0] for line in printed}) == 30
    imports = [line for line in printed if b"import" in line]
    assert imports == [], imports
    # Each line is rg's own: the file's line as rg -n prints it.
    name, number = printed[-1].split(b":")[:2]
    theirs = run([rg, "-n", "water", name.decode()], tree, env).stdout.splitlines()
    assert [line for line in theirs if line.startswith(number + b":")] == [
        printed[-1][len(name) + 1 :]
    ]
    # Their spans are kept with the query's order: asked again, nothing is scored again.
    again = run(q(query, "-n", "water"), tree, timed)
    assert again.stdout == out.stdout and b"more line spans" not in again.stderr, again.stderr
    # The agent's protocol alike: a scope's search scores the files its recall did not,
    # and keeps their spans in the scope's sidecar for its next search.
    recalled = run([*rrg_cmd(), "--recall", query, "--paragraphs", "0"], tree, env)
    scope = recalled.stdout.decode().split(" \u2192 ")[1].split(" (")[0]
    scoped = run([*rrg_cmd(), "--scope-file", scope, "-n", "water"], tree, timed)
    assert scoped.returncode == 0, scoped.stderr
    assert len(scoped.stdout.splitlines()) == 30 and b"import" not in scoped.stdout
    assert b"more line spans" in scoped.stderr
    scoped_again = run([*rrg_cmd(), "--scope-file", scope, "-n", "water"], tree, timed)
    assert scoped_again.stdout == scoped.stdout
    assert b"more line spans" not in scoped_again.stderr, scoped_again.stderr


def test_json_prints_the_chosen_lines_and_counts_what_it_printed(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """``--json`` printed each cut file's first lines while the text output printed the
    lines that answer (its end statistics would have counted the lines left out). It now
    prints the same lines, and each file's end message and the summary count what printed,
    as rg's ``-m`` makes them count."""
    tree = make_code_tree(tmp_path / "code")
    query, pattern = "parse the configuration file into settings", r"def \w+"
    text = run(q(query, "-n", "--no-heading", "--limit", "3", pattern), tree, env)
    as_json = run(q(query, "--json", "--limit", "3", pattern), tree, env)
    assert as_json.returncode == text.returncode == 0, as_json.stderr
    messages = as_json.stdout.splitlines(True)
    parsed = [json.loads(m) for m in messages]
    matched = [
        f"{m['data']['path']['text']}:{m['data']['line_number']}:{m['data']['lines']['text']}"
        for m in parsed
        if m["type"] == "match"
    ]
    assert "".join(matched).encode() == text.stdout and b"parse_config_file" in text.stdout
    per_file: dict[str, list[int]] = {}
    for raw, message in zip(messages, parsed, strict=True):
        data = message["data"]
        if message["type"] == "begin":
            counts = per_file.setdefault(data["path"]["text"], [0, 0, len(raw)])
        elif message["type"] == "match":
            counts[0] += 1
            counts[1] += len(data["submatches"])
            counts[2] += len(raw)
        elif message["type"] == "end":
            stats = data["stats"]
            want = [stats["matched_lines"], stats["matches"], stats["bytes_printed"]]
            assert want == per_file[data["path"]["text"]], (data, per_file)
    [summary] = [m["data"]["stats"] for m in parsed if m["type"] == "summary"]
    totals = [sum(c[k] for c in per_file.values()) for k in range(3)]
    assert [summary["matched_lines"], summary["matches"], summary["bytes_printed"]] == totals
    # A file whose chosen line is its first: every message rg's -m 1 writes, but the time
    # and the bytes searched (rrg's run read the whole file; -m 1 stops at its first match).
    first = [f for f in per_file if f != "config.py"][0]
    theirs = run([rg, "--json", "-m", "1", pattern, first], tree, env).stdout.splitlines()
    ours = [
        m
        for m, p in zip(messages, parsed, strict=True)
        if p["data"].get("path", {}).get("text") == first
    ]
    unsaid = re.compile(rb'"elapsed":\{[^}]*\}|"bytes_searched":\d+')
    assert [unsaid.sub(b"", m.rstrip(b"\n")) for m in ours] == [
        unsaid.sub(b"", m) for m in theirs[:3]
    ]


def test_a_cap_the_shares_do_not_fill_goes_to_the_best_files(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Few files: each prints its share, then what is left of the cap goes to the best
    files first; every file still prints once, its lines rg's own."""
    tree = _dense_tree(tmp_path / "sparse", 3, 20)
    order = run(q("river water", "-l", "--limit", "0", "needle"), tree, env).stdout.split()
    out = run(q("river water", "--json", "needle"), tree, env)
    files = [
        json.loads(line)["data"]["path"]["text"]
        for line in out.stdout.splitlines()
        if b'"type":"match"' in line
    ]
    # 1 + 1 + 1 shares, the 27 left: 19 more to the best file, 8 to the second.
    assert files == [order[0].decode()] * 20 + [order[1].decode()] * 9 + [order[2].decode()] * 1
    assert b"held back in 2 files" in out.stdout.splitlines()[-1]
    one = run(q("river water", "needle"), _dense_tree(tmp_path / "one", 1, 40), env)
    notice = one.stderr.decode()
    assert "(10 matching lines held back in 1 file;" in notice, notice
    # The file printed 30 lines: the notice says the rest went to it, not "at most 1".
    assert "1 line a file first so that more files show, then the rest to the best" in notice
    assert "at most" not in notice, notice


@pytest.mark.parametrize("args", [["--maxdepth", "1"], ["--maxdepth=1", "-c"]])
def test_rgs_other_spellings_of_a_flag_search_as_rg_does(
    args: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    """rg's alternative spellings (``--maxdepth`` for ``--max-depth``): rrg read
    ``--maxdepth 1`` as a switch and ``1`` as the pattern, and failed where rg searched."""
    ours = run(q("doctor watson", "--limit", "0", "--excerpt", "0", *args, "Watson"), corpus, env)
    theirs = run([rg, *args, "Watson"], corpus, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


@pytest.mark.parametrize("flag", ["--passthru", "--passthrough"])
def test_passthru_is_refused_with_a_query(flag: str, corpus: Path, env: dict[str, str]) -> None:
    """rg --passthru prints every line of every file, a file without a match too; rrg's
    runs over the files with matches printed fewer files than rg, and with no match
    nothing at all, where rg printed every file."""
    (corpus / "sub" / "plain.txt").write_text("no name of note here\n")
    out = run(q("doctor watson", flag, "Watson"), corpus, env)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.decode().startswith("rrg: --passthru cannot be used with -q")
    assert out.stderr.count(b"\n") == 1


def test_passthru_in_rgs_config_file_is_refused_where_rg_searches(
    corpus: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    """Each of rrg's rg searches reads rg's config file: --passthru there printed every line
    of the files with matches and none of the others (the fuzz of
    benchmarks/differential.py found it). Refused, saying where it comes from; passages and
    --files run no such search, and --no-config takes the search back."""
    rc = tmp_path / "ripgreprc"
    rc.write_text("--passthru\n")
    env = {**env, "RIPGREP_CONFIG_PATH": str(rc)}
    out = run(q("doctor watson", "Watson"), corpus, env)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.startswith(b"rrg: --passthru (in rg's config file) cannot be used with -q")
    for args in (["--limit", "1"], ["--files"], ["--no-config", "Watson"]):
        out = run(q("doctor watson", *args), corpus, env)
        assert out.returncode == 0 and out.stdout, (args, out.stderr)


def test_every_alternative_spelling_in_rgs_manual_is_known(rg: str) -> None:
    from rrg.rg.flags import LONG_ALIASES

    manual = subprocess.run([rg, "--generate", "man"], capture_output=True, check=True).stdout
    said = re.findall(rb"An alternative spelling for this flag is \\fB((?:\\-|[\w])+)\\fP", manual)
    spellings = {s.replace(b"\\-", b"-").decode() for s in said}
    assert spellings and spellings == set(LONG_ALIASES)


@pytest.mark.parametrize(
    "mode", [[], ["-l"], ["-c"], ["--files-without-match"], ["--quiet"], ["--json"]]
)
def test_a_file_deleted_after_the_listing_is_no_error_in_any_mode(
    tmp_path: Path, env: dict[str, str], mode: list[str]
) -> None:
    """As in rg's own walk, a file gone by the time rg reads it is no failure: the answer is
    the one rg gives where it never was. The preprocessor of the first file read deletes
    the least relevant one, which rrg listed."""
    root = tmp_path / "rivers"
    root.mkdir()
    for k in range(6):
        (root / f"river{k}.txt").write_text(
            "".join(f"The river {k}-{j} flows past farm {j}\n" for j in range(4))
        )
    (root / "dry.txt").write_text("no water here\n")
    victim = root / "victim.txt"
    script = tmp_path / "deleting-pre"
    script.write_text(f'#!/bin/sh\n[ "$1" = victim.txt ] || rm -f {victim}\ncat "$1"\n')
    script.chmod(0o755)
    args = q("river flows past farm", *mode, "--pre", str(script), "river")
    gone = run(args, root, env)  # victim.txt never existed
    victim.write_text("a river\n")
    ours = run(args, root, env)
    assert not victim.exists()
    assert ours.returncode == gone.returncode and b"No such file" not in ours.stderr, ours.stderr
    assert lines(ours.stdout) == lines(gone.stdout)


def test_many_lines_long_and_short_are_rg_lines_or_cut_around_their_match(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Thousands of lines, short ones and long ones (multibyte text, the match at the start,
    the middle or the end, one line longer than a pipe's read): each short line is rg's,
    each long one exactly ``--excerpt`` characters of it around its first match."""
    import random

    rnd = random.Random(5)
    words = ["alpha", "beta", "gamma", "délta", "ωmega", "naïve", "x" * 30]
    rows = []
    for k in range(6000):
        length = rnd.choice([3, 8, 20, 40, 200]) if k != 3000 else 30_000
        text = [rnd.choice(words) for _ in range(length)]
        text.insert(rnd.randrange(len(text) + 1), "needle")
        rows.append(" ".join(text))
    (tmp_path / "many.txt").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (tmp_path / "few.txt").write_text("needle here\n" + "z" * 500 + " needle\n")
    limit = 120
    args = ["--limit", "0", "--excerpt", str(limit), "-n", "needle"]
    ours = run(q("needle", *args), tmp_path, env)
    theirs = run([rg, "-n", "needle"], tmp_path, env)
    assert ours.returncode == theirs.returncode == 0
    # Files come in relevance order, rg's in its walk's: a line is known by its file and
    # number.
    mine = {b":".join(x.split(b":", 2)[:2]): x for x in ours.stdout.splitlines()}
    rgs = {b":".join(x.split(b":", 2)[:2]): x for x in theirs.stdout.splitlines()}
    assert len(mine) == len(rgs) == 6002 and mine.keys() == rgs.keys()
    long_lines = 0
    for key, whole in rgs.items():
        printed = mine[key]
        path, number, text = whole.decode().split(":", 2)
        if len(text) <= limit:
            assert printed == whole
            continue
        long_lines += 1
        head = f"{path}:{number}:"
        got = printed.decode()
        assert got.startswith(head), got[:60]
        body = got[len(head) :]
        kept = body.removeprefix("[...]").removesuffix("[...]")
        assert len(kept) == limit and kept in text
        assert body.startswith("[...]") == (not text.startswith(kept))
        assert body.endswith("[...]") == (not text.endswith(kept))
        first = text.index("needle")
        assert text.index(kept) <= first and first + 6 <= text.index(kept) + limit
    assert long_lines > 1000
    assert f"{long_lines} long lines cut to {limit} characters".encode() in ours.stderr


def test_a_files_own_escapes_are_printed_as_rg_prints_them(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """A coloured log's lines hold escapes of their own: rg prints them as they are, and so
    does the marked pass behind ``--excerpt``, which once dropped every escape it met. Long
    lines are cut around their match with the file's escapes kept; a user's colours and
    hyperlinks (rg's config file) leave the marks alone."""
    red, reset, underline = "\x1b[31m", "\x1b[0m", "\x1b[0m\x1b[4m"
    (tmp_path / "ci.log").write_text(
        f"{red}ERROR{reset} needle failed\n"
        f"ok {underline}needle{reset} {red}x{reset}\n"
        f"{'y' * 300} {red}needle{reset} {'z' * 300}\n"
        "needle\x1b[38;2;1;2;6mlooks like a mark\x1b[0m\n"
    )
    config = tmp_path / "rg.conf"
    config.write_text(
        "--colors=highlight:bg:yellow\n--colors=match:bg:blue\n--hyperlink-format=default\n"
    )
    for extra in ({}, {"RIPGREP_CONFIG_PATH": str(config)}):
        theirs = run([rg, "-n", "needle"], tmp_path, {**env, **extra})
        ours = run(q("needle", "--excerpt", "100", "-n", "needle"), tmp_path, {**env, **extra})
        assert ours.returncode == theirs.returncode == 0, ours.stderr
        mine, rgs = ours.stdout.splitlines(), theirs.stdout.splitlines()
        assert len(mine) == len(rgs) == 4
        for k in (0, 1, 3):
            assert mine[k] == rgs[k]
        kept = mine[2].removeprefix(b"ci.log:3:[...]").removesuffix(b"[...]")
        assert len(kept.decode()) == 100 and kept in rgs[2]
        assert f"{red}needle{reset}".encode() in kept


@pytest.mark.parametrize(
    "args",
    [
        ["--field-match-separator", "::"],
        ["--field-match-separator", ""],
        ["-C1", "--field-context-separator", "~~", "--field-match-separator", "=>"],
        ["--null"],
        ["--vimgrep"],
        ["-b", "--column"],
    ],
)
def test_a_long_lines_prefix_is_kept_whatever_its_separators(
    args: list[str], tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """The fields before a long line's text are printed as rg prints them, and only its
    text is cut: a separator of two bytes once read as text, and the cut kept the wrong
    part ("f.txt:[...]le bbbb")."""
    text = "a" * 300 + " needle " + "b" * 300
    (tmp_path / "f.txt").write_text(f"before\n{text}\nafter\n")
    (tmp_path / "g.txt").write_text("needle short\n")
    ours = run(q("needle", "--excerpt", "40", "-n", *args, "needle"), tmp_path, env)
    theirs = run([rg, "-n", *args, "needle"], tmp_path, env)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    mine = {line.split(b"needle")[0]: line for line in ours.stdout.splitlines()}
    rgs = {line.split(b"needle")[0]: line for line in theirs.stdout.splitlines()}
    for line in rgs.values():
        if text.encode() not in line:
            assert line in ours.stdout.splitlines()
            continue
        fields = line[: -len(text)]
        cut = [m for m in mine.values() if m.startswith(fields + b"[...]")]
        assert len(cut) == 1, (fields, ours.stdout)
        assert cut[0] == fields + b"[...]" + b"a" * 16 + b" needle " + b"b" * 16 + b"[...]"
    assert len(ours.stdout.splitlines()) == len(theirs.stdout.splitlines())


def test_no_warning_of_a_file_left_open_where_warnings_show(
    corpus: Path, env: dict[str, str]
) -> None:
    """rg's pipes and the index's segment files were closed by the garbage collector, which
    warns where warnings show (``PYTHONWARNINGS=default``, ``python -X dev``): six
    ResourceWarnings on stderr around each search's output."""
    shown = {**env, "PYTHONWARNINGS": "default", "RRG_RESIDENT": "0"}
    for args in (
        q("doctor watson", "--limit", "2", "Watson"),
        q("doctor watson", "--limit", "2", "-c", "Watson"),
        q("doctor watson", "--files-without-match", "Watson"),
        q("doctor watson", "--rerank", "--limit", "2", "Watson"),
        q("doctor watson", "--json", "--limit", "2", "Watson"),
        q("doctor watson", "--quiet", "Watson"),
        q("doctor watson"),
        [*rrg_cmd(), "--recall", "doctor watson", "."],
        [*rrg_cmd(), "--index-status", "."],
    ):
        out = run(args, corpus, shown)
        assert out.returncode in (0, 1) and b"Warning" not in out.stderr, (args, out.stderr)


@pytest.mark.parametrize(
    ("flags", "entries"),
    [
        (["-o"], 400),
        (["--vimgrep"], 400),
        # A line of 1,000 matches printed whole for each, 16 MB: the file prints alone.
        (["--vimgrep"], 1000),
        (["-o", "-n", "--heading"], 400),
        (["-o", "--heading", "--null"], 400),
        (["--vimgrep", "-m", "2"], 400),
    ],
)
def test_the_cap_counts_matches_where_each_prints_as_a_line(
    flags: list[str], entries: int, tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """Under -o and --vimgrep rg prints each match as a line: a minified file of one line
    and 400 matches printed all 400 past a cap of 10 (rg's -m cuts lines), under a notice
    that said 10. The cap now counts the matches printed, each one of rg's lines."""
    root = tmp_path / "web"
    root.mkdir()
    bundle = " ".join(f"total{i} = {i};" for i in range(entries)) + "\n"
    (root / "bundle.min.js").write_text(bundle)
    for name in ("totals.py", "sums.py", "notes.md"):
        (root / name).write_text(f"total = 1\nother\ntotal = 2\n# {name}\n")
    asked = q("how totals are computed", "--limit", "10", "--excerpt", "0", *flags, r"total\d*")
    out = run(asked, root, env)
    assert out.returncode == 0, out.stderr
    printed = [line for line in out.stdout.split(b"\n") if line]
    theirs = set(run([rg, "-m", "1", *flags, r"total\d*"], root, env).stdout.split(b"\n"))
    theirs |= set(
        run([rg, *flags, r"total\d*", "totals.py", "sums.py", "notes.md"], root, env).stdout.split(
            b"\n"
        )
    )
    headings = [line for line in printed if line in (b"bundle.min.js", b"totals.py")]
    headings += [line for line in printed if line in (b"sums.py", b"notes.md")]
    assert len(printed) - len(headings) == 10, out.stdout
    assert all(line in theirs for line in printed), out.stdout
    # -m N given: no share a file, so nothing said held back; the cap holds all the same.
    assert (b"matches held back" in out.stderr) == ("-m" not in flags), out.stderr


def test_under_json_the_cap_counts_lines_with_o_too(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """rg's --json prints a message a matching line whatever -o says; the count pass counted
    matches under -o, and the notice said hundreds of "matching lines" were held back in a
    file of one line."""
    root = tmp_path / "web"
    root.mkdir()
    (root / "bundle.min.js").write_text(" ".join(f"total{i} = {i};" for i in range(400)) + "\n")
    for name in ("totals.py", "sums.py", "notes.md"):
        (root / name).write_text(f"total = 1\nother\ntotal = 2\n# {name}\n")
    out = run(q("how totals are computed", "--limit", "10", "--json", "-o", r"total\d*"), root, env)
    assert out.returncode == 0 and b"held back" not in out.stderr, out.stderr
    messages = [json.loads(line) for line in out.stdout.splitlines()]
    theirs = [
        json.loads(line)
        for line in run([rg, "--json", "-o", r"total\d*"], root, env).stdout.splitlines()
    ]
    matched = sorted(m["data"]["lines"]["text"] for m in messages if m["type"] == "match")
    assert matched == sorted(m["data"]["lines"]["text"] for m in theirs if m["type"] == "match")


def test_a_fifo_named_as_a_path_is_read_by_rg_alone(
    tmp_path: Path, rg: str, env: dict[str, str]
) -> None:
    """A FIFO named as a PATH (a process's output, `<(cmd)` in a shell): rg reads what its
    writer writes and prints its lines. The index read it first, took those bytes, and
    left rg waiting on the FIFO for ever, before a line was printed."""
    tree = tmp_path / "fifo"
    tree.mkdir()
    (tree / "notes.txt").write_text("Holmes and Watson\n")
    fifo = tree / "pipe"

    def search(cmd: list[str]) -> subprocess.CompletedProcess[bytes]:
        os.mkfifo(fifo)
        with ThreadPoolExecutor(1) as pool:
            # Opening for writing waits for a reader: the first to open it gets the line.
            pool.submit(fifo.write_text, "Watson at the window\n")
            try:
                return subprocess.run(
                    cmd, cwd=tree, env=env, capture_output=True, timeout=30, check=False
                )
            finally:
                with open(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK), "rb") as unblock:
                    unblock.read()  # a writer still waiting (the search failed) goes on
                fifo.unlink()

    expected = search([rg, "-j1", "Watson", "notes.txt", "pipe"])
    got = search([*rrg_cmd(), "-q", "Holmes", "Watson", "notes.txt", "pipe"])
    assert got.returncode == expected.returncode == 0, got.stderr
    assert sorted(got.stdout.splitlines()) == sorted(expected.stdout.splitlines())
    assert b"pipe:Watson at the window" in got.stdout
    assert (
        got.stderr == b"rrg: pipe is a stream (a FIFO or a device), read once: running plain rg\n"
    )
