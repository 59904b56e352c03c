"""A BERT tokenizer's WordPiece ids, read a word at a time with each distinct word's pieces
kept: the same ids as ``Tokenizer.encode_batch`` for the texts it can read so, in about two
fifths of the time (2,500 of sympy's passages: 0.56 -> 0.21 s).

Why: the cheap tier's passages and the index's files are tokenised for their static vectors
alone, and ``encode_batch`` builds a whole ``Encoding`` a text (tokens, offsets, masks) and
normalises it a character at a time; the passages of a new query's files were a third of its
time on sympy. Code is mostly ASCII and repeats a few thousand words. On ASCII text BERT's
normaliser only lower-cases and drops control characters, and its pre-tokeniser splits at
whitespace and around every other character that is not a letter or a digit (all of ASCII's
symbols are punctuation to it), so a text's ids are its words' ids one after another, and a
word's ids do not depend on its neighbours. A text this cannot read so (a character outside
printable ASCII, tab and newline; an added token's text such as ``[MASK]``) goes to the
tokenizer itself.
"""

from __future__ import annotations

import re
import threading
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tokenizers import Tokenizer

_WORD = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")
_NOT_PRINTABLE_ASCII = re.compile(r"[^\t\n\r\x20-\x7e]")

#: Distinct words kept at most; then the store starts again. A cold build of 200,000
#: files meets millions (numbers, hashes); a query's passages a few thousand. A word costs
#: about 120 bytes here (its text and its ids as bytes): that build peaked at 262 MB with
#: 100,000 words, 276 MB with 200,000 (244 MB before this store), at the same speed.
MOST_WORDS = 100_000


class WordPieces:
    """The ids of texts under one BERT-style tokenizer (``reads_by_word`` says which)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        # Lower-cased, so that an added token matched before or after normalising is seen.
        self._added = [t.content.lower() for t in tokenizer.get_added_tokens_decoder().values()]
        # A word's ids as the bytes of an array: a text's are its words' joined in C, and a
        # list of Python ints would cost 28 bytes an id (the 200,000-file build peaked 80 MB
        # higher with lists).
        self._dtype = np.dtype(np.uint16 if tokenizer.get_vocab_size() <= 65536 else np.uint32)
        self._ids: dict[str, bytes] = {}
        # The index's build tokenises on a thread of its own while a query may read
        # passages on another; a store cleared under a reader would lose its words.
        self._lock = threading.Lock()

    def ids(self, texts: list[str]) -> list[np.ndarray]:
        """Each text's ids (int32), without special tokens and uncut."""
        words = [self._words(text) for text in texts]
        with self._lock:
            self._learn(set(chain.from_iterable(w for w in words if w is not None)))
            joined = [
                b"".join(map(self._ids.__getitem__, w)) if w is not None else b"" for w in words
            ]
        out = [np.frombuffer(b, self._dtype).astype(np.int32) for b in joined]
        unsure = [k for k, w in enumerate(words) if w is None]
        if unsure:
            encodings = self.tokenizer.encode_batch(
                [texts[k] for k in unsure], add_special_tokens=False
            )
            for k, encoding in zip(unsure, encodings, strict=True):
                out[k] = np.asarray(encoding.ids, np.int32)
        return out

    def _words(self, text: str) -> list[str] | None:
        """The text's words as BERT splits them; None where the tokenizer must read it."""
        if not text.isascii() or _NOT_PRINTABLE_ASCII.search(text):
            return None
        lowered = text.lower()
        if any(token in lowered for token in self._added):
            return None
        return _WORD.findall(lowered)

    def _learn(self, words: set[str]) -> None:
        new = list(words.difference(self._ids))
        if not new:
            return
        if len(self._ids) + len(new) > MOST_WORDS:
            self._ids.clear()
            new = list(words)
        encodings = self.tokenizer.encode_batch(new, add_special_tokens=False)
        dtype = self._dtype
        self._ids.update(
            zip(new, (np.array(e.ids, dtype).tobytes() for e in encodings), strict=True)
        )


def reads_by_word(tokenizer: Tokenizer) -> bool:
    """Whether ``WordPieces`` gives this tokenizer's ids: BERT's lower-casing normaliser
    (dropping control characters) and pre-tokeniser before a WordPiece model."""
    from tokenizers import models, normalizers, pre_tokenizers

    norm = tokenizer.normalizer
    try:
        return bool(
            isinstance(norm, normalizers.BertNormalizer)
            and norm.lowercase
            and norm.clean_text
            and isinstance(tokenizer.pre_tokenizer, pre_tokenizers.BertPreTokenizer)
            and isinstance(tokenizer.model, models.WordPiece)
            and hasattr(tokenizer, "get_added_tokens_decoder")  # ``WordPieces`` reads them
        )
    except AttributeError:  # a release whose normaliser cannot say: read by the tokenizer
        return False
