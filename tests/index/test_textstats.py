"""The index's words: counted once per distinct word, the same counts as word by word."""

from __future__ import annotations

from collections import Counter

from rrg.index.textstats import counted_words, term_counts, term_id, word_counts, words

TEXTS = [
    "",
    "def getUserName(user_name): return HTTPServer2.get(user_name) # getUserName again",
    "Café straße ÉCOLE naïveValue Ölbaum_weg 東京タワー value2Value v2 2024 __init__",
    "XMLHttpRequest xmlHTTPRequest parse_args PARSE_ARGS parseArgs ParseArgs parse args",
    "ÀB àb Àb aÀ ß ǅemal ǅ Ǆ ǆ ﬁle İstanbul",
]


def test_word_counts_are_the_counted_words() -> None:
    for text in TEXTS:
        assert word_counts(text) == Counter(words(text)), text


def test_a_documents_length_counts_every_word_and_part() -> None:
    text = TEXTS[1]
    ids, tfs, length = term_counts(text)
    assert length == len(words(text)) == int(tfs.sum())
    assert list(ids) == sorted(ids)


def test_an_ascii_text_counts_as_any_text() -> None:
    """ASCII text is read with an ASCII pattern: the same words as the general one, a
    non-ASCII letter (which the general pattern keeps inside a word) aside."""
    ascii_text = TEXTS[1] + " " + TEXTS[3]
    assert ascii_text.isascii()
    assert word_counts(ascii_text) == Counter(words(ascii_text))
    assert word_counts(ascii_text + " é") == word_counts(ascii_text) + Counter({"é": 1})


def test_every_ascii_character_parts_words_as_the_general_pattern_does() -> None:
    """ASCII text is split where every character but a letter or digit is made a space:
    controls, the separators ``str.split`` also splits at (\\x1c-\\x1f), the underscore and
    DEL part words as ``[^\\W_]+`` parts them."""
    others = [chr(c) for c in range(128) if not chr(c).isalnum()]
    text = "".join(f"a{other}B{other}9x{other}" for other in others)
    assert text.isascii() and len(others) == 128 - 62
    assert word_counts(text) == Counter(words(text)) == Counter({"a": 66, "b": 66, "9x": 66})
    assert counted_words(text, frozenset({"b", "9x"})) == Counter({"b": 66, "9x": 66})


def test_the_wanted_words_are_counted_as_all_words_are() -> None:
    wanted = frozenset({"user", "name", "café", "straße", "value", "args", "parse", "東京タワー"})
    for text in TEXTS:
        want = Counter({w: c for w, c in Counter(words(text)).items() if w in wanted})
        assert counted_words(text, wanted) == want, text


def test_term_counts_are_the_counted_words_hashed() -> None:
    """A text's terms and counts are its words' counted and hashed one by one (two words
    whose ids collide add up), its length their sum."""
    for text in TEXTS:
        want: Counter[int] = Counter()
        for word, count in Counter(words(text)).items():
            want[term_id(word)] += count
        ids, tfs, length = term_counts(text)
        assert dict(zip(ids.tolist(), tfs.tolist(), strict=True)) == dict(want), text
        assert length == sum(want.values())
