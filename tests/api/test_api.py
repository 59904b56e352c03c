"""The library (rrg.api), in this process: its answers are the command line's for the same
words (the real rg under both), and bad input is an RrgError of one line."""

from __future__ import annotations

import gc
import json
import re
import shutil
import sys
import warnings
from pathlib import Path

import pytest

from conftest import ROOT
from rrg import api
from tests.conftest import crashed_log, make_code_tree, rrg_cmd, run, without_root_powers

QUERY = "retry a failed call with backoff"


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "retry.py").write_text(
        "def retry_with_backoff(call, attempts=3):\n"
        '    """Retry a call, waiting longer after each failure."""\n'
        "    for n in range(attempts):\n"
        "        try:\n"
        "            return call()\n"
        "        except TimeoutError:\n"
        "            sleep(2 ** n)  # backoff\n"
    )
    (root / "src" / "config.py").write_text(
        'def parse_config(path):\n    """Read the settings file; retry once."""\n'
        "    return open(path).read()\n"
    )
    (root / "docs" / "retries.md").write_text("# Retries\n\nThe client retries with backoff.\n")
    (root / "src" / "many.txt").write_text("".join(f"retry line {k}\n" for k in range(50)))
    (root / "ignored.log").write_text("retry backoff\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / ".git").mkdir()
    return root


@pytest.fixture
def project(project_dir: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> api.Project:
    for name in ("RRG_CACHE_DIR", "RRG_INDEX_WAIT_S"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.delenv("RIPGREP_CONFIG_PATH", raising=False)
    return api.open_project(project_dir)


def test_files_are_the_command_lines_order(
    project: api.Project, project_dir: Path, env: dict[str, str]
) -> None:
    got = project.files(QUERY).files
    cli = run([*rrg_cmd(), "-q", QUERY, "--files"], project_dir, env)
    assert cli.returncode == 0, cli.stderr
    assert [f.path for f in got] == cli.stdout.decode().splitlines()
    assert [f.rank for f in got] == list(range(1, len(got) + 1))
    assert "ignored.log" not in [f.path for f in got]  # rg's ignore rules hold
    assert got[0].path == "src/retry.py"
    two = project.files(QUERY, limit=2)
    assert [f.path for f in two.files] == [f.path for f in got[:2]]
    assert two.total == len(got) and two.notices == [f"printed the 2 best of {len(got)} files"]


def test_search_gives_the_command_lines_lines(
    project: api.Project, project_dir: Path, env: dict[str, str]
) -> None:
    result = project.search(QUERY, "retry|backoff", limit=5)
    cli = run(
        [*rrg_cmd(), "-q", QUERY, "--limit", "5", "-n", "-H", "retry|backoff"], project_dir, env
    )
    assert cli.returncode == 0, cli.stderr
    expected = [tuple(line.split(":", 2)) for line in cli.stdout.decode().splitlines()]
    got = [(m.path, str(m.line_number), m.text) for m in result.matches]
    assert got == expected
    assert len(got) == 5
    # The cap's notice, as the command line says it on stderr, in the call's own words:
    # its parameter, and no -m to set (an agent over MCP had none).
    [notice] = [n for n in result.notices if n.startswith("stopped at")]
    said = cli.stderr.decode()
    assert notice.startswith("stopped at limit 5, 1 line a file first so that more files")
    assert "raise limit (0 = no cap)" in notice and "-m N" not in notice
    assert "stopped at --limit 5, 1 line a file first" in said and "-m N sets" in said
    assert notice == said.strip()[6:-1].replace("--limit", "limit").replace(
        "; -m N sets your own count a file", ""
    )
    first = result.matches[0]
    start, end = first.spans[0]
    assert re.fullmatch("retry|backoff", first.text.encode()[start:end].decode())


def test_search_gives_what_rgs_walk_prints_of_a_log_given_up_at_a_late_nul(
    project: api.Project, project_dir: Path, env: dict[str, str]
) -> None:
    """A log a crash ended in NULs past rg's first read: the library left it out, where the
    command line (and rg's walk) print its matching lines before the NULs."""
    crashed_log(project_dir / "src" / "service.dump")
    result = project.search(QUERY, "Moriarty", limit=0)
    cli = run([*rrg_cmd(), "-q", QUERY, "--limit", "0", "-n", "-H", "Moriarty"], project_dir, env)
    assert cli.returncode == 0, cli.stderr
    expected = [
        tuple(line.split(":", 2))
        for line in cli.stdout.decode().splitlines()
        if "WARNING" not in line
    ]
    got = [(m.path, str(m.line_number), m.text) for m in result.matches]
    assert got == expected
    assert [text for _, _, text in got] == [
        "00100 ERROR Moriarty refused the connection",
        "05000 ERROR Moriarty timed out",
    ]


def test_search_limit_zero_paths_and_case(project: api.Project) -> None:
    every = project.search(QUERY, "retry", limit=0)
    assert sum(m.path == "src/many.txt" for m in every.matches) == 50
    assert every.notices == []
    inside = project.search(QUERY, "BACKOFF", paths=("docs",), ignore_case=True, fast=True)
    assert {m.path for m in inside.matches} == {"docs/retries.md"}
    assert project.search(QUERY, "BACKOFF", paths=("docs",)).matches == []


def test_passages_are_the_command_lines(
    project: api.Project, project_dir: Path, env: dict[str, str]
) -> None:
    answer = project.passages(QUERY, limit=2)
    got = answer.passages
    cli = run([*rrg_cmd(), "-q", QUERY, "--limit", "2"], project_dir, env)
    assert cli.returncode == 0, cli.stderr
    heads = re.findall(r"^(\S+):(\d+)-(\d+):$", cli.stdout.decode(), re.M)
    assert [(p.path, str(p.start_line), str(p.end_line)) for p in got] == heads
    assert got[0].path == "src/retry.py" and got[0].text.startswith("def retry_with_backoff")
    assert answer.more
    every = project.passages(QUERY, limit=0)
    assert not every.more and len(every.passages) > 2


def test_index_and_status(project: api.Project) -> None:
    report = project.index()
    assert (report.files, report.read) == (4, 4)  # rg lists 4: .gitignore is hidden
    again = project.index()
    assert (again.read, again.removed) == (0, 0)
    status = project.status()
    assert status.indexed and status.files == 4
    assert status.served_by == str(project.root)
    assert "files indexed: 4" in status.text


def test_bad_input_is_one_line(project: api.Project, tmp_path: Path) -> None:
    cases = [
        (lambda: project.search(QUERY, "a("), "regex parse error"),
        (lambda: project.search(QUERY, ""), "the pattern is empty"),
        (lambda: project.files("  "), "the query is empty"),
        (lambda: project.files(QUERY, paths=("..",)), "outside the project"),
        (lambda: project.files(QUERY, paths=("nope",)), "no such file or directory"),
        (lambda: project.files(QUERY, paths="src"), "not one string"),  # type: ignore[arg-type]
        (lambda: project.search(QUERY, "x", limit=-1), "0 or more"),
        # rg's listing would only say these on stderr and list nothing: an empty answer.
        (lambda: project.files(QUERY, globs=("[",)), "error parsing glob '['"),
        (lambda: project.passages(QUERY, globs=("{a",)), "error parsing glob '{a'"),
        (lambda: project.search(QUERY, "x", globs=("[",)), "error parsing glob"),
        (lambda: project.files(QUERY, globs=("a\0",)), "bad glob"),
        (lambda: project.search(QUERY, "a\0"), "NUL byte"),
        (lambda: api.open_project(tmp_path / "missing"), "not a folder"),
        (lambda: api.open_project(tmp_path, model="no-such-model"), "no model named"),
    ]
    for call, words in cases:
        with pytest.raises(api.RrgError) as err:
            call()
        assert words in str(err.value) and "\n" not in str(err.value)


def test_the_documented_example_runs(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RRG_CACHE_DIR", "RRG_INDEX_WAIT_S"):
        monkeypatch.setenv(name, env[name])
    doc = (ROOT / "docs" / "api.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert blocks, "docs/api.md shows no example"
    for block in blocks:
        exec(compile(block, "docs/api.md", "exec"), {})


def test_search_reranked_scores_each_line(project: api.Project) -> None:
    """With rerank, the model scores up to the pool and the best ``limit`` come back in
    score order, each with its score, and the notice says how many were weighed."""
    result = project.search(QUERY, "retry|backoff", limit=3, rerank=True)
    scores = [m.score for m in result.matches]
    assert len(scores) == 3 and all(s is not None for s in scores)
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert any(n.startswith("reranked top 3 of") for n in result.notices), result.notices
    cheap = project.passages(QUERY, limit=1, fast=True).passages
    assert cheap and cheap[0].path == "src/retry.py"


def test_a_query_holding_lone_surrogates_is_read_as_words(project: api.Project) -> None:
    """What os.fsdecode makes of a byte that is no UTF-8, or a JSON "\\ud800", which no
    tokenizer takes: read as U+FFFD, as the command line reads such a byte in its argv."""
    plain = project.files("retry \ufffd backoff \ufffd").files
    assert plain and project.files("retry \udcff backoff \ud800").files == plain
    assert project.passages("\udcff retry", fast=True).passages


def test_a_question_that_reads_no_file_says_so(project: api.Project) -> None:
    """Globs that leave out every file answered as a question with no answer does: nothing,
    and no notice (where the command line prints rg's "No files were searched"), so an
    agent read the wrong glob as "nothing matches". Each question now says so."""
    none = ("*.nothing",)
    answers = [
        project.files(QUERY, globs=none),
        project.passages(QUERY, globs=none),
        project.search(QUERY, "retry", globs=none),
    ]
    for answer in answers:
        assert api.NOTHING_LISTED in answer.notices, answer
    assert api.NOTHING_LISTED not in project.search(QUERY, "retry").notices


def test_what_rg_says_on_stderr_comes_back_as_notices(
    project_dir: Path, env: dict[str, str]
) -> None:
    """A folder rg cannot read: the command line prints rg's message on stderr; the library
    writes nothing to its caller's stderr and says it among the notices."""
    prefix = without_root_powers()
    if prefix is None:
        pytest.skip("running as root without setpriv able to drop capabilities")
    locked = project_dir / "locked"
    locked.mkdir()
    (locked / "notes.txt").write_text("retry with backoff\n")
    locked.chmod(0)
    ask = (
        "import json, sys, rrg.api\n"
        "p = rrg.api.open_project(sys.argv[1])\n"
        "print(json.dumps([p.files('retry backoff').notices, p.index().notices,"
        " p.search('retry backoff', 'retry').notices]))\n"
    )
    try:
        done = run([*prefix, sys.executable, "-c", ask, str(project_dir)], project_dir, env)
    finally:
        locked.chmod(0o755)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    for notices in json.loads(done.stdout):
        assert any("locked" in n and "Permission denied" in n for n in notices), notices


def test_a_project_whose_folder_is_gone(
    tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Removed after it was opened: each question is an RrgError of one line (index() raised
    FileNotFoundError; the others answered nothing, rg's message among the notices)."""
    monkeypatch.setenv("RRG_CACHE_DIR", env["RRG_CACHE_DIR"])
    folder = tmp_path / "short-lived"
    folder.mkdir()
    (folder / "notes.md").write_text("retry with backoff\n")
    project = api.open_project(folder)
    assert project.files(QUERY).files
    shutil.rmtree(folder)
    calls = (
        lambda: project.files(QUERY),
        lambda: project.passages(QUERY),
        lambda: project.search(QUERY, "retry"),
        project.index,
    )
    for call in calls:
        with pytest.raises(api.RrgError, match="the project's folder is gone"):
            call()


def test_a_capped_search_gives_the_lines_of_the_best_passages_as_the_command_line(
    tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library reads rg's JSON, whose files print their first lines under the cap's
    share (its end messages would count the lines left out): it asks for its match
    messages alone, so a file cut by the share gives the lines of its best passage, the
    same lines the command line prints."""
    root = make_code_tree(tmp_path / "code")
    for name in ("RRG_CACHE_DIR", "RRG_INDEX_WAIT_S"):
        monkeypatch.setenv(name, env[name])
    query, pattern = "parse the configuration file into settings", r"def \w+"
    result = api.open_project(root).search(query, pattern, limit=2)
    cli = run([*rrg_cmd(), "-q", query, "--limit", "2", "-n", "-H", pattern], root, env)
    assert cli.returncode == 0, cli.stderr
    expected = [tuple(line.split(":", 2)) for line in cli.stdout.decode().splitlines()]
    assert [(m.path, str(m.line_number), m.text) for m in result.matches] == expected
    assert result.matches[0].text == "def parse_config_file(path):"


def test_the_library_leaves_no_file_for_the_collector_to_close(
    project: api.Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rg's pipes and the index's open segment files are closed by rrg, not by the garbage
    collector: one it closes is a ResourceWarning, which a caller's test suite run with
    ``-W error`` (or ``python -X dev``) sees as an error of its own."""
    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ResourceWarning)
        project.index()
        project.files(QUERY, limit=2)
        project.passages(QUERY, limit=2)
        project.search(QUERY, "retry", limit=3)
        project.search(QUERY, "retry", limit=3, rerank=True)
        project.search(QUERY, "retry", limit=0, paths=("src",))
        project.status()
        gc.collect()
    assert [str(w.message) for w in seen if w.category is ResourceWarning] == []
    assert unraisable == []
