"""With no rrg option, rrg is rg: the same stdout bytes and the same exit code."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SHERLOCK, rrg_cmd, run, without_timings

CASES: list[list[str]] = [
    ["Watson"],
    ["-i", "watson"],
    ["-w", "Doc"],
    ["-F", "a.b"],
    ["-e", "Watson", "-e", "Holmes"],
    ["-P", r"Wat(?=son)"],
    ["-l", "Watson"],
    ["-c", "Watson"],
    ["--count-matches", "o"],
    ["--json", "Holmes", "sherlock.txt"],
    ["--vimgrep", "Watson"],
    ["-o", "Wat\\w+"],
    ["-r", "W", "Watson"],
    ["-A", "1", "Holmes", "sherlock.txt"],
    ["-B", "2", "luck", "sherlock.txt"],
    ["-C", "1", "Watson"],
    ["--heading", "Watson"],
    ["-p", "Watson"],
    ["-g", "*.md", "Watson"],
    ["-g", "!*.txt", "Watson"],
    ["-t", "py", "Holmes"],
    ["-T", "py", "Holmes"],
    ["--files"],
    ["--files", "sub"],
    ["--hidden", "Watson"],
    ["--no-ignore", "Watson"],
    ["-uuu", "Watson"],
    ["-a", "binary"],
    ["binary"],
    ["Watson", "binary.bin"],
    ["caf", "latin1.txt"],
    ["--", "-dash", "."],
    ["Watson", "--", "-dash.txt"],
    ["Watson", "naïve café.txt"],
    ["nomatchanywhere"],
    ["(unclosed"],
    ["Watson", "missing-file.txt"],
    ["--quiet", "Watson"],
    ["--quiet", "nomatchanywhere"],
    ["-n", "-H", "Holmes", "sherlock.txt"],
    ["--column", "Holmes"],
    ["-m", "1", "Watson"],
    ["-v", "Watson", "sub/watson.md"],
    ["-x", "No match here."],
    ["--max-depth", "1", "Watson"],
    ["-e", "--limit"],
    ["--type-list"],
    ["--version"],
    ["-V"],
    ["--bogus-flag", "x"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_same_as_rg(
    args: list[str], corpus: Path, rg: str, env: dict[str, str], tmp_path: Path
) -> None:
    """Byte for byte, stdout and stderr: rg's config file (read by rg under both) asks for
    one thread, so that both print in one order; only JSON's wall-clock timings differ."""
    config = tmp_path / "ripgreprc"
    config.write_text("--threads=1\n")
    env = {**env, "RIPGREP_CONFIG_PATH": str(config)}
    ours = run([*rrg_cmd(), *args], corpus, env)
    theirs = run([rg, *args], corpus, env)
    assert ours.returncode == theirs.returncode
    if "--version" in args:
        assert ours.stdout.startswith(b"rrg ")  # --version is rrg's own, by design
        return
    assert without_timings(ours.stdout) == without_timings(theirs.stdout)
    assert ours.stderr == theirs.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--sort", "path", "Watson"],
        ["--sort=path", "--heading", "-C1", "Watson"],
        ["--sort", "path", "--json", "Holmes"],
    ],
)
def test_sorted_output_is_byte_identical(
    args: list[str], corpus: Path, rg: str, env: dict[str, str]
) -> None:
    ours = run([*rrg_cmd(), *args], corpus, env)
    theirs = run([rg, *args], corpus, env)
    assert ours.returncode == theirs.returncode
    assert without_timings(ours.stdout) == without_timings(theirs.stdout)
    assert ours.stdout


def test_stdin_passes_through(tmp_path: Path, rg: str, env: dict[str, str]) -> None:
    ours = run([*rrg_cmd(), "-n", "Sherlock"], tmp_path, env, stdin=SHERLOCK.encode())
    theirs = run([rg, "-n", "Sherlock"], tmp_path, env, stdin=SHERLOCK.encode())
    assert ours.stdout == theirs.stdout and ours.returncode == theirs.returncode == 0
    assert b"1:" in ours.stdout


def test_passthrough_imports_nothing_heavy(tmp_path: Path, env: dict[str, str]) -> None:
    """The exec path must not load click, numpy, onnxruntime, tokenizers or tree-sitter."""
    import sys

    code = (
        "import sys, os; sys.argv=['rrg','--version-probe-never-run'];"
        "import rrg.cli.entry, rrg.cli.argsplit, rrg.rg.binary;"
        "rrg.cli.argsplit.split_argv(['-i','x']);"
        "print(sorted(m for m in ('click','numpy','onnxruntime','tokenizers','tree_sitter','mcp') "
        "if m in sys.modules))"
    )
    out = run([sys.executable, "-c", code], tmp_path, env)
    assert out.stdout.strip() == b"[]", out.stderr


def test_python_dash_m_rrg_is_rrg(corpus: Path, rg: str, env: dict[str, str]) -> None:
    import sys

    ours = run([sys.executable, "-m", "rrg", "-n", "Holmes", "sherlock.txt"], corpus, env)
    theirs = run([rg, "-n", "Holmes", "sherlock.txt"], corpus, env)
    assert (ours.stdout, ours.returncode) == (theirs.stdout, theirs.returncode)
    assert ours.stdout
