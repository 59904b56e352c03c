"""A query that names a file by its path (a compiler's diagnostic, a traceback's frame, a
link, a question) lists that file first (``rrg.rank.named_files``, ``rrg.rank.lifted``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import rrg_cmd, run
from rrg.rank.named_files import NamedFile, named_files, named_holders, wholly_named
from rrg.rank.query import Query


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("src/io/mod.rs:12:5: error[E0308]: mismatched types", [(("src", "io", "mod.rs"), 12)]),
        (
            'File "/ci/app/sympy/core/expr.py", line 88, in __add__',
            [(("ci", "app", "sympy", "core", "expr.py"), 88)],
        ),
        # A JVM frame's package names the file's folders.
        ("at com.x.Foo.run(Foo.java:42)", [(("com", "x", "Foo.java"), 42)]),
        (
            "at org.app.io.Reader$Buffer.fill$lambda(Reader.kt:7) at Main.main(Main.java:3)",
            [(("org", "app", "io", "Reader.kt"), 7), (("Main.java",), 3)],
        ),
        # TypeScript's and MSVC's diagnostics put the line in parentheses.
        ("src/a.ts(12,5): error TS2345: bad", [(("src", "a.ts"), 12)]),
        ("main.cpp(7): error C2065: undeclared", [(("main.cpp",), 7)]),
        # Ruby's backtrace puts the method after the line.
        ("app/models/user.rb:12:in `save'", [(("app", "models", "user.rb"), 12)]),
        (
            "see https://github.com/o/r/blob/main/src/lib.rs#L10-L20",
            [(("https:", "github.com", "o", "r", "blob", "main", "src", "lib.rs"), 10)],
        ),
        ("./main.go:12:3: undefined: foo", [(("main.go",), 12)]),
        (
            "FAILED tests/test_io.py::TestRead::test_eof - EOFError",
            [(("tests", "test_io.py"), None)],
        ),
        ("C:\\proj\\src\\main.rs:3:1: warning: unused", [(("C:", "proj", "src", "main.rs"), 3)]),
        ("why does utils.py fail to import?", [(("utils.py",), None)]),
        ("what reads .eslintrc", [((".eslintrc",), None)]),
        ("how the build in cmd/Makefile runs", [(("cmd", "Makefile"), None)]),
        # Numbers, versions and sites are no files; nor is a question in words alone.
        ("is 3.14 close to v1.2", []),
        ("what is https://example.com about", []),
        ("how are redirects followed", []),
        # A report (an issue's text) names the caller's files as well as the one at fault.
        ("the docs say " + "word " * 30 + "in src/app.py", []),
    ],
)
def test_a_query_names_files_by_their_paths(
    query: str, named: list[tuple[tuple[str, ...], int | None]]
) -> None:
    assert [(n.parts, n.line) for n in named_files(query)] == named


def test_a_name_matches_a_path_by_its_last_parts() -> None:
    name = NamedFile(("ci", "app", "sympy", "core", "expr.py"))
    assert name.matched_parts("sympy/core/expr.py") == 3
    assert name.matched_parts("sympy/expr.py") == 1
    assert name.matched_parts("./core/expr.py") == 2
    assert name.matched_parts("sympy/core/expr.pyc") == 0


def test_holders_take_the_paths_that_match_most_of_the_name() -> None:
    """Of the candidates whose file name matches, those matching the most parts, in the
    order's order, with the name's line; a name no path ends as lifts nothing."""
    paths = ["a/utils.py", "c/openapi/utils.py", "b/openapi/utils.py", "openapi/models.py"]
    (name,) = named_files("openapi/utils.py:7: error: bad")
    found = named_holders(
        [name], np.array([3, 0, 2, 1]), lambda n: np.ones(4, bool), lambda k: paths[k]
    )
    assert found == {2: 7, 1: 7}
    missing = named_files("why does setup.cfg fail")  # a file's name, or a module's
    assert not named_holders(missing, np.arange(4), lambda n: np.ones(4, bool), lambda k: paths[k])


def test_a_bare_name_many_files_share_lifts_its_best_ten() -> None:
    paths = [f"pkg{k}/mod.rs" for k in range(30)]
    (name,) = named_files("why does mod.rs panic")
    order = np.arange(30)[::-1].copy()
    found = named_holders([name], order, lambda n: np.ones(30, bool), lambda k: paths[k])
    assert list(found) == list(range(29, 19, -1))


def _server_tree(root: Path) -> int:
    """A service whose 33 files speak of handlers, requests and routes again and again, in
    folders and files named as the one a diagnostic names (``api/server/v7/utils.py``);
    that one says the words once, below ten other functions. Its line."""
    body = "".join(
        f"def handle_request_{j}(request, route):\n"
        f'    """Route the request to handler {j}: the request handler of the route."""\n'
        f"    return route.handler(request.body, {j})\n\n\n"
        for j in range(5)
    )
    routes = [f"api/server/v{k}/utils.py" for k in range(30)]
    for rel in ["web/server/utils.py", "api/client/utils.py", "api/server/handlers.py", *routes]:
        (root / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "src" / rel).write_text(body)
    helpers = "".join(f"def step_{j}(m):\n    return m.rotate({j})\n\n\n" for j in range(10))
    (root / "src/api/server/utils.py").write_text(
        helpers + "def handle(request):\n    return request.body\n"
    )
    return helpers.count("\n") + 2


def test_a_diagnostic_lists_the_file_it_names_first(tmp_path: Path, env: dict[str, str]) -> None:
    """The file whose path ends as the diagnostic's comes first, in the cheap order and
    the default (not the other ``utils.py``); a capped search prints its named line first,
    or where the pattern does not match it, the first line of its definition that does;
    without a pattern the passage holding that line comes first. The message without the
    path leaves it below the others."""
    root = tmp_path / "svc"
    line = _server_tree(root)
    named = "src/api/server/utils.py"
    query = f"api/server/utils.py:{line}: error: request handler route has no attribute body"
    for flags in (["--fast"], []):
        out = run([*rrg_cmd(), "-q", query, *flags, "--files"], root, env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.decode().splitlines()[0] == named, out.stdout
    out = run([*rrg_cmd(), "-q", query, "-n", "--no-heading", "return"], root, env)
    assert out.stdout.decode().splitlines()[0] == f"{named}:{line}:    return request.body"
    out = run([*rrg_cmd(), "-q", query, "--color", "never", "--limit", "1"], root, env)
    shown = out.stdout.decode()
    assert shown.startswith(f"{named}:") and "def handle(request)" in shown, shown
    out = run([*rrg_cmd(), "-q", query.split(": ", 1)[1], "--files"], root, env)
    assert out.stdout.decode().splitlines()[0] != named, out.stdout


def test_a_named_file_and_a_pasted_message_come_first_in_turn(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A traceback's last frame names the caller and its last line the message another file
    raises: the named file first, the holder of the message next, and no line saying that
    no file holds it."""
    root = tmp_path / "app"
    (root / "lib").mkdir(parents=True)
    for k in range(12):
        (root / "lib" / f"shape_{k}.py").write_text(
            f"def area_{k}(shape):\n    return shape.width * shape.height  # width height shape\n"
        )
    (root / "lib" / "checks.py").write_text(
        'def check(w):\n    if w < 0:\n        raise ValueError("width must not be negative")\n'
    )
    (root / "main.py").write_text("from lib.checks import check\n\ncheck(-1)\n")
    query = 'File "main.py", line 3 ValueError: width must not be negative'
    out = run([*rrg_cmd(), "-q", query, "--files"], root, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode().splitlines()[:2] == ["main.py", "lib/checks.py"], out.stdout
    assert b"no file holds" not in out.stderr, out.stderr


@pytest.mark.parametrize(
    ("query", "named"),
    [
        # A bare name inside the pasted message is the message's: its holder answers.
        ("ERROR: Version field is missing in package.json", []),
        ('where is "cannot read setup.cfg here" raised', []),
        # A quoted name alone names its file (and asks for the files that mention it).
        ('where is "config/app.yaml" read', [("config", "app.yaml")]),
        # Before the message, or in a message too short to be read, it is the question's.
        ("src/cli.ts:9: error: Version field is missing", [("src", "cli.ts")]),
        ("FileNotFoundError: config/settings.yaml", [("config", "settings.yaml")]),
        # The error's kind is defined in one file and raised in another: it names none.
        ("app.db.errors.PoolError: the pool is closed already", []),
        ("app.db.errors.PoolError: closed", []),
        # A path with a folder said in passing is the message's too; given as the
        # message's value (quoted, in parentheses) it names its file, by folder and file.
        ("ERROR: Version field is missing in lib/package.json", []),
        ("ERROR: Version field is missing in 'lib/package.json'", [("lib", "package.json")]),
    ],
)
def test_a_path_in_pasted_text_is_no_named_file(query: str, named: list[tuple[str, ...]]) -> None:
    """(A dotted text is read as a module's name too, ``package.json`` as ``package``'s
    ``json``: inside pasted text it names only a path that spells all of it.)"""
    names = Query.of(query).named
    assert [n.parts for n in names if not n.module] == named
    assert all(n.whole for n in names if n.module)


def test_a_path_a_message_gives_matches_by_its_folder_and_file() -> None:
    """An installed copy's path names the source's file in its own layout; a root file
    of the same name is not the file in ``app/``."""
    query = "ImportError: cannot import name 'X' from 'app.web' (/usr/lib/site-packages/app/web.py)"
    (module, path) = Query.of(query).named
    assert path.whole and path.matched("src/app/web.py") == (2, True)
    assert path.matched("web.py") == (0, False)
    assert module.matched("src/app/web.py") == (2, True)


def test_a_module_a_message_says_in_passing_is_the_messages() -> None:
    """The project's own message names a module as its argument: the file that raises it
    answers, not the module (a benchmark's Elixir query lost its raiser to ``repo.ex``)."""
    assert not Query.of("ArgumentError: missing :adapter option on use Ecto.Repo").named
    (quoted,) = Query.of("AttributeError: module 'app.web' has no attribute 'x'").named
    assert quoted.parts == ("app", "web") and quoted.module and quoted.whole


def test_a_module_the_runtime_names_in_its_message_is_listed_first(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Python's ``ImportError`` and ``AttributeError`` name the module inside the message;
    the files that hold the message's words are import lines and another module's
    ``__getattr__``, not the module: it comes first. Spelled whole: a module of the same
    last parts elsewhere does not."""
    root = tmp_path / "app"
    (root / "app" / "web").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text(
        "def __getattr__(name):\n"
        '    raise AttributeError(f"module {__name__} has no attribute {name}")\n'
    )
    (root / "app" / "web" / "__init__.py").write_text("")
    (root / "app" / "web" / "request.py").write_text("class Request:\n    pass\n")
    (root / "app" / "request.py").write_text("class OtherRequest:\n    pass\n")
    for k in range(6):
        (root / "app" / f"use_{k}.py").write_text(
            "from app.web.request import Request\nfrom importlib import import_module\n"
        )
    asked = (
        "AttributeError: module 'app.web.request' has no attribute 'send'",
        "ImportError: cannot import name 'Reply' from 'app.web.request' "
        "(/usr/lib/python3/site-packages/app/web/request.py)",
    )
    for query in asked:
        out = run([*rrg_cmd(), "-q", query, "--files"], root, env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.decode().splitlines()[0] == "app/web/request.py", out.stdout


def test_a_first_search_lists_a_named_file_its_index_has_not_read(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A first search of a large tree ranks what its index read in the time it waits, the
    source first, tests last: the failing test an agent pastes was not read, and followed
    every ranked file in rg's order. A file its name names whole comes first anyway."""
    root = tmp_path / "big"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    for k in range(400):
        (root / "src" / f"m{k:03d}.py").write_text(f"def f{k}():\n    return 'value {k}'\n")
    (root / "tests" / "test_late.py").write_text("def test_value():\n    assert f(1) == 2\n")
    bounded = {**env, "RRG_INDEX_WAIT_S": "0.01"}
    query = "FAILED tests/test_late.py::test_value - assert 1 == 2"
    out = run([*rrg_cmd(), "-q", query, "--files", "--fast"], root, bounded)
    assert out.returncode == 0 and b"indexed" in out.stderr, out.stderr
    assert out.stdout.decode().splitlines()[0] == "tests/test_late.py", out.stdout[:200]
    assert len(out.stdout.splitlines()) == 401


def test_wholly_named_paths_end_as_every_part_of_the_name_or_the_path() -> None:
    paths = ["app/x.py", "b/x.py", "./x.py", "deep/app/x.py"]
    assert wholly_named([NamedFile(("home", "ci", "app", "x.py"))], paths) == [0, 2]
    # A path shorter than the name, every part of it the name's: rg prints paths from the
    # folder searched, which may lie inside the name's (a search run in app/).
    assert wholly_named([NamedFile(("app", "x.py"))], paths) == [0, 2, 3]
    assert wholly_named([NamedFile(("y.py",))], paths) == []


def test_a_line_number_past_any_file_reads_no_line() -> None:
    """A pasted number of 5,000 digits after a path raised ValueError from ``int``: a line
    is nine digits at most, and the name keeps no line then."""
    assert [(n.parts, n.line) for n in named_files("f.py:" + "1" * 5000)] == [(("f.py",), None)]
    (traceback,) = named_files('File "a.py", line ' + "9" * 5000)
    assert traceback.line is None


def test_a_named_line_the_pattern_misses_prints_its_definitions_line(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """An error raised in a function's body, and a pattern for definitions: the capped
    search prints the line that defines the function holding the named line, not the
    file's first definition."""
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    for k in range(40):
        (root / "src" / f"other_{k}.py").write_text(f"def other_{k}(m):\n    return m\n")
    steps = "".join(f"def step_{j}(m):\n    return m.rotate({j})\n\n\n" for j in range(10))
    (root / "src" / "core.py").write_text(steps)
    query = "src/core.py:22: error: rotation out of range"  # step_5's return line
    out = run([*rrg_cmd(), "-q", query, "-n", "--no-heading", r"def \w+"], root, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode().splitlines()[0] == "src/core.py:21:def step_5(m):", out.stdout


def test_a_name_with_a_line_no_path_ends_as_is_said(tmp_path: Path, env: dict[str, str]) -> None:
    """A diagnostic naming a file the tree does not hold (an agent in the wrong folder):
    one line on stderr says so, and the files are ranked by the words; a name without a
    line ("e.g.", a dotted name) says nothing, nor does a name a file ends as."""
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("def main():\n    return 1\n")
    said = b'rrg: no file searched has a path that ends as "lib/other.py", which the question'
    out = run([*rrg_cmd(), "-q", "lib/other.py:3: error: bad value", "--files"], root, env)
    assert out.returncode == 0 and said in out.stderr, out.stderr
    assert out.stdout == b"src/main.py\n"
    for quiet in ("how is Ecto.Schema read, e.g. by main", "src/main.py:1: error: bad value"):
        out = run([*rrg_cmd(), "-q", quiet, "--files"], root, env)
        assert out.returncode == 0 and b"no file" not in out.stderr, out.stderr


@pytest.mark.parametrize(
    ("query", "modules"),
    [
        ("what does sympy.core.expr do", [("sympy", "core", "expr")]),
        ("from fastapi.openapi.utils import get_openapi", [("fastapi", "openapi", "utils")]),
        ("Ecto.Changeset for validating data", [("Ecto", "Changeset")]),
        ("sympy.core.expr:12 bad", [("sympy", "core", "expr")]),
        # A file's name is no module: not ``py`` of a package ``utils``.
        ("why does utils.py fail", []),
        ("is 3.14 close to v1.2 or .eslintrc", []),
        ("see src/app/main.py", []),
        # Rust's paths, from the crate or past ``crate``; pytest's node id is a file's.
        ("how does tokio::sync::mpsc::Sender work", [("tokio", "sync", "mpsc", "Sender")]),
        ("crate::io::util::read_buf panics", [("io", "util", "read_buf")]),
        ("FAILED tests/test_io.py::TestRead::test_eof", []),
        ("use super::Visitor;", []),
    ],
)
def test_a_dotted_name_names_a_module(query: str, modules: list[tuple[str, ...]]) -> None:
    assert [n.parts for n in named_files(query) if n.module] == modules


def test_a_module_matches_the_path_that_spells_its_first_parts() -> None:
    """Folders, then the file name less its extension, spell two or more of the name's
    first parts (the rest: a class, a member), alike but for case and underscores; the
    longest spelled wins in ``named_holders``."""
    name = NamedFile(("sympy", "core", "expr", "Expr", "as_coeff_Mul"), module=True)
    assert name.matched_parts("sympy/core/expr.py") == 3
    assert name.matched_parts("src/sympy/core/expr.py") == 3
    assert name.matched_parts("sympy/core.py") == 2
    assert name.matched_parts("core/expr.py") == 0  # the package's name is missing
    # A package is a folder: its files match it as one (``test_a_folder_matches...``).
    assert name.matched("sympy/core/expr/__init__.py") == (3, False)
    assert name.matched("sympy/core/expr") == (2, False)  # no module's file: in sympy/core
    assert NamedFile(("Ecto", "Changeset"), module=True).matched_parts("lib/ecto/changeset.ex")
    live = NamedFile(("Phoenix", "LiveView", "mount"), module=True)
    assert live.matched_parts("lib/phoenix/live_view.ex") == 2
    task = NamedFile(("Mix", "Tasks", "Ecto", "Create"), module=True)
    assert task.matched_parts("lib/mix/tasks/ecto.create.ex") == 4
    assert task.matched_parts("lib/mix/tasks/ecto.ex") == 3
    assert str(live) == "Phoenix.LiveView.mount"
    assert wholly_named([name], ["a/expr.py", "sympy/core/expr.py"]) == [1]
    # A Rust crate's modules lie in its src/, the crate's folder named with a dash.
    (sender,) = named_files("tokio_util::codec::Framed::new")
    assert str(sender) == "tokio_util::codec::Framed::new"
    assert sender.matched_parts("tokio-util/src/codec.rs") == 2
    assert sender.matched_parts("tokio-util/src/codec/framed.rs") == 3
    assert sender.matched("tokio-util/src/codec/mod.rs") == (2, False)  # in the folder


def test_a_module_named_by_its_dotted_name_is_listed_first(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """``pkg.net.codec`` names ``pkg/net/codec.py``, not the files whose paths and words
    say "net" and "codec" more (``pkg/codec/net_3.py``, ``pkg/net_codec.md``); a module no
    file spells, given with a line, is said once (the text read as a file's name too: no
    path ends as ``pkg.net.codex`` either)."""
    root = tmp_path / "app"
    (root / "pkg" / "net").mkdir(parents=True)
    (root / "pkg" / "codec").mkdir()
    for package in ("pkg", "pkg/net"):
        (root / package / "__init__.py").write_text("")
    (root / "pkg" / "net" / "codec.py").write_text("def encode(x):\n    return x\n")
    for k in range(8):
        (root / "pkg" / "codec" / f"net_{k}.py").write_text(
            f'def net_codec_{k}(net):\n    """The net codec: encode the net with the codec."""\n'
        )
    (root / "pkg" / "net_codec.md").write_text("net codec for the net: the codec\n")
    asked = (
        "what does pkg.net.codec do",
        "from pkg.net.codec import encode",
        "pkg.net.codec:1 bad",
    )
    for query in asked:
        for flags in (["--fast"], []):
            out = run([*rrg_cmd(), "-q", query, *flags, "--files"], root, env)
            assert out.returncode == 0, out.stderr
            assert out.stdout.decode().splitlines()[0] == "pkg/net/codec.py", out.stdout
            assert not out.stderr, out.stderr
    out = run([*rrg_cmd(), "-q", "pkg.net.codex:3 failed", "--files"], root, env)
    said = b'no file searched has a path that ends as "pkg.net.codex", which the question'
    assert out.stderr.count(said) == 1, out.stderr


def test_a_folder_matches_the_files_it_holds() -> None:
    """A name whose last part has no extension, or a module's, may be a folder's: the
    files under the folder whose path ends as most of its parts (two at least) match it;
    a file it names beats a folder it names as many parts."""
    (io,) = named_files("how are errors handled in tokio/src/io/")
    assert io.matched("tokio/src/io/util/take.rs") == (3, False)
    assert io.matched("tokio-util/src/io/x.rs") == (2, False)
    assert io.matched("tokio/src/runtime/io/driver.rs") == (0, False)  # "io" alone
    package = NamedFile(("sympy", "solvers"), module=True)
    assert package.matched("sympy/solvers/ode/ode.py") == (2, False)
    assert package.matched("sympy/solvers.py") == (2, True)
    assert not NamedFile(("src", "app.py")).folder_too
    paths = ["lib/q/builder.ex", "lib/q.ex", "lib/other.ex"]
    (query,) = [n for n in named_files("what is Lib.Q for") if n.module]
    found = named_holders([query], np.arange(3), lambda n: np.ones(3, bool), lambda k: paths[k])
    assert list(found) == [1]


def test_a_folder_the_question_names_lists_its_files_first(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """ "errors in net/http" lists the files under ``net/http/`` first, not those whose words
    say "errors" most elsewhere; a word before a slash alone (``http/``) names nothing."""
    root = tmp_path / "svc"
    for folder in ("net/http", "net/mail", "db"):
        (root / folder).mkdir(parents=True)
    for k in range(6):
        (root / "db" / f"errors_{k}.py").write_text(
            f'def handle_errors_{k}(e):\n    """Errors: the errors handled."""\n    raise e\n'
        )
    (root / "net" / "mail" / "errors.py").write_text("def errors():\n    return 'errors'\n")
    (root / "net" / "http" / "client.py").write_text("def get(url):\n    return url\n")
    (root / "net" / "http" / "server.py").write_text("def serve(port):\n    return port\n")
    for query in ("how are errors handled in net/http", "what does net/http/ do for errors"):
        out = run([*rrg_cmd(), "-q", query, "--files"], root, env)
        assert out.returncode == 0, out.stderr
        first = out.stdout.decode().splitlines()[:2]
        assert sorted(first) == ["net/http/client.py", "net/http/server.py"], out.stdout
    assert not [n for n in named_files("errors in the http/ flow") if n.folder_too]


def test_a_name_given_from_the_root_takes_the_path_it_spells_from_there() -> None:
    """``lib/app/`` names the root's ``lib/app/``, not ``contrib/lib/app/``, which ends as
    many parts; a name no path begins with keeps every path that matches it most."""
    paths = ["contrib/lib/app/a.rb", "contrib/lib/app/b.rb", "lib/app/base.rb", "lib/x.rb"]
    order = np.arange(4)
    (folder,) = named_files("what does lib/app/ do")
    found = named_holders([folder], order, lambda n: np.ones(4, bool), lambda k: paths[k])
    assert list(found) == [2]
    (other,) = named_files("what does ci/lib/app/ do")
    found = named_holders([other], order, lambda n: np.ones(4, bool), lambda k: paths[k])
    assert list(found) == [0, 1, 2]
