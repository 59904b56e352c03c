"""The RARG keyword rules, table-driven."""

from __future__ import annotations

import pytest

from rrg.rank.keywords import keywords, rerank_query


@pytest.mark.parametrize(
    "patterns,expected",
    [
        (["Copacabana|Link Road clinic|1958"], ["Copacabana", "Link", "Road", "clinic", "1958"]),
        ([r"\bfoo\b"], ["foo"]),
        ([r"\w+_handler\s*\("], ["handler"]),
        ([r"error\.log"], ["errorlog"]),
        ([r"(?i)timeout|TimeOut|retry"], ["timeout", "retry"]),
        ([r"(?x: foo )bar"], ["foo", "bar"]),
        (["a.b/c:d-e", "-leading.dot."], ["a.b/c:d-e", "leading.dot"]),
        (["[A-Z]{3}\\d+"], []),
        ([r"user[_-]?name{2,4}"], ["user", "name"]),
        ([r"[\]x]y"], ["y"]),
        (["café|naïve Zürich"], ["café", "naïve", "Zürich"]),
        (["one", "two|one", "ONE"], ["one", "two"]),
        (["^$*+?()[]{}"], []),
        ([" ".join(f"w{k}" for k in range(40))], [f"w{k}" for k in range(32)]),
    ],
)
def test_keyword_rules(patterns: list[str], expected: list[str]) -> None:
    assert keywords(patterns) == expected


def test_rerank_query_shapes() -> None:
    assert rerank_query("who built it", ["Link|1958"]) == "who built it\n\nRG focus: Link 1958"
    assert rerank_query("q", ["^$"]) == "q"
    assert rerank_query("q", ["x"], "Given a web search query, retrieve relevant passages") == (
        "Instruct: Given a web search query, retrieve relevant passages\nQuery: q\n\nRG focus: x"
    )
