"""A scripted agent (no LLM) for the end-to-end replay: the fixed command sequence an agent
following ``rrg --agent-guide`` would issue for a question, and the same script with plain
rg. Used by benchmarks/replay.py and tests/search/test_replay.py.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field

from benchmarks.common import STOP


def pattern_for(question: str, words: int = 4) -> str:
    """The agent's first pattern: the question's longest distinctive words, -i alternation."""
    found = [
        w
        for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9'-]+", question)
        if w.lower() not in STOP and len(w) > 2
    ]
    capitalised = [w for w in found if w[0].isupper()]
    ranked = sorted(dict.fromkeys(capitalised + found), key=lambda w: (-len(w), w))
    return "|".join(re.escape(w) for w in ranked[:words])


@dataclass
class Transcript:
    commands: list[list[str]] = field(default_factory=list)
    outputs: list[bytes] = field(default_factory=list)

    def run(self, cmd: list[str], cwd: str, env: dict[str, str]) -> bytes:
        out = subprocess.run(
            cmd, cwd=cwd, env=env, capture_output=True, stdin=subprocess.DEVNULL
        ).stdout
        self.commands.append(cmd)
        self.outputs.append(out)
        return out


def seen_files(transcript: Transcript, names: list[str]) -> set[str]:
    """Which of these file names any command's output showed."""
    blob = b"\n".join(transcript.outputs)
    return {n for n in names if n.encode() in blob}


def rrg_agent(
    rrg: list[str],
    question: str,
    cwd: str,
    env: dict[str, str],
    enough: Callable[[Transcript], bool],
) -> Transcript:
    """recall -> scoped search -> rerank -> read the best file's matching lines."""
    t = Transcript()
    first = t.run([*rrg, "--recall", question], cwd, env).decode(errors="replace")
    scope = first.split(" \u2192 ")[1].split(" (")[0] if " \u2192 " in first else ""
    pattern = pattern_for(question)
    if enough(t) or not scope:
        return t
    hits = t.run([*rrg, "--scope-file", scope, "-i", "-e", pattern], cwd, env)
    if enough(t):
        return t
    t.run([*rrg, "--scope-file", scope, "--rerank", "-i", "-e", pattern], cwd, env)
    if enough(t) or not hits:
        return t
    best = hits.split(b":", 1)[0].decode(errors="replace")
    t.run([*rrg, "-n", "-C", "3", "-i", "-e", pattern, best], cwd, env)
    return t


def rg_agent(
    rg: str,
    question: str,
    cwd: str,
    env: dict[str, str],
    enough: Callable[[Transcript], bool],
    cap: int = 30,
) -> Transcript:
    """The same protocol with plain rg: search, a second look, read the first file.
    Output is cut at `cap` lines, the budget an agent's tool gives a command."""
    t = Transcript()
    pattern = pattern_for(question)

    def capped(cmd: list[str]) -> bytes:
        out = b"\n".join(t.run(cmd, cwd, env).splitlines()[:cap])
        t.outputs[-1] = out
        return out

    hits = capped([rg, "-i", "-e", pattern])
    if enough(t):
        return t
    capped([rg, "-i", "-e", pattern_for(question, words=2)])
    if enough(t) or not hits:
        return t
    best = hits.split(b":", 1)[0].decode(errors="replace")
    capped([rg, "-n", "-C", "3", "-i", "-e", pattern, best])
    return t
