"""WordPiece ids read a word at a time are the tokenizer's own, on every kind of text: the
static vectors of the index and of the passages are made from them."""

from __future__ import annotations

import random

import numpy as np
import pytest

import rrg.model.word_pieces as word_pieces
from rrg.model.encoder import Encoder
from rrg.model.registry import default_model
from rrg.model.word_pieces import WordPieces, reads_by_word

CODE = '''def parse_config(path: str) -> dict[str, int]:
    """Read the file; return {"retries": 3}."""
    with open(path) as f:  # utf-8
        return json.loads(f.read())["settings"]
'''

TRICKY = [
    "",
    "   \n\t  ",
    CODE,
    "x = a[MASK]b and [cls] then [Sep] [UNK]",  # added tokens, in any case
    "tab\there, vertical\x0btab, form\x0cfeed, nul\x00, del\x7f, unit\x1fsep",
    "café naïve über 中文 — “quotes” ½",
    "a" * 150 + " b" * 5,  # a word over WordPiece's 100 characters: [UNK]
    "snake_case CamelCaseName __dunder__ 0x1F 3.14e-10 #!@$%^&*()",
    "CRLF line\r\nend\rcarriage",
]


def _random_texts(count: int) -> list[str]:
    rnd = random.Random(7)
    alphabet = "ab Z_9[]\t\n\r\x0b\x0c\x1f\x7f\x00é中 .-MASK[MASK]"
    return ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 60))) for _ in range(count)]


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder(default_model())


def test_the_default_model_reads_by_word(encoder: Encoder) -> None:
    assert reads_by_word(encoder.tokenizer)


def test_ids_are_the_tokenizers_own(encoder: Encoder) -> None:
    texts = TRICKY + _random_texts(400)
    expected = [e.ids for e in encoder.tokenizer.encode_batch(texts, add_special_tokens=False)]
    got = WordPieces(encoder.tokenizer).ids(texts)
    assert [g.tolist() for g in got] == expected
    assert all(g.dtype == np.int32 for g in got)
    # The same through the encoder, cut at a limit, each text's head read first.
    for limit in (5, 256):
        got = encoder.piece_ids(texts, limit)
        assert [g.tolist() for g in got] == [ids[:limit] for ids in expected]
        assert all(g.dtype == np.int32 for g in got)


def test_a_full_store_starts_again_and_still_answers(
    encoder: Encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(word_pieces, "MOST_WORDS", 8)
    pieces = WordPieces(encoder.tokenizer)
    texts = [CODE, "river delta flood mountain glacier", CODE.upper()]
    expected = [e.ids for e in encoder.tokenizer.encode_batch(texts, add_special_tokens=False)]
    for text, ids in zip(texts, expected, strict=True):
        assert [g.tolist() for g in pieces.ids([text])] == [ids]
    # Each text met a store too full for its words: what is kept is the last text's words.
    assert set(pieces._ids) == set(word_pieces._WORD.findall(CODE.lower()))
