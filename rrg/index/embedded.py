"""The embedding index of one root: the model's vector of every passage of every embedded
file, so that a new query runs the model on its own text only.

Beside the root's index, a folder of parts (``<index>.embed/``). A part is written once, as
the embedding job finishes a batch (to a temporary folder, synced, renamed into place), and
never changed: a job killed half-way keeps every finished part, and the next run goes on
from there. A file is known by its path and content hash (``file_key``): an edited or
renamed file is a new one, and its old vectors are only skipped until a merge drops them.

Each part holds, per file, its key and where its passages' rows start; per passage, the
content hash of the text the model read (``passage_key``, the stage's cache key as a
number) and its vector, int8 with a scale per row (384 dims: 388 bytes a passage). A part
whose arrays disagree, whose checksum fails or that another model made is never served.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import xxhash

from rrg.atomic import NOT_AN_ARRAY, new_folder, save_array

#: Bump when a part's arrays change meaning; parts of another format are not served.
EMBED_FORMAT = 1
ARRAYS = ("file_key", "file_ptr", "passage_key", "vectors", "scale")
#: Rows scored a block at a time (int8 widened to float32: 6 MB at 384 dims).
_BLOCK = 4096


class PartDamaged(Exception):
    """A part's arrays are missing, truncated, inconsistent or another model's."""


def embed_dir(index_path: Path) -> Path:
    return index_path.with_name(index_path.name + ".embed")


def file_key(rel: bytes, content_hash: int) -> int:
    """A file as embedded: its path (the passages read it) and its content."""
    return xxhash.xxh3_64_intdigest(rel + b"\0" + int(content_hash).to_bytes(8, "little"))


def passage_key(text: str) -> int:
    """The content hash of a passage's text, as the stage's vector cache keys it (in hex)."""
    return xxhash.xxh3_64_intdigest(text.encode("utf-8", "surrogatepass"))


@dataclass
class Part:
    name: str
    a: dict[str, np.ndarray]


def _checksum(arrays: dict[str, np.ndarray]) -> str:
    digest = xxhash.xxh3_64()
    for name in ARRAYS:
        digest.update(np.ascontiguousarray(arrays[name]).data)
    return digest.hexdigest()


def write_part(
    parent: Path,
    seq: int,
    model: str,
    files: list[tuple[int, list[int]]],
    vectors: np.ndarray,
) -> str:
    """Write one part: ``files`` as (file key, its passages' keys), ``vectors`` (float32,
    unit rows) the passages' in that order. Returns its name; it appears whole or not at
    all."""
    parent.mkdir(mode=0o700, exist_ok=True)
    sizes = [len(keys) for _, keys in files]
    assert sum(sizes) == len(vectors)
    peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, np.float32)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    arrays: dict[str, np.ndarray] = {
        "file_key": np.array([key for key, _ in files], np.uint64),
        "file_ptr": np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64),
        "passage_key": np.array([k for _, keys in files for k in keys], np.uint64),
        "vectors": np.rint(vectors / scale[:, None]).astype(np.int8),
        "scale": scale,
    }
    return _write(parent, seq, model, arrays)


def _write(parent: Path, seq: int, model: str, arrays: dict[str, np.ndarray]) -> str:
    name = f"p{seq:09d}-{os.urandom(4).hex()}"
    with new_folder(parent, name) as tmp:
        for key, array in arrays.items():
            save_array(tmp / f"{key}.npy", array)
        meta = {"format": EMBED_FORMAT, "model": model, "checksum": _checksum(arrays)}
        (tmp / "meta.json").write_text(json.dumps(meta))
    return name


def open_part(folder: Path, model: str) -> Part:
    """Read a part, checked whole: raises PartDamaged when it is not what a writer left for
    this model, FileNotFoundError when a merge removed it meanwhile."""
    if not folder.is_dir():
        raise FileNotFoundError(folder)
    try:
        meta = json.loads((folder / "meta.json").read_text())
        a = {name: np.load(folder / f"{name}.npy", allow_pickle=False) for name in ARRAYS}
    except FileNotFoundError:
        if not folder.is_dir():
            raise
        raise PartDamaged(f"part {folder.name}: a file is missing") from None
    except (*NOT_AN_ARRAY, OSError) as err:  # JSONDecodeError is a ValueError
        raise PartDamaged(f"part {folder.name}: {err}") from err
    if meta.get("format") != EMBED_FORMAT or meta.get("model") != model:
        raise PartDamaged(f"part {folder.name}: made by another rrg or model")
    files, passages = len(a["file_key"]), len(a["passage_key"])
    ok = (
        len(a["file_ptr"]) == files + 1
        and int(a["file_ptr"][-1]) == passages
        and a["vectors"].ndim == 2
        and len(a["vectors"]) == passages == len(a["scale"])
        and meta.get("checksum") == _checksum(a)
    )
    if not ok:
        raise PartDamaged(f"part {folder.name}: its arrays do not match their checksum")
    return Part(folder.name, a)


def part_names(parent: Path) -> list[str]:
    """The parts, oldest first (a later part's version of a file wins)."""
    try:
        names = os.listdir(parent)
    except FileNotFoundError:
        return []
    return sorted(n for n in names if n.startswith("p") and (parent / n).is_dir())


@dataclass
class Embedded:
    """The parts of a root as one lookup: a file key -> its passages' keys and vectors."""

    parts: list[Part]
    damaged: list[str] = field(default_factory=list)  # parts skipped, never served

    @cached_property
    def where(self) -> dict[int, tuple[int, int]]:
        """File key -> (part, file) of its latest version."""
        out: dict[int, tuple[int, int]] = {}
        for p, part in enumerate(self.parts):
            for f, key in enumerate(part.a["file_key"].tolist()):
                out[key] = (p, f)
        return out

    @cached_property
    def passages(self) -> dict[int, tuple[int, int]]:
        """Passage key -> (part, row), for the stage's vectors read from here."""
        out: dict[int, tuple[int, int]] = {}
        for p, part in enumerate(self.parts):
            for r, key in enumerate(part.a["passage_key"].tolist()):
                out[key] = (p, r)
        return out

    @property
    def passage_count(self) -> int:
        return sum(len(part.a["passage_key"]) for part in self.parts)

    def vector(self, p: int, row: int) -> np.ndarray:
        part = self.parts[p].a
        return part["vectors"][row].astype(np.float32) * part["scale"][row]

    def best_cosines(self, keys: Iterable[int], query: np.ndarray) -> np.ndarray:
        """Each file's best passage cosine with the query (MaxP; NaN for a file not
        embedded): one matrix product a part, over the rows of the files asked for."""
        keys = list(keys)
        best = np.full(len(keys), np.nan)
        wanted: dict[int, list[tuple[int, int]]] = {}  # part -> (slot, its file)
        for slot, key in enumerate(keys):
            at = self.where.get(key)
            if at is not None:
                wanted.setdefault(at[0], []).append((slot, at[1]))
        q = query.astype(np.float32)
        for p, asked in wanted.items():
            a = self.parts[p].a
            ptr = a["file_ptr"]
            cosine = np.empty(len(a["passage_key"]), np.float32)
            for start in range(0, len(cosine), _BLOCK):
                block = a["vectors"][start : start + _BLOCK].astype(np.float32)
                cosine[start : start + _BLOCK] = (block @ q) * a["scale"][start : start + _BLOCK]
            for slot, f in asked:
                lo, hi = int(ptr[f]), int(ptr[f + 1])
                if hi > lo:
                    best[slot] = float(cosine[lo:hi].max())
        return np.round(best, 6)


def load_embedded(index_path: Path, model: str) -> Embedded | None:
    """The root's parts for this model, damaged ones left out (named in ``damaged``); None
    when the root was never embedded."""
    parent = embed_dir(index_path)
    if not parent.is_dir():
        return None
    for _ in range(_RETRIES):
        parts: list[Part] = []
        damaged: list[str] = []
        try:
            for name in part_names(parent):
                try:
                    parts.append(open_part(parent / name, model))
                except PartDamaged:
                    damaged.append(name)
        except FileNotFoundError:
            continue  # merged away meanwhile: read the names again (the merged part is new)
        return Embedded(parts, damaged)
    return Embedded([], [])


#: Times the parts are listed again when one was merged away while being read.
_RETRIES = 5


def remove_parts(parent: Path, names: Iterable[str]) -> None:
    for name in names:
        shutil.rmtree(parent / name, ignore_errors=True)


def remove_leftovers(parent: Path) -> None:
    """Temporary folders of a job that was killed (call under the embedding lock)."""
    for name in os.listdir(parent) if parent.is_dir() else []:
        if name.startswith(".tmp-"):
            shutil.rmtree(parent / name, ignore_errors=True)


#: Passages one merged part holds at most (int8 rows: about 100 MB at 384 dims), so that a
#: merge's memory stays bounded however large the root.
MERGE_PASSAGES = 262_144


def merge_parts(
    parent: Path, seq: int, model: str, embedded: Embedded, live: Callable[[int], bool]
) -> list[str]:
    """Parts of the live files of all (``live(key)``), each up to MERGE_PASSAGES, written
    before the caller removes the old ones; their names."""
    names: list[str] = []
    keys: list[int] = []
    sizes: list[int] = []
    passage_keys: list[np.ndarray] = []
    vectors: list[np.ndarray] = []
    scales: list[np.ndarray] = []

    def flush() -> None:
        if not keys:
            return
        arrays = {
            "file_key": np.array(keys, np.uint64),
            "file_ptr": np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64),
            "passage_key": np.concatenate(passage_keys).astype(np.uint64),
            "vectors": np.concatenate(vectors),
            "scale": np.concatenate(scales).astype(np.float32),
        }
        names.append(_write(parent, seq + len(names), model, arrays))
        for held in (keys, sizes, passage_keys, vectors, scales):
            held.clear()

    for key, (p, f) in embedded.where.items():
        if not live(key):
            continue
        a = embedded.parts[p].a
        lo, hi = int(a["file_ptr"][f]), int(a["file_ptr"][f + 1])
        if sum(sizes) + hi - lo > MERGE_PASSAGES:
            flush()
        keys.append(key)
        sizes.append(hi - lo)
        passage_keys.append(a["passage_key"][lo:hi])
        vectors.append(a["vectors"][lo:hi])
        scales.append(a["scale"][lo:hi])
    flush()
    return names
