"""Names that abbreviate a query's words (rrg/rank/abbreviations.py), and what they change:
the passage tier lifts the passage that defines one, and the stage reads it first."""

from __future__ import annotations

import numpy as np
import pytest

from rrg.rank.abbreviations import abbreviates
from rrg.rank.code_passages import cut_passages
from rrg.rank.code_priors import STOP_WORDS
from rrg.rank.paragraphs import Paragraph
from rrg.rank.passage_tier import tier_order
from rrg.rank.passages import ScoredPassages, pick
from rrg.rank.query import Query, content_words


def said(query: str) -> tuple[str, ...]:
    return content_words(query, STOP_WORDS)


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("factor an integer into its prime factors", "factorint"),
        ("simplify trigonometric expressions", "trigsimp"),
        ("compute the greatest common divisor of two polynomials", "gcd"),
        ("fast fourier transform of a signal", "FFT"),
        ("the determinant by the Bareiss algorithm", "_det_bareiss"),
        ("parse the configuration file", "parseconfig"),
    ],
)
def test_a_name_made_of_pieces_of_the_query_words_abbreviates_it(query: str, name: str) -> None:
    assert abbreviates(name, said(query))


@pytest.mark.parametrize(
    ("query", "name"),
    [
        # One word, or words joined at the name's own boundaries: the word scores match
        # these already.
        ("factor an integer into its prime factors", "factor"),
        ("how does zod validate email strings", "validateEmail"),
        ("check whether a number is prime", "is_prime"),
        # A piece of one word alone, pieces too short, words the query does not say.
        ("how does zod validate email strings", "str"),
        ("factor an integer into its prime factors", "fain"),
        ("factor an integer into its prime factors", "primenu"),
        ("compute the greatest common divisor", "gcdex"),
        # Short words are no pieces: "is" and "as" would join half the names of a tree.
        ("check whether a number is prime", "isprime"),
        ("JSON Schema to Zod schema conversion", "schemas"),
        # A long text's words make any name: an issue's text is not read for them.
        (" ".join(["factor an integer"] + [f"word{k}" for k in range(12)]), "factorint"),
        ("", "gcd"),
    ],
)
def test_other_names_do_not(query: str, name: str) -> None:
    assert not abbreviates(name, said(query))


def test_a_long_generated_name_is_answered_at_once() -> None:
    words = said("aaa aaaa aaaaa aaaaaa aaaaaaa aaaaaaaa aaaaaaaaa aaaaaaaaaa")
    assert not abbreviates("a" * 5000, words)
    assert abbreviates("a" * 11, words)  # "aaa" + "aaaaaaaa", or any other split
    assert not abbreviates("a" * 31 + "b", words)  # every split tried, none ends


def test_an_acronym_takes_adjacent_words_in_order() -> None:
    words = said("greatest common divisor")
    assert abbreviates("gcd", words)
    assert not abbreviates("dcg", words)
    assert not abbreviates("gd", words)  # too short to say anything
    assert not abbreviates("was", said("waiting for any of several futures"))


@pytest.mark.parametrize(
    ("path", "source", "names"),
    [
        ("f.py", "x = 1\n\n@cache\ndef factorint(n):\n    return n\n", ["", "factorint"]),
        ("r.go", "package r\n\nfunc (r *Router) Handle(p string) {}\n", ["", "Handle"]),
        ("a.cc", "int Foo::bar(int x) { return x; }\n", ["bar"]),
        ("m.ts", "export function safeParse(x: string) { return x; }\n", ["safeParse"]),
        ("l.rs", "impl Lock { fn new() -> Lock { Lock } }\n", [""]),
    ],
)
def test_a_passage_carries_the_name_of_the_definition_it_starts(
    path: str, source: str, names: list[str]
) -> None:
    assert [p.name for p in cut_passages(source, path)] == names


def test_only_the_first_piece_of_a_long_definition_carries_its_name() -> None:
    body = "".join(f"    total = total + {k}\n" for k in range(200))
    passages = cut_passages(f"def factorint(n):\n    total = 0\n{body}", "f.py")
    assert len(passages) > 1
    assert [p.name for p in passages] == ["factorint"] + [""] * (len(passages) - 1)


def test_the_tier_lifts_the_passage_that_defines_an_abbreviation() -> None:
    names = ["sympy/ntheory/generate.py", "sympy/ntheory/core.py"]
    passages = ScoredPassages(
        [0, 1],
        [
            Paragraph(1, 2, "def divisors(n):\n    return factors of an integer", "", "divisors"),
            Paragraph(1, 2, "def factorint(n):\n    return n's prime factors", "", "factorint"),
        ],
        np.zeros(2),
        np.full(2, np.nan),
        np.array([6.0, 1.0]),
        np.array([0.7, 0.5]),
    )
    query = "factor an integer into its prime factors"
    assert tier_order(Query.of(query), names, passages, among_code=True) == [0, 1]
    asked = Query.of(query)
    assert tier_order(asked, names, passages, among_code=True, abbreviation=1.0) == [1, 0]


def test_the_stage_reads_the_passages_named_first_then_each_files_best() -> None:
    owners = [0, 0, 0, 1, 1]
    cheap = np.array([5.0, 4.0, 0.1, 3.0, 2.0])
    assert pick(owners, cheap, 3) == [0, 1, 3]
    assert pick(owners, cheap, 3, first=[2]) == [0, 2, 3]


def test_the_stage_picks_the_abbreviating_definitions_of_code_files_best_first() -> None:
    from rrg.rank.passages import PassageScorer, _read_first
    from rrg.rank.tuning import TUNING

    passages = [
        Paragraph(1, 3, "def factorint(n): ...", "", "factorint"),
        Paragraph(1, 3, "def primefactors(n): ...", "", "primefactors"),
        Paragraph(5, 9, "def divisors(n): ...", "", "divisors"),
        Paragraph(1, 2, "factorint is documented here", "", "factorint"),
    ]
    owners, paths = [0, 0, 0, 1], ["sympy/ntheory/core.py", "docs/factoring.md"]
    cheap = np.array([0.1, 0.9, 2.0, 3.0])
    scorer = PassageScorer(None, None, dict, 32, TUNING, None)  # type: ignore[arg-type]
    query = "factor an integer into its prime factors"
    assert _read_first(Query.of(query), paths, owners, passages, cheap, scorer) == [1, 0]
    assert (
        _read_first(Query.of("factorint"), paths, owners, passages, cheap, scorer) == []
    )  # a symbol
    cheap_tier_alone = PassageScorer(None, None, dict, 0, TUNING, None)  # type: ignore[arg-type]
    assert _read_first(Query.of(query), paths, owners, passages, cheap, cheap_tier_alone) == []
