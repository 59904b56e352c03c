"""Where a code file's prose lies: its comment lines (what opens one) and its triple-quoted
strings (a Python docstring, an Elixir ``@doc`` heredoc, a Kotlin or Swift raw string).
Their text is prose and examples, and an example reads as code does (``/// # async fn
main() {``, ``def read_item(``). The index's reader of names skips a definition inside
them (``rrg.index.definitions``), and a capped search takes a file's line from its code
before them (``rrg.rank.passage_order``, ``rrg.rank.string_lines``), so both read them
here, below them.

Scanned from quote to quote, not parsed: a passage is a piece of a file, and a parser given
a piece (a method cut out of its class, a string cut at the passage's end) fails where this
still reads the rest. A ``#`` comment's quotes open nothing (Python, Elixir, Julia); a
quote inside a one-line string (``"#"``, ``'\"\"\"'``) may mislead it.
"""

from __future__ import annotations

import re

#: The extensions of languages whose ``\"\"\"`` (or ``'''``) opens a string that may run
#: over lines. Elsewhere three quotes are no such thing (``""`` then ``"`` in C or Go).
TRIPLE_QUOTED = frozenset(
    (".py", ".pyi", ".pyw", ".ex", ".exs", ".jl", ".kt", ".kts", ".scala", ".sc", ".swift")
    + (".groovy", ".gradle", ".dart", ".java", ".cs")
)

#: What opens a comment's line, a definer keyword after which is prose ("this function
#: avoids starving", "a type of ...") or an example (tokio's ``/// # async fn docs() {``),
#: no definition: ``//`` and ``/*`` and a block comment's ``*`` in any language, ``#`` in
#: those whose comments it opens (Rust's ``#[test] fn`` and C's ``#define`` are code),
#: ``--`` in Lua's and Haskell's.
_COMMENT_OPENINGS = ("//", "/*", "*")
_HASH_COMMENTS = frozenset(".py .pyi .pyw .rb .sh .bash .pl .pm .r .ex .exs .jl .nim .php".split())
_DASH_COMMENTS = frozenset(".lua .hs".split())


def comment_openings(suffix: str) -> tuple[str, ...]:
    """What opens a comment's line in a file of this extension."""
    if suffix in _HASH_COMMENTS:
        return (*_COMMENT_OPENINGS, "#")
    if suffix in _DASH_COMMENTS:
        return (*_COMMENT_OPENINGS, "--")
    return _COMMENT_OPENINGS


#: A triple quote, or a comment's ``#`` that would hide one.
_QUOTE_OR_HASH = re.compile(r"\"\"\"|'''|#")


def triple_quoted(text: str, suffix: str) -> list[tuple[int, int, bool]]:
    """Each triple-quoted string of ``text`` as (where its opening quotes start, where its
    closing quotes end, whether it closes): in order; a string left open runs to the
    text's end. None for a language without such strings."""
    if suffix not in TRIPLE_QUOTED:
        return []
    hash_comments = suffix in _HASH_COMMENTS  # a comment's quotes open nothing
    found: list[tuple[int, int, bool]] = []
    at = 0
    while (quote := _QUOTE_OR_HASH.search(text, at)) is not None:
        if quote.group() == "#":
            if not hash_comments:
                at = quote.end()
                continue
            at = text.find("\n", quote.end())  # a comment's quotes open nothing
            if at < 0:
                break
            continue
        close = text.find(quote.group(), quote.end())
        if close < 0:
            found.append((quote.start(), len(text), False))
            break
        found.append((quote.start(), close + 3, True))
        at = close + 3
    return found
