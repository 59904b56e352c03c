"""The code priors: what a query's form and a file's path say before its words are weighed;
each part pinned alone, then the order of a real search over a small code tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import rrg_cmd, run
from rrg.rank import code_priors as priors


@pytest.mark.parametrize(
    ("query", "names", "symbol"),
    [
        ("ZodType", ("ZodType",), True),
        ("parse_args", ("parse_args",), True),
        ("Sinatra::Base", ("Base", "Sinatra::Base"), True),
        ("http.Client", ("Client", "http.Client"), True),
        ("URL", ("URL",), True),
        ("session", (), False),  # one plain word is a natural-language query
        ("how ZodType parses input", ("ZodType",), False),
        ("where safeParse and parse_args live", ("safeParse", "parse_args"), False),
        ("retry on timeout", (), False),
    ],
)
def test_query_form_tells_identifiers_from_words(
    query: str, names: tuple[str, ...], symbol: bool
) -> None:
    form = priors.query_form(query)
    assert form.names == names and form.symbol is symbol


@pytest.mark.parametrize(
    ("line", "defines"),
    [
        ("class Router(object):", True),
        ("export class Router<T> {", True),
        ("public final class Router implements Handler {", True),
        ("type Router interface {", True),
        ("func (mx *Mux) Router() http.Handler {", True),
        ("pub struct Router {", True),
        ("defmodule Phoenix.Router do", True),
        ("int Router(struct loop *l) {", True),  # C: no keyword, a declaration at column 0
        ("    return Router(x)", False),
        ("  Router(loop);", False),
        ("int Router(struct loop *l);", False),  # a prototype, not the definition
        ("class RouterGroup:", False),  # a longer name
        ("# the Router class routes requests", False),
    ],
)
def test_definition_pattern_finds_definitions_not_uses(line: str, defines: bool) -> None:
    pattern = priors.definition_pattern(("Router",))
    assert pattern is not None
    assert bool(pattern.search(line)) is defines


@pytest.mark.parametrize(
    ("path", "kinds"),
    [
        ("src/router.go", 0),
        ("src/router_test.go", 1),
        ("tests/test_router.py", 1),
        ("src/test/java/RouterTest.java", 1),
        ("docs/routing.md", 1),
        ("examples/basic/main.go", 1),
        ("benches/route.rs", 1),
        ("types/index.d.ts", 1),
        ("third_party/lib/x.c", 1),
        ("src/Latest.java", 0),  # "test" inside a word is no test
        ("src/contest/score.py", 0),
    ],
)
def test_secondary_files_are_told_by_their_paths(path: str, kinds: int) -> None:
    assert priors.secondary_kinds(path, frozenset()) == kinds


def test_a_query_that_asks_for_tests_does_not_push_them_down() -> None:
    asked = priors.query_form("where is routing tested").asks_for
    assert priors.secondary_kinds("tests/test_router.py", asked) == 0
    assert priors.secondary_kinds("docs/routing.md", asked) == 1


def test_stem_share_counts_query_words_in_the_stem_and_folder() -> None:
    form = priors.query_form("request routing middleware")
    parts = priors.stem_words("middleware/routing.go")
    assert priors.stem_share(form.words, parts) == pytest.approx(2 / 3)
    parts = priors.stem_words("src/other.go")
    assert priors.stem_share(form.words, parts) == 0.0


def _tree(root: Path) -> Path:
    """A source file that defines Router, one that only uses it many times, and a test."""
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src" / "routing.py").write_text(
        "class Router:\n    '''Dispatches a request to the handler of its path.'''\n\n"
        "    def add(self, path, handler):\n        self.routes[path] = handler\n"
    )
    uses = "".join(f"r{k} = Router()\nr{k}.add('/p{k}', handler)\n" for k in range(30))
    (root / "src" / "app.py").write_text("from routing import Router\n\n" + uses)
    (root / "tests" / "test_routing.py").write_text(
        "from routing import Router\n\n"
        + "".join(f"def test_router_{k}():\n    assert Router()\n" for k in range(20))
    )
    for k in range(10):
        (root / "src" / f"other{k}.py").write_text(f"def helper_{k}(x):\n    return x + {k}\n")
    return root


@pytest.mark.parametrize("fast", [True, False])
def test_a_symbol_query_ranks_the_defining_file_first(
    tmp_path: Path, env: dict[str, str], fast: bool
) -> None:
    tree = _tree(tmp_path / "code")
    flags = ["--fast"] if fast else []
    out = run([*rrg_cmd(), "-q", "Router", *flags, "--files"], tree, env)
    assert out.returncode == 0, out.stderr
    ranked = out.stdout.decode().splitlines()
    assert ranked[0] == "src/routing.py", ranked
    # The test file names Router as often as app.py does, but ranks below it.
    assert ranked.index("src/app.py") < ranked.index("tests/test_routing.py"), ranked


def test_a_question_about_tests_still_finds_them(tmp_path: Path, env: dict[str, str]) -> None:
    tree = _tree(tmp_path / "code")
    out = run([*rrg_cmd(), "-q", "router tests", "--fast", "--files"], tree, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode().splitlines()[0] == "tests/test_routing.py"
