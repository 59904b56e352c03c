"""Passages as the user reads them: the no-pattern mode's ``path:start-end:`` blocks and
``--recall``'s entry points grouped by file (RARG+)."""

from __future__ import annotations

from rrg.rank.paragraphs import Paragraph


def _text(passage: Paragraph) -> bytes:
    return passage.text.encode("utf-8", "surrogateescape")


def passage_blocks(found: list[tuple[bytes, Paragraph]]) -> bytes:
    """Best first, each as ``path:start-end:`` then its text."""
    return b"".join(
        path + f":{p.start}-{p.end}:".encode() + b"\n" + _text(p) + b"\n" for path, p in found
    )


def entry_points(found: list[tuple[bytes, Paragraph]]) -> bytes:
    """Grouped by file, files in order of their best passage, passages by line."""
    groups: dict[bytes, list[Paragraph]] = {}
    for path, p in found:
        groups.setdefault(path, []).append(p)
    out = []
    for path, passages in groups.items():
        out.append(path + b":\n")
        for p in sorted(passages, key=lambda p: p.start):
            out.append(f"Line {p.start}-{p.end}: ".encode() + _text(p) + b"\n")
    return b"".join(out)
