"""From rg patterns to the keywords of the rerank query (the RARG rules). Pure."""

from __future__ import annotations

import re

MAX_KEYWORDS = 32
#: Regex syntax that names no word: inline flags ``(?i)``, ``(?x:``, character classes
#: ``[A-Z]`` and counted repetition ``{3}`` / ``{2,5}``.
_NON_WORDS = re.compile(r"\(\?[a-zA-Z-]*[:)]|\[\^?\]?(?:\\.|[^\]])*\]|\{\d*,?\d*\}")
_CLASS_ESCAPE = re.compile(r"\\[bBwWsSdDAzZ]")
_OTHER_ESCAPE = re.compile(r"\\.")
_REGEX_SYNTAX = re.compile(r"[\^$*+?()\[\]{}]")


def keywords(patterns: list[str]) -> list[str]:
    """``Copacabana|Link Road clinic|1958`` -> Copacabana, Link, Road, clinic, 1958.

    Class escapes (``\\b \\w \\s \\d``) and ``|`` become spaces, other escaped characters
    are dropped, regex syntax becomes a space, only letters, digits and ``_./:-`` stay; words
    are stripped of ``._/:-`` at their ends and deduplicated case-insensitively.
    """
    out: list[str] = []
    seen: set[str] = set()
    for pattern in patterns:
        text = _NON_WORDS.sub(" ", pattern)
        text = _CLASS_ESCAPE.sub(" ", text).replace("|", " ")
        text = _OTHER_ESCAPE.sub("", text)
        text = _REGEX_SYNTAX.sub(" ", text)
        text = "".join(c if c.isalnum() or c in "_./:-" else " " for c in text)
        for word in text.split():
            word = word.strip("._/:-")
            if word and word.casefold() not in seen:
                seen.add(word.casefold())
                out.append(word)
    return out[:MAX_KEYWORDS]


def rerank_query(query: str, patterns: list[str], instruction: str = "") -> str:
    """The constructed rerank query; the instruction prefix only for models that use one."""
    focus = " ".join(keywords(patterns))
    body = f"{query}\n\nRG focus: {focus}" if focus else query
    if instruction:
        return f"Instruct: {instruction}\nQuery: {body}"
    return body
