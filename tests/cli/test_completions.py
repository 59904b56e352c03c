"""Completions are generated from rg's own plus rrg's options, and checked in current."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, outcome, rrg_cmd, run
from rrg.cli.completions import FILES, GENERATORS

COMPLETIONS = ROOT / "completions"


@pytest.mark.parametrize("shell", sorted(FILES))
def test_checked_in_completions_are_current(shell: str, rg: str) -> None:
    checked_in = (COMPLETIONS / FILES[shell]).read_text()
    assert checked_in == GENERATORS[shell](rg), (
        f"completions/{FILES[shell]} is stale: run `python -m rrg.cli.completions`"
    )


def _bash_complete(words: list[str]) -> list[str]:
    script = (
        f"source {COMPLETIONS / 'rrg.bash'}\n"
        f"COMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}\n"
        "_rrg; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_bash_completes_rrg_and_rg_options() -> None:
    assert "--query" in _bash_complete(["rrg", "--que"])
    assert "--quiet" in _bash_complete(["rrg", "--qui"])
    assert "--ignore-case" in _bash_complete(["rrg", "--ignore-c"])
    assert "-q" in _bash_complete(["rrg", "-"])


@pytest.mark.parametrize("shell,flag", [("zsh", "-n"), ("fish", "--no-execute")])
def test_other_shells_parse_their_file(shell: str, flag: str) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed here")
    subprocess.run([shell, flag, str(COMPLETIONS / FILES[shell])], check=True)


@pytest.mark.parametrize("spelled", [["--generate", "complete-{}"], ["--generate=complete-{}"]])
@pytest.mark.parametrize("shell", sorted(FILES))
def test_rrg_generates_its_own_completions(
    shell: str, spelled: list[str], rg: str, tmp_path: Path, env: dict[str, str]
) -> None:
    """``rrg --generate complete-SHELL``, as rg's users install rg's: rrg's completions, not
    rg's (which complete the rg command and leave rrg with none)."""
    out = run([*rrg_cmd(), *(word.format(shell) for word in spelled)], tmp_path, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode() == GENERATORS[shell](rg)


def test_generated_bash_completion_completes_rrg(tmp_path: Path, env: dict[str, str]) -> None:
    script = tmp_path / "rrg.bash"
    script.write_bytes(run([*rrg_cmd(), "--generate", "complete-bash"], tmp_path, env).stdout)
    shown = subprocess.run(
        ["bash", "-c", f"source {script}; complete -p rrg"], capture_output=True, text=True
    )
    assert shown.returncode == 0 and "_rrg" in shown.stdout, shown.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--generate", "man"],
        ["--generate", "complete-powershell"],
        ["--generate", "complete-bash", "--no-config"],
        ["--generate"],
        ["--generate", "complete-tcsh"],
    ],
)
def test_other_generate_kinds_are_rgs(
    args: list[str], rg: str, tmp_path: Path, env: dict[str, str]
) -> None:
    """The man page and the shells rrg writes no completions for, and any other command
    line: rg's bytes and exit code."""
    ours = run([*rrg_cmd(), *args], tmp_path, env)
    theirs = run([rg, *args], tmp_path, env)
    assert outcome(ours) == outcome(theirs)


def test_completions_are_not_made_from_a_program_that_is_not_ripgrep(
    tmp_path: Path, env: dict[str, str]
) -> None:
    out = run([*rrg_cmd(), "--generate", "complete-bash"], tmp_path, {**env, "RRG_RG": "/bin/echo"})
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.startswith(b"rrg: /bin/echo is not ripgrep"), out.stderr
