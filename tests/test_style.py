"""ruff (lint and format) and mypy, run as part of the test command so CI cannot skip them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    "cmd",
    [
        ["ruff", "check", "rrg", "tests", "benchmarks"],
        ["ruff", "format", "--check", "rrg", "tests", "benchmarks"],
        ["mypy", "rrg"],
    ],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_style(cmd: list[str]) -> None:
    tool = BIN / cmd[0]
    if not tool.exists():
        pytest.fail(f"{cmd[0]} is missing: install the dev extra (pip install -e '.[dev]')")
    out = subprocess.run([str(tool), *cmd[1:]], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
