"""ruff (lint and format) and mypy, run as part of the test command so CI cannot skip them."""

from __future__ import annotations

import ast
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
        ["mypy", "rrg", "benchmarks"],
        ["lint-imports"],
    ],
    ids=["ruff-check", "ruff-format", "mypy", "layers"],
)
def test_style(cmd: list[str]) -> None:
    tool = BIN / cmd[0]
    if not tool.exists():
        pytest.fail(f"{cmd[0]} is missing: install the dev extra (pip install -e '.[dev]')")
    out = subprocess.run([str(tool), *cmd[1:]], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


#: Every layer but the command line's edge and ``output/``: they hand bytes up (a writer
#: passed in, or a return value) or to ``rrg.output``, and never print, so that what
#: reaches standard output is worded and written in one place.
_QUIET_LAYERS = ("search", "server", "api", "rank", "index", "model", "rg")


def _stdout_writes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "stdout":
            base = node.value
            if isinstance(base, ast.Name) and base.id == "sys":
                found.append(f"{path.name}:{node.lineno}: sys.stdout")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "print"
        ):
            found.append(f"{path.name}:{node.lineno}: print()")
        if isinstance(node, ast.ImportFrom) and (
            node.module == "rrg.output.stdout"
            or (node.module == "rrg.output" and any(a.name == "stdout" for a in node.names))
        ):
            found.append(f"{path.name}:{node.lineno}: imports rrg.output.stdout")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            fd = node.args[0] if node.args else None
            if node.func.attr == "write" and isinstance(fd, ast.Constant) and fd.value == 1:
                found.append(f"{path.name}:{node.lineno}: os.write(1, ...)")
    return found


@pytest.mark.parametrize("layer", _QUIET_LAYERS)
def test_lower_layers_never_write_standard_output(layer: str) -> None:
    files = sorted((ROOT / "rrg" / layer).glob("*.py")) or [ROOT / "rrg" / f"{layer}.py"]
    assert files, f"rrg/{layer} has no modules: the layer list is out of date"
    writes = [w for path in files for w in _stdout_writes(path)]
    assert writes == []


def test_the_stdout_check_sees_a_write(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os, sys\nsys.stdout.write('x')\nprint(1)\nos.write(1, b'x')\n"
        "from rrg.output import stdout\n"
    )
    assert len(_stdout_writes(sample)) == 4
