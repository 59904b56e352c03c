"""Notices: every cap, cut, skip and rerank said once, so a reader of stdout or stderr alone
knows what rrg did to rg's output."""

from __future__ import annotations

import json

from rrg import streams


def report_facts(facts: list[str], json_mode: bool) -> None:
    """Each fact as one bracketed stderr line; with --json also as a final ``rrg`` message."""
    if not facts:
        return
    if json_mode:
        message = {"type": "rrg", "data": {"notices": facts}}
        streams.out(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    streams.err("".join(f"[rrg: {fact}]\n" for fact in facts).encode())


def files_printed(shown: int, total: int, ranked: int) -> str:
    """The notice of a list of files cut short: the best of them, or, where the index ranked
    fewer (none could serve: a cache that cannot be written, a build under way), what
    stands in rg's order."""
    if shown <= ranked:
        return f"printed the {shown} best of {total} files"
    if not ranked:
        return f"printed the first {shown} of {total} files, in rg's order"
    return f"printed {shown} of {total} files: the {ranked} ranked, then rg's order"
