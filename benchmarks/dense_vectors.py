"""Encode every document and query of the labelled sets with the default model (MiniLM int8
ONNX, first 256 tokens): the "full dense ranking" baseline, too slow for a CPU index
(DESIGN.md), measured here once. Runs where cores are plentiful; writes DIR/<set>.npz.

Usage: python -m benchmarks.dense_vectors DATA_DIR MODEL_ONNX OUT_DIR [SET...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.common import needs_arguments
from benchmarks.datasets import BEIR_SETS, beir, swebench_tasks
from rrg.model.encoder import Encoder
from rrg.model.registry import ModelSpec


def main() -> None:
    needs_arguments(3, __doc__)
    data, onnx, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    wanted = sys.argv[4:] or [*BEIR_SETS, "swebench"]
    spec = ModelSpec(
        "minilm-l6-int8",
        onnx,
        Path(__file__).resolve().parent.parent / "rrg" / "data" / "minilm-tokenizer.json",
        384,
        "mean",
        256,
        "bench",
        "Apache-2.0",
    )
    encoder = Encoder(spec)
    out.mkdir(parents=True, exist_ok=True)
    for name in wanted:
        sets = swebench_tasks(data) if name == "swebench" else [beir(name, data)]
        arrays: dict[str, np.ndarray] = {}
        start = time.time()
        for s in sets:
            ids = list(s.texts)
            arrays[f"{s.name}/doc_ids"] = np.array(ids)
            arrays[f"{s.name}/docs"] = encoder.encode(
                [s.texts[i] for i in ids], batch_size=4
            ).astype(np.float16)
            qids = list(s.queries)
            arrays[f"{s.name}/query_ids"] = np.array(qids)
            arrays[f"{s.name}/queries"] = encoder.encode(
                [s.queries[q] for q in qids], batch_size=4
            ).astype(np.float16)
        # numpy's stubs read **arrays as its allow_pickle keyword.
        np.savez_compressed(out / f"{name}.npz", **arrays)  # type: ignore[arg-type]
        print(
            f"{name}: {sum(len(s.texts) for s in sets)} docs in {time.time() - start:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
