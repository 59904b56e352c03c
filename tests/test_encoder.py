"""The optimised graph kept in the cache dir: written once, as a graph beside its weights,
and it gives the vectors of the model as installed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rrg.model.encoder import Encoder
from rrg.model.registry import default_model

SENTENCES = ["a river floods the valley", "def parse_config(path): return load(path)"]


def test_optimised_graph_is_one_folder_and_changes_no_vector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RRG_CACHE_DIR", str(tmp_path))
    spec = default_model()
    models = tmp_path / "models"
    models.mkdir(parents=True)
    stale = models / f"optimised-v1-{spec.key}.onnx"
    stale.write_bytes(b"an old graph with its weights inside")

    optimised = Encoder(spec).encode(SENTENCES)

    folder = models / f"optimised-v2-{spec.key}"
    assert sorted(p.name for p in folder.iterdir()) == ["model.data", "model.onnx"]
    # The weights live in their own file (memory-mapped at load), not in the graph.
    assert (folder / "model.data").stat().st_size > 10 * (folder / "model.onnx").stat().st_size
    assert not stale.exists()
    assert not [p for p in models.iterdir() if p.name.startswith(".optimising-")]

    # A cache dir where nothing can be written: the installed graph, optimised in memory.
    models.rename(tmp_path / "elsewhere")
    models.write_bytes(b"")  # a file where the models folder should be
    plain = Encoder(spec).encode(SENTENCES)
    assert np.abs(optimised - plain).max() < 1e-4
