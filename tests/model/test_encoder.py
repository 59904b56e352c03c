"""The optimised graph kept once a machine: the model as installed with its products in
int8, whose vectors lie close to the float graph's."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rrg.model.encoder import Encoder
from rrg.model.registry import default_model

SENTENCES = ["a river floods the valley", "def parse_config(path): return load(path)"]


def test_optimised_graph_is_the_int8_graph_alone_and_changes_no_vector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34, item 7: one folder a machine holding the int8 graph (23 MB), no float copy
    (90 MB); the copies earlier versions kept in the cache dir go."""
    monkeypatch.setenv("RRG_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("RRG_PREPARED_DIR", str(tmp_path / "prepared"))
    spec = default_model()
    legacy = tmp_path / "models"
    for version in (2, 3):
        (legacy / f"optimised-v{version}-{spec.key}").mkdir(parents=True)
        (legacy / f"optimised-v{version}-{spec.key}" / "model.data").write_bytes(b"floats")
    stale = legacy / f"optimised-v1-{spec.key}.onnx"
    stale.write_bytes(b"an old graph with its weights inside")

    quantized = Encoder(spec).encode(SENTENCES)
    optimised = Encoder(spec, exact=True).encode(SENTENCES)

    folder = tmp_path / "prepared" / f"optimised-v4-{spec.key}"
    assert sorted(p.name for p in folder.iterdir()) == ["model-q8.onnx"]
    assert sorted(p.name for p in legacy.iterdir()) == []
    # Beside it, only the lock one process a machine makes it under.
    made = sorted(p.name for p in folder.parent.iterdir() if not p.name.endswith(".lock"))
    assert made == [folder.name]

    # The int8 graph runs, and its vectors lie close to the float graph's.
    cosines = (quantized * optimised).sum(axis=1)
    assert np.abs(quantized - optimised).max() > 1e-3
    assert cosines.min() > 0.98

    # A folder where nothing can be written: the installed graph, optimised in memory, and
    # no int8 graph (the float one serves).
    monkeypatch.setenv("RRG_PREPARED_DIR", str(tmp_path / "a-file"))
    (tmp_path / "a-file").write_bytes(b"")
    plain = Encoder(spec).encode(SENTENCES)
    assert np.abs(optimised - plain).max() < 1e-4


def test_a_damaged_int8_graph_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rrg's copy of the graph cut short (its bytes lost after the rename, say) must not
    cost every later query its transformer stage: the copy is made again from the model."""
    monkeypatch.setenv("RRG_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("RRG_PREPARED_DIR", str(tmp_path / "prepared"))
    spec = default_model()
    first = Encoder(spec).encode(SENTENCES)
    graph = tmp_path / "prepared" / f"optimised-v4-{spec.key}" / "model-q8.onnx"
    whole = graph.read_bytes()
    graph.write_bytes(whole[: len(whole) // 3])

    again = Encoder(spec).encode(SENTENCES)

    assert np.abs(first - again).max() < 1e-4
    assert graph.read_bytes() == whole
    leftovers = [p.name for p in graph.parent.parent.iterdir() if p.name.startswith(".")]
    assert [name for name in leftovers if not name.endswith(".lock")] == []


def test_copies_left_by_a_killed_process_go_when_the_graph_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed while it made the graph leaves a staging folder of 90 MB: the next
    one to make it removes folders older than an hour, and leaves a live one's alone."""
    monkeypatch.setenv("RRG_PREPARED_DIR", str(tmp_path / "prepared"))
    models = tmp_path / "prepared"
    old, live = models / ".optimising-killed", models / ".optimising-live"
    for folder in (old, live):
        folder.mkdir(parents=True)
        (folder / "model.data").write_bytes(b"weights")
    hours_ago = time.time() - 2 * 3600
    os.utime(old, (hours_ago, hours_ago))

    Encoder(default_model()).encode(SENTENCES)

    assert not old.exists()
    assert live.exists()


def test_runs_side_by_side_give_the_vectors_of_runs_one_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The vector cache keeps what one process read for the next, whatever RRG_THREADS each
    # ran with: two runs at once must give the same bits as one at a time.
    monkeypatch.setenv("RRG_CACHE_DIR", str(tmp_path))
    texts = [f"{SENTENCES[k % 2]} {' '.join(['word'] * (k * 9))}" for k in range(12)]
    vectors = {}
    for threads in ("1", "2"):
        monkeypatch.setenv("RRG_THREADS", threads)
        encoder = Encoder(default_model())
        vectors[threads] = encoder.encode(texts, batch_size=1)
        assert encoder.parallel_runs == int(threads)
    assert np.array_equal(vectors["1"], vectors["2"])
    # In the texts' order, not the order the runs ended in.
    alone = Encoder(default_model()).encode([texts[5]], batch_size=1)
    assert np.array_equal(alone[0], vectors["2"][5])


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
def test_runs_at_once_follow_the_cores_the_process_may_use(tmp_path: Path) -> None:
    # Held to one core (as a container or taskset may hold it), the model runs one text at
    # a time whatever the machine has: two runs would take turns on the core.
    script = (
        "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))});"
        "from rrg.model.encoder import Encoder; from rrg.model.registry import default_model;"
        "e = Encoder(default_model()); e.encode(['a river']); print(e.parallel_runs)"
    )
    env = {k: v for k, v in os.environ.items() if k != "RRG_THREADS"}
    env["RRG_CACHE_DIR"] = str(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout == "1\n"


def test_piece_ids_read_as_far_as_the_tokens_need_give_the_whole_texts_ids() -> None:
    """``piece_ids`` tokenizes a head cut at whitespace, and the rest only where the head
    falls short: every text's ids are still its whole text's first ones."""
    encoder = Encoder(default_model())
    code = "def retry_request(self, timeout=30):\n    return self.session.get(url)\n" * 200
    prose = ("The reactor's café naïvely measures Straße ﬁles; 東京タワー tokens. " * 150).strip()
    texts = [
        code,
        prose,
        "x" * 9000,  # no whitespace at all: read whole
        "word " * 10 + "y" * 5000 + " tail words after a long one\r\n" * 40,
        "\t\n  " * 600 + "short",
        "",
        "a few words",
    ]
    for limit in (1, 16, 256, 1024):
        got = encoder.piece_ids(texts, limit)
        whole = encoder.tokenizer.encode_batch(texts, add_special_tokens=False)
        for text, ids, full in zip(texts, got, whole, strict=True):
            assert ids.tolist() == full.ids[:limit], (limit, text[:40])


def test_texts_of_several_token_limits_read_in_one_pool_as_each_alone(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stage's code and prose passages (two token limits) go through one pool of runs:
    each text's vector is the one its own limit gives, read apart from the others."""
    monkeypatch.setenv("RRG_CACHE_DIR", str(cache_dir))
    encoder = Encoder(default_model())
    texts = [
        "def retry_request(self, timeout=30):\n    return self.session.get(url)\n" * 20,
        "The reactor measures the flow of the river over the valley each hour. " * 20,
        "how are requests retried",
        "def load(path): return open(path).read()",
    ]
    limits = [24, 64, 24, 64]
    mixed = encoder.encode(texts, max_tokens=limits)
    for k, (text, limit) in enumerate(zip(texts, limits, strict=True)):
        alone = encoder.encode([text], max_tokens=limit)[0]
        assert np.array_equal(mixed[k], alone), k
    assert not np.array_equal(mixed[0], encoder.encode([texts[0]], max_tokens=64)[0])
