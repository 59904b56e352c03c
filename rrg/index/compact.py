"""When to merge segments, and merging them.

Every refresh that changes files adds a segment, so segments would pile up. They are merged
in tiers: four segments of about the same size become one about four times as big, up to
SEGMENT_DOCS rows. An edit therefore costs one small segment, and the whole index is
rewritten never: a row is rewritten about log4(SEGMENT_DOCS / CHUNK_FILES) times in its
life. A segment whose dead rows pass DEAD_SHARE is rewritten without them.
"""

from __future__ import annotations

import numpy as np

from rrg.index.heap import release_free_memory
from rrg.index.segment import (
    SEGMENT_DOCS,
    Segment,
    merged_columns,
    open_segment,
    remove_segment,
    write_segment,
)
from rrg.index.store import IndexStore

#: Segments of one tier merged together.
MERGE_AT = 4
#: Rows of the smallest tier (a build writes chunks about this size).
TIER_BASE = 4096
#: Share of dead rows past which a segment is rewritten alone.
DEAD_SHARE = 0.3


def tier(live: int) -> int:
    level, size = 0, TIER_BASE
    while live > size:
        size *= MERGE_AT
        level += 1
    return level


def plan(segments: list[tuple[str, int, int]]) -> list[list[str]]:
    """Groups of segments to merge, from (name, rows, live rows) in the order written."""
    groups: list[list[str]] = []
    by_tier: dict[int, list[tuple[str, int]]] = {}
    for name, docs, live in segments:
        if docs and live < docs * (1 - DEAD_SHARE) and docs >= TIER_BASE:
            groups.append([name])
            continue
        by_tier.setdefault(tier(live), []).append((name, live))
    for members in by_tier.values():
        while len(members) >= MERGE_AT:
            group = members[:MERGE_AT]
            if sum(live for _, live in group) > SEGMENT_DOCS:
                break
            groups.append([name for name, _ in group])
            members = members[MERGE_AT:]
    return groups


def compact(store: IndexStore) -> None:
    """Merge until the plan is empty. Call with the writer lock held. Only one group's
    segments are mapped at a time, so memory stays bounded by the largest merge, not the
    index."""
    while True:
        names, dead = store.snapshot()
        groups = plan([(name, docs, docs - len(dead.get(name, []))) for name, docs in names])
        if not groups:
            return
        for group in groups:
            _merge(store, group, dead)


def _merge(store: IndexStore, group: list[str], dead: dict[str, np.ndarray]) -> None:
    segments = [open_segment(store.segment_dir / name) for name in group]
    parts = [(seg, _live_rows(seg, dead.get(seg.name))) for seg in segments]
    vocab = len(segments[0].a["piece_df"])
    seq = store.next_seq()
    rows = sum(len(live) for _, live in parts)
    name = write_segment(store.segment_dir, seq, merged_columns(parts, vocab)) if rows else ""
    del parts, segments
    with store.transaction():
        store.drop_segments(group)
        if rows:
            store.add_segment(name, seq, rows)
    # A query that mapped these keeps reading them; one that is about to finds them gone
    # and reads the registry again (rrg.index.view.load_view).
    for old in group:
        remove_segment(store.segment_dir, old)
    release_free_memory()


def _live_rows(seg: Segment, dead: np.ndarray | None) -> np.ndarray:
    keep = np.ones(seg.docs, bool)
    if dead is not None:
        keep[dead] = False
    return np.nonzero(keep)[0]
