"""Where a file below the order's head answers, by its passages' cheap scores, in this
process: the lines a capped search prints of it come from there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import make_code_tree
from rrg.index.served import ServedRoot
from rrg.model.registry import default_model
from rrg.rank.cheap_spans import MOST_FILES, cheap_line_spans, spans_in_root
from rrg.rank.query import Query
from rrg.rank.tuning import TUNING


def test_a_files_best_passage_comes_first_with_no_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scope's search over a root never indexed: BM25 alone picks the third function of
    config.py, the one that parses the configuration, before the two above it."""
    monkeypatch.setenv("RRG_CACHE_DIR", str(tmp_path / "cache"))
    root = make_code_tree(tmp_path / "code")
    monkeypatch.chdir(root)  # the paths as rg printed them, searching there
    served = ServedRoot(os.fsencode(root), default_model())
    spans = spans_in_root(served, "parse the configuration file", [b"config.py", b"bake.py"])
    (line, alone), (first, last) = spans[b"config.py"][:2]
    lines = (root / "config.py").read_text().splitlines()
    # Its defining line alone, then the passage it starts.
    assert lines[line - 1].startswith("def parse_config_file") and alone == line == first
    assert last == len(lines)
    passages = [span for span in spans[b"config.py"] if span[1] > span[0]]
    assert len(passages) == 3  # every passage, the best first


def test_no_more_files_than_its_bound_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RRG_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "many"
    root.mkdir()
    names = [f"f{k:04d}.txt".encode() for k in range(MOST_FILES + 5)]
    for name in names:
        (root / os.fsdecode(name)).write_text("the lighthouse keepers\n")
    monkeypatch.chdir(root)
    served = ServedRoot(os.fsencode(root), default_model())
    spans = cheap_line_spans(served, Query.of("lighthouse keepers"), None, TUNING, names)
    assert len(spans) == MOST_FILES and names[-1] not in spans
