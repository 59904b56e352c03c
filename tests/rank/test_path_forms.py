"""A path word in another form than the query's: a plural or singular (``tasks/`` for
"task"), or the word clipped (``impls.rs`` for "implementations", ``strip.go`` for
"stripping"), counted as the query's word in the path field."""

from __future__ import annotations

from pathlib import Path

import pytest

from rrg.index.textstats import PATH_FIELD, term_id
from rrg.rank.query import PATH_CLIP_LETTERS, PATH_FORM_LETTERS, Query, path_forms


def _term(word: str) -> int:
    return term_id(PATH_FIELD + word)


def test_a_words_forms_are_its_plural_or_singular_then_its_clips() -> None:
    (tasks,) = path_forms("tasks")
    assert tasks[0] == _term("taskss") and tasks[1] == _term("task")
    (stripping,) = path_forms("stripping")
    assert {_term("strip"), _term("strips"), _term("stripp")} <= set(stripping)
    assert stripping.index(_term("strippin")) < stripping.index(_term("strip"))  # longest first
    (implementations,) = path_forms("implementations")
    assert {_term("impl"), _term("impls")} <= set(implementations)
    too_short = "implementations"[: PATH_CLIP_LETTERS - 1]
    assert _term(too_short) not in implementations and _term(too_short + "s") not in implementations


def test_a_very_long_word_is_clipped_from_the_longest_form_a_path_may_hold() -> None:
    """A query word of 100,000 letters (a pasted blob) made a form of every length, each a
    string of up to 100,000 letters: 34 s before the ranking began. Its clips start at
    PATH_FORM_LETTERS letters, longer than a path word runs; a shorter word's are all."""
    (blob,) = path_forms("x" * 100_000)
    clips = PATH_FORM_LETTERS - PATH_CLIP_LETTERS + 1
    assert len(blob) == 1 + 2 * clips  # its plural, then each clip and its plural
    assert blob[1] == _term("x" * PATH_FORM_LETTERS)
    word = "abstractconcurrentinitializercloseandexceptionstesthelper"  # 57 letters
    (forms,) = path_forms(word)
    assert forms[1] == _term(word[:-1]) and _term(word[:51]) in forms  # a test's path word
    assert forms[-1] == _term(word[:PATH_CLIP_LETTERS] + "s")


def test_stop_words_short_words_and_the_querys_own_words_have_no_forms() -> None:
    assert path_forms("the of an") == ()
    forms = path_forms("task tasks")
    assert len(forms) == 2
    assert all(_term("task") not in f and _term("tasks") not in f for f in forms)
    assert Query.of("schemas").path_forms == path_forms("schemas")


def test_a_path_that_clips_the_querys_word_scores_in_the_lexical_signal(
    tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two files with the same text: the one whose path names the query's word in a short
    form gets the higher lexical signal; with no such word in the query, the two tie."""
    import os

    from rrg.index.refresh import open_view
    from rrg.index.served import ServedRoot
    from rrg.model.registry import default_model
    from rrg.model.static_table import static_table
    from rrg.rank.cheap import signals
    from rrg.rank.files import RankSettings, rank_files

    for name in ("RRG_CACHE_DIR", "RRG_INDEX_WAIT_S"):
        monkeypatch.setenv(name, env[name])
    body = "pub fn visit(value: u32) -> u32 {{ value + {k} }}\n// standard library types\n"
    twins = ("src/ser/impls.rs", "src/ser/other.rs")
    for k, rel in enumerate(twins):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body.format(k=k))
    for k in range(8):
        (tmp_path / f"util{k}.rs").write_text(f"pub fn helper_{k}(x: u32) -> u32 {{ x + {k} }}\n")
    monkeypatch.chdir(tmp_path)
    paths = sorted(str(p.relative_to(tmp_path)).encode() for p in tmp_path.rglob("*.rs"))
    served = ServedRoot(os.fsencode(tmp_path), default_model())
    rank_files("standard library", served, paths, RankSettings(0, print))  # builds the index
    view = open_view(served.index_path, static_table(served.encoder).shape[0])
    assert view is not None
    rows = view.rows_of([t.encode() for t in twins])
    clipped, other = signals(Query.of("standard implementations"), view, served.encoder)[0][rows]
    assert clipped > other
    plain, twin = signals(Query.of("standard types"), view, served.encoder)[0][rows]
    assert plain == pytest.approx(twin)
    # One postings list a group of forms: its first held term's, none for a group of none.
    missing, impls, src = _term("nowhere"), _term("impls"), _term("src")
    found = view.first_postings([[missing, impls, src], [missing], [src]])
    assert len(found) == 2
    for got, term in zip(found, (impls, src), strict=True):
        want = view.postings(term)
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
