"""The layers that the subprocess tests reach only through a process, asked in this one: the
command line's dispatch (its output captured as the MCP server once captured it), the MCP
tools over the library, the passage and notice renderers. The real rg and real files, as
everywhere; a small tree."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from rrg import api, streams
from rrg.cli.app import run as run_cli
from rrg.cli.argsplit import split_argv
from rrg.cli.prestart import start_walk
from rrg.cli.stdin_patterns import patterns_to_file
from rrg.output.notices import report_facts
from rrg.output.passages import PassageStyle, entry_points, passage_blocks
from rrg.rank.paragraphs import Paragraph
from rrg.rg.binary import find_rg
from rrg.rg.palette import DEFAULT
from rrg.rg.version import rg_version
from rrg.server.tools import ToolInputError, Tools

QUERY = "parse the configuration file"


@pytest.fixture
def tree(tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "tree"
    (root / "src").mkdir(parents=True)
    (root / "src" / "config.py").write_text(
        "def load_config(path):\n    '''Parse the configuration file.'''\n"
        "    return dict(line.split('=') for line in open(path))\n"
    )
    (root / "src" / "retry.py").write_text(
        "def retry(request):\n    '''Retry a request after a timeout.'''\n    return request()\n"
    )
    (root / "notes.md").write_text("The configuration file holds key=value lines.\n")
    for name in ("RRG_CACHE_DIR", "RRG_INDEX_WAIT_S"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.delenv("RIPGREP_CONFIG_PATH", raising=False)
    monkeypatch.chdir(root)
    return root


def cli(*argv: str) -> tuple[int, str, str]:
    """The command line run here, its output captured."""
    with streams.captured() as held:
        code = run_cli(split_argv(list(argv)))
    return code, held.out.decode(), held.err.decode()


def test_the_command_line_and_the_library_agree(tree: Path) -> None:
    code, out, err = cli("-q", QUERY, "--files")
    assert code == 0, err
    listed = api.open_project(tree).files(QUERY)
    assert out.splitlines() == [f.path for f in listed.files]
    code, out, _ = cli("-q", QUERY, "-n", "--no-heading", "config")
    found = api.open_project(tree).search(QUERY, "config")
    assert out.splitlines() == [f"{m.path}:{m.line_number}:{m.text}" for m in found.matches]
    code, _, err = cli("-q", QUERY, "a(")
    assert code == 2 and "regex parse error" in err
    # A plain query's walk starts before rrg loads, and the query takes it over.
    split = split_argv(["-q", QUERY, "-n", "config"])
    walk = start_walk(split)
    assert walk is not None
    with streams.captured() as held:
        assert run_cli(split, walk) == 0
    assert held.out.decode().splitlines() == out.splitlines()
    assert start_walk(split_argv(["-q", QUERY, "--rerank", "config"])) is None


def test_the_mcp_tools_answer_in_text_and_data(tree: Path) -> None:
    tools = Tools(api.open_project(tree))
    files = tools.files(QUERY, limit=2)
    assert files.text.splitlines()[:2] == [f["path"] for f in files.data["files"]]
    assert files.text.endswith("[rrg: printed the 2 best of 3 files]\n")
    lines = tools.search(QUERY, pattern="config")
    first = lines.data["matches"][0]
    assert lines.text.startswith(f"{first['path']}:{first['line_number']}:{first['text']}\n")
    passages = tools.search(QUERY, path="src")
    assert all(p["path"].startswith("src/") for p in passages.data["passages"])
    recall = tools.recall(QUERY)
    assert recall.text.startswith("src/config.py:\nLine 1-3: def load_config")
    assert tools.search(QUERY, pattern="nothing-like-this").text == "no match\n"
    for bad in ({"pattern": "("}, {"path": "../x"}, {"limit": -1}, {"globs": [""]}):
        with pytest.raises(ToolInputError) as err:
            tools.search(QUERY, **bad)  # type: ignore[arg-type]
        assert str(err.value).startswith("rrg: ") and "\n" not in str(err.value)


def test_the_default_palette_is_rgs(rg: str) -> None:
    """rrg's own lines are coloured with rg's bytes: checked against the rg installed."""
    shown = subprocess.run(
        [rg, "--no-config", "--color=always", "-H", "-n", "--column", "x", "-"],
        input=b"x\n",
        capture_output=True,
        check=True,
    ).stdout
    parts = [(DEFAULT.path, b"<stdin>"), (DEFAULT.line, b"1"), (DEFAULT.column, b"1")]
    ours = b"".join(paint(text) + b":" for paint, text in parts)
    assert shown == ours + DEFAULT.match(b"x") + b"\n"


def test_passages_render_as_rg_prints_lines() -> None:
    found = [
        (b"a.py", Paragraph(1, 2, "def f():\n    pass")),
        (b"a.py", Paragraph(9, 9, "x = 1")),
        (b"b.md", Paragraph(3, 3, "Notes.")),
    ]
    piped = passage_blocks(found, PassageStyle(heading=False, numbers=True, palette=None))
    assert piped == b"a.py:1-2:\ndef f():\n    pass\na.py:9-9:\nx = 1\nb.md:3-3:\nNotes.\n"
    headed = passage_blocks(found, PassageStyle(heading=True, numbers=True, palette=None))
    assert headed == b"a.py\n1:def f():\n2:    pass\n--\n9:x = 1\n\nb.md\n3:Notes.\n"
    coloured = passage_blocks(found[:1], PassageStyle(heading=True, numbers=False, palette=DEFAULT))
    assert coloured == b"\x1b[0m\x1b[35ma.py\x1b[0m\ndef f():\n    pass\n"
    # --color always in a pipe: the flat form, its path and lines in rg's colours.
    forced = passage_blocks(found[:1], PassageStyle(heading=False, numbers=False, palette=DEFAULT))
    assert forced == b"\x1b[0m\x1b[35ma.py\x1b[0m:\x1b[0m\x1b[32m1-2\x1b[0m:\ndef f():\n    pass\n"
    # --null: a NUL after each path, where rg puts one (in place of ":", or of the heading's
    # line end: rg's --heading --null runs the path into its first line).
    null = PassageStyle(heading=False, numbers=False, palette=None, null=True)
    assert passage_blocks(found[:1], null) == b"a.py\x001-2:\ndef f():\n    pass\n"
    null_headed = PassageStyle(heading=True, numbers=True, palette=None, null=True)
    assert passage_blocks(found[1:], null_headed) == b"a.py\x009:x = 1\n\nb.md\x003:Notes.\n"
    assert entry_points(found) == (
        b"a.py:\nLine 1-2: def f():\n    pass\nLine 9-9: x = 1\nb.md:\nLine 3-3: Notes.\n"
    )


def test_notices_on_stderr_and_in_json() -> None:
    with streams.captured() as held:
        report_facts(["stopped at --limit 3"], json_mode=True)
    assert held.err == b"[rrg: stopped at --limit 3]\n"
    assert json.loads(held.out) == {"type": "rrg", "data": {"notices": ["stopped at --limit 3"]}}


def test_patterns_from_stdin_and_rg_version(monkeypatch: pytest.MonkeyPatch) -> None:
    read, write = os.pipe()
    os.write(write, b"alpha\nbeta\n")
    os.close(write)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(os.fdopen(read, "rb")))
    args, held = patterns_to_file(["-f", "-", "src"])
    assert held is not None and args == ["-f", held, "src"]
    assert Path(held).read_bytes() == b"alpha\nbeta\n"
    os.unlink(held)
    assert patterns_to_file(["-e", "x"]) == (["-e", "x"], None)
    assert rg_version(find_rg())[0].isdigit()


def test_the_index_modes_say_what_they_did(tree: Path) -> None:
    """--index, --index-status and --index-clear, each its own function over one target,
    worded by output/reports.py."""
    code, out, err = cli("--index", ".", "--no-progress")
    assert code == 0, err
    assert out.startswith(f"indexed {tree}: 3 files, ") and " removed in " in out
    code, out, _ = cli("--index-status", "src")
    assert code == 0 and out.startswith(f"{tree / 'src'} (served by the index of {tree})\n")
    assert "  files indexed: 3\n" in out
    code, out, _ = cli("--index-clear", "src")
    assert (code, out) == (
        0,
        f"no index of its own for {tree / 'src'}; it is served by the index of {tree} "
        f"(rrg --index-clear {tree} removes that)\n",
    )
    code, out, _ = cli("--index-clear", ".")
    assert (code, out) == (0, f"removed the index of {tree}\n")
    code, out, _ = cli("--index-status", ".")
    assert (code, out) == (1, f"{tree}: not indexed (rrg --index {tree} builds it)\n")
    code, out, _ = cli("--version")
    assert code == 0 and out.startswith("rrg ") and "\nripgrep " in out
    code, out, _ = cli("--list-models")
    assert code == 0 and "\tdims=" in out


def test_the_console_entry_says_a_bad_rrg_option_in_one_line_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import rrg.__main__  # noqa: F401 - the module ``python -m rrg`` runs: it must import
    from rrg.cli.entry import main

    monkeypatch.setattr("sys.argv", ["rrg", "--limit"])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 2
    assert capsys.readouterr().err == "rrg: --limit needs a value: --limit N\n"


def test_ctrl_c_while_the_options_are_parsed_exits_130(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Click turns a Ctrl-C during its parse into its own Abort: the command line says
    nothing and exits 130, as for a Ctrl-C anywhere else, not "internal error: Abort"."""
    import click

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(click.Command, "parse_args", interrupted)
    assert cli("-q", QUERY, "--files") == (130, "", "")
