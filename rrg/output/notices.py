"""Notices: every cap, cut, skip and rerank said once, so a reader of stdout or stderr alone
knows what rrg did to rg's output."""

from __future__ import annotations

import json
import sys


def report_facts(facts: list[str], json_mode: bool) -> None:
    """Each fact as one bracketed stderr line; with --json also as a final ``rrg`` message."""
    if not facts:
        return
    sys.stdout.flush()
    if json_mode:
        message = {"type": "rrg", "data": {"notices": facts}}
        sys.stdout.buffer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        sys.stdout.flush()
    sys.stderr.write("".join(f"[rrg: {fact}]\n" for fact in facts))
    sys.stderr.flush()
