"""``rrg --import-model SRC``: a sentence-transformers model (a local folder, or a hub name
where the network allows) turned into a model folder rrg can use: ``model.onnx`` (the
transformer, outputs ``last_hidden_state``), ``tokenizer.json`` and ``rrg-model.json``
(pooling, dimensions, token limit, source).

Needs the optional extra ``import``: sentence-transformers and torch (``pip install
'.[import]'`` in rrg's checkout). Code shipped inside a model folder is never run unless the
user passes ``--trust-remote-code``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

from rrg.cachedir import models_dir
from rrg.errors import ModelError, RrgError

_POOLING = {
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_cls_token": "cls",
    "pooling_mode_lasttoken": "last",
}


def model_name(source: str) -> str:
    """A folder name for the import: the source's last part, or its parent's when that part
    is a generic word such as "model"."""
    parts = [p for p in re.split(r"[/\\]+", source) if p]
    while len(parts) > 1 and parts[-1].lower() in ("model", "models", "onnx", "snapshot"):
        parts.pop()
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", parts[-1] if parts else source).strip("-.")
    return name or "imported-model"


def import_model(source: str, trust_remote_code: bool = False) -> Path:
    """Export ``source`` to ``<cache>/models/<name>/``; returns that folder."""
    # Library chatter (progress bars, tracer warnings) would bury rrg's one-line answer.
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    warnings.filterwarnings("ignore")
    try:
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging
    except ImportError as err:
        raise RrgError(
            "--import-model needs the optional extra: pip install '.[import]' in rrg's "
            "checkout (sentence-transformers and torch==2.13.0)"
        ) from err
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        st = SentenceTransformer(source, device="cpu", trust_remote_code=trust_remote_code)
    except Exception as err:  # sentence-transformers raises many types for a bad source
        raise ModelError(f"cannot load {source} as a sentence-transformers model: {err}") from err
    # sentence-transformers types its modules loosely; this is its Transformer module.
    transformer: Any = st[0]
    hf_model = transformer.auto_model.eval()
    tokenizer = transformer.tokenizer
    if not getattr(tokenizer, "is_fast", False):
        raise ModelError(f"{source} has no fast tokenizer (tokenizer.json); rrg needs one")
    pooling = "mean"
    for module in list(st)[1:]:
        config: dict[str, object] = getattr(module, "get_config_dict", dict)()
        for key, mode in _POOLING.items():
            if config.get(key):
                pooling = mode
                break
    name = model_name(source)
    target = models_dir() / name
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=models_dir()))
    try:
        names = ["input_ids", "attention_mask"]
        accepts_types = "token_type_ids" in tokenizer.model_input_names
        if accepts_types:
            names.append("token_type_ids")
        sample = tokenizer(["an example sentence"], return_tensors="pt")
        inputs = tuple(sample[n] for n in names)

        class LastHidden(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.inner = hf_model

            def forward(self, *args: torch.Tensor) -> torch.Tensor:
                return self.inner(**dict(zip(names, args, strict=True))).last_hidden_state

        dynamic = {n: {0: "batch", 1: "sequence"} for n in names}
        dynamic["last_hidden_state"] = {0: "batch", 1: "sequence"}
        torch.onnx.export(
            LastHidden(),
            inputs,
            str(staging / "model.onnx"),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=dynamic,
            opset_version=17,
            dynamo=False,
        )
        tokenizer.backend_tokenizer.save(str(staging / "tokenizer.json"))
        meta = {
            "name": name,
            "dims": int(
                getattr(st, "get_embedding_dimension", st.get_sentence_embedding_dimension)() or 0
            ),
            "pooling": pooling,
            "max_tokens": int(st.max_seq_length or 256),
            "source": source,
            "licence": "see the model's own card",
            "normalize": any(type(m).__name__ == "Normalize" for m in st),
        }
        (staging / "rrg-model.json").write_text(json.dumps(meta, indent=2) + "\n")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target
