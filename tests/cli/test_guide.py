"""docs/GUIDE.md is real sessions: regenerated here, it must equal the checked-in file."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_guide_is_current(env: dict[str, str]) -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "make_guide.py")],
        env=env,
        capture_output=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode() == (ROOT / "docs" / "GUIDE.md").read_text(), (
        "docs/GUIDE.md is stale: run python docs/make_guide.py > docs/GUIDE.md"
    )


def test_the_agent_guide_names_only_options_that_exist(rg: str) -> None:
    """An agent follows the guide word for word: an option it names that rrg or rg no
    longer takes (one renamed in the table, a flag of another rg version) fails its first
    command."""
    import re

    from rrg.cli.guide import AGENT_GUIDE
    from rrg.cli.options import OPTIONS

    rrg_options = {option.long for option in OPTIONS} | {
        option.short for option in OPTIONS if option.short
    }
    rg_help = subprocess.run(
        [rg, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    rg_options = set(re.findall(r"--[a-z][a-z0-9-]*", rg_help))
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", AGENT_GUIDE))
    assert named, "the guide names no option"
    assert "--recall" in named and "--scope-file" in named
    unknown = sorted(named - rrg_options - rg_options)
    assert not unknown, f"the agent guide names options neither rrg nor rg takes: {unknown}"


def test_the_agent_guide_states_the_ranking_constants_it_names() -> None:
    """The guide's figures are the chosen constants', read, not restated by hand."""
    from rrg.cli.guide import agent_guide
    from rrg.rank.tuning import TUNING

    text = agent_guide()
    assert f"the model reads {TUNING.stage_passages} passages" in text
    assert "{" not in text  # every placeholder filled
