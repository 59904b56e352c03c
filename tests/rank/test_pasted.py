"""A query that pastes an error's message or quotes a phrase lists the files that hold it
first (``rrg.rank.pasted``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from conftest import rrg_cmd, run
from rrg.rank.pasted import Phrase, first_line_holding, holders, pasted_phrases


def _words(query: str) -> list[tuple[str, ...]]:
    return [phrase.words for phrase in pasted_phrases(query)]


@pytest.mark.parametrize(
    ("query", "words"),
    [
        (
            "ValueError: Input must be a column matrix",
            [("input", "must", "be", "a", "column", "matrix")],
        ),
        ("how to fix TypeError: cannot read the field", [("cannot", "read", "the", "field")]),
        (
            "java.lang.IllegalStateException: Response already committed",
            [("response", "already", "committed")],
        ),
        (
            "panic: runtime error: index out of range [5]",
            [("runtime", "error", "index", "out", "of", "range")],
        ),
        # Values the program put in are not the source's text: a number, a quoted name, a path.
        ("KeyError: 'user_id' is missing from row 7", [("is", "missing", "from", "row")]),
        ("OSError: cannot open /tmp/a.txt for writing", [("cannot", "open", "for", "writing")]),
        # A blob the program printed (a hash, a minified line) is a value too.
        (f"ValueError: cannot decode {'Q' * 5000} as text", [("cannot", "decode", "as", "text")]),
        ("ValueError: can't convert the value", [("can", "t", "convert", "the", "value")]),
        ('where is "connection reset by peer" handled', [("connection", "reset", "by", "peer")]),
        # Too little text of the source's own: only values, or one quoted word.
        ("KeyError: 'user_id'", []),
        ("TypeError: expected 3, got 5", []),
        ('where is "retry" called', []),
        # Single quotes too, where they stand apart from words (an apostrophe opens none).
        ("where is 'connection reset by peer' handled", [("connection", "reset", "by", "peer")]),
        ("what's the users' retry policy", []),
        # A logged line: its message, past the level, the time and the logger's name.
        ("ERROR:root:failed to open the cache", [("failed", "to", "open", "the", "cache")]),
        (
            "2026-12-07 10:00:01,123 - app.db - WARNING - retry budget is spent",
            [("retry", "budget", "is", "spent")],
        ),
        (
            "2026-12-07T10:00:01.123Z ERROR app::db: pool has no free connection",
            [("pool", "has", "no", "free", "connection")],
        ),
        ("[2026-12-07T10:00:01Z WARN app] frame is too large", [("frame", "is", "too", "large")]),
        ("10:00:01.123 [main] ERROR c.e.Db - Lost the lease", [("lost", "the", "lease")]),
        (
            "10:00:01.123 [error] lost the lease on 7 nodes",
            [("lost", "the", "lease", "on", "nodes")],
        ),
        # A level word in a question is no log line.
        ("INFO logs are missing from the output", []),
        ("why is the WARNING level ignored by the handler", []),
        ("why do 2 WARN lines print twice", []),
        # A question in words alone pastes nothing, "error" or not.
        ("how are errors handled", []),
        ("error handling: retries and timeouts", []),
    ],
)
def test_a_query_pastes_an_error_message_or_a_quoted_phrase(
    query: str, words: list[tuple[str, ...]]
) -> None:
    assert _words(query) == words


@pytest.mark.parametrize(
    ("query", "source", "holds"),
    [
        (
            "ValueError: Input must be a column matrix",
            'raise ValueError("Input must be a column matrix")',
            True,
        ),
        # The message split across two literals the source concatenates.
        (
            "ValueError: Input must be a column matrix",
            'raise ValueError("Input must be "\n    "a column matrix")',
            True,
        ),
        # A placeholder where the program printed a value.
        (
            "TypeError: expected 3 arguments but got 5",
            'f"expected {n} arguments but got {m}"',
            True,
        ),
        (
            "RuntimeError: retry 4 of 5 failed for job",
            '"retry %d of %d failed for job" % (k, n)',
            True,
        ),
        # A word the program printed where nothing marks it as a value: a placeholder of
        # the source may stand for it, or between two words ("argument{plural}: {keys}").
        (
            "TypeError: Type Model must inherit from typing.Generic before being parameterized",
            'f"Type {cls.__name__} must inherit from typing.Generic before being parameterized"',
            True,
        ),
        (
            "TypeError: multiple values for argument: x",
            "f'multiple values for argument{plural}: {keys}'",
            True,
        ),
        ("ValidationError: 1 validation error for Model", '"{} validation error{} for {}"', True),
        # Its first word too, where the program printed a value first.
        ("error: foo is not valid value for bar", '"%s is not valid value for %s"', True),
        # ... but not for most of the message: one word of six at most.
        ("ValueError: cannot open the config file now", 'f"cannot {a} {b} {c} file now"', False),
        # A word is whole: "column" is not "columnar".
        ("ValueError: Input must be a column matrix", "Input must be a columnar matrix", False),
        ("ValueError: Input must be a column matrix", "the column matrix input must be", False),
    ],
)
def test_a_phrase_matches_the_source_that_prints_it(query: str, source: str, holds: bool) -> None:
    (phrase,) = pasted_phrases(query)
    assert (first_line_holding((phrase,), source) is not None) == holds


def test_holders_keep_the_order_and_say_the_phrases_lines() -> None:
    """Of the files whose words hold the phrase, those whose text does, in the order's own
    order, each with the lines of its first match; a file the words rule out is not read."""
    (phrase,) = pasted_phrases("ValueError: Input must be a column matrix")
    texts = {
        0: "x = 1\n",
        1: "a\nb\nraise ValueError('Input must be '\n   'a column matrix')\n",
        2: "raise ValueError('Input must be a column matrix')\n",
        3: "must input a matrix column\n",
    }
    read: list[int] = []

    def words_held(p: Phrase) -> np.ndarray:
        return np.array([False, True, True, True])

    def text_of(candidates: list[int]) -> list[str]:
        read.extend(candidates)
        return [texts[k] for k in candidates]

    found = holders((phrase,), np.array([3, 2, 0, 1]), words_held, text_of)
    assert list(found.items()) == [(2, (1, 1)), (1, (3, 4))]
    assert read == [3, 2, 1]


def _matrix_tree(root: Path) -> int:
    """A library of matrix code where every file but one speaks of inputs, columns and
    matrices again and again; the one that raises the message is about eigenvalues and
    says "column matrix" once, in its message, below ten other functions. Its line."""
    src = root / "src"
    src.mkdir(parents=True)
    for k in range(40):
        (src / f"matrix_ops_{k}.py").write_text(
            "".join(
                f"def column_{k}_{j}(matrix, column):\n"
                f'    """Take the input matrix and return column {j} of the matrix input."""\n'
                f"    return matrix.column(column + {k})\n\n\n"
                for j in range(6)
            )
        )
    helpers = "".join(f"def step_{j}(m):\n    return m.rotate({j})\n\n\n" for j in range(10))
    (src / "eigen.py").write_text(
        helpers + "def householder(x):\n"
        "    if not x.cols == 1:\n"
        '        raise ValueError("Input must be a column matrix")\n'
        "    return x.copy()\n"
    )
    return helpers.count("\n") + 3


def test_a_pasted_error_lists_the_file_that_raises_it_first(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The one file whose source holds the message comes first, in the cheap order and in
    the default; a capped search prints its line first; without a pattern its passage that
    holds the message comes first. The same words as a question leave it below the others
    (the rule reads what the query pastes, not what it asks)."""
    root = tmp_path / "lib"
    line = _matrix_tree(root)
    query = "ValueError: Input must be a column matrix"
    for flags in (["--fast"], []):
        out = run([*rrg_cmd(), "-q", query, *flags, "--files"], root, env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.decode().splitlines()[0] == "src/eigen.py", out.stdout
    out = run([*rrg_cmd(), "-q", query, "-n", "--no-heading", "raise|return"], root, env)
    first = out.stdout.decode().splitlines()[0]
    assert first == f'src/eigen.py:{line}:        raise ValueError("Input must be a column matrix")'
    out = run([*rrg_cmd(), "-q", query, "--color", "never", "--limit", "1"], root, env)
    shown = out.stdout.decode()
    assert shown.startswith("src/eigen.py:") and "Input must be a column matrix" in shown, shown
    asked = run([*rrg_cmd(), "-q", "input must be a column matrix", "--files"], root, env)
    assert asked.stdout.decode().splitlines()[0] != "src/eigen.py"


def test_holders_stop_reading_past_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A phrase of common words in a huge tree: the files past ``MAX_READ_CHARS`` of text
    are not read, and keep their places."""
    from rrg.rank import pasted

    (phrase,) = pasted_phrases('where is "not found" raised')
    text = "raise KeyError('not found')\n"
    monkeypatch.setattr(pasted, "MAX_READ_CHARS", 2 * len(text))
    read: list[int] = []

    def text_of(candidates: list[int]) -> Iterator[str]:
        for k in candidates:
            read.append(k)
            yield text

    found = holders((phrase,), np.arange(5), lambda p: np.ones(5, bool), text_of)
    assert list(found) == [0, 1] and read == [0, 1]


def test_a_message_no_file_holds_is_said_and_ranked_by_its_words(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """An error the project does not raise (Python's own, a dependency's): one line on
    stderr says so, asked again too (the order is read back then), and the files are
    ranked by the words; a message a file holds says nothing."""
    root = tmp_path / "lib"
    _matrix_tree(root)
    said = b'rrg: no file holds the text the question pastes ("list index out of range")'
    for _ in range(2):
        out = run([*rrg_cmd(), "-q", "IndexError: list index out of range", "--files"], root, env)
        assert out.returncode == 0 and said in out.stderr, out.stderr
        assert len(out.stdout.splitlines()) == 41
    out = run([*rrg_cmd(), "-q", "ValueError: Input must be a column matrix", "--files"], root, env)
    assert b"no file holds" not in out.stderr, out.stderr


def test_a_message_without_its_first_word_only_where_no_file_holds_it_whole() -> None:
    """The program may print a value first; the message without its first word is looked
    for only where no file holds the message, whose holders are the answer otherwise."""
    (phrase,) = pasted_phrases("error: foo is not valid value for bar")
    formatted = 'return fmt.Errorf("%s is not valid value for %s", v, k)\n'
    whole = "// foo is not valid value for bar\n"

    def found(texts: list[str]) -> list[int]:
        def text_of(candidates: list[int]) -> list[str]:
            return [texts[k] for k in candidates]

        everywhere = np.ones(len(texts), bool)
        return list(holders((phrase,), np.arange(len(texts)), lambda p: everywhere, text_of))

    assert found([formatted, "x\n"]) == [0]
    assert found([formatted, whole]) == [1]


def test_the_source_that_holds_a_message_before_the_tests_that_hold_it(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A test that asserts the message holds it too, and its words rank it first: of the
    holders, the source comes first, unless the question asks for tests."""
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    for k in range(8):
        (root / "src" / f"layout_{k}.py").write_text(f"def place_{k}(box):\n    return box\n")
    (root / "src" / "checks.py").write_text(
        "def check(frame):\n"
        "    if frame.width < 3:\n"
        '        raise ValueError("widget frame is too narrow")\n'
    )
    (root / "tests" / "test_widget_frame.py").write_text(
        "def test_widget_frame_narrow():\n"
        + "    # a narrow widget frame raises ValueError: the widget's frame is narrow\n" * 20
        + '    with pytest.raises(ValueError, match="widget frame is too narrow"):\n'
        + "        check(Frame(widget_frame=1))\n"
    )
    asked = {
        "ValueError: widget frame is too narrow": "src/checks.py",
        'which test checks "widget frame is too narrow"': "tests/test_widget_frame.py",
    }
    for query, first in asked.items():
        out = run([*rrg_cmd(), "-q", query, "--files", "--fast"], root, env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.decode().splitlines()[:2] == sorted(
            {"src/checks.py", "tests/test_widget_frame.py"}, key=lambda p: p != first
        ), out.stdout


def test_a_log_lines_logger_asks_for_no_kind_of_file(tmp_path: Path, env: dict[str, str]) -> None:
    """A logged warning that a translation's catalog holds too, under a logger whose name
    says "locale": the source that logs it comes first (the logger's words, as the
    message's, ask for no kind of file; the holders that are source come first)."""
    root = tmp_path / "app"
    (root / "app").mkdir(parents=True)
    for k in range(8):
        (root / "app" / f"layout_{k}.py").write_text(f"def place_{k}(box):\n    return box\n")
    (root / "app" / "writer.py").write_text(
        "def visit(node):\n"
        "    if len(node) != 1:\n"
        '        logger.warning("document title is not a single Text node")\n'
    )
    catalog = root / "app" / "locale" / "fr" / "LC_MESSAGES"
    catalog.mkdir(parents=True)
    words = ["single", "warn", "main", "text", "node", "title"] * 20
    (catalog / "app.po").write_text(
        "".join(f'msgid "document {w} title node text single"\nmsgstr "titre"\n\n' for w in words)
        + 'msgid "document title is not a single Text node"\nmsgstr "un seul noeud"\n'
    )
    query = (
        "10:00:01.123 [main] WARN app.locale.messages - document title is not a single Text node"
    )
    out = run([*rrg_cmd(), "-q", query, "--files", "--fast"], root, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode().splitlines()[:2] == [
        "app/writer.py",
        "app/locale/fr/LC_MESSAGES/app.po",
    ], out.stdout
