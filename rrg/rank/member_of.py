"""Whose member a passage's definition is: ``Sender::send`` asks for the ``send`` that
``Sender`` holds, where a file defines ``send`` in several types (tokio's ``bounded.rs``
defines it for ``Sender``, ``Permit`` and ``OwnedPermit``, and the model and the cheap
scores liked ``OwnedPermit``'s, whose comments name ``Sender`` twice).

Read from the lines that open what holds the definition: the passage's context (the first
lines of the class or ``impl`` a long one was cut from, ``Paragraph.context``), the lines
above the definition in the passage that are indented less (a short class cut whole), and
the defining line itself before the name (Go's receiver ``func (s *Sender) Send``, Kotlin's
``fun Sender.send``). The nearest of them decides, by the name it defines: a nested class's
method is the nested class's, a subclass's its own, not its base's. Comments never do.
Pure: text in, a yes or no out.
"""

from __future__ import annotations

import re

from rrg.index.definitions import defined_names
from rrg.rank.declarations import defines, first_defining
from rrg.rank.paragraphs import Paragraph

#: What separates a qualified name's parts (``code_priors._SEPARATORS``, whose ``->`` and
#: ``\\`` join no member here).
_SEPARATORS = re.compile(r"::|\.|#")
_COMMENT = ("//", "#", "/*", "*", "--", '"""', "'''", ";")


def asked_owner(qualified: str) -> str | None:
    """The part before the last of a qualified name (``Sender`` of
    ``tokio::sync::mpsc::Sender::send``), or None for a bare name."""
    parts = [part for part in _SEPARATORS.split(qualified) if part]
    return parts[-2] if len(parts) >= 2 else None


def is_member_of(passage: Paragraph, name: str, owner: str, path: str) -> bool:
    """Whether the passage's definition of ``name`` is ``owner``'s: the nearest line
    opening what holds it names ``owner`` as a word, or its defining line does before the
    name."""
    lines = passage.text.split("\n")
    at = first_defining(passage.text, (name,), path)
    if at is not None:
        defining, above, indent = lines[at], lines[:at], _indent(lines[at])
    elif passage.name == name:  # a long definition's comments: its signature is context
        context = passage.context.split("\n")
        defining = next((line for line in context if defines(line, name, path)), "")
        above, indent = [], 0
    else:
        return False
    word = _word(owner)
    named = _word(name).search(defining)
    if named and word.search(defining[: named.start()]):
        return True
    holder = _nearest_holder(passage, above, indent, name, path)
    if holder is None:
        return False
    # The name it defines, where the line reads as a definition: ``class HTTPBasic(HTTPBase)``
    # holds HTTPBasic's methods, not its base's; an ``impl<T> Sender<T>`` or ``extension
    # Sender`` that no definer keyword's pattern reads is looked through for the word.
    held = defined_names(holder, path)
    return owner in held if held else word.search(holder) is not None


def _nearest_holder(
    passage: Paragraph, above: list[str], indent: int, name: str, path: str
) -> str | None:
    """The last line above the definition, in the passage or else in its context, that
    may open what holds it: code, indented less than the definition (in the passage), and
    not a definition of ``name`` itself (a long function's pieces are read under their own
    signature)."""
    for line in reversed(above):
        if line.strip() and _indent(line) < indent and not _is_comment(line):
            return line
    for line in reversed(passage.context.split("\n")):
        if line.strip() and not _is_comment(line) and not defines(line, name, path):
            return line
    return None


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith(_COMMENT)
