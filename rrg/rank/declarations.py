"""Whether a line of a passage defines a name: the index's reading of names
(``rrg.index.definitions``, a definer keyword: ``def``, ``fn``, ``class``), and where no
keyword opens a method (Java, C#, C and C++, TypeScript's and JavaScript's class bodies,
Scala, Dart, Groovy, Objective-C), its declaration: modifiers and a type before the name,
its parameters after it, the line not ended by ``;``.

The index reads a declared method too, but only in Java, C#, TypeScript and JavaScript,
Dart and Groovy, on an indented line (``index.definitions.DECLARED_SUFFIXES``; what a
file defines weighs its order, and its cold build must keep its rate); this reading, for
the few passages a query shows, also takes C++'s ``Foo::name(``, Scala's and
Objective-C's, and a line at column 0: commons-lang's ``StringUtils.isBlank`` printed
``isNotBlank``'s line, whose passage said "isBlank" more often than the method's own. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import cache

from rrg.index.definitions import DECLARED_SUFFIXES, STATEMENT_WORDS, defined_names

#: The languages whose methods are declared without a definer keyword.
_DECLARED = DECLARED_SUFFIXES | frozenset(".scala .cpp .cc .cxx .hpp .hh .hxx .h .m .mm".split())


def first_defining(text: str, names: Collection[str], path: str) -> int | None:
    """The index of the text's first line that defines one of ``names``, or None. Only
    the lines that hold a name are read: most passages hold none."""
    present = [name for name in names if name in text]
    if not present:
        return None
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if any(name in line and defines(line, name, path) for name in present):
            return k
    # A definition over two lines (C's return type on the line above its name).
    if set(present).isdisjoint(defined_names(text, path)):
        return None
    return next(k for k, line in enumerate(lines) if any(name in line for name in present))


def defines(line: str, name: str, path: str) -> bool:
    """Whether the line defines ``name``: by a definer keyword, or declared as a method."""
    if name in defined_names(line, path):
        return True
    if path[path.rfind(".") :].lower() not in _DECLARED or name not in line:
        return False
    match = _declaration(name).match(line)
    if match is None or line.rstrip().endswith(";"):
        return False
    before = match.group(1).split()
    if before and before[0] in STATEMENT_WORDS:
        return False
    # With nothing before it, only a body's opening tells a method from a call.
    return bool(before) or line.rstrip().endswith("{")


@cache
def _declaration(name: str) -> re.Pattern[str]:
    """Annotations, then words (modifiers, a return type, generics, a C++ class's
    ``Foo::``), then the name and its parameters' opening."""
    return re.compile(
        r"\s*((?:@[\w.]+(?:\([^)]*\))?\s+)*(?:[\w$.<>\[\],?*&]+\s+)*)"
        rf"(?:[\w:]+::)?{re.escape(name)}\s*(?:<[^>()]*>\s*)?\("
    )
