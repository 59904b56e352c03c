"""The model's static table, made once a machine: a making stopped part way goes on where
it stopped, and gives the table made in one go."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import model_that_fails_on_long_inputs
from rrg.model.encoder import Encoder
from rrg.model.registry import resolve_model
from rrg.model.static_table import static_table, static_table_path


class Stopped(Exception):
    """What a ``timeout`` around a first search does to the making, in this process."""


def test_a_table_stopped_part_way_is_made_on_from_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent's tool may stop a command after 10 s, where the default model's table
    takes 15-30: each first search began again from the first token and was stopped
    again. The runs done are kept, and the next search makes only the rest."""
    model = tmp_path / "tiny"
    model_that_fails_on_long_inputs(model, positions=256)
    spec = resolve_model(str(model))

    monkeypatch.setenv("RRG_PREPARED_DIR", str(tmp_path / "in-one-go"))
    whole = np.asarray(static_table(Encoder(spec)))

    monkeypatch.setenv("RRG_PREPARED_DIR", str(tmp_path / "stopped"))
    made: list[int] = []

    def stop_after_ten_runs(done: int, total: int) -> None:
        made.append(done)
        if done >= 10 * 1024:
            raise Stopped

    with pytest.raises(Stopped):
        static_table(Encoder(spec), stop_after_ten_runs)
    table_file = static_table_path(spec)
    assert not table_file.exists()
    kept = sorted(Path(f"{table_file}.parts").iterdir())
    assert len(kept) >= 10

    seen: list[int] = []
    again = np.asarray(static_table(Encoder(spec), lambda done, total: seen.append(done)))
    assert seen[0] >= 10 * 1024  # where the first one stopped: its runs are not made again
    assert seen[-1] == 30522
    assert np.array_equal(again, whole)
    assert table_file.is_file() and not Path(f"{table_file}.parts").exists()
