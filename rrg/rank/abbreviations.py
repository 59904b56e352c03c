"""Names that abbreviate a query's words: ``factorint`` for "factor an integer",
``trigsimp`` for "simplify trigonometric expressions", ``gcd`` for "greatest common divisor".

Code names things by clipped, joined words; a question spells them out. Neither BM25 nor
the static vectors join the two (``factorint`` is one word to both), so a definition named
that way is found only if the model happens to read it. Pure: names and words in, a verdict
out (``abbreviating`` reads them off a query's passages, for the passage tier and the stage).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rrg.index.definitions import is_code
from rrg.rank.paragraphs import Paragraph
from rrg.rank.query import Query

#: The shortest piece of a query word that counts as its abbreviation (``int``, ``det``).
MIN_PIECE = 3
#: The fewest initials an acronym has (``gcd``, ``lcm``, ``fft``).
MIN_ACRONYM = 3
#: A query of more content words than this is not read for abbreviations: pieces of any two
#: of its words make a name. An issue's text (60-800 words) matched 20-600 of sympy's
#: definition names each; a question of a sentence matches a few.
MAX_WORDS = 12
#: Letters of the longest name read: a clipped name is short, and the search over a long
#: one grows with the words that share its pieces (45 letters over 12 words that share
#: their first three took 65 ms).
MAX_NAME = 32


def abbreviating(
    query: Query, paths: Sequence[str], owners: Sequence[int], passages: Sequence[Paragraph]
) -> list[int]:
    """The passages (indices) that start a definition, in a file of code (``paths``, their
    files' by ``owners``), whose name abbreviates the query's words; none for a symbol
    query, which names what it asks for itself."""
    if query.form.symbol:
        return []
    said = query.said
    code = [is_code(path) for path in paths]
    return [
        k
        for k, passage in enumerate(passages)
        if passage.name and code[owners[k]] and abbreviates(passage.name, said)
    ]


def abbreviates(name: str, words: tuple[str, ...]) -> bool:
    """Whether ``name`` is made of pieces of two or more of the query's content ``words``
    (``rrg.rank.query.content_words``; each piece the start of a distinct word, at least
    ``MIN_PIECE`` letters of it, in any order) or is the acronym of adjacent ones, in a
    query of at most ``MAX_WORDS`` such words. A name that is one query word, or joins
    whole query words at its own boundaries (``user_name``), is left to the word scores,
    which match it already; pieces also join what they miss for want of a stemmer
    (``schedule_task`` for "tasks are scheduled")."""
    letters = re.sub(r"[^a-z0-9]", "", name.lower())
    said = [w for w in words if w]
    if not MIN_ACRONYM <= len(letters) <= MAX_NAME or not said or len(said) > MAX_WORDS:
        return False
    if _spelled_out(name, words):
        return False
    if len(letters) <= len(said) and _acronym(letters, words):
        return True
    long_enough = tuple(sorted({w for w in words if len(w) >= MIN_PIECE}))
    if len(letters) > sum(map(len, long_enough)):
        return False  # longer than all the words together: no split (and none searched)
    return _pieces(letters, long_enough)


def _spelled_out(name: str, words: tuple[str, ...]) -> bool:
    parts = [p.lower() for p in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", name)]
    return bool(parts) and all(p in words for p in parts)


def _acronym(letters: str, words: tuple[str, ...]) -> bool:
    initials = "".join(w[0] if w else " " for w in words)
    return len(letters) >= MIN_ACRONYM and letters in initials


def _pieces(letters: str, words: tuple[str, ...]) -> bool:
    """Whether ``letters`` splits into two or more pieces of distinct ``words``: a search
    over (place, words used), each state met once, given up past ``_STATES`` (a split that
    needs more is no abbreviation a person wrote)."""
    seen: set[tuple[int, frozenset[str]]] = set()

    def split(at: int, used: frozenset[str]) -> bool:
        if at == len(letters):
            return len(used) >= 2
        if (at, used) in seen or len(seen) > _STATES:
            return False
        seen.add((at, used))
        for word in words:
            if word in used:
                continue
            longest = 0
            while (
                at + longest < len(letters)
                and longest < len(word)
                and letters[at + longest] == word[longest]
            ):
                longest += 1
            for size in range(longest, MIN_PIECE - 1, -1):
                if split(at + size, used | {word}):
                    return True
        return False

    return split(0, frozenset())


#: States the split search visits at most for one name.
_STATES = 2_000
