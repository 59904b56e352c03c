"""Completions are generated from rg's own plus rrg's options, and checked in current."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from conftest import ROOT
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
