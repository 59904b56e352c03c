"""A static token table learned from the model's passage vectors (tried, not taken).

The shipped table is each WordPiece token's own output (``[CLS] token [SEP]``), reduced by
PCA (``rrg.model.static_table``). Here the table is trained instead, as model2vec's
tokenlearn does: passages of code that no labelled set holds (this venv's site-packages and
Python's library, 16 npm packages, 15 Debian Go, Rust, Ruby and Lua packages), their
MiniLM vectors as targets, the idf-weighted bag of a passage's tokens as the student
(``rrg.model.static_table.static_vectors``' formula), cosine loss; optionally a contrastive
term that pairs a docstring's first line with the passage it opens (in-batch negatives).

Run, in order (about 10 minutes of model time for 90K passages on 2 cores):
  python -m benchmarks.learned_static_table corpus SOURCES_DIR     (texts.jsonl in OUT_DIR)
  python -m benchmarks.learned_static_table teacher
  EP=4 CL=0 python -m benchmarks.learned_static_table train PREPARED_DIR
then point ``RRG_PREPARED_DIR`` at PREPARED_DIR (with the int8 graph copied in) and a fresh
``RRG_CACHE_DIR`` and run ``python -m benchmarks.semble_code DATA``.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

from rrg.model.encoder import Encoder
from rrg.model.registry import default_model
from rrg.rank.code_passages import cut_passages
from rrg.rank.passages import passage_text

WORK = Path(os.environ.get("OUT_DIR", "/tmp/learned-static"))
# Every labelled project's package or repository name: none of their text is trained on.
EXCLUDE = re.compile(
    r"(^|/)(sympy|sphinx|pydantic\w*|aiohttp|fastapi|model2vec|flask|requests|seaborn|"
    r"matplotlib|django|astropy|xarray|pylint|_?pytest|sklearn|scikit_learn|zod|vitest|"
    r"serde\w*|tokio\w*|gin|chi|cobra|fmt)(/|$)",
    re.I,
)
SUFFIXES = {".py", ".ts", ".tsx", ".js", ".go", ".rs", ".rb", ".lua", ".md", ".rst"}
DOC_LINE = re.compile(r'^\s*(?:"""|\'\'\'|///?|#+|\*|/\*\*)\s*([A-Z][^`{}();=<>]{20,140})$')


def corpus(groups: dict[str, list[str]], caps: dict[str, int]) -> None:
    """At most five passages a file, files in random order, up to each group's cap; after
    each passage its first docstring line, if any, as a text of its own."""
    random.seed(0)
    WORK.mkdir(parents=True, exist_ok=True)
    with open(WORK / "texts.jsonl", "w") as out:
        for group, roots in groups.items():
            files = []
            for root in roots:
                for folder, dirs, names in os.walk(root):
                    rel = os.path.relpath(folder, root)
                    if EXCLUDE.search(rel) or "test" in rel.lower() or "__pycache__" in folder:
                        dirs[:] = []
                        continue
                    files += [
                        (root, os.path.join(folder, n))
                        for n in names
                        if os.path.splitext(n)[1] in SUFFIXES and not n.endswith(".min.js")
                    ]
            random.shuffle(files)
            count = 0
            for root, path in files:
                if count >= caps[group]:
                    break
                try:
                    if os.path.getsize(path) > 300_000:
                        continue
                    text = Path(path).read_text(encoding="utf-8")
                    name = os.path.relpath(path, root)
                    paragraphs = [p for p in cut_passages(text, name) if len(p.text) > 60]
                except (OSError, UnicodeDecodeError, ValueError):
                    continue
                random.shuffle(paragraphs)
                for p in paragraphs[:5]:
                    out.write(json.dumps({"g": group, "t": passage_text(name, p)}) + "\n")
                    count += 1
                    for line in p.text.split("\n")[:6]:
                        if m := DOC_LINE.match(line):
                            out.write(json.dumps({"g": f"{group}-nl", "t": m[1].strip()}) + "\n")
                            break


def teacher() -> None:
    """MiniLM's vector of each text, read as the stage reads it (code 128 tokens, prose 256)."""
    rows = [json.loads(line) for line in (WORK / "texts.jsonl").read_text().splitlines()]
    encoder = Encoder(default_model())
    out = np.zeros((len(rows), 384), np.float16)
    start = time.time()
    for first in range(0, len(rows), 4096):
        chunk = rows[first : first + 4096]
        prose = [
            r["g"].endswith("nl") or r["t"].split("\n", 1)[0].endswith((".md", ".rst"))
            for r in chunk
        ]
        for limit in (128, 256):
            ks = [k for k in range(len(chunk)) if (limit == 256) == prose[k]]
            if ks:
                vectors = encoder.encode(
                    [chunk[k]["t"] for k in ks], max_tokens=limit, batch_size=16
                )
                out[[first + k for k in ks]] = vectors
        print(first + len(chunk), round(time.time() - start), flush=True)
    np.save(WORK / "teacher.npy", out)


def train(prepared: Path) -> None:
    import torch
    from torch.nn.functional import cosine_similarity, cross_entropy, normalize

    from rrg.model.static_table import STATIC_DIMS, static_table_path

    epochs, lr = int(os.environ.get("EP", 4)), float(os.environ.get("LR", 2e-3))
    contrastive, tau = float(os.environ.get("CL", 0)), 0.05
    torch.manual_seed(0)
    rows = [json.loads(line) for line in (WORK / "texts.jsonl").read_text().splitlines()]
    target_raw = np.load(WORK / "teacher.npy").astype(np.float32)
    spec = default_model()
    encoder = Encoder(spec, exact=True)
    tok = encoder.tokenizer
    vocab = tok.get_vocab_size()
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    parts = []
    for s in range(0, vocab, 1024):
        ids = np.arange(s, min(vocab, s + 1024), dtype=np.int64)
        seq = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], 1)
        parts.append(encoder.hidden_states(seq, np.ones_like(seq))[:, 1].copy())
    own = np.concatenate(parts)  # the shipped table before its PCA: the starting point
    pieces = encoder.piece_ids([r["t"] for r in rows], 256)
    df = np.zeros(vocab, np.int64)
    for p in pieces:
        df[np.unique(p)] += 1
    n = len(pieces)
    idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
    target = target_raw - target_raw.mean(0)
    queries, docs = [], []
    for i, r in enumerate(rows):
        if r["g"].endswith("-nl") and i and r["t"] in rows[i - 1]["t"]:
            queries.append(r["t"].rstrip("\"' ").strip())
            docs.append(rows[i - 1]["t"].replace(r["t"], "", 1))
    q_pieces, d_pieces = encoder.piece_ids(queries, 256), encoder.piece_ids(docs, 256)
    rng = np.random.default_rng(0)
    pairs = np.flatnonzero(
        [len(a) > 0 and len(b) > 0 for a, b in zip(q_pieces, d_pieces, strict=True)]
    )
    rng.shuffle(pairs)
    pair_val, pair_train = pairs[:500], pairs[500:]
    idx = np.flatnonzero([len(p) > 0 for p in pieces])
    rng.shuffle(idx)
    val, tr = idx[: len(idx) // 20], idx[len(idx) // 20 :]

    def bag(ks: np.ndarray, src: list[np.ndarray]) -> tuple[torch.Tensor, ...]:
        ids, weights, offsets, at = [], [], [], 0
        for k in ks:
            d, c = np.unique(src[k], return_counts=True)
            ids.append(d)
            weights.append(c * idf[d])
            offsets.append(at)
            at += len(d)
        return (
            torch.from_numpy(np.concatenate(ids).astype(np.int64)),
            torch.from_numpy(np.array(offsets, np.int64)),
            torch.from_numpy(np.concatenate(weights).astype(np.float32)),
        )

    emb = torch.nn.EmbeddingBag(vocab, own.shape[1], mode="sum")
    emb.weight.data.copy_(torch.from_numpy(own - own.mean(0)))
    opt = torch.optim.Adam(emb.parameters(), lr=lr)

    def report(label: str) -> None:
        with torch.no_grad():
            cos = cosine_similarity(emb(*bag(val, pieces)), torch.from_numpy(target[val])).mean()
            q = normalize(emb(*bag(pair_val, q_pieces)))
            d = normalize(emb(*bag(pair_val, d_pieces)))
            top1 = ((q @ d.T).argmax(1) == torch.arange(len(pair_val))).float().mean()
        print(
            label,
            f"cosine to the model {cos:.3f}, docstring line -> its passage R@1 {top1:.3f}",
            flush=True,
        )

    report("start")
    for epoch in range(epochs):
        rng.shuffle(tr)
        for s in range(0, len(tr), 256):
            ks = tr[s : s + 256]
            loss = (
                1 - cosine_similarity(emb(*bag(ks, pieces)), torch.from_numpy(target[ks]))
            ).mean()
            if contrastive:
                ks = rng.choice(pair_train, 256, replace=False)
                q, d = normalize(emb(*bag(ks, q_pieces))), normalize(emb(*bag(ks, d_pieces)))
                loss = loss + contrastive * cross_entropy(q @ d.T / tau, torch.arange(len(ks)))
            opt.zero_grad()
            loss.backward()
            opt.step()
        report(f"epoch {epoch}")
    weights = emb.weight.detach().numpy()
    centred = weights - weights.mean(0)
    _, _, vt = np.linalg.svd(centred[:: max(1, vocab // 20000)], full_matrices=False)
    prepared.mkdir(parents=True, exist_ok=True)
    table = (centred @ vt[:STATIC_DIMS].T).astype(np.float16)
    np.save(prepared / static_table_path(spec).name, table, allow_pickle=False)


if __name__ == "__main__":
    verb = sys.argv[1]
    if verb == "corpus":
        src = Path(sys.argv[2])
        site = Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
        corpus(
            {
                "py": [str(site / "site-packages"), str(Path(os.__file__).parent)],
                "npm": [str(src / "npm")],
                "deb": [str(src / "deb")],
            },
            {"py": 45000, "npm": 25000, "deb": 20000},
        )
    elif verb == "teacher":
        teacher()
    else:
        train(Path(sys.argv[2]))
