"""A query as the ranking reads it: its text and the forms its steps weigh, made once.

The cheap tier, the code priors, the stage, the passage tier and the passages printed all
ask the same questions of a query (which index terms its words and its path words are,
which identifiers it names, whether it is one, which kinds of file it asks for, which
words a passage's BM25 counts, which words an abbreviation is read against);
``rank_files`` answers them here, once, and hands the answers down.
Pure: a string in, its forms out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from rrg.index.textstats import (
    PATH_FIELD,
    path_words,
    query_path_ids,
    query_term_ids,
    term_id,
    words,
)
from rrg.rank.code_priors import STOP_WORDS, QueryForm, query_form
from rrg.rank.named_files import NamedFile, named_files, pasted_names
from rrg.rank.pasted import Phrase, read_pasted

_SAID = re.compile(r"[A-Za-z][A-Za-z0-9]*")
#: The fewest letters of a query word that a path word may keep of it: ``impl`` of
#: "implementations", ``strip`` of "stripping", ``config`` of "configuration". Swept on
#: the dev half, 3 / 4 / 5 / 6 (docs/benchmarks.md, "A path word in another form").
PATH_CLIP_LETTERS = 4
#: The most letters of a clipped form: longer than any path word of the 18 whole trees of
#: semble-code (61 letters, a test class's name), shorter than a pasted blob. Each form
#: of a word is a string of up to its length, and a word of 100,000 letters (base64, a
#: minified line given as the query) made 100,000 of them: 34 s before the ranking began.
PATH_FORM_LETTERS = 64


@dataclass(frozen=True)
class Query:
    text: str  # as the user asked it
    form: QueryForm  # the identifiers it names, whether it is one, the kinds it asks for
    terms: frozenset[str]  # its words as a passage's BM25 counts them (``textstats.words``)
    #: Its content words in order, an empty string where stop words stood
    #: (``content_words``): what a name abbreviates (``rrg.rank.abbreviations``).
    said: tuple[str, ...]
    term_ids: tuple[int, ...]  # its words' terms in the index's text field, ascending
    path_ids: tuple[int, ...]  # its path words' terms in the index's path field, ascending
    #: Each path word's other forms as path-field terms, the likeliest first (``path_forms``).
    path_forms: tuple[tuple[int, ...], ...]
    #: The text it pastes, an error's message or a quoted phrase (``rrg.rank.pasted``).
    pasted: tuple[Phrase, ...] = ()
    #: The files it names by their paths (a diagnostic's or a traceback's), by a
    #: module's name or by their folder's, then those the text it pastes names beyond
    #: doubt (``rrg.rank.named_files``).
    named: tuple[NamedFile, ...] = ()

    @classmethod
    def of(cls, text: str) -> Query:
        pasted, unpasted, read = read_pasted(text)
        named = named_files(unpasted)
        form = query_form(text)
        if unpasted != text:  # what it pastes asks for no kind of file ("test", "locale")
            form = replace(form, asks_for=query_form(unpasted).asks_for)
        return cls(
            text,
            form,
            frozenset(words(text)),
            content_words(text),
            tuple(query_term_ids(text).tolist()),
            tuple(query_path_ids(text).tolist()),
            path_forms(text),
            pasted,
            named + pasted_names(read, named),
        )


def path_forms(text: str) -> tuple[tuple[int, ...], ...]:
    """For each content word of a query's path words (``textstats.path_words``) of three
    letters or more, the path-field terms of the other forms a file's path may give it, in
    the order they are tried: its plural, or singular (``tasks/`` for "task", ``schema.ts``
    for "schemas"), then the word clipped to each shorter length (``PATH_FORM_LETTERS`` at
    most) down to ``PATH_CLIP_LETTERS`` letters, longest first, each with its plural
    (``impls.rs`` for "implementations", ``strip.go`` for "stripping"). A path names a
    topic in a word's short form, a question spells it out; the cheap tier counts the
    first form a file's path holds (``rrg.rank.cheap.signals``). A form that is itself a
    word of the query is left out: it is counted as that word already."""
    own = set(path_words(text))  # the query's path words (not ``Query.said``)
    out: list[tuple[int, ...]] = []
    for word in sorted(own):
        if len(word) < 3 or word in STOP_WORDS:
            continue
        forms = [word + "s"]
        if word.endswith("s") and len(word) > 3:
            forms.append(word[:-1])
        for letters in range(min(len(word) - 1, PATH_FORM_LETTERS), PATH_CLIP_LETTERS - 1, -1):
            forms += [word[:letters], word[:letters] + "s"]
        kept = [f for f in dict.fromkeys(forms) if f not in own]
        out.append(tuple(term_id(PATH_FIELD + form) for form in kept))
    return tuple(out)


def content_words(query: str, stop_words: frozenset[str] = STOP_WORDS) -> tuple[str, ...]:
    """The query's words in its order, lower-cased, ``stop_words`` out; an empty string
    where one or more were left out, so that an acronym is read off adjacent words alone
    ("greatest common divisor", not "waiting for any of several")."""
    out: list[str] = []
    for word in _SAID.findall(query):
        word = word.lower()
        if word not in stop_words:
            out.append(word)
        elif out and out[-1]:
            out.append("")
    return tuple(out)
