"""The cheap tier's passage signal: query words that meet in one stretch of a file count
for more than the same words spread over it."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from conftest import rrg_cmd, run
from rrg.rank.passage_lexical import best_window_bm25, query_words
from rrg.rank.query import Query
from rrg.rank.tuning import TUNING

FILLER = "x = compute(y)\n" * (
    TUNING.passage_words_window // 10
)  # more than a window of other words


def test_query_words_drop_stop_words_and_short_ones() -> None:
    assert query_words(Query.of("how is the retry backoff of an HTTPClient set")) == [
        "backoff",
        "client",
        "http",
        "httpclient",
        "retry",
        "set",
    ]


def test_words_together_beat_the_same_words_apart(tmp_path: Path) -> None:
    (tmp_path / "together.py").write_text(
        FILLER + "# retry with backoff after a timeout\n" + FILLER
    )
    (tmp_path / "apart.py").write_text(
        "# retry\n" + FILLER + "# backoff\n" + FILLER + "# timeout\n"
    )
    (tmp_path / "none.py").write_text(FILLER)
    (tmp_path / "blob.bin").write_bytes(b"retry backoff timeout\x00\x01")
    names = [b"together.py", b"apart.py", b"none.py", b"blob.bin", b"missing.py"]
    scores = best_window_bm25(
        Query.of("retry backoff timeout"), os.fsencode(tmp_path), names, TUNING.passage_words_window
    )
    assert scores[0] > scores[1] > 0, scores
    assert np.all(scores[2:] == 0), scores


def test_a_file_is_read_to_its_bound(tmp_path: Path) -> None:
    """Words past the first READ_BYTES are not looked for: the head's files are read
    again on every --fast query, and a file of a megabyte must not cost seconds."""
    from rrg.rank.passage_lexical import READ_BYTES

    (tmp_path / "deep.txt").write_text("x" * READ_BYTES + " retry backoff timeout\n")
    (tmp_path / "near.txt").write_text("retry backoff timeout\n")
    names = [b"deep.txt", b"near.txt"]
    scores = best_window_bm25(
        Query.of("retry backoff timeout"), os.fsencode(tmp_path), names, TUNING.passage_words_window
    )
    assert scores[0] == 0 < scores[1], scores


def test_a_file_whose_words_meet_ranks_above_one_that_scatters_them(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Two files with the same words as often: the one that says them together, in a
    stretch of its text, is the answer and comes first, though it is the longer (with the
    signal off, BM25's length norm puts the shorter first)."""
    assert TUNING.passage_words_weight > 0
    root = tmp_path / "code"
    root.mkdir()
    lines = ["retry", "backoff", "timeout", "jitter"]
    (root / "a_scattered.py").write_text("".join(f"# {word}\n" + FILLER for word in lines) + FILLER)
    (root / "b_policy.py").write_text(
        FILLER * 3 + "# retry: backoff after a timeout, with jitter\n" + FILLER * 4
    )
    for k in range(10):
        (root / f"other{k}.py").write_text(f"def helper_{k}(x):\n    return x + {k}\n")
    out = run([*rrg_cmd(), "-q", "retry backoff timeout jitter", "--fast", "--files"], root, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode().splitlines()[0] == "b_policy.py", out.stdout
