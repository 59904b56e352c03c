"""End-to-end replay on a slice of hotpotqa (../shared/data): the scripted agent with rrg
sees at least as much gold evidence as the same script with plain rg, in no more commands."""

from __future__ import annotations

import os
import sys

import pytest

from conftest import ROOT

BENCHMARKS = ROOT / "benchmarks"
SHARED = ROOT.parent / "shared" / "data"


@pytest.mark.skipif(
    not (SHARED / "hotpotqa-distractor-100").is_dir(),
    reason="../shared/data is not beside this checkout",
)
def test_replay_rrg_sees_at_least_what_rg_sees(env: dict[str, str]) -> None:
    # The benchmarks set their defaults in os.environ as they are imported (no passages
    # computed ahead, no resident process): left there, every later test's environment
    # had them (the tests of the job ahead failed after this one).
    before = dict(os.environ)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from replay import replay
    finally:
        sys.path.remove(str(BENCHMARKS))
        os.environ.clear()
        os.environ.update(before)
    rows = replay(8, env)
    assert sum(r["rrg_seen"] for r in rows) >= sum(r["rg_seen"] for r in rows)
    assert sum(r["rrg_cmds"] for r in rows) <= sum(r["rg_cmds"] for r in rows)
    assert sum(r["rrg_seen"] == r["gold"] for r in rows) >= 6, rows
