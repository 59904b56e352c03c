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
