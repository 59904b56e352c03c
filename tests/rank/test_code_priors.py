"""The code priors: what a query's form and a file's path say before its words are weighed;
each part pinned alone, then the order of a real search over a small code tree."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import rrg_cmd, run
from rrg.index.definitions import MAX_NAMES, TOP_LEVEL, defined_names
from rrg.rank import code_priors as priors
from rrg.rank.tuning import TUNING


def _ranked(root: Path, env: dict[str, str], query: str, fast: bool = True) -> list[str]:
    """The files ``rrg -q QUERY --files`` lists in ``root`` (``--fast`` unless not
    ``fast``), best first."""
    flags = ["--fast"] if fast else []
    out = run([*rrg_cmd(), "-q", query, *flags, "--files"], root, env)
    assert out.returncode == 0, out.stderr
    return out.stdout.decode().splitlines()


#: A one-line file of no topic in each language (``{k}``: its number).
_UNRELATED = {
    ".rs": "pub fn helper_{k}(x: u32) -> u32 {{ x + {k} }}\n",
    ".ts": "export const helper{k} = (x) => x + {k};\n",
    ".py": "def helper_{k}(x):\n    return x + {k}\n",
}


def _add_unrelated_files(folder: Path, suffix: str) -> None:
    """Eight files of no topic beside the ones a test ranks: a tree where the query's
    words are rare, as in a real repository."""
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(8):
        (folder / f"util{k}{suffix}").write_text(_UNRELATED[suffix].format(k=k))


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
    ("path", "line", "kind"),
    [
        ("a.py", "class Router(object):", "type"),
        ("a.ts", "export class Router<T> {", "type"),
        ("A.java", "public final class Router implements Handler {", "type"),
        ("a.go", "type Router interface {", "type"),
        ("a.go", "func (mx *Mux) Router() http.Handler {", "function"),
        ("a.rs", "pub struct Router {", "type"),
        ("a.rs", "impl Router {", "type"),  # an inherent impl: the type's own methods
        ("a.rs", "impl Router for Mux {", None),  # implements the trait, defines it not
        ("a.rs", "impl Router<Body> for Mux {", None),
        ("a.ex", "defmodule Phoenix.Router do", "module"),
        ("a.ts", "export const Router = createRouter()", "value"),
        ("a.kt", "public fun <T> Router(block: () -> T): T {", "function"),
        ("a.kt", "fun <T> Flow<T>.Router(x: T)", "function"),
        ("A.java", "  public static class Router {", "type"),
        ("a.py", "    # the default type\n\n    Router = make()", None),  # never across lines
        ("a.c", "int Router(struct loop *l) {", "function"),  # C: a declaration at column 0
        ("a.c", "static int\nRouter(struct loop *l)\n{", "function"),  # its type above
        ("a.py", "    return Router(x)", None),
        ("a.c", "  Router(loop);", None),
        ("a.c", "int Router(struct loop *l);", None),  # a prototype, not the definition
        ("a.py", "Router(loop)", None),  # a call at column 0 defines nothing outside C
        ("a.py", "class RouterGroup:", None),  # a longer name
        ("a.py", "# the Router class routes requests", None),
        ("notes.md", "class Router:", None),  # prose defines nothing
        # Methods no keyword opens: declared in a class body (Java, C#, TS/JS, Dart).
        ("A.java", "  public <T> T Router(String json) throws IOException {", "function"),
        ("A.java", "    @Deprecated public Map<String, List<Long>> Router() {", "function"),
        # An override implements its base's name (as Rust's ``impl Trait for``), defines none.
        ("A.java", "    @Override public int Router() {", None),
        ("A.java", "    @Override\n    @Deprecated\n    public int Router() {", None),
        ("A.cs", "        public override string Router()", None),
        ("A.java", "    static boolean Router(final CharSequence cs,", "function"),
        ("A.cs", "        public static async Task<int> Router(int id)", "function"),
        ("a.ts", "  Router() {", "function"),
        ("a.ts", "  static async Router(opts?: Options): Promise<Foo> {", "function"),
        ("A.java", "    void Router();", None),  # an interface's: its implementation defines
        ("A.java", "    return Router(x) {", None),
        ("A.java", "    Foo x = Router(y) {", None),
        ("A.java", "        options.root, Router(x)", None),  # a call's continued line
        ("a.ts", "    ? Router(root, x)", None),
        ("a.ts", "  Router('routes', () => {", None),  # a test's block, a callback
        ("a.ts", "  Router(value).toEqual({", None),
        ("A.java", "Router(x) {", None),  # a method is in a class body: indented
        ("a.kt", "fun <Key : Any, T : IdTable<Key>> T.Router(", "function"),  # nested <>
        # C's aliases: the keyword reading names the struct; the alias is the name asked.
        ("a.h", "typedef struct router_s Router;", "type"),
        ("a.h", "typedef void (*Router)(int status);", "type"),
        ("a.h", "typedef struct {\n  int fd;\n} Router;", "type"),
        # The word after static or const where a name follows it is a type, not a definition.
        ("a.c", "static Router default_router;", None),
        ("a.c", "int route(const Router* r) {", None),
        ("A.java", "    public static Router make() {", None),
        ("a.rs", "pub static Router: u8 = 1;", "value"),  # Rust's type comes after the name
        ("a.go", "const Router int = 1", "value"),  # and Go's
        ("a.ts", "export type Router<T = any> = {", "type"),  # TypeScript's alias: its "="
        ("a.ts", 'import { type Router, Route } from "./router.js";', None),  # imported
        ("a.ts", "  type Router,", None),  # a line of an import's list
        # A comment's prose or example defines nothing: "the function Router returns".
        ("a.rs", "    /// # async fn Router() {", None),
        ("a.go", "// This function Router is called on every request", None),
        ("A.java", "   * the class Router holds", None),
        ("a.c", "/* struct Router is opaque */", None),
        ("a.py", "    # def Router(app): the old way", None),
        ("a.lua", "-- function Router(req)", None),
        ("a.rs", "#[test] fn Router() {", "function"),  # an attribute, no comment
        ("a.ts", "export function Router() { // the function Router", "function"),
        # A docstring's prose, which no comment marker opens, in a language with keywords of
        # its own: Python's def, class and an alias's type; Elixir's def and defmodule.
        ("a.py", '    """Load it from a static Router."""', None),
        ("a.py", "    the function Router returns", None),
        ("a.py", "type Router = dict[str, int]", "type"),
        ("a.py", "    type Router", None),
        ("a.ex", "  alias MyApp.Router", None),  # names a module it uses
        ("a.ex", "  defp Router(conn) do", "function"),
    ],
)
def test_defined_names_are_definitions_not_uses(path: str, line: str, kind: str | None) -> None:
    names = defined_names(line + "\n", path)
    found = names.get("Router")
    assert (found - {TOP_LEVEL} if found else None) == ({kind} if kind else None), names


def test_an_example_inside_a_triple_quoted_string_defines_nothing() -> None:
    """fastapi's ``HTTPException`` docstring shows ``async def read_item(``, ecto's
    ``@moduledoc`` a ``def changeset``, pydantic's prose "a class for ...": none is a
    definition of the file's; the code after the string is."""
    python = (
        "class HTTPException(Exception):\n"
        '    """A class for errors.\n\n'
        "    async def read_item(item_id: str):\n"
        '        raise HTTPException()\n    """\n\n'
        "    def __init__(self):\n        pass\n"
    )
    names = defined_names(python, "exceptions.py")
    assert set(names) == {"HTTPException", "__init__"}
    elixir = (
        'defmodule Ecto do\n  @moduledoc ~S"""\n      def changeset(user) do\n  """\n'
        "  def all(q), do: q\nend\n"
    )
    assert set(defined_names(elixir, "ecto.ex")) == {"Ecto", "all"}
    # A comment's quotes open no string: the definition after it is read.
    hashed = '# see """ below\ndef after_comment():\n    pass\n'
    assert set(defined_names(hashed, "a.py")) == {"after_comment"}
    # In a language without such strings, three quotes are no string.
    assert set(defined_names('x = """;\nfn hidden() {}\n', "a.rs")) == {"hidden"}


def test_a_definition_on_an_unindented_line_is_marked_top_level() -> None:
    """The mark tells the declaration from a copy nested in a macro's body, a test module or
    a class (serde's ``private/doc.rs``); modifiers before the keyword keep it."""
    nested = "macro_rules! doc {\n    () => {\n        trait Serialize {}\n    };\n}\n"
    assert defined_names(nested, "a.rs") == {"Serialize": {"type"}}
    top = defined_names("pub trait Serialize {\n    fn serialize(&self);\n}\n", "a.rs")
    assert top == {"Serialize": {"type", TOP_LEVEL}, "serialize": {"function"}}
    # Items a level inside a top-level namespace block: Rust's item macros (tokio's
    # cfg_rt!), Ruby's modules (a test's reopened ``class Sinatra::Base`` at column 0 would
    # otherwise outrank lib/sinatra/base.rb), C#'s and C++'s indented namespaces.
    wrapped = "cfg_rt! {\n    pub struct JoinHandle<T> {\n        raw: u8,\n    }\n}\n"
    assert defined_names(wrapped, "a.rs") == {"JoinHandle": {"type", TOP_LEVEL}}
    ruby = defined_names(
        "module Sinatra\n  class Base\n    def route\n    end\n  end\nend\n", "b.rb"
    )
    assert ruby["Base"] == {"type", TOP_LEVEL} and ruby["route"] == {"function"}
    csharp = (
        "namespace App.Web\n{\n    public class Widget\n    {\n        class Part {}\n    }\n}\n"
    )
    assert defined_names(csharp, "W.cs")["Widget"] == {"type", TOP_LEVEL}
    assert defined_names(csharp, "W.cs")["Part"] == {"type"}
    flat = "namespace absl {\n\nclass Mutex {\n  struct Waiter {};\n};\n}\n"  # not indented
    assert defined_names(flat, "m.h")["Waiter"] == {"type"}
    method = defined_names("class Router:\n    def add(self):\n        pass\n", "a.py")
    assert method == {"Router": {"type", TOP_LEVEL}, "add": {"function"}}
    assert defined_names("static int\nloop_run(void)\n{\n", "a.c")["loop_run"] == {
        "function",
        TOP_LEVEL,
    }


@pytest.mark.parametrize("fast", [True, False])
def test_a_symbol_query_ranks_the_top_level_definition_first(
    tmp_path: Path, env: dict[str, str], fast: bool
) -> None:
    """A name defined at the top of one file and again nested in another (a macro's copy
    that says the name more often, with a trait's ``impl``s elsewhere): the top-level
    declaration comes first."""
    root = tmp_path / "code"
    (root / "src").mkdir(parents=True)
    (root / "src" / "ser.rs").write_text(
        "/// A data structure that can be serialized.\n"
        "pub trait Serialize {\n    fn serialize(&self, out: &mut String);\n}\n"
        + "".join(
            f"\npub fn write_{k}(out: &mut String) {{ out.push('{k}'); }}\n" for k in range(40)
        )
    )
    (root / "src" / "doc.rs").write_text(
        "macro_rules! serialize_docs {\n    () => {\n"
        "        /// Serialize a value: the docs' copy of Serialize.\n"
        "        trait Serialize {\n            fn serialize(&self);\n        }\n"
        "    };\n}\n"
    )
    (root / "src" / "impls.rs").write_text(
        "".join(
            f"impl Serialize for T{k} {{\n    fn serialize(&self) {{}}\n}}\n" for k in range(30)
        )
    )
    _add_unrelated_files(root / "src", ".rs")
    assert _ranked(root, env, "Serialize", fast)[0] == "src/ser.rs"


@pytest.mark.parametrize("fast", [True, False])
def test_a_symbol_query_ranks_the_sources_definition_above_an_older_copys(
    tmp_path: Path, env: dict[str, str], fast: bool
) -> None:
    """A name the source defines and an older version's copy defines too, in a file named
    after it that says it more often (zod's ``v3/ZodError.ts`` beside
    ``v4/classic/errors.ts``): the source's definition comes first; where only the copy
    defines a name, it keeps its lead."""
    root = tmp_path / "code"
    for version in ("v1", "v2"):
        (root / "src" / version).mkdir(parents=True)
    (root / "src" / "v1" / "ZodError.ts").write_text(
        "export class ZodError extends Error {\n  issues = [];\n}\n"
        + "".join(f"// ZodError note {k}: a ZodError keeps its issues\n" for k in range(6))
        + "export class LegacyIssue {}\n"
    )
    (root / "src" / "v2" / "errors.ts").write_text(
        "export class ZodError extends Error {\n  issues = [];\n}\n"
        + "".join(
            f"export function format{k}(issues) {{ return issues.map((i) => i.message + {k}); }}\n"
            for k in range(30)
        )
    )
    _add_unrelated_files(root / "src" / "v2", ".ts")
    assert _ranked(root, env, "ZodError", fast)[0] == "src/v2/errors.ts"
    assert _ranked(root, env, "LegacyIssue", fast)[0] == "src/v1/ZodError.ts"


def test_a_line_of_many_generic_words_is_read_once() -> None:
    """Words with type arguments (``a<b> a<b> ... (``) could be split at either ``>``, every
    way: twenty words took half a second, forty more than this test waits. An index build
    must not stall on a file that holds such a line."""
    code = (
        "from rrg.index.definitions import defined_names\n"
        "print(defined_names('  ' + 'a<b> ' * 40 + 'c>d (\\n', 'A.java'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "{}", done.stderr


def test_a_method_every_object_has_is_no_definition() -> None:
    """A class declaring ``toString`` or ``equals`` (without ``@Override``: a static
    overload) shares a name every object has; a name of its own it defines."""
    text = (
        "public final class Objects {\n"
        "    public static String toString(Object o) {\n        return null;\n    }\n"
        "    public static boolean equals(Object a, Object b) {\n        return true;\n    }\n"
        "    public static String identityToString(Object o) {\n        return null;\n    }\n"
        "}\n"
    )
    names = defined_names(text, "Objects.java")
    assert "identityToString" in names and not {"toString", "equals"} & set(names), names


def test_a_qualified_definition_is_kept_whole_and_by_its_last_part() -> None:
    names = defined_names("defmodule Ecto.Changeset do\nend\n", "lib/changeset.ex")
    kinds = {"module", TOP_LEVEL}
    assert names == {"Ecto.Changeset": kinds, "Changeset": kinds}


def test_a_file_keeps_at_most_max_names() -> None:
    text = "".join(f"def f{k}():\n    pass\n" for k in range(MAX_NAMES + 50))
    assert len(defined_names(text, "gen.py")) == MAX_NAMES


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
        ("docs-v3/guide/intro.js", 1),  # a documentation folder by its name's start
        ("documentation-website/snippets/a.kt", 1),
        ("CHANGELOG.md", 1),
        ("HISTORY.rst", 1),
        ("NEWS", 1),
        ("changes/1234.bugfix", 1),
        ("src/release.go", 0),  # a source file named like a changelog is none
        ("src/history.py", 0),
        ("Cargo.lock", 1),
        ("web/package-lock.json", 1),
        ("go.sum", 1),
        ("src/main/java/org/lang3/reflect/package-info.java", 1),  # a package's javadoc
        ("src/main/java/org/lang3/reflect/PackageInfo.java", 0),
        # A test folder by a word anywhere in its name, as the source's own modules are
        # named beside it, and by Swift's and .NET's capitalised spelling.
        ("tests-integration/src/bin/main.rs", 1),
        ("integration_test/cases/repo.exs", 1),
        ("exposed-tests/src/main/kotlin/Base.kt", 1),
        ("Tests/RxSwiftTests/Observable+Extensions.swift", 1),
        ("src/Router.Tests/Helpers.cs", 1),
        ("tokio/fuzz/fuzz_targets/fuzz_linked_list.rs", 1),
        ("src/httptest/server.go", 0),  # one word: no test folder
        ("src/attestation/verify.go", 0),
        ("Examples/Counter/main.swift", 1),  # the other kinds' folders whatever their case
        ("Documentation/Intro.swift", 1),
        ("third-party/zlib/inflate.c", 1),
        ("docs_src/schema_extra_example/tutorial001.py", 1),  # a topic's name, not a kind
        # A test file by a word in its stem after the unit it tests: a test's helpers
        # beside the source; a module of tests, pytest's conftest.
        ("absl/strings/cord_test_helpers.h", 1),
        ("absl/random/internal/distribution_test_util.cc", 1),
        ("tokio/src/runtime/time/tests.rs", 1),
        ("shop/orders/tests.py", 1),
        ("sympy/conftest.py", 1),
        ("src/contest.py", 0),
        # A stem that starts with the word, or is the singular alone, names the concept: a
        # test runner's own source.
        ("packages/vitest/src/node/test-run.ts", 0),
        ("packages/vitest/src/node/test-specification.ts", 0),
        ("packages/vitest/src/runtime/moduleRunner/testModuleRunner.ts", 0),
        ("packages/vitest/src/runtime/runners/test.ts", 0),
        ("lib/test.js", 0),
        # A benchmark by a word in its stem after what it measures, or the plural alone.
        ("absl/strings/str_split_benchmark.cc", 1),
        ("metrics/src/main/java/ParseBenchmark.java", 1),
        ("absl/random/benchmarks.cc", 1),
        ("packages/vitest/src/runtime/benchmark.ts", 0),
        ("src/workbench.py", 0),
        # A licence and its kin, and a package's or a build's manifest; a source file that
        # bears such a name is source.
        ("LICENSE", 1),
        ("LICENSE-APACHE", 1),
        ("COPYING.txt", 1),
        ("serde_derive/Cargo.toml", 1),
        ("absl/flags/BUILD.bazel", 1),
        ("packages/core/package.json", 1),
        ("Makefile", 1),
        ("src/license.rs", 0),
        ("bin/authors_update.py", 0),
        ("web/src/contributors-list.ts", 0),
        ("src/main/java/Notice.java", 0),
        ("lib/build.rs", 0),
        ("cmd/build/main.go", 0),
        # A program's messages in other languages: catalogs, gettext's folders, a locale
        # folder's file a language; the code that translates is source.
        ("sphinx/locale/fr/LC_MESSAGES/sphinx.po", 1),
        ("sphinx/locale/fr/LC_MESSAGES/sphinx.js", 1),
        ("sphinx/locale/sphinx.pot", 1),
        ("app/src/main/res/strings.xliff", 1),
        ("packages/zod/src/v4/locales/fr-CA.ts", 1),
        ("packages/zod/src/v4/locales/de.ts", 1),
        ("config/locales/pt-BR.yml", 1),
        ("src/i18n/fil-PH.json", 1),
        ("sphinx/locale/__init__.py", 0),
        ("packages/zod/src/v4/locales/index.ts", 0),
        ("locales/es-419.json", 1),
        ("locales/zh-Hans.json", 1),
        ("i18n/zh_TW.json", 1),
        ("po/sr@latin.json", 0),
        ("locale/sr@latin.json", 1),
        ("src/i18n/api.ts", 0),  # three letters without a region: no language
        ("glibc/locale/lc-time.c", 0),  # a language's letters, then no region
        ("src/i18n/io_helpers.ts", 0),
        ("django/conf/locale/de/formats.py", 1),  # a folder a language
        ("resources/locales/pt-BR/messages.json", 1),
        ("lib/l10n/app_en.arb", 1),
        ("app/src/main/res/values-fr/strings.xml", 1),
        ("app/src/main/res/values-pt-rBR/strings.xml", 1),
        ("app/src/main/res/values-night/colors.xml", 0),
        ("app/src/main/res/values/strings.xml", 0),
        ("src/locale/format/number.ts", 0),
        ("App/Resources/de.lproj/Localizable.strings", 1),
        ("App/Resources/Base.lproj/Main.storyboard", 0),  # the interface itself
        ("src/translation/engine.py", 0),
        ("src/lang/ast.rs", 0),
    ],
)
def test_secondary_files_are_told_by_their_paths(path: str, kinds: int) -> None:
    assert priors.secondary_kinds(path, frozenset()) == kinds


def test_a_query_that_asks_for_tests_does_not_push_them_down() -> None:
    asked = priors.query_form("where is routing tested").asks_for
    assert priors.secondary_kinds("tests/test_router.py", asked) == 0
    assert priors.secondary_kinds("docs/routing.md", asked) == 1


def test_a_query_that_asks_for_a_build_or_a_licence_keeps_those_files() -> None:
    build = priors.query_form("which dependencies does the crate build with").asks_for
    assert priors.secondary_kinds("Cargo.toml", build) == 0
    legal = priors.query_form("what license covers the vendored fonts").asks_for
    assert priors.secondary_kinds("LICENSE-MIT", legal) == 0
    assert priors.secondary_kinds("Cargo.toml", legal) == 1


def test_a_question_about_translations_keeps_the_catalogs() -> None:
    asked = priors.query_form("where are the French translations of the messages").asks_for
    assert priors.secondary_kinds("locale/fr/LC_MESSAGES/app.po", asked) == 0
    plain = priors.query_form("where is the warning for a missing number").asks_for
    assert priors.secondary_kinds("locale/fr/LC_MESSAGES/app.po", plain) == 1


@pytest.mark.parametrize("fast", [True, False])
def test_a_report_that_quotes_a_message_ranks_its_source_above_the_catalogs(
    tmp_path: Path, env: dict[str, str], fast: bool
) -> None:
    """An issue that quotes a warning: each language's catalog holds the message too (and
    sphinx's 70 of them filled half of the top 10 for its issues); the code that warns
    comes first."""
    root = tmp_path / "docs_tool"
    (root / "docs_tool" / "domains").mkdir(parents=True)
    message = "no number is assigned for table"
    (root / "docs_tool" / "domains" / "std.py").write_text(
        "def get_fignumber(env, builder, figtype, docname, target_node):\n"
        "    if figtype not in env.toc_fignumbers.get(docname, {}):\n"
        f'        logger.warning(__("{message}: %s"), target_node)\n'
        "        raise ValueError\n"
        + "".join(
            f"\ndef resolve_{k}(env, node, contnode):\n"
            f"    target = node.get('reftarget_{k}')\n"
            "    return make_refnode(env, node, target, contnode)\n"
            for k in range(12)
        )
    )
    # Each catalog holds the program's messages: the one quoted, and others that share
    # the report's words (a table, a caption, numbering, a build).
    messages = [
        f"{message}: %s",
        "the table has no caption",
        "numbering of figures and tables is disabled",
        "build finished with problems, the warning above is emitted",
        "every table without a caption is numbered",
    ]
    for language in ("de", "fr", "it", "ja", "pt_BR", "sr@latin"):
        catalog = root / "docs_tool" / "locale" / language / "LC_MESSAGES"
        catalog.mkdir(parents=True)
        (catalog / "docs_tool.po").write_text(
            "".join(
                f'#: docs_tool/domains/std.py:851\nmsgid "{m}"\nmsgstr ""\n\n' for m in messages
            )
        )
    _add_unrelated_files(root / "docs_tool", ".py")
    report = (
        f'After the upgrade every build prints "WARNING: {message}: the table" for each '
        "table without a caption, although numfig is off; the warning should not be emitted "
        "when numbering is disabled, since no number is expected for such a table at all"
    )
    assert len(report.split()) > priors.ASKING_WORDS
    ranked = _ranked(root, env, report, fast)
    assert ranked[0] == "docs_tool/domains/std.py", ranked


@pytest.mark.parametrize("fast", [True, False])
def test_a_manifest_and_a_licence_rank_below_the_source(
    tmp_path: Path, env: dict[str, str], fast: bool
) -> None:
    """A crate's manifest and its licence repeat a question's words ("derive", "proc
    macro", "works"); the source that answers it comes before both (serde's whole tree
    ranked its Cargo.toml first and LICENSE-APACHE fourth for such a question)."""
    root = tmp_path / "crate"
    (root / "src").mkdir(parents=True)
    (root / "src" / "lib.rs").write_text(
        "/// The entry point of the derive macros: each registered derive expands here.\n"
        "#[proc_macro_derive(Serialize)]\n"
        "pub fn derive_serialize(input: TokenStream) -> TokenStream {\n"
        "    expand(input)\n"
        "}\n"
    )
    (root / "Cargo.toml").write_text(
        '[package]\nname = "crate_derive"\ndescription = "derive macros: proc macro '
        'entry point, registered derives"\n\n[lib]\nproc-macro = true\n'
        "# proc macro derive entry point\n"
    )
    (root / "LICENSE-APACHE").write_text(
        "Derivative Works shall mean any work that is based on the Work; a derive of the "
        "Work, registered or not, is a Derivative Work. The entry point of this License.\n" * 3
    )
    _add_unrelated_files(root / "src", ".rs")
    ranked = _ranked(root, env, "derive proc macro entry point and registered derives", fast)
    assert ranked[0] == "src/lib.rs"
    assert ranked.index("Cargo.toml") > 0 and ranked.index("LICENSE-APACHE") > 0


def test_a_report_asks_for_no_kind_of_file() -> None:
    """An issue report says "test", "example" and "docs" in passing; a question that says
    them asks for those files."""
    report = (
        "PolyFit fails on missing data. Here is a minimal example that reproduces it, and the "
        "test below shows the traceback; the docs say None values are dropped before the fit "
        "but the linear algebra routine raises an error instead of skipping them at all"
    )
    assert len(report.split()) > priors.ASKING_WORDS
    assert priors.query_form(report).asks_for == frozenset()
    question = "where are the docs and the example for the fit"
    assert priors.query_form(question).asks_for == {"doc", "example"}


@pytest.mark.parametrize("fast", [True, False])
def test_a_report_that_mentions_a_test_ranks_the_source_above_the_tests(
    tmp_path: Path, env: dict[str, str], fast: bool
) -> None:
    """An issue report whose traceback names a test: the tests still rank below the source
    they test, as for a question that names no test (they rose above it while any mention
    asked for tests)."""
    root = tmp_path / "lib"
    (root / "stats").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "stats" / "regression.py").write_text(
        "class PolyFit:\n"
        '    """Fit a polynomial to the data; missing values are dropped first."""\n'
        "    def fit(self, x, y):\n"
        "        return numpy.polyfit(x, y, self.order)\n"
    )
    (root / "tests" / "test_regression.py").write_text(
        "".join(
            f"def test_fit_{k}():\n    # polynomial fit with missing data raises an error\n"
            "    PolyFit().fit(x, y)\n"
            for k in range(10)
        )
    )
    _add_unrelated_files(root / "stats", ".py")
    report = (
        "the polynomial fit is not robust to missing data: it raises an error when a value "
        "is none. the test below reproduces it, and the traceback ends in numpy where the "
        "missing values reach the linear algebra routine without being dropped first by "
        "the stat"
    )
    assert _ranked(root, env, report, fast)[0] == "stats/regression.py"


def test_prose_is_a_secondary_file_only_in_a_repository_of_code() -> None:
    """A README or a page of API docs sinks below the code where the tree is code; in a
    tree of prose (a documentation site, a corpus of notes) nothing sinks, and a query that
    asks for docs keeps them."""
    sink = -1.0
    assert priors.prose_offset("README.md", frozenset(), among_code=True, penalty=1.0) == sink
    assert priors.prose_offset("guide/api.html", frozenset(), among_code=True, penalty=1.0) == sink
    assert priors.prose_offset("README.md", frozenset(), among_code=False, penalty=1.0) == 0
    asked = priors.query_form("where do the docs explain routing").asks_for
    assert priors.prose_offset("README.md", asked, among_code=True, penalty=1.0) == 0
    assert priors.prose_offset("src/router.py", frozenset(), among_code=True, penalty=1.0) == 0
    code = [f"src/m{k}.py" for k in range(2)] + [f"api/p{k}.html" for k in range(18)]
    share = TUNING.code_tree_share
    assert priors.holds_code(code, share)  # a tenth of the files is code
    assert not priors.holds_code(code[1:], share)
    assert not priors.holds_code([], share)
    # A changelog is secondary in a tree of code; in one of prose, a page named History is
    # what it says.
    assert priors.secondary_kinds("History.txt", frozenset(), among_code=True) == 1
    assert priors.secondary_kinds("History.txt", frozenset(), among_code=False) == 0


def test_a_whole_repository_ranks_its_source_above_its_docs(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The same words in a changelog, a README, a guide and the source: the source comes
    first, the prose follows (still ranked, not dropped); in a tree of prose alone, the page
    that says them comes first."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "docs-site").mkdir()
    (root / "src" / "transport.py").write_text(
        "def send_again(request, attempts):\n"
        '    """Retry the request after a timeout."""\n'
        "    for _ in range(attempts):\n        request.send()\n"
    )
    words = "Retry the request after a timeout."
    (root / "CHANGELOG.md").write_text(f"## 1.2\n\n- {words}\n")
    (root / "docs-site" / "retries.md").write_text(f"# Retries\n\n{words}\n")
    (root / "README.md").write_text(f"# Retry\n\n{words}\n")
    _add_unrelated_files(root / "src", ".py")
    query = "retry a request after a timeout"
    ranked = _ranked(root, env, query)
    assert ranked[0] == "src/transport.py", ranked
    assert {"CHANGELOG.md", "README.md", "docs-site/retries.md"} < set(ranked), ranked
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "retries.md").write_text(f"# Retries\n\n{words}\n")
    (notes / "other.md").write_text("# Other\n\nNothing about that here.\n")
    assert _ranked(notes, env, query)[0] == "retries.md"


def test_an_older_version_beside_a_newer_one_is_a_compat_file() -> None:
    """``v3/`` beside ``v4/`` in one folder is the legacy copy (zod keeps its v3 API so);
    a lone ``v1/`` (a package namespace), versions in other folders, or a query that names
    the version or asks for compatibility leave it be."""
    paths = ["src/v4/schemas.ts", "src/v3/types.ts", "src/v3/errors.ts", "lib/v1/a.kt"]
    older = priors.superseded_versions(paths, frozenset())
    assert older == {"src/v3/"}
    assert priors.secondary_kinds("src/v3/types.ts", frozenset(), True, older) == 1
    assert priors.secondary_kinds("src/v4/schemas.ts", frozenset(), True, older) == 0
    assert priors.secondary_kinds("lib/v1/a.kt", frozenset(), True, older) == 0
    assert priors.superseded_versions(["a/v1/x.py", "b/v2/y.py"], frozenset()) == set()
    named = priors.query_form("v3 error types")
    assert priors.superseded_versions(paths, named.words) == set()
    legacy = priors.query_form("legacy error types").asks_for
    assert priors.secondary_kinds("src/v3/types.ts", legacy, True, older) == 0


def test_a_whole_repository_ranks_the_newest_version_first(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The same code in ``v1/`` and ``v2/``: the newest answers a question first, the
    older copy is still ranked (not dropped), and first when the query names it."""
    root = tmp_path / "repo"
    body = (
        "export function parseSchema(input) {{\n"
        "  // validate the input against the schema and parse it {k}\n"
        "  return input;\n}}\n"
    )
    for version in ("v1", "v2"):
        (root / "src" / version).mkdir(parents=True)
        (root / "src" / version / "parse.ts").write_text(body.format(k=version))
    _add_unrelated_files(root / "src", ".ts")
    query = "validate the input against the schema"
    ranked = _ranked(root, env, query)
    assert ranked[0] == "src/v2/parse.ts" and "src/v1/parse.ts" in ranked, ranked
    assert _ranked(root, env, f"v1 {query}")[0] == "src/v1/parse.ts"


def test_a_page_in_other_languages_is_a_copy_but_in_one() -> None:
    """The same page under folders named for languages (fastapi's ``docs/en/``,
    ``docs/es/``, ``docs/zh-hant/``): all but one are copies, the English one kept for a
    question in English, else the best scored; a page alone in its language, code, a
    folder of two letters that no second language mirrors (``docs/js/``), and pages under
    two-letter folders that no English one joins (a monorepo's packages) are none."""
    scored = [
        ("docs/es/docs/advanced/websockets.md", 3.0),
        ("docs/en/docs/advanced/websockets.md", 2.0),
        ("docs/zh-hant/docs/advanced/websockets.md", 1.0),
        ("docs/fr/docs/tutorial/only-in-french.md", 5.0),
        ("docs/js/guide.md", 1.0),
        ("docs/ui/readme.md", 1.0),
        ("src/es/parse.py", 1.0),
        ("src/fr/parse.py", 1.0),
        ("packages/ui/README.md", 2.0),
        ("packages/db/README.md", 1.0),
    ]
    assert priors.translated_copies(scored, english=True) == {
        "docs/es/docs/advanced/websockets.md",
        "docs/zh-hant/docs/advanced/websockets.md",
    }
    assert priors.translated_copies(scored, english=False) == {
        "docs/en/docs/advanced/websockets.md",
        "docs/zh-hant/docs/advanced/websockets.md",
    }


def test_a_whole_repository_ranks_other_languages_copies_of_a_page_last(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A project's docs in three languages (each page quotes the code): the source and the
    English page answer, the Spanish and French copies come after every other file that
    holds the words, and first where the question asks for translations."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src" / "websockets.py").write_text(
        "class WebSocketEndpoint:\n"
        '    """Accept a websocket connection and receive its messages."""\n'
        "    async def receive(self, websocket):\n        return await websocket.receive()\n"
    )
    (root / "tests" / "test_websockets.py").write_text(
        "def test_websocket_endpoint_receives(client):\n    client.websocket_connect('/ws')\n"
    )
    page = (
        "# {title}\n\n{intro}\n\n```python\nclass WebSocketEndpoint:\n"
        "    async def receive(self, websocket): ...\n```\n"
    )
    for language, title, intro in (
        ("en", "WebSockets", "A websocket endpoint accepts a connection."),
        ("es", "WebSockets", "Un endpoint websocket acepta una conexion."),
        ("fr", "WebSockets", "Un endpoint websocket accepte une connexion."),
    ):
        folder = root / "docs" / language / "docs" / "advanced"
        folder.mkdir(parents=True)
        (folder / "websockets.md").write_text(page.format(title=title, intro=intro))
    _add_unrelated_files(root / "src", ".py")
    copies = {"docs/es/docs/advanced/websockets.md", "docs/fr/docs/advanced/websockets.md"}
    for fast in (True, False):
        ranked = _ranked(root, env, "websocket endpoint", fast=fast)
        assert set(ranked[-2:]) == copies, "|".join(ranked)
        assert ranked.index("docs/en/docs/advanced/websockets.md") < len(ranked) - 2
    asked = _ranked(root, env, "websocket endpoint translations")
    assert set(asked[-2:]) != copies, asked


def test_stem_share_counts_query_words_in_the_stem_and_folder() -> None:
    form = priors.query_form("request routing middleware")
    parts = priors.stem_words("middleware/routing.go")
    assert priors.stem_share(form.words, parts) == pytest.approx(2 / 3)
    parts = priors.stem_words("src/other.go")
    assert priors.stem_share(form.words, parts) == 0.0


def test_a_plural_stem_that_clips_a_query_word_holds_it() -> None:
    """serde's ``ser/impls.rs`` holds "implementations" (a plural's s aside, as
    ``stem_is`` reads a name); a short plural stem ("ops") clips nothing."""
    form = priors.query_form("standard library type Serialize implementations")
    assert priors.stem_share(form.words, priors.stem_words("src/ser/impls.rs")) == 0.2
    assert priors.stem_share(form.words, priors.stem_words("src/ser/mod.rs")) == 0.0
    short = priors.query_form("operations")
    assert priors.stem_share(short.words, priors.stem_words("lib/ops.rs")) == 0.0


def test_a_plural_in_ies_holds_its_word_in_y() -> None:
    """fastapi's ``dependencies/utils.py`` holds "dependency" as its tests'
    ``test_dependency_class.py`` does (it held nothing, and nine tests came first for
    "dependency injection"); a word in ``ies`` holds its singular too."""
    form = priors.query_form("dependency injection")
    source = priors.stem_share(form.words, priors.stem_words("fastapi/dependencies/utils.py"))
    test = priors.stem_share(form.words, priors.stem_words("tests/test_dependency_class.py"))
    assert source == test == 0.5
    plural = priors.query_form("retry policies")
    assert priors.stem_share(plural.words, priors.stem_words("src/retry_policy.rs")) == 1.0
    assert priors.stem_share(plural.words, priors.stem_words("src/politics.rs")) == 0.0


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
    ranked = _ranked(tree, env, "Router", fast)
    assert ranked[0] == "src/routing.py", ranked
    # The test file names Router as often as app.py does, but ranks below it.
    assert ranked.index("src/app.py") < ranked.index("tests/test_routing.py"), ranked


@pytest.mark.parametrize("fast", [True, False])
def test_a_method_no_keyword_opens_is_a_definition(
    tmp_path: Path, env: dict[str, str], fast: bool
) -> None:
    """gson's ``fromJson`` listed JsonElement.java (whose comments show calls of it) first,
    and Gson.java, which declares it (``public <T> T fromJson(String json, ...)``), second:
    a Java method names no definer keyword. A Kotlin extension with nested type
    parameters (exposed's ``fun <Key : Any, T : IdTable<Key>> T.insertAndGetId``) too."""
    root = tmp_path / "code"
    src = root / "src" / "main" / "java" / "shop"
    src.mkdir(parents=True)
    (src / "Codec.java").write_text(
        "package shop;\n\npublic final class Codec {\n"
        + "".join(
            f"  public <T> T fromJson(String json, Class<T> type{k}) throws ParseError {{\n"
            f"    return read(json, type{k});\n  }}\n\n"
            for k in range(3)
        )
        + "".join(f"  private int width{k}() {{\n    return {k};\n  }}\n" for k in range(30))
        + "}\n"
    )
    for name in ("Order", "Cart", "Invoice"):
        (src / f"{name}.java").write_text(
            f"package shop;\n\n/** Read with {{@code codec.fromJson(text, {name}.class)}}. */\n"
            f"public class {name} {{\n"
            + "".join(
                f"  {name} load{k}(Codec codec, String text) {{\n"
                f"    return codec.fromJson(text, {name}.class);\n  }}\n"
                for k in range(4)
            )
            + "}\n"
        )
    kotlin = root / "src" / "main" / "kotlin" / "shop"
    kotlin.mkdir(parents=True)
    (kotlin / "Queries.kt").write_text(
        "package shop\n\n"
        "fun <Key : Any, T : IdTable<Key>> T.insertAndGetId(body: T.() -> Unit): Key {\n"
        "    return insert(body).id\n}\n"
        + "".join(f"\nfun helper{k}(x: Int): Int = x + {k}\n" for k in range(30))
    )
    (kotlin / "Orders.kt").write_text(
        "package shop\n\n"
        + "".join(f"fun order{k}() = Orders.insertAndGetId {{ it.n = {k} }}\n" for k in range(6))
    )
    assert _ranked(root, env, "fromJson", fast)[0] == "src/main/java/shop/Codec.java"
    assert _ranked(root, env, "insertAndGetId", fast)[0] == "src/main/kotlin/shop/Queries.kt"


@pytest.mark.parametrize("fast", [True, False])
def test_a_c_alias_is_defined_by_its_typedef_not_by_a_static_of_its_type(
    tmp_path: Path, env: dict[str, str], fast: bool
) -> None:
    """libuv's ``uv_loop_t`` is ``typedef struct uv_loop_s uv_loop_t;`` in ``uv.h``; each
    source file that keeps one (``static uv_loop_t default_loop;``) named it more often
    and, read as defining it, ranked first."""
    root = tmp_path / "code"
    (root / "include").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "include" / "uv.h").write_text(
        "typedef struct uv_loop_s uv_loop_t;\ntypedef struct uv_tcp_s uv_tcp_t;\n\n"
        + "".join(f"int uv_op_{k}(int x);\n" for k in range(30))
    )
    for name in ("core", "loop", "timer"):
        (root / "src" / f"{name}.c").write_text(
            "static uv_loop_t default_loop;\n\n"
            + "".join(
                f"int {name}_{k}(uv_loop_t* loop) {{\n  return uv_loop_t_size(loop);\n}}\n"
                for k in range(3)
            )
        )
    assert _ranked(root, env, "uv_loop_t", fast)[0] == "include/uv.h"


def test_a_question_about_tests_still_finds_them(tmp_path: Path, env: dict[str, str]) -> None:
    tree = _tree(tmp_path / "code")
    assert _ranked(tree, env, "router tests")[0] == "tests/test_routing.py"


def test_the_defining_file_is_found_outside_the_cheap_orders_head(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The index answers which files define a name: a definer far down the cheap order
    (past the head of files the priors weigh) still comes first."""
    from rrg.rank.code_order import HEAD_FILES

    root = tmp_path / "code"
    (root / "uses").mkdir(parents=True)
    rng = random.Random(7)
    words = "request handler path route match dispatch server client session cache".split()
    for k in range(2 * HEAD_FILES):
        lines = [f"{rng.choice(words)}_{j} = {rng.choice(words)}({j})" for j in range(30)]
        for _ in range(rng.randint(1, 4)):
            lines.insert(rng.randrange(len(lines)), f"r{k} = Router()")
        (root / "uses" / f"use{k:03d}.py").write_text("\n".join(lines) + "\n")
    (root / "core.py").write_text(
        "class Router:\n    pass\n" + "".join(f"value_{k} = compute({k})\n" for k in range(20))
    )

    # "router" names no identifier: the cheap order alone, where core.py is past the head.
    assert _ranked(root, env, "router").index("core.py") >= HEAD_FILES
    assert _ranked(root, env, "Router")[0] == "core.py"


def test_the_definitions_follow_an_edited_file(tmp_path: Path, env: dict[str, str]) -> None:
    root = tmp_path / "code"
    root.mkdir()
    (root / "first.py").write_text("class Router:\n    pass\n")
    (root / "second.py").write_text("from first import Router\n\nRouter()\n")
    for k in range(5):
        (root / f"other{k}.py").write_text(f"def helper_{k}():\n    return Router()\n")

    def best() -> str:
        return _ranked(root, env, "Router")[0]

    assert best() == "first.py"
    (root / "first.py").write_text("from second import Router\n\nRouter()\n")
    (root / "second.py").write_text("class Router:\n    pass\n")
    assert best() == "second.py"


def test_a_symbol_query_is_answered_without_the_stage(tmp_path: Path, env: dict[str, str]) -> None:
    """A symbol query, whether one file defines the name (and ranks first) or none does:
    the transformer stage is not run (its phase is missing from the timings); a question
    in words still runs it."""
    tree = _tree(tmp_path / "code")
    timed = {**env, "RRG_TIMINGS": "1"}
    symbol = run([*rrg_cmd(), "-q", "Router", "--files"], tree, timed)
    assert symbol.returncode == 0, symbol.stderr
    assert symbol.stdout.decode().splitlines()[0] == "src/routing.py"
    assert b" stage " not in symbol.stderr and b"timings:" in symbol.stderr
    undefined = run([*rrg_cmd(), "-q", "RouteTable", "--files"], tree, timed)
    assert undefined.returncode == 0, undefined.stderr
    assert b" stage " not in undefined.stderr and b"timings:" in undefined.stderr
    # In a tree of prose a lone capitalised word is a topic: the stage reads it.
    notes = tmp_path / "notes"
    notes.mkdir()
    for k in range(6):
        (notes / f"note{k}.md").write_text(f"# Note {k}\n\nAspirin and headaches, part {k}.\n")
    topic = run([*rrg_cmd(), "-q", "Aspirin", "--files"], notes, timed)
    assert topic.returncode == 0, topic.stderr
    assert b" stage " in topic.stderr
    words = run([*rrg_cmd(), "-q", "dispatch a request to a handler", "--files"], tree, timed)
    assert words.returncode == 0, words.stderr
    assert b" stage " in words.stderr


@pytest.mark.parametrize("fast", [True, False])
def test_a_test_module_beside_the_source_ranks_below_it(
    tmp_path: Path, env: dict[str, str], fast: bool
) -> None:
    """A module of tests named as the source's modules are (``tests-integration``,
    Swift's ``Tests/``) whose helper says the query's words more often than the source
    does: the source comes first, as it does beside a folder named ``tests``."""
    root = tmp_path / "code"
    helper = "// retry the request with backoff: a retry helper for the tests\n" + "".join(
        f"fn retry_case_{k}() {{ retry_with_backoff(request, {k}); }}\n" for k in range(12)
    )
    source = (
        "/// Retry a request with exponential backoff.\n"
        "pub fn retry_with_backoff(request: Request, attempts: u32) -> Response {\n"
        "    let mut delay = 1;\n"
        "    for _ in 0..attempts { delay *= 2; }\n"
        "    send(request, delay)\n"
        "}\n"
    )
    for folder in ("tests-integration/src", "Tests/ClientTests"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "retry_helpers.rs").write_text(helper)
    (root / "src").mkdir()
    (root / "src" / "backoff.rs").write_text(source)
    _add_unrelated_files(root / "src", ".rs")
    assert _ranked(root, env, "retry a request with backoff", fast)[0] == "src/backoff.rs"


@pytest.mark.parametrize("fast", [True, False])
def test_a_test_runner_s_own_source_ranks_as_source(
    tmp_path: Path, env: dict[str, str], fast: bool
) -> None:
    """In a test runner's repository, ``test-run.ts`` is the source of a test run, not a
    test: it ranks first for the question it answers, above a file that says its words
    less often (it sank below it while any stem holding "test" made a test file)."""
    root = tmp_path / "runner"
    (root / "src" / "node").mkdir(parents=True)
    (root / "src" / "node" / "test-run.ts").write_text(
        "// A run collects each file's results and reports them to the reporters.\n"
        "export class Run {\n"
        "  report(results: Result[]) {\n"
        "    for (const reporter of this.reporters) reporter.onResults(results)\n"
        "  }\n"
        "  collectResults(file: File): Result[] { return file.results }\n"
        "}\n"
    )
    (root / "src" / "node" / "pool.ts").write_text(
        "// The pool runs files on workers; a worker's results go to the run.\n"
        "export function runFiles(files: File[]) { return files.map(startWorker) }\n"
    )
    _add_unrelated_files(root / "src", ".ts")
    ranked = _ranked(root, env, "how a run reports its results to the reporters", fast)
    assert ranked[0] == "src/node/test-run.ts"
