"""Match rerank (RARG++): collect up to M matches in relevance order, score each match
excerpt against the constructed query with the embedding model, keep the best m.

Excerpt vectors are cached by content hash across calls (agents repeat searches), so a
repeated or overlapping search pays only for matches it has not seen.
"""

from __future__ import annotations

import base64
import json
import subprocess
from dataclasses import dataclass, field

import numpy as np
import xxhash

from rrg.index.cachedir import cache_dir
from rrg.index.store import IndexStore
from rrg.model.encoder import Encoder
from rrg.rg.args import RgArgs
from rrg.rg.ordered import batches

#: Characters of a match line the model reads, cut around the first submatch.
SCORE_CHARS = 480
#: Tokens the model reads of each excerpt: 96 keeps 500 excerpts near a second on 2 cores.
SCORE_TOKENS = 96


@dataclass
class Match:
    """One rg JSON match message, kept whole so that --json output is rg's own."""

    message: dict
    score: float = 0.0
    order: int = 0
    extras: dict = field(default_factory=dict)

    @property
    def data(self) -> dict:
        return self.message["data"]

    def line_bytes(self) -> bytes:
        return _text_or_bytes(self.data["lines"])

    def path_bytes(self) -> bytes:
        return _text_or_bytes(self.data["path"])


def _text_or_bytes(obj: dict) -> bytes:
    if "text" in obj:
        return str(obj["text"]).encode("utf-8", "surrogateescape")
    return base64.b64decode(obj["bytes"])


def collect(
    rg: str, user_flags: list[str], patterns: list[str], files: list[bytes], pool: int
) -> tuple[list[Match], bool, bool]:
    """Up to ``pool`` matches in file order; (matches, more remain, rg reported an error)."""
    found: list[Match] = []
    error = False
    for batch in batches(files):
        cmd: list[str | bytes] = [rg, *user_flags, *patterns, "--json", "-j1", "--", *batch]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        assert proc.stdout is not None
        for line in proc.stdout:
            if not line.startswith(b'{"type":"match"'):
                continue
            found.append(Match(json.loads(line), order=len(found)))
            if len(found) > pool:
                proc.kill()
                proc.wait()
                return found[:pool], True, error
        error |= proc.wait() == 2
    return found, False, error


def excerpt_for_scoring(match: Match) -> str:
    """The match line cut to SCORE_CHARS around its first submatch."""
    line = match.line_bytes()
    subs = match.data.get("submatches") or []
    start = int(subs[0]["start"]) if subs else 0
    lo = max(0, start - SCORE_CHARS // 3)
    return line[lo : lo + SCORE_CHARS].decode("utf-8", "replace").strip()


def score(matches: list[Match], query: str, encoder: Encoder) -> None:
    """Cosine of each match excerpt with the query, vectors cached by content hash."""
    texts = [excerpt_for_scoring(m) for m in matches]
    keys = [xxhash.xxh3_64_hexdigest(t.encode("utf-8", "surrogatepass")) for t in texts]
    path = cache_dir() / "excerpt-vectors.sqlite"
    store = IndexStore(path)
    try:
        model = f"{encoder.spec.key}-{SCORE_TOKENS}"
        cached = store.get_dense(model, sorted(set(keys)))
        todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in cached}.items())
        if todo:
            vectors = encoder.encode([t for _, t in todo], max_tokens=SCORE_TOKENS, batch_size=64)
            fresh = {k: v for (k, _), v in zip(todo, vectors, strict=True)}
            cached.update(fresh)
            with store.transaction():
                store.put_dense(model, fresh)
    finally:
        store.close()
    qvec = encoder.encode([query], max_tokens=128)[0]
    for match, key in zip(matches, keys, strict=True):
        match.score = float(np.dot(cached[key], qvec))


#: Weight of the file's place in the relevance order against the match's own cosine
#: (both z-scored; the place as log(1 + rank)). 0.5 was best or tied on all four prose sets
#: in benchmarks/rerank.py: scifact gold seen .838 -> .869, cranfield .429 -> .449.
FILE_PRIOR_WEIGHT = 0.5


def add_file_prior(matches: list[Match], files: list[bytes]) -> None:
    """Blend each match's score with its file's rank: a good line in a top file wins over
    an equally good line in a file the ranking put far down."""
    if len(matches) < 2:
        return
    rank = {p: i for i, p in enumerate(files)}
    cos = np.array([m.score for m in matches])
    place = np.log1p([rank.get(m.path_bytes(), len(files)) for m in matches])

    def z(v: np.ndarray) -> np.ndarray:
        return (v - v.mean()) / (v.std() + 1e-9)

    blended = z(cos) - FILE_PRIOR_WEIGHT * z(place)
    for match, value, raw in zip(matches, blended, cos, strict=True):
        match.extras["cosine"] = float(raw)
        match.score = float(round(value, 9))


def top(matches: list[Match], m: int) -> list[Match]:
    """The best m by score; equal scores keep relevance order."""
    return sorted(matches, key=lambda x: (-x.score, x.order))[:m]


def unsupported_with_rerank(args: RgArgs) -> str | None:
    """Flags whose output cannot be put in score order one match at a time."""
    for name, value in args.flags:
        if name in ("--after-context", "--before-context", "--context") and value not in (
            None,
            "0",
        ):
            return name
        if name in (
            "--passthru",
            "--replace",
            "--byte-offset",
            "--files-with-matches",
            "--files-without-match",
            "--count",
            "--count-matches",
            "--quiet",
            "--files",
        ):
            return name
    return None
