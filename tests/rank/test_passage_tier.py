"""The passage tier (rrg/rank/passage_tier.py): passages ranked against each other by rank
fusion, definitions and path words lifting a passage, secondary files sinking, and the tier's
file order fused back into the order it read. Pure functions: passages and scores in."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rrg.rank.paragraphs import Paragraph
from rrg.rank.passage_tier import fuse_orders, tier_order
from rrg.rank.passages import ScoredPassages
from rrg.rank.query import Query


def scored(owners: list[int], texts: list[str], lexical: list[float], static: list[float]):
    paragraphs = [Paragraph(1, 1, text) for text in texts]
    n = len(owners)
    return ScoredPassages(
        owners,
        paragraphs,
        np.zeros(n),
        np.full(n, np.nan),
        np.asarray(lexical, np.float64),
        np.asarray(static, np.float64),
    )


def test_the_passage_that_defines_the_symbol_comes_first() -> None:
    names = ["src/uses.py", "src/router.py"]
    passages = scored(
        [0, 0, 1],
        ["r = Router()\nr.add(x)", "Router().serve()", "class Router:\n    pass"],
        [5.0, 4.0, 1.0],
        [0.9, 0.8, 0.1],
    )
    assert tier_order(Query.of("Router"), names, passages, among_code=True) == [1, 0]
    # Without the definition the file that only uses it leads on both lists.
    plain = scored(
        [0, 0, 1], ["r = Router()", "Router()", "x = 1"], [5.0, 4.0, 1.0], [0.9, 0.8, 0.1]
    )
    assert tier_order(Query.of("Router"), names, plain, among_code=True) == [0, 1]


def test_tests_sink_unless_asked_for() -> None:
    names = ["tests/test_retry.py", "src/retry.py"]
    passages = scored([0, 1], ["retry backoff delay", "retry delay"], [3.0, 2.0], [0.5, 0.4])
    assert tier_order(Query.of("retry backoff delay"), names, passages, among_code=True) == [1, 0]
    assert tier_order(Query.of("tests of retry backoff"), names, passages, among_code=True) == [
        0,
        1,
    ]


def test_a_file_with_no_query_word_ranks_by_its_static_cosine_alone() -> None:
    names = ["a.py", "b.py", "c.py"]
    passages = scored([0, 1, 2], ["x", "y", "z"], [0.0, 0.0, 2.0], [0.2, 0.9, 0.1])
    order = tier_order(Query.of("something"), names, passages, among_code=False)
    assert order[0] == 2 and order.index(1) < order.index(0)


def test_no_passages_no_order() -> None:
    assert tier_order(Query.of("q"), ["a.py"], scored([], [], [], []), among_code=True) == []


def test_fusion_by_rank() -> None:
    order = [10, 11, 12, 13]
    assert fuse_orders(order, [], 0.65) == order  # nothing read: the order stands
    assert fuse_orders(order, [13, 12, 11, 10], 0.0) == order  # weight 0: the tier off
    assert fuse_orders(order, [13, 12, 11, 10], 1.0) == [13, 12, 11, 10]
    # The tier's first file rises over the order's second, not over its first, at an even share.
    assert fuse_orders(order, [12, 10, 11, 13], 0.5)[:2] == [10, 12]
    # A file the tier did not rank keeps only the order's part.
    assert fuse_orders(order, [13], 0.65)[0] == 13


def _order(root: Path, query: str, stage: int, **changed: object) -> list[bytes]:
    import os

    from rrg.index.served import ServedRoot
    from rrg.model.registry import default_model
    from rrg.rank.files import RankSettings, rank_files
    from rrg.rank.tuning import TUNING

    paths = sorted(str(p.relative_to(root)).encode() for p in root.rglob("*") if p.is_file())
    settings = RankSettings(stage, lambda message: None, tuning=replace(TUNING, **changed))
    served = ServedRoot(os.fsencode(root), default_model())
    return rank_files(query, served, paths, settings).ordered


def _tree(root: Path, extension: str) -> None:
    """A file of many functions whose docstrings say "retry with backoff", and a short file
    that repeats the words; eight fillers."""
    functions = []
    for i in range(12):
        body = "\n".join(f"    total += value * {j}  # accumulate step {j}" for j in range(12))
        functions.append(
            f"def attempt_{i}(value):\n    '''Retry the call with backoff.'''\n"
            f"    total = 0\n{body}\n    return total\n"
        )
    (root / "src").mkdir(parents=True)
    (root / "src" / f"client.{extension}").write_text("\n\n".join(functions))
    (root / "src" / f"policy.{extension}").write_text("RETRY = 'retry backoff retry backoff'\n")
    for k in range(8):
        (root / "src" / f"mod{k}.{extension}").write_text(f"def helper_{k}(x):\n    return x\n")


@pytest.fixture
def in_tmp(tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp_path as the working folder, with the session's cache (the static table once)."""
    for name in ("RRG_CACHE_DIR", "RRG_INDEX_WAIT_S"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_in_a_code_tree_the_file_of_many_strong_passages_rises(in_tmp: Path) -> None:
    tmp_path = in_tmp
    _tree(tmp_path, "py")
    for stage in (0, 20):
        off = _order(tmp_path, "retry with backoff", stage, passage_tier_weight=0.0)
        assert off[:2] == [b"src/policy.py", b"src/client.py"]
        # At the shipped even share a swap of two neighbours ties, and the order it read
        # keeps it; where the tier weighs more, the file of many strong passages comes first.
        assert _order(tmp_path, "retry with backoff", stage)[:2] == off[:2]
        tiered = _order(tmp_path, "retry with backoff", stage, passage_tier_weight=0.8)
        assert tiered[:2] == off[1::-1]


def test_in_a_tree_of_prose_the_tier_does_not_run(in_tmp: Path) -> None:
    tmp_path = in_tmp
    _tree(tmp_path, "txt")
    off = _order(tmp_path, "retry with backoff", 0, passage_tier_weight=0.0)
    assert _order(tmp_path, "retry with backoff", 0) == off
    assert _order(tmp_path, "retry with backoff", 0, passage_tier_weight=1.0) == off
