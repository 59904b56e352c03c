"""Text a query pastes: the message of an error a program printed (``ValueError: Input
must be a column matrix``), or a phrase in quotes (``where is "connection reset by
peer" handled``). The files that hold it are what such a query asks for, whatever the
rest of its words weigh: the message is written once, in the source that raises it.

Neither BM25 nor the vectors read words in order: on sympy the one file that raises "Input
must be a column matrix" was not among the first twelve of that query, under eleven files
about columns and matrices (docs/benchmarks.md, "A pasted error message first").

``pasted_phrases`` reads a query's phrases (pure); ``holders`` finds the files that hold
them among a ranking's candidates, reading only those whose words, as the index counts
them, hold a phrase's first word and all but ``Phrase.may_miss`` of the others.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from rrg.rank.code_priors import is_report

#: The fewest literal words of an error's message that make a phrase: "KeyError: 'id'"
#: or "Expected 3, got 5" name no text of the source, only values.
MIN_MESSAGE_WORDS = 3
#: The fewest words of a quoted phrase: one quoted word is a word the search weighs anyway.
MIN_QUOTED_WORDS = 2
#: The most characters a value of the message stands for in the source: a placeholder
#: (``{n}``, ``%s``, ``" + str(n) + "``) where the program printed ``3`` or ``'id'``.
VALUE_CHARS = 60
#: The most runs of literal words a message's phrase keeps, the first ones: each value
#: between two is a gap of up to ``VALUE_CHARS`` the pattern tries every length of, and a
#: file dense in the runs' words costs the more for each gap (seven gaps of "in" and "of":
#: 0.07 s over 100 KB).
MAX_RUNS = 4
#: The most letters of a word of a message: a longer one is a value the program printed
#: (a hash, a blob, a minified line), as long as ``rrg.rank.query.PATH_FORM_LETTERS``.
MAX_WORD_CHARS = 64
#: The most candidate files read for a phrase, in the ranking's order, and the most text
#: read for all of a query's phrases: the files past either (a phrase of common words in a
#: huge tree) keep their places. sphinx's 122 files that hold the words of "node source not
#: found", 8 MB, are read and matched in about 0.04 s.
MAX_READ = 2000
MAX_READ_CHARS = 32 << 20

#: Where a program's message begins: an error's kind and a colon (``ValueError:``,
#: ``java.lang.IllegalStateException:``, rustc's ``error[E0308]:``, Go's ``panic:``, git's
#: ``fatal:``), at the start of the query or after a word of its own ("how to fix
#: TypeError: ...").
_KIND = re.compile(
    r"(?:^|(?<=\s))(?:[A-Za-z_][\w.]*)?"
    r"(?:error|exception|warning|panic|fatal|failure)(?:\[[\w-]+\])?\s*:\s+(?=\S)",
    re.IGNORECASE,
)
#: Where a logged message begins: its level as a logger prints it, apart from words by what
#: a log line puts around it: ``ERROR:root:...`` (Python's default), ``... - ERROR - ...``,
#: ``[error]`` (Elixir), ``2026-12-07T10:00:01Z ERROR app::db: ...`` (tracing),
#: ``[2026-12-07T10:00:01Z WARN app] ...`` (env_logger), ``10:00:01.123 [main] ERROR
#: c.e.Db - ...`` (logback): after a time, or before a separator; not a level word in a
#: question ("INFO logs are missing", "why do 2 WARN lines print twice").
_LEVEL = r"(?:ERROR|ERR|WARN|WARNING|FATAL|CRITICAL|CRIT|PANIC|SEVERE|INFO|DEBUG|TRACE|NOTICE)"
_LOG_LEVEL = re.compile(
    rf"\[(?i:{_LEVEL})\]\s*"
    rf"|(?:^|(?<=\s)){_LEVEL}\s*(?:[:|]|-\s)\s*"
    rf"|\d:\d\d[\d:.,]{{0,16}}[zZ]?\]?\s+(?:\[[^\]\n]{{0,40}}\]\s+)?{_LEVEL}\s+"
)
#: What a log line puts between the level and the message: a thread's or a field's
#: brackets, and the logger's name or target (``root:``, ``app::db:``, ``c.e.Db -``,
#: ``app]``).
_LOGGER = re.compile(r"(?:\[[^\]\n]{0,80}\][\s:-]*)*(?:[\w.$<>/]+(?:::[\w$<>]+)*(?:\]|:|\s+-)\s*)?")
#: A value a program put into its message, quoted (``'id'``, ``"x"``, `` `x` ``, not the
#: apostrophe of "can't") or in angle brackets (``<function f at 0x7f>``, ``<class 'int'>``:
#: the brackets first, a repr's quotes inside them), or a word that is one
#: (``_VALUE_WORD``). The source holds a placeholder there, not the value.
_QUOTED_VALUE = re.compile(r"""<[^<>\n]{0,80}>|(?<!\w)(?:'[^']*'|"[^"]*"|`[^`]*`)(?!\w)""")
#: A word of the message (apart by white space) that is a value: a path or a URL, an
#: assignment (``id=3``), a dotted name or a file's (``numpy.linalg``, ``.git``), a number
#: (``7``, ``[5]``, ``-1``, ``0x1f``, ``3rd``, ``size-3``). Each word is looked at alone:
#: patterns over the whole message that began a value at any character and ran to the
#: next white space took 14 s over a pasted line of 32,000 letters.
_VALUE_WORD = re.compile(r"[/\\=]|\w\.\w|^[(\[{]*[-+]?\.?\d|[^\w.]\d")
#: A phrase a question quotes: in double quotes, curly ones, or single quotes that stand
#: apart from words (an agent's shell quotes the question in double ones; "what's" and
#: "users'" open nothing).
_QUOTED = re.compile(r"""(?<!\w)(?:"([^"]+)"|\u201c([^\u201d]+)\u201d|'([^']+)')(?!\w)""")
#: A word as the index counts one (``rrg.index.textstats``): letters and digits.
_WORD = re.compile(r"[^\W_]+")
#: Between two words of a phrase, in a file: anything but letters and digits (spaces, a
#: line break inside a string the source concatenates, punctuation).
_BETWEEN = r"[\W_]+"
#: Where the source formats a value into a message, as the lower-cased text spells it:
#: ``{name}``, ``{}``, ``%s``, ``%(name)s``, ``${name}``, ``#{name}``, Kotlin's ``$name``,
#: ``" + name + "``. The program printed a value there, which the question pastes as a
#: word when nothing marks it as one (``Type Model must inherit ...`` from ``f"Type
#: {cls.__name__} must inherit ..."``).
_PLACEHOLDER = (
    r"\{[^{}\n]{0,40}\}|%[-+ #0-9.]*[a-z]|%\(\w+\)[-+ #0-9.]*[a-z]|[$#]\{[^{}\n]{0,40}\}"
    r"|\$\w+|[\"']\s*\+[^\"'+\n]{1,40}\+\s*[\"']"
)
#: Where a message holds a value, in the source: its placeholder, or what it formats.
_VALUE_GAP = rf"[\s\S]{{0,{VALUE_CHARS}}}?"
#: Between two words of a message, in the source: as ``_BETWEEN``, placeholders too
#: (``argument{plural}: {keys}`` printed as "argument: x").
_MESSAGE_BETWEEN = rf"(?:[\W_]|{_PLACEHOLDER})+"


@dataclass(frozen=True)
class Phrase:
    """A phrase as a file may hold it: ``pattern``, over a lower-cased text, and its
    ``words`` (lower-cased), of which a file that holds it holds all but ``may_miss``
    (words of a message the source holds as placeholders)."""

    pattern: re.Pattern[str]
    words: tuple[str, ...]
    may_miss: int = 0
    #: The message without its first word, looked for where no file holds the message:
    #: the program may have printed a value first (``foo is not valid value for bar`` from
    #: ``"%s is not valid value for %s"``), and a pattern must begin with a literal.
    fallback: Phrase | None = None

    def lines(self, text: str) -> tuple[int, int] | None:
        """The lines (1-based, first and last) where the text first holds the phrase,
        its first and last words whole ("column" is not "columnar", nor "put" "output")."""
        # Matched on the lower-cased text with a pattern that starts with a literal, which
        # the regex engine scans for fast; a case-insensitive pattern behind a look-behind
        # for the word's start read sphinx's 122 files that hold "node source not found"
        # in 0.17 s, this in 0.03 s. Lower-casing keeps every line break where it was.
        low = text.lower()
        for match in self.pattern.finditer(low):
            start, end = match.span()
            if (start and _in_word(low[start - 1])) or (end < len(low) and _in_word(low[end])):
                continue
            if self.may_miss and not self._enough_words(match.group()):
                continue
            first = low.count("\n", 0, start) + 1
            return first, first + low.count("\n", start, end)
        return None

    def _enough_words(self, held: str) -> bool:
        """Whether the text a message's pattern matched holds all of its words but
        ``may_miss``: placeholders may stand for a few words, not for the message."""
        there = set(_WORD.findall(held))
        return sum(word not in there for word in self.words) <= self.may_miss


def _in_word(char: str) -> bool:
    return char.isalnum()


def pasted_phrases(query: str) -> tuple[Phrase, ...]:
    """The phrases a query pastes: an error's or a logged message (its values read as
    placeholders), else each phrase in quotes (``_QUOTED``); none for a question in words
    alone, nor for a report (``is_report``: an issue's text, a traceback), which quotes
    code and messages in passing."""
    return read_pasted(query)[0]


def read_pasted(query: str) -> tuple[tuple[Phrase, ...], str, str]:
    """``pasted_phrases``; the query with the text they were read from blanked out (each
    character a space), an error's kind (``sympy.polys.polyerrors.PolynomialError``), a
    log line's level and logger's name too: a path in a message ("Version field is missing
    in package.json") is the message's, not a file the question names, nor is the module
    that defines the error (the file that raises it answers), and neither its words nor a
    logger's (``app.locale``) ask for a kind of file. A quoted name alone (``where is
    "config.yaml" read``) stays: the question names that file, and asks for the files
    that hold its name. Last, the text read (the message, the quoted phrases), "" where
    none was."""
    if is_report(query):
        return (), query, ""
    found = _message_start(query)
    if found is not None:
        blank, start = found
        phrase = _message(query[start:])
        if phrase is None:  # the message too short to read: the kind still names nothing
            return (), query[:blank] + " " * (start - blank) + query[start:], ""
        return (phrase,), query[:blank] + " " * (len(query) - blank), query[start:]
    phrases: list[Phrase] = []
    # The unpasted query piece by piece: a copy of the query at each quote is quadratic.
    pieces, at = [], 0
    read = []
    for match in _QUOTED.finditer(query):
        quoted = next(group for group in match.groups() if group is not None)
        words = _WORD.findall(quoted)
        if len(words) >= MIN_QUOTED_WORDS:
            phrases.append(_quoted(words))
            if len(quoted.split()) == 1:
                continue  # one quoted name ("config.yaml") names a file too
            begin, end = match.span()
            pieces += [query[at:begin], " " * (end - begin)]
            read.append(quoted)
            at = end
    return tuple(dict.fromkeys(phrases)), "".join([*pieces, query[at:]]), "\n".join(read)


def _message_start(query: str) -> tuple[int, int] | None:
    """Where the pasted text of an error's line (``_KIND``) or a log line (``_LOG_LEVEL``)
    begins in the query (the error's kind, a log line's level), and where its message
    begins (past the kind, or the level and the logger's name), if the query pastes one."""
    kind = _KIND.search(query)
    if kind is not None:
        return kind.start(), kind.end()
    level = _LOG_LEVEL.search(query)
    if level is None:
        return None
    logger = _LOGGER.match(query, level.end())
    return level.start(), logger.end() if logger else level.end()


def _message(text: str) -> Phrase | None:
    """A message's runs of literal words, apart where it holds a value."""
    runs: list[list[str]] = [[]]
    at = 0
    pieces: list[str | None] = []  # None: a quoted value
    for quoted in _QUOTED_VALUE.finditer(text):
        pieces += [text[at : quoted.start()], None]
        at = quoted.end()
    pieces.append(text[at:])
    for piece in pieces:
        for word in piece.split() if piece is not None else [None]:
            if word is None or len(word) > MAX_WORD_CHARS or _VALUE_WORD.search(word):
                runs.append([])
            else:
                runs[-1] += _WORD.findall(word)
    runs = [run for run in runs if run][:MAX_RUNS]
    if sum(map(len, runs)) < MIN_MESSAGE_WORDS:
        return None
    return _message_phrase(runs)


def _quoted(words: list[str]) -> Phrase:
    """A quoted phrase: its words as written, apart by anything but letters and digits."""
    words = [word.lower() for word in words]
    return Phrase(re.compile(_BETWEEN.join(map(re.escape, words))), tuple(words))


def _message_phrase(runs: list[list[str]]) -> Phrase:
    """A message's runs of words, apart by values. Its words after its first may each be a
    placeholder in the source (``may_miss`` of them at most, by its length); its first
    stays a literal, which the regex engine scans for fast (a pattern that begins with a
    choice read sphinx's 122 files that hold "node source not found" in 0.26 s, against
    0.01 s)."""
    runs = [[word.lower() for word in run] for run in runs]
    words = tuple(word for run in runs for word in run)
    may_miss = _may_miss(len(words))
    rest = [run for run in [runs[0][1:], *runs[1:]] if run]
    fallback = Phrase(_message_pattern(rest), words[1:], may_miss - 1) if may_miss else None
    return Phrase(_message_pattern(runs), words, may_miss, fallback)


def _message_pattern(runs: list[list[str]]) -> re.Pattern[str]:
    pieces = [[rf"(?:{re.escape(word)}|{_PLACEHOLDER})" for word in run] for run in runs]
    pieces[0][0] = re.escape(runs[0][0])
    return re.compile(_VALUE_GAP.join(_MESSAGE_BETWEEN.join(run) for run in pieces))


def _may_miss(words: int) -> int:
    """How many of a message's words the source may hold as placeholders: none of three,
    one of four to six, two of seven to nine, ..."""
    return 0 if words <= MIN_MESSAGE_WORDS else max(1, (words - 1) // 3)


def first_line_holding(phrases: Sequence[Phrase], text: str) -> int | None:
    """The line (1-based) where the text holds one of the phrases first, if it does."""
    tried = [*phrases, *(p.fallback for p in phrases if p.fallback is not None)]
    found = [lines[0] for lines in (p.lines(text) for p in tried) if lines is not None]
    return min(found) if found else None


def holders(
    phrases: Sequence[Phrase],
    order: np.ndarray,
    holding_words: Callable[[Phrase], np.ndarray],
    texts: Callable[[list[int]], Iterable[str]],
) -> dict[int, tuple[int, int]]:
    """The candidates of ``order`` (indices, best first) that hold one of the phrases, in
    that order, each with the lines (1-based, first and last) of its first phrase.
    ``holding_words(phrase)``: whether each candidate's words include its first word and
    all but ``may_miss`` of the others (the index's postings), a mask;
    ``texts(candidates)``: their texts, in that order."""
    found: dict[int, tuple[int, int]] = {}
    budget = MAX_READ_CHARS
    for pasted in phrases:
        phrase: Phrase | None = pasted
        while phrase is not None and budget > 0:
            held = holding_words(phrase)
            read = [k for k in order[held[order]].tolist() if k not in found][:MAX_READ]
            before = len(found)
            for k, text in zip(read, texts(read), strict=True):
                lines = phrase.lines(text)
                if lines is not None:
                    found[k] = lines
                budget -= len(text)
                if budget <= 0:
                    break
            # The message without its first word only where no file holds it whole.
            phrase = phrase.fallback if len(found) == before else None
    # Back in the order's order (a second phrase's holders may stand before the first's):
    # each one's place read off the order as an array, not a dict of every candidate.
    place = np.empty(len(order), np.int64)
    place[order] = np.arange(len(order))
    return dict(sorted(found.items(), key=lambda item: int(place[item[0]])))
