"""Passages of code cut at definitions (tree-sitter): whole functions with their comments, a
long class split by its methods under its class line, prose and unknown files untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import rrg_cmd, run
from rrg.rank import code_passages
from rrg.rank.code_passages import MAX_DEFINITION_CHARS, cut_passages
from rrg.rank.paragraphs import split_paragraphs

PYTHON = '''import os
import sys

CONSTANT = 3


# Reads the configuration file.
# Returns a dict.
def load_config(path):
    """Parse the file at path."""
    with open(path) as fh:
        return parse(fh.read())


@cached
def parse(text):
    return dict(line.split("=") for line in text.splitlines())
'''


def _lines(text: str, start: int, end: int) -> str:
    return "\n".join(text.split("\n")[start - 1 : end])


def test_each_function_is_one_passage_with_its_comments_and_decorators() -> None:
    passages = cut_passages(PYTHON, "pkg/config.py")
    texts = [p.text for p in passages]
    assert texts[0] == "import os\nimport sys\n\nCONSTANT = 3"
    assert texts[1].startswith(
        "# Reads the configuration file.\n# Returns a dict.\ndef load_config"
    )
    assert texts[1].endswith("return parse(fh.read())")
    assert texts[2].startswith("@cached\ndef parse(text):")
    for p in passages:  # line numbers are the file's, and the text is those lines
        assert p.text == _lines(PYTHON, p.start, p.end)


@pytest.mark.parametrize(
    ("name", "source", "first_lines"),
    [
        (
            "a.go",
            "package a\n\n// Use adds middleware.\nfunc (r *Router) Use(m Middleware) {\n"
            "\tr.mw = append(r.mw, m)\n}\n\ntype Router struct {\n\tmw []Middleware\n}\n",
            ["package a", "// Use adds middleware.", "type Router struct {"],
        ),
        (
            "a.ts",
            "import { z } from 'zod';\n\nexport class ZodType<T> {\n  parse(x: unknown): T {\n"
            "    return x as T;\n  }\n}\n\nexport function safeParse(x: unknown) {\n"
            "  return x;\n}\n",
            ["import { z } from 'zod';", "export class ZodType<T> {", "export function safeParse"],
        ),
        (
            "a.rs",
            "use std::fmt;\n\n/// A point.\npub struct Point { x: i32 }\n\nimpl Point {\n"
            "    pub fn new() -> Self { Point { x: 0 } }\n}\n",
            ["use std::fmt;", "/// A point.", "impl Point {"],
        ),
        (
            "a.ex",
            'defmodule Ecto.Repo do\n  @moduledoc "A repo."\n  def all(q), do: q\nend\n',
            ["defmodule Ecto.Repo do"],
        ),
    ],
)
def test_definitions_are_cut_in_each_language(
    name: str, source: str, first_lines: list[str]
) -> None:
    passages = cut_passages(source, name)
    heads = [p.text.split("\n")[0] for p in passages]
    assert len(heads) == len(first_lines)
    assert all(head.startswith(first) for head, first in zip(heads, first_lines, strict=True))
    for p in passages:
        assert p.text == _lines(source, p.start, p.end)


def test_a_long_class_is_split_by_its_methods_under_its_class_line() -> None:
    body = "".join(
        f"    def method_{k}(self):\n        '''Step {k}.'''\n" + "        x = 1\n" * 12
        for k in range(12)
    )
    source = "class Engine:\n    '''Runs the steps.'''\n\n" + body
    assert len(source) > MAX_DEFINITION_CHARS
    passages = cut_passages(source, "engine.py")
    assert passages[0].text.startswith("class Engine:") and passages[0].context == ""
    methods = passages[1:]
    assert len(methods) == 12
    assert all(p.context == "class Engine:" for p in methods)
    assert [p.text.split("\n")[0].strip() for p in methods] == [
        f"def method_{k}(self):" for k in range(12)
    ]


def test_prose_unknown_languages_and_huge_files_keep_blank_line_passages() -> None:
    prose = "A title\n\n" + "Some words here. " * 40 + "\n\nMore words.\n"
    assert cut_passages(prose, "notes.md") == split_paragraphs(prose)
    assert cut_passages(PYTHON, "config.unknownext") == split_paragraphs(PYTHON)
    huge = PYTHON * (code_passages.MAX_PARSE_BYTES // len(PYTHON) + 1)
    assert cut_passages(huge, "big.py") == split_paragraphs(huge)


def test_a_file_that_is_not_code_of_its_language_falls_back() -> None:
    garbage = "}}} {{{ ))) this is not python (((\n" * 20
    assert cut_passages(garbage, "broken.py") == split_paragraphs(garbage)


def test_the_no_pattern_mode_prints_the_function_that_answers(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The passage printed is the whole definition, cut where it starts, not a blank-line
    block from the middle of it."""
    root = tmp_path / "proj"
    root.mkdir()
    body = "".join(f"    step_{k} = compute(data, {k})\n\n" for k in range(6))
    (root / "stats.py").write_text(
        "import math\n\n\ndef standard_deviation(data):\n"
        '    """The standard deviation of a list of numbers."""\n'
        + body
        + "    return math.sqrt(variance(data))\n\n\n"
        + "def mean(data):\n    return sum(data) / len(data)\n"
    )
    for k in range(5):
        (root / f"other{k}.py").write_text(f"def helper_{k}():\n    return {k}\n")
    out = run([*rrg_cmd(), "-q", "standard deviation of numbers", "--limit", "1"], root, env)
    assert out.returncode == 0, out.stderr
    head, _, text = out.stdout.decode().partition("\n")
    assert head == "stats.py:4-18:", out.stdout
    assert text.startswith("def standard_deviation(data):") and "return math.sqrt" in text


def test_a_members_doc_comment_and_annotations_stay_with_it() -> None:
    """Split by its members, a class keeps each member's javadoc and annotations in that
    member's passage, and a long member's pieces are read under its signature."""
    source = (
        "public class Gson {\n  private int x;\n\n  /**\n   * Serializes the object.\n   */\n"
        "  public String toJson(Object o) {\n" + "    x = 1;\n" * 300 + "  }\n\n"
        "  // Reads one.\n  @Override\n  public Object fromJson(String s) {\n"
        "    return null;\n  }\n}\n"
    )
    passages = cut_passages(source, "Gson.java")
    assert passages[0].text == "public class Gson {\n  private int x;"
    assert passages[1].text.startswith("  /**\n   * Serializes the object.\n   */\n  public String")
    pieces = [p for p in passages if p.text.startswith("    x = 1;")]
    assert pieces and all(p.context.endswith("public String toJson(Object o) {") for p in pieces)
    assert passages[-1].text.startswith("  // Reads one.\n  @Override\n  public Object fromJson")
    assert all(p.text == _lines(source, p.start, p.end) for p in passages)


def test_the_body_after_a_long_functions_nested_helper_is_read() -> None:
    """A function split by its nested helper keeps the code after the helper (the lines that
    call it) in a passage of its own, under the function's line; a class's closing brace
    alone makes none."""
    helper = "    def step(x):\n" + "        x = x + 1\n" * 150 + "        return x\n\n"
    source = (
        "def solve(data):\n    '''Solve it.'''\n" + helper + "    if not data:\n"
        "        raise ValueError('empty')\n    return step(data)\n"
    )
    assert len(source) > MAX_DEFINITION_CHARS
    passages = cut_passages(source, "solver.py")
    covered = {n for p in passages for n in range(p.start, p.end + 1)}
    lines = source.split("\n")
    assert all(n in covered for n, line in enumerate(lines, 1) if line.strip())
    tail = passages[-1]
    assert tail.text == "    if not data:\n        raise ValueError('empty')\n    return step(data)"
    assert tail.context == "def solve(data):"
    java = (
        "class A {\n"
        + "".join(f"  void m{k}() {{\n" + "    x();\n" * 120 + "  }\n" for k in range(3))
        + "}\n"
    )
    assert len(java) > MAX_DEFINITION_CHARS
    assert not any(p.text.strip() == "}" for p in cut_passages(java, "A.java"))


def test_a_functions_later_parts_answer_as_the_function_a_classs_members_do_not() -> None:
    """A long function's pieces after its first, a helper nested in it and its body after
    the helper name the function in ``within``; the first piece names none, and a class's
    methods are definitions of their own (nor does a method's own first piece)."""
    helper = "    def step(x):\n" + "        x = x + 1\n" * 150 + "        return x\n\n"
    source = (
        "def solve(data):\n    '''Solve it.'''\n\n" + helper + "    if not data:\n"
        "        raise ValueError('empty')\n    return step(data)\n"
    )
    passages = cut_passages(source, "solver.py")
    assert passages[0].name == "solve" and passages[0].within == ""
    assert all(p.within == "solve" for p in passages[1:]), passages
    assert any(p.name == "step" for p in passages[1:])
    long_one = "def add_all(xs):\n" + "    total = total + 1\n" * 300 + "    return total\n"
    pieces = cut_passages(long_one, "adder.py")
    assert len(pieces) > 1 and pieces[0].name == "add_all" and pieces[0].within == ""
    assert all(p.within == "add_all" and p.name == "" for p in pieces[1:])
    java = (
        "class A {\n"
        + "".join(f"  void m{k}() {{\n" + "    x();\n" * 120 + "  }\n" for k in range(3))
        + "}\n"
    )
    methods = cut_passages(java, "A.java")
    firsts = [p for p in methods if p.name.startswith("m")]
    assert len(firsts) == 3 and all(p.within == "" for p in firsts)
    assert {p.within for p in methods} <= {"", "m0", "m1", "m2"}


def test_the_no_pattern_mode_shows_a_nested_helpers_function_from_its_definition(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Issue 35: the passage that answered was a helper nested in a long function, shown
    from the helper's line in the middle of the function's body; the function is what
    answers, printed from its first line (the comment above it with it)."""
    root = tmp_path / "proj"
    root.mkdir()
    helper = (
        "    def fraction_free_elimination(rows):\n"
        "        '''Fraction-free elimination of the determinant, row by row.'''\n"
        + "        rows = eliminate(rows)\n" * 80
        + "        return rows\n\n"
    )
    (root / "det.py").write_text(
        "import math\n\n\n# The determinant by elimination.\ndef det_elimination(matrix):\n"
        "    '''The determinant of a square matrix.'''\n"
        + "    n = len(matrix)\n" * 40
        + "\n"
        + helper
        + "    return fraction_free_elimination(matrix)\n"
    )
    for k in range(5):
        (root / f"other{k}.py").write_text(f"def helper_{k}():\n    return {k}\n")
    query = "fraction-free elimination of the determinant row by row"
    out = run([*rrg_cmd(), "-q", query, "--limit", "1"], root, env)
    assert out.returncode == 0, out.stderr
    head, _, text = out.stdout.decode().partition("\n")
    assert head.startswith("det.py:4-"), out.stdout
    assert text.startswith("# The determinant by elimination.\ndef det_elimination(matrix):")
