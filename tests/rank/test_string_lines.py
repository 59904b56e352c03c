"""Which lines of a file lie inside its multi-line strings (``rrg.rank.string_lines``): the
lines a capped search takes a file's line from after its code."""

from __future__ import annotations

from rrg.rank.paragraphs import Paragraph
from rrg.rank.string_lines import string_spans


def string_lines(passages: list[Paragraph], suffix: str) -> set[int]:
    return {n for a, b in string_spans(passages, suffix) for n in range(a, b + 1)}


_TEXT = (
    "class Form:\n"  # 1
    '    """\n'  # 2
    "    ```python\n"  # 3
    "    def login(form_data):\n"  # 4
    "    ```\n"  # 5
    '    """\n'  # 6
    "\n"  # 7
    "    def __init__(self):\n"  # 8
    '        sql = """select\n'  # 9: code opens the string: the line is code's
    '        from t""" + where\n'  # 10: code after the string's end
    '        return r"""one line"""  # """ in a comment\n'  # 11
    "    '''\n"  # 12
    "    def example(): ...\n"  # 13
    "    '''\n"  # 14
)


def test_docstring_lines_are_the_strings_and_the_code_around_them_is_not() -> None:
    inside = string_lines([Paragraph(1, 14, _TEXT)], ".py")
    assert sorted(inside) == [2, 3, 4, 5, 6, 12, 13, 14]


def test_a_passage_that_starts_inside_a_docstring_is_read_after_the_ones_before_it() -> None:
    """A long docstring's later piece holds its closing quotes first: read alone it would
    look like code ending in an open string."""
    lines = _TEXT.split("\n")
    head = Paragraph(1, 3, "\n".join(lines[:3]) + "\n")
    tail = Paragraph(4, 14, "\n".join(lines[3:]))
    assert string_lines([tail, head], ".py") == string_lines([Paragraph(1, 14, _TEXT)], ".py")
    assert 4 in string_lines([tail, head], ".py")


def test_three_quotes_are_no_string_where_the_language_has_none() -> None:
    assert string_lines([Paragraph(1, 14, _TEXT)], ".rs") == set()
    assert string_lines([Paragraph(1, 14, _TEXT)], ".go") == set()


def test_an_elixir_moduledoc_and_a_kotlin_raw_string() -> None:
    elixir = (
        'defmodule Repo do\n  @moduledoc """\n  def all(query)\n  """\n  def all(q), do: q\nend\n'
    )
    assert sorted(string_lines([Paragraph(1, 6, elixir)], ".ex")) == [3, 4]
    kotlin = 'val sql = """\n    fun f()\n""".trimIndent()\nfun g() = 1\n'
    assert sorted(string_lines([Paragraph(1, 4, kotlin)], ".kt")) == [2]
