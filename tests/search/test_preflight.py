"""What rg would refuse of a search, found before any ranking (``rrg.rg.preflight``), in
process, against the real rg: its words for a bad regex and for missing PATHs are the ones
rg prints when it searches itself."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rrg.errors import RrgError
from rrg.rg.config import parse_rg_command
from rrg.rg.preflight import check_search


def test_a_bad_regex_is_rgs_own_refusal(rg: str, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    checked = check_search(rg, parse_rg_command(["(", str(tmp_path)]), "-q", False)
    direct = subprocess.run([rg, "(", str(tmp_path)], capture_output=True)
    assert checked.refusal is not None
    assert (checked.refusal.code, checked.refusal.messages) == (2, direct.stderr)
    assert not checked.missing


def test_missing_paths_beside_others_are_said_and_dropped(
    rg: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("here").mkdir()
    Path("here/a.txt").write_text("needle\n")
    checked = check_search(rg, parse_rg_command(["needle", "gone", "here"]), "-q", False)
    direct = subprocess.run([rg, "needle", "gone", "here"], capture_output=True)
    assert checked.refusal is None
    assert checked.missing == ("gone",)
    assert checked.args.paths == ["here"]
    assert not checked.nothing_there
    assert checked.said == direct.stderr  # rg's words, for a PATH missing beside others


def test_every_path_missing_leaves_rg_to_say_it(
    rg: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    checked = check_search(rg, parse_rg_command(["needle", "gone"]), "-q", False)
    assert checked.nothing_there
    assert checked.said == b""  # rg's own run over the PATHs says it, in its wording


def test_a_listing_has_no_missing_paths_to_set_aside(
    rg: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    checked = check_search(rg, parse_rg_command(["--files", "gone"]), "-q", False)
    assert checked.refusal is None and not checked.missing


def test_a_flag_that_undoes_the_order_is_rrgs_error(rg: str, tmp_path: Path) -> None:
    with pytest.raises(RrgError, match="--sort cannot be used with -q"):
        check_search(rg, parse_rg_command(["--sort", "path", "x", str(tmp_path)]), "-q", False)
