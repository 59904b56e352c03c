"""A batch of read files becomes documents: each text's terms and WordPiece ids its own,
though WordPiece runs on a thread beside the word counts, a few texts at a time."""

from __future__ import annotations

import numpy as np

from rrg.index.refresh import PIECE_BATCH, PIECE_LIMIT, tokenize
from rrg.index.store import KIND_BINARY, KIND_TEXT, KIND_UNREADABLE
from rrg.index.textstats import term_counts
from rrg.model.encoder import Encoder
from rrg.model.registry import default_model

WORDS = "river delta flood mountain glacier ice desert dune sand forest canopy moss".split()


def _item(k: int) -> tuple[bytes, int, int, bytes | None]:
    rel = f"src/part_{k}.py".encode()
    if k % 7 == 3:
        return rel, 10, k, None  # unreadable
    if k % 11 == 5:
        return rel, 10, k, b"\x00\x01binary"
    body = " ".join(WORDS[(k * j) % len(WORDS)] for j in range(1, 8 + k % 5))
    return rel, len(body), k, f"def part_{k}():\n    return '{body}'\n".encode()


def test_each_document_gets_its_own_texts_terms_and_pieces() -> None:
    encoder = Encoder(default_model())
    items = [_item(k) for k in range(3 * PIECE_BATCH + 5)]  # several batches and a rest
    docs = tokenize(items, encoder)
    assert [d.path for d in docs] == [rel for rel, *_ in items]
    for (rel, _, _, data), doc in zip(items, docs, strict=True):
        if data is None:
            assert doc.kind == KIND_UNREADABLE
            continue
        if b"\x00" in data:
            assert doc.kind == KIND_BINARY
            continue
        assert doc.kind == KIND_TEXT
        text = rel.decode().replace("/", " ") + "\n" + data.decode()
        (ids,) = encoder.piece_ids([text], PIECE_LIMIT)
        assert doc.pieces is not None and doc.piece_counts is not None
        uniq, counts = np.unique(ids.astype(np.int64), return_counts=True)
        assert doc.pieces.tolist() == uniq.tolist(), rel
        assert doc.piece_counts.tolist() == counts.tolist(), rel
        terms, _, length = term_counts(text)
        assert doc.length == length and doc.terms is not None
        assert set(terms.tolist()) <= set(doc.terms.tolist()), rel
