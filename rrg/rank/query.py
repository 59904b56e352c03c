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
from dataclasses import dataclass

from rrg.index.textstats import query_path_ids, query_term_ids, words
from rrg.rank.code_priors import STOP_WORDS, QueryForm, query_form

_SAID = re.compile(r"[A-Za-z][A-Za-z0-9]*")


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

    @classmethod
    def of(cls, text: str) -> Query:
        return cls(
            text,
            query_form(text),
            frozenset(words(text)),
            content_words(text),
            tuple(query_term_ids(text).tolist()),
            tuple(query_path_ids(text).tolist()),
        )


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
