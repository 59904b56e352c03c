"""The sh launcher that `pip install` puts on PATH as `rrg`: generated from the option
table, and never keeps an rrg option from Python."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run
from rrg.cli.argsplit import split_argv
from rrg.cli.launcher import SCRIPT, launcher_text
from rrg.cli.options import BY_SPELLING, OPTIONS
from rrg.errors import RrgError
from rrg.rg.flags import VALUE_LONG, VALUE_SHORT

BIN = Path(sys.executable).parent


def test_checked_in_launcher_is_current() -> None:
    assert SCRIPT.read_text() == launcher_text(), "stale: run python -m rrg.cli.launcher"


def test_installed_rrg_is_the_launcher() -> None:
    installed = BIN / "rrg"
    assert installed.read_text() == SCRIPT.read_text()
    assert (BIN / "rrg-py").exists()


@pytest.fixture(scope="module")
def probe_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The launcher beside a fake rrg-py and a fake rg that only say which ran."""
    folder = tmp_path_factory.mktemp("launcher")
    shutil.copy(SCRIPT, folder / "rrg")
    for name, said in (("rrg-py", "PY"), ("rg", "RG")):
        (folder / name).write_text(f"#!/bin/sh\necho {said}\n")
    for name in ("rrg", "rrg-py", "rg"):
        (folder / name).chmod(0o755)
    return folder


def _python_decision(argv: list[str]) -> str:
    try:
        return "PY" if split_argv(argv).rrg else "RG"
    except RrgError:
        return "PY"  # Python reports the mistake


def _looks_like_rrg(arg: str) -> bool:
    name = arg.partition("=")[0] if arg.startswith("--") else arg
    if name in BY_SPELLING:
        return True
    return arg.startswith("-") and not arg.startswith("--") and "q" in arg[1:]


def _command_lines(count: int) -> list[list[str]]:
    rnd = random.Random(12)
    value_flags = [f"-{c}" for c in sorted(VALUE_SHORT)] + sorted(VALUE_LONG)
    switches = ["-i", "-n", "-w", "-l", "-c", "--json", "--hidden", "-uu", "-F", "--heading"]
    rrg_flags = [o.long for o in OPTIONS if not o.takes_value] + ["-h"]
    rrg_values = [o.short or o.long for o in OPTIONS if o.takes_value]
    words = ["foo", "-", "--", "x.txt", "-q", "--limit", "--limit=3", "-qi", "-iq", "-eq", "5"]
    out = []
    for _ in range(count):
        argv: list[str] = []
        for _ in range(rnd.randint(0, 6)):
            kind = rnd.random()
            if kind < 0.25:
                argv += [rnd.choice(value_flags), rnd.choice(words)]
            elif kind < 0.45:
                argv.append(rnd.choice(switches))
            elif kind < 0.55:
                argv.append(rnd.choice(rrg_flags))
            elif kind < 0.7:
                opt = rnd.choice(rrg_values)
                argv += [f"{opt}=v"] if opt.startswith("--") and rnd.random() < 0.5 else [opt, "v"]
            else:
                argv.append(rnd.choice(words))
        out.append(argv)
    return out


def test_launcher_agrees_with_python(probe_bin: Path) -> None:
    """Every command line that Python gives to rrg reaches Python; every other one execs rg,
    except where an argument is spelled like an rrg option (the value of -e, a word after
    --): those go to Python too, whose split then passes them to rg."""
    env = {"PATH": f"{probe_bin}:/usr/bin:/bin"}
    lines = _command_lines(400)
    assert sum(_python_decision(a) == "PY" for a in lines) > 100
    for argv in lines:
        said = subprocess.run(
            [str(probe_bin / "rrg"), *argv], env=env, capture_output=True, text=True
        ).stdout.strip()
        wanted = _python_decision(argv)
        if wanted == "PY" or any(_looks_like_rrg(a) for a in argv):
            assert said == "PY", argv
        else:
            assert said == "RG", argv


def test_rg_lookup_order(probe_bin: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-rg"
    other.write_text("#!/bin/sh\necho OTHER\n")
    other.chmod(0o755)
    launcher = str(probe_bin / "rrg")

    def said(env: dict[str, str]) -> str:
        return subprocess.run([launcher, "x"], env=env, capture_output=True, text=True).stdout

    base = {"PATH": "/usr/bin:/bin"}
    assert said({**base, "RRG_RG": str(other)}) == "OTHER\n"
    assert said({**base, "RRG_RG": str(tmp_path / "missing")}) == "PY\n"  # Python explains
    assert said(base) == "RG\n"  # beside the launcher


def test_pass_through_needs_no_python(tmp_path: Path, rg: str) -> None:
    """Without rrg-py beside it, the launcher still runs rg: no Python was started."""
    folder = tmp_path / "bin"
    folder.mkdir()
    shutil.copy(SCRIPT, folder / "rrg")
    (folder / "rrg").chmod(0o755)
    os.symlink(rg, folder / "rg")
    (tmp_path / "a.txt").write_text("needle\n")
    env = {"PATH": "/usr/bin:/bin"}
    out = run([str(folder / "rrg"), "-n", "needle", "a.txt"], tmp_path, env)
    assert (out.returncode, out.stdout) == (0, b"1:needle\n")
    link = tmp_path / "linked-rrg"
    os.symlink(folder / "rrg", link)  # found through a symlink, as from ~/.local/bin
    out = run([str(link), "-c", "needle", "a.txt"], tmp_path, env)
    assert (out.returncode, out.stdout) == (0, b"1\n")


def test_broken_pipe_through_the_launcher(tmp_path: Path, env: dict[str, str]) -> None:
    for k in range(2000):
        (tmp_path / f"f{k}.txt").write_text("needle\n" * 20)
    out = subprocess.run(
        f"{BIN / 'rrg'} -j1 needle | head -1; echo status=${{PIPESTATUS[0]}}",
        shell=True,
        executable="/bin/bash",
        cwd=tmp_path,
        env=env,
        capture_output=True,
    )
    assert out.stderr == b""
    assert out.stdout.splitlines()[-1] in (b"status=141", b"status=0")


def test_a_deleted_working_folder_searches_as_rg_does(tmp_path: Path, rg: str) -> None:
    """The shell running the launcher empties PWD where its folder is gone; rg, run from the
    caller's shell, reads the PWD it was given and still searches an absolute path."""
    folder = tmp_path / "bin"
    folder.mkdir()
    shutil.copy(SCRIPT, folder / "rrg")
    (folder / "rrg").chmod(0o755)
    os.symlink(rg, folder / "rg")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.txt").write_text("needle\n")
    gone = tmp_path / "gone"

    def from_a_deleted_folder(program: str, *args: str) -> tuple[int, bytes]:
        gone.mkdir()
        out = subprocess.run(
            ["/bin/sh", "-c", 'cd "$1" && rmdir "$1" && shift && exec "$@"', "sh", str(gone)]
            + [program, *args],
            env={"PATH": "/usr/bin:/bin", "PWD": str(tmp_path)},
            capture_output=True,
        )
        return out.returncode, out.stdout

    for args in (["needle", str(tree)], ["-c", "needle", str(tree / "a.txt")], ["absent"]):
        assert from_a_deleted_folder(str(folder / "rrg"), *args) == from_a_deleted_folder(
            rg, *args
        ), args
    assert from_a_deleted_folder(rg, "needle", str(tree))[0] == 0
