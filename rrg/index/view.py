"""A query's view of a root's index: its live segments side by side, as one row space.

Row ``i`` of the view is row ``i - base`` of the segment it falls in; rows of edited or
removed files read as ``KIND_DEAD`` and are never looked up by path. The arrays are mapped,
not loaded: BM25 reads the postings of the query's terms only, and the static vectors are
scored a block at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from rrg.index.segment import Segment, SegmentDamaged, open_segment
from rrg.index.store import KIND_DEAD, KIND_TEXT, IndexCorrupt, IndexStore, IndexUnavailable

#: Static vectors scored per block (int8 widened to float32: 4 MB at 256 dims).
_VECTOR_BLOCK = 4096


@dataclass
class IndexView:
    segments: list[Segment]
    bases: list[int]  # the view's row of each segment's first row
    dead: dict[str, np.ndarray]  # segment name -> its dead rows
    vocab: int

    @cached_property
    def kinds(self) -> np.ndarray:
        kinds = [np.array(s.a["kind"]) for s in self.segments]
        for seg, part in zip(self.segments, kinds, strict=True):
            part[self.dead.get(seg.name, [])] = KIND_DEAD
        return np.concatenate(kinds) if kinds else np.zeros(0, np.int8)

    def fingerprint(self) -> bytes:
        """What tells this state of the index from any other: its segments and their dead
        rows (a segment is written once; an edit adds one and kills rows)."""
        made = bytearray()
        for segment in self.segments:
            made += segment.name.encode() + b"\0"
            dead = self.dead.get(segment.name)
            if dead is not None:
                made += np.ascontiguousarray(dead, np.int64).tobytes()
            made += b"\0"
        return bytes(made)

    def path(self, row: int) -> bytes:
        """The path of one row (dead rows too)."""
        seg, local = self.locate(row)
        return seg.path(local)

    def rows_of(self, paths: list[bytes]) -> np.ndarray:
        """Each path's live row, -1 where it has none. The index's paths are read a segment
        at a time and looked up among the given ones, never all held at once as objects
        (1M paths and a dict of them: about 140 MB)."""
        where = {p: i for i, p in enumerate(paths)}
        rows = np.full(len(paths), -1, np.int64)
        # Later segments hold newer versions: a path seen again takes the later live row.
        for seg, base in zip(self.segments, self.bases, strict=True):
            found = np.fromiter((where.get(p, -1) for p in seg.paths()), np.int64, seg.docs)
            live = found >= 0
            live[self.dead.get(seg.name, np.zeros(0, np.int64))] = False
            local = np.nonzero(live)[0]
            rows[found[local]] = base + local
        return rows

    def column(self, name: str) -> np.ndarray:
        parts = [np.asarray(s.a[name]) for s in self.segments]
        return np.concatenate(parts) if parts else np.zeros(0)

    @cached_property
    def doclen(self) -> np.ndarray:
        return self.column("doclen").astype(np.float32)

    @cached_property
    def n_text(self) -> int:
        return int((self.kinds == KIND_TEXT).sum())

    def locate(self, row: int) -> tuple[Segment, int]:
        k = int(np.searchsorted(self.bases, row, side="right")) - 1
        return self.segments[k], row - self.bases[k]

    @cached_property
    def piece_df(self) -> np.ndarray:
        """Documents holding each WordPiece, over live rows only (exact: a dead row's pieces
        are subtracted)."""
        df = np.zeros(self.vocab, np.int64)
        for seg in self.segments:
            df += np.asarray(seg.a["piece_df"][: self.vocab], np.int64)
            rows = self.dead.get(seg.name)
            if rows is not None and len(rows):
                df -= np.bincount(seg.doc_pieces(rows), minlength=self.vocab)[: self.vocab]
        return df

    @cached_property
    def piece_idf(self) -> np.ndarray:
        return piece_idf(self.piece_df, self.n_text)

    def holds(self, terms: np.ndarray) -> np.ndarray:
        """Which of these terms (uint32) any segment has postings of (a dead file's may be
        among them: ``postings`` then finds none)."""
        held = np.zeros(len(terms), bool)
        for seg in self.segments:
            held |= seg.holds(terms)
        return held

    def first_postings(
        self, groups: Sequence[Sequence[int]]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each group of terms, the postings of its first term that a live text file
        holds (none for a group of which none is held); the others are not read. The
        segments are asked once for all groups (an issue's text: hundreds of groups)."""
        held = self.holds(np.array([t for group in groups for t in group], np.uint32))
        out = []
        at = 0
        for group in groups:
            for k in np.flatnonzero(held[at : at + len(group)]).tolist():
                found = self.postings(group[k])
                if len(found[0]):
                    out.append(found)
                    break
            at += len(group)
        return out

    def postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows (live text files only) holding a hashed term, and their counts."""
        docs_parts, tf_parts = [], []
        for seg, base in zip(self.segments, self.bases, strict=True):
            docs, tfs = seg.postings(term)
            docs_parts.append(docs + base)
            tf_parts.append(tfs)
        if not docs_parts:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        docs, tfs = np.concatenate(docs_parts), np.concatenate(tf_parts)
        keep = self.kinds[docs] == KIND_TEXT
        return docs[keep], tfs[keep]

    def cosines(self, query: np.ndarray) -> np.ndarray:
        """Static vector . query for every row (float64)."""
        out = np.empty(len(self.kinds), np.float64)
        q = query.astype(np.float32)
        for seg, base in zip(self.segments, self.bases, strict=True):
            for start in range(0, seg.docs, _VECTOR_BLOCK):
                stop = min(seg.docs, start + _VECTOR_BLOCK)
                out[base + start : base + stop] = seg.vectors(start, stop) @ q
        return out


def piece_idf(df: np.ndarray, n_text: int) -> np.ndarray:
    n = max(1, n_text)
    return np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)


#: Times a reader re-reads the registry when a segment it names was merged away meanwhile.
_RETRIES = 5


def load_view(store: IndexStore, vocab: int) -> IndexView:
    """The live segments as the registry names them now. A segment merged away between
    reading the registry and mapping it is met by reading the registry again."""
    for _ in range(_RETRIES):
        names, dead = store.snapshot()
        segments: list[Segment] = []
        try:
            for name, docs in names:
                seg = open_segment(store.segment_dir / name)
                if seg.docs != docs:
                    raise SegmentDamaged(f"segment {name} holds {seg.docs} rows, not {docs}")
                segments.append(seg)
        except FileNotFoundError:
            continue
        except SegmentDamaged as err:
            raise IndexCorrupt(str(err)) from err
        bases = np.cumsum([0] + [s.docs for s in segments[:-1]]).tolist() if segments else []
        return IndexView(segments, [int(b) for b in bases], dead, vocab)
    raise IndexUnavailable("its segments kept changing while being read")
