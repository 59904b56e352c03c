"""rrg's options: no collision with rg's, help and version, clear errors."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, rrg_cmd, run
from rrg.cli.helptext import readme_table
from rrg.cli.options import OPTIONS
from rrg.rg.flags import SHORT_TO_LONG, VALUE_LONG, VALUE_SHORT

#: The deliberate exceptions: -q is rrg's --query; help and version are rrg's own.
ALLOWED_SHADOWS = {"-q", "-h", "--help", "--version"}


def rg_help(rg: str) -> str:
    return subprocess.run([rg, "--help"], capture_output=True, text=True, check=True).stdout


def rg_flag_lines(rg: str) -> list[str]:
    return [line.strip() for line in rg_help(rg).splitlines() if re.match(r"^    -", line)]


def test_no_rrg_option_collides_with_rg(rg: str) -> None:
    spelled = set()
    for line in rg_flag_lines(rg):
        spelled.update(re.findall(r"(?<![\w-])(--?[\w.][\w-]*)", line))
    # rg also accepts --no-X for many flags; rrg's --no-progress must not be one of them.
    text = rg_help(rg)
    for opt in OPTIONS:
        for spelling in filter(None, (opt.long, opt.short)):
            if spelling in ALLOWED_SHADOWS:
                continue
            assert spelling not in spelled, f"{spelling} shadows an rg flag"
            assert f" {spelling} " not in text and f" {spelling}=" not in text, spelling


def test_value_flag_tables_match_rg_help(rg: str) -> None:
    shorts, longs = set(), set()
    for line in rg_flag_lines(rg):
        m = re.match(r"^(?:-(\S) (\S+), )?(--[\w-]+)(=\S+)?", line)
        if not m:
            m2 = re.match(r"^-(\S), (--[\w-]+)", line)
            assert m2, line
            continue
        short, short_val, long, long_val = m.groups()
        if long_val or short_val:
            longs.add(long)
            if short:
                shorts.add(short)
    assert longs == set(VALUE_LONG)
    assert shorts == set(VALUE_SHORT)


def test_short_to_long_agrees_with_rg(rg: str) -> None:
    for line in rg_flag_lines(rg):
        m = re.match(r"^-(\S)(?: \S+)?, (--[\w-]+)", line)
        if m:
            assert SHORT_TO_LONG[m.group(1)] == m.group(2)


def test_help_lists_every_option(tmp_path: Path, env: dict[str, str]) -> None:
    out = run([*rrg_cmd(), "--help"], tmp_path, env)
    assert out.returncode == 0
    for opt in OPTIONS:
        assert opt.long.encode() in out.stdout
    assert b"--quiet" in out.stdout and b"rg's own help" in out.stdout
    short = run([*rrg_cmd(), "-h"], tmp_path, env)
    assert short.stdout == out.stdout


def test_version_names_rg(tmp_path: Path, env: dict[str, str]) -> None:
    out = run([*rrg_cmd(), "--version"], tmp_path, env)
    assert out.returncode == 0
    assert re.match(rb"rrg \d+\.\d+\.\d+\nripgrep \d+", out.stdout)


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--limit", "-1", "-q", "x", "y"], b"--limit"),
        (["--limit", "abc", "-q", "x", "y"], b"--limit takes a whole number, 0 or more, not 'abc'"),
        (["-q", "x", "--limit", "-5", "y"], b"--limit takes a whole number, 0 or more, not '-5'"),
        (["-q", "x", "--rerank", "--pool", "0", "y"], b"--pool takes a whole number, 1 or more"),
        (["-q", "  ", "y"], b"the query is empty"),
        (["-qi", "x"], b"cannot be bundled"),
        (["-q"], b"-q needs a value"),
        (["--limit", "5", "pattern"], b"--limit applies only with -q/--query or --scope-file"),
        (["-q", "x", "--paragraphs", "3", "y"], b"--paragraphs applies only with --recall"),
        (["-q", "x", "--scope-size", "3", "y"], b"--scope-size applies only with --recall"),
        (["-q", "x", "--pool", "9", "y"], b"--pool applies only with --rerank or --rerank-query"),
        (["--recall", "x", "--limit", "3"], b"--limit applies only with"),
        (["--recall", "x", "-q", "y"], b"cannot be used together"),
        (["--index", "-q", "y"], b"cannot be used together"),
        (["--trust-remote-code", "-q", "y"], b"--trust-remote-code applies only with"),
        (["-q", "x", "--rerank", "--files"], b"--files cannot be used with --rerank"),
        (["-q", "x", "--fast", "--cascade", "5", "y"], b"--fast and --cascade cannot be used"),
        (["--fast", "--index"], b"--fast applies only with"),
        (["-q", "x", "--sort", "path", "y"], b"--sort cannot be used with -q"),
        (["-q", "x", "--sort", "none", "--sortr", "modified", "y"], b"--sortr cannot be used"),
        (["-q", "x", "--model", "no-such-model", "y"], b"no model named"),
        (["-q", "x", "--rerank-query", " ", "y"], b"the --rerank-query is empty"),
        (["-q", "x", "-l"], b"--files-with-matches needs a PATTERN"),
        (["--recall", "x", "-l", "."], b"--files-with-matches does not apply to --recall"),
        (["--index", "-c", "."], b"--count does not apply to --index"),
        (["-q", "x", "--json"], b"--json needs a PATTERN"),
        (["-q", "x", "--stats"], b"--stats needs a PATTERN"),
        (["-q", "x", "--vimgrep"], b"--vimgrep needs a PATTERN"),
        (["-q", "x", "--files", "--json"], b"(--files after it lists the files, best first)"),
        (["-q", "x", "-n", "-o"], b"--only-matching needs a PATTERN"),
        (["-q", "x", "-r", ""], b"--replace needs a PATTERN"),
        (["-q", "x", "--no-invert-match", "-v"], b"--invert-match needs a PATTERN"),
        (["-q", "x", "--column", "-b"], b"--byte-offset needs a PATTERN"),
        (["--recall", "x", "--vimgrep", "."], b"--vimgrep does not apply to --recall"),
        (["--index", "--column", "."], b"--column does not apply to --index"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    args: list[str], needle: bytes, tmp_path: Path, env: dict[str, str]
) -> None:
    out = run([*rrg_cmd(), *args], tmp_path, env)
    assert out.returncode == 2
    assert out.stderr.startswith(b"rrg: ") and out.stderr.count(b"\n") == 1, out.stderr
    assert needle in out.stderr


def test_missing_rg_is_a_clear_error(tmp_path: Path, env: dict[str, str]) -> None:
    env = {**env, "RRG_RG": str(tmp_path / "nope")}
    out = run([*rrg_cmd(), "x"], tmp_path, env)
    assert out.returncode == 2 and out.stderr.startswith(b"rrg: RRG_RG=")


def test_readme_option_table_is_the_option_table() -> None:
    """README's table is rendered from the one option table: every option, its help and
    its default as --help states them."""
    readme = (ROOT / "README.md").read_text()
    assert readme_table() in readme, "stale: run python -m rrg.cli.helptext"
    for opt in OPTIONS:
        row = next(
            line for line in readme.splitlines() if line.startswith(f"| `{opt.short or opt.long}")
        )
        if opt.default is not None:
            assert f"default {opt.default}" in row, row


def _described(help_text: str) -> dict[str, str]:
    """Each option's description in --help, its wrapped lines joined."""
    out: dict[str, str] = {}
    spelling = ""
    for line in help_text.splitlines():
        m = re.match(r"^  (?:(-\w, --\S+)|    (--\S+))(?: (\S+))? +(.*)$", line)
        if m:
            spelling = (m[1] or m[2]) + (f" {m[3]}" if m[3] else "")
            out[spelling] = m[4]
        elif spelling and line.startswith(" " * 31):
            out[spelling] += " " + line.strip()
        else:
            spelling = ""
    return out


def test_help_states_each_option_and_default_within_80_columns(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Each description is wrapped under its option, as rg's help is: no line of --help
    runs past 79 columns, where an 80-column terminal would wrap it under the next name."""
    out = run([*rrg_cmd(), "--help"], tmp_path, env).stdout.decode()
    assert max(len(line) for line in out.splitlines()) <= 79
    described = _described(out)
    for opt in OPTIONS:
        assert described[opt.spelling] == opt.help_text(), opt.spelling
        if opt.default is not None:
            assert f"default {opt.default}" in described[opt.spelling]


def test_agent_guide_is_short_and_names_the_protocol(tmp_path: Path, env: dict[str, str]) -> None:
    out = run([*rrg_cmd(), "--agent-guide"], tmp_path, env)
    assert out.returncode == 0
    text = out.stdout.decode()
    assert len(text.splitlines()) < 60
    for needle in ("--recall", "--scope-file", "--rerank", "stopped at --limit", "--quiet"):
        assert needle in text


@pytest.mark.parametrize(
    ("argv", "mode"),
    [
        (["--help"], "HELP"),
        (["--version", "-q", "x"], "VERSION"),
        (["--list-models"], "LIST_MODELS"),
        (["--agent-guide"], "AGENT_GUIDE"),
        (["--mcp", "."], "MCP"),
        (["--index", "."], "INDEX"),
        (["--index", "--embed", "."], "INDEX"),
        (["--index-status"], "INDEX_STATUS"),
        (["--index-clear", "src"], "INDEX_CLEAR"),
        (["--recall", "where retries wait"], "RECALL"),
        (["--scope-file", "s.txt", "-q", "x", "retry"], "SCOPE"),
        (["-q", "x", "retry"], "QUERY"),
        (["-q", "x", "--fast", "--limit", "5", "retry"], "QUERY"),
    ],
)
def test_each_command_line_asks_for_one_mode(argv: list[str], mode: str) -> None:
    from rrg.cli.argsplit import split_argv
    from rrg.cli.settings import Mode, parse_options

    assert parse_options(split_argv(argv)).mode is Mode[mode]
