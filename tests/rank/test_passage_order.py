"""The order of a file's passages, in this process: where a capped search's lines of a file
come from (``line_spans``) and what ``-q`` without a pattern shows first (``preferred``)."""

from __future__ import annotations

import numpy as np

from rrg.rank.paragraphs import Paragraph
from rrg.rank.passage_order import line_spans, preferred
from rrg.rank.passages import ScoredPassages
from rrg.rank.query import Query
from rrg.rg.chosen_lines import chosen

_HEAD = Paragraph(
    1, 12, 'def depends(dependency):\n    """Declare a dependency."""\n', name="depends"
)
_EXAMPLE = Paragraph(
    13, 30, "    async def common_parameters(q):\n        yield q\n", within="depends"
)
_OTHER = Paragraph(32, 40, "def security(scopes):\n    return scopes\n", name="security")


def _scored(cheap: list[float], cosine: list[float]) -> ScoredPassages:
    return ScoredPassages(
        owners=[0, 0, 0],
        paragraphs=[_HEAD, _EXAMPLE, _OTHER],
        cheap=np.array(cheap),
        cosine=np.array(cosine),
    )


def test_a_functions_first_passage_comes_before_the_later_part_that_raised_it() -> None:
    """The docstring's example (a later piece) scores best; the function is shown from its
    first line, so a capped search prints ``def depends``, not the example's ``def``."""
    query = Query.of("how are dependencies with yield cleaned up")
    for cosine in ([np.nan] * 3, [0.1, 0.8, 0.5]):
        scored = _scored([0.2, 0.9, 0.5], cosine)
        spans = [span[1:] for span in line_spans(scored, query, [b"params.py"])]
        assert spans == [(1, 1), (1, 12), (13, 30), (32, 32), (32, 40)]
        assert preferred(scored, query, [b"params.py"])[:2] == [0, 1]


def test_a_better_function_still_comes_before_the_raised_one() -> None:
    query = Query.of("security scopes")
    scored = _scored([0.2, 0.3, 0.9], [np.nan] * 3)
    spans = [span[1:] for span in line_spans(scored, query, [b"params.py"])]
    assert spans == [(32, 32), (32, 40), (1, 1), (1, 12), (13, 30)]


def test_a_definitions_own_line_comes_before_its_doc_comments_example() -> None:
    """A pattern that the doc comment's example matches too prints the signature."""
    text = (
        "/// Locks this lock for writing, owned.\n"
        "///\n"
        "/// # async fn main() {\n"
        "/// let guard = lock.write_owned().await;\n"
        "/// # }\n"
        "pub async fn write_owned(self: Arc<Self>) -> OwnedWriteGuard<T> {\n"
        "    self.acquire().await\n"
        "}\n"
    )
    passage = Paragraph(10, 17, text, name="write_owned")
    scored = ScoredPassages([0], [passage], np.array([0.5]), np.array([np.nan]))
    spans = line_spans(scored, Query.of("acquire the lock for writing"), [b"rwlock.rs"])
    assert [span[1:] for span in spans] == [(15, 15), (15, 17), (10, 17)]
    matching = [12, 15]  # `fn \w+` matches the example's line and the signature
    assert chosen(matching, [span[1:] for span in spans], 1) == [1]
    # Given two lines, the file prints the definition and its body, not the comments
    # above it first (lines print in the file's order).
    matching = [10, 12, 15, 16]  # two comment lines, the signature, a line of the body
    assert chosen(matching, [span[1:] for span in spans], 2) == [2, 3]


_CLASS = Paragraph(
    17,
    28,
    "class HTTPException(StarletteHTTPException):\n"
    '    """\n'
    "    An HTTP exception you can raise in your own code.\n"
    "\n"
    "    ```python\n"
    '    @app.get("/items/{item_id}")\n'
    "    async def read_item(item_id: str):\n"
    '        raise HTTPException(status_code=404, detail="Item not found")\n'
    "    ```\n"
    '    """\n'
    "\n"
    "    headers: dict\n",
    name="HTTPException",
)
_INIT = Paragraph(30, 33, "    def __init__(self, status_code):\n        pass\n", name="__init__")


def test_a_docstrings_example_waits_for_the_code_of_the_files_next_passages() -> None:
    """fastapi's ``exceptions.py`` printed the docstring's ``async def read_item(`` for
    ``-n 'def \\w+'``: the class's best passage holds no other match, and its method's
    passage, next, holds the class's own ``def __init__(``."""
    scored = ScoredPassages([0, 0], [_CLASS, _INIT], np.array([0.9, 0.5]), np.array([np.nan] * 2))
    spans = [span[1:] for span in line_spans(scored, Query.of("HTTPException"), [b"exc.py"])]
    assert spans == [(17, 17), (27, 28), (30, 33), (17, 28)]
    matching = [23, 30]  # the example's `def` and the method's
    assert chosen(matching, spans, 1) == [1]
    # In a language without triple-quoted strings the passage's lines are its code.
    same = line_spans(scored, Query.of("HTTPException"), [b"exc.rs"])
    assert chosen(matching, [span[1:] for span in same], 1) == [0]


def test_code_above_a_nested_definition_comes_before_the_comments() -> None:
    """serde's ``bound.rs``: a passage of a nested struct starts where its enclosing
    function does, so the code above the struct's line holds ``pub fn with_bound(``: code,
    not prose, which a definition pattern prints before another passage's line."""
    text = (
        "// Remove the default from every type parameter.\n"  # 86
        "pub fn with_bound(cont: &Container) -> syn::Generics {\n"  # 87
        "    /// A visitor of every type that names a type parameter.\n"  # 88
        "    struct FindTyParams<'ast> {\n"  # 89
        "        relevant: HashSet<syn::Ident>,\n"  # 90
        "    }\n"  # 91
    )
    nested = Paragraph(86, 91, text, name="FindTyParams", within="with_bound")
    other = Paragraph(95, 99, "fn make_where_bounded_type(\n) {}\n", name="make_where_bounded_type")
    scored = ScoredPassages([0, 0], [nested, other], np.array([0.9, 0.5]), np.array([np.nan] * 2))
    spans = [span[1:] for span in line_spans(scored, Query.of("type bounds"), [b"bound.rs"])]
    assert spans[:3] == [(89, 89), (89, 91), (87, 87)]
    matching = [87, 95]  # `fn \w+`: the enclosing function's line and the next passage's
    assert chosen(matching, spans, 1) == [0]
    # The comments wait for the next passage's code: `fn` in a doc comment's example.
    assert chosen([88, 95], spans, 1) == [1]
