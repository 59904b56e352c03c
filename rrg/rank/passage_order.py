"""The order in which a file's passages answer a query: what ``rrg -q QUERY`` without a
pattern shows of each file (``rrg.rank.entry_points``), and where a capped search's matching
lines of a file are taken from (``Ranking.spans``, ``rrg.rg.chosen_lines``)."""

from __future__ import annotations

import os
import re

import numpy as np

from rrg.code_prose import TRIPLE_QUOTED, comment_openings
from rrg.index.definitions import defined_names
from rrg.rank.code_priors import is_report
from rrg.rank.declarations import first_defining
from rrg.rank.member_of import asked_owner, is_member_of
from rrg.rank.named_files import NamedFile
from rrg.rank.paragraphs import Paragraph
from rrg.rank.passages import ScoredPassages
from rrg.rank.preamble import is_file_preamble
from rrg.rank.query import Query
from rrg.rank.scoring import order_by
from rrg.rank.string_lines import string_spans

#: One lower-case identifier (``sympify``, ``parse_args`` is a symbol query already).
_LOWER_NAME = re.compile(r"[a-z][a-z0-9]*")


def preferred(scored: ScoredPassages, query: Query, paths: list[bytes]) -> list[int]:
    """The passages, best first: by the model's cosine among those it read (the others
    after them), else by the cheap score; a function's first passage raised to the best of
    its later parts; a passage defining the names a symbol query (or a one-word one) asks
    for before any other. ``paths``: the files the passages' owners index."""
    read = ~np.isnan(scored.cosine)
    keys = np.where(read, scored.cosine, -np.inf) if read.any() else scored.cheap
    return _best_first(keys, scored, query, paths)


#: A file's first passages whose defining line is looked for (a name asked for, else their
#: own): a share of the cap prints a line or a few, from the file's best passages.
_DEFINING_LINE_PASSAGES = 3


def line_spans(
    scored: ScoredPassages, query: Query, paths: list[bytes]
) -> list[tuple[int, int, int]]:
    """The passages as (owner, first line, last line), best first as ``preferred`` orders
    them, each file by its own reading (``_by_each_files_reading``). Each of a file's first
    passages comes after its line that defines a name a symbol query (or a one-word one)
    asks for, else a name of its own (``_own_names``), alone, then its code, and its prose
    (comments, docstrings) only after the code of the file's first passages: a passage
    opens with its comments, which name it too ("// Context is the most important part of
    gin") or hold an example a pattern matches too (tokio's ``/// # async fn main() {``,
    fastapi's ``async def read_item(`` in ``HTTPException``'s docstring), where the
    definition's line and its code say what answers."""
    names = set(_asked_names(query))
    looked: dict[int, int] = {}
    prose: dict[int, list[tuple[int, int, int]]] = {}
    files = _FilePassages(scored)
    spans: list[tuple[int, int, int]] = []
    for k in _by_each_files_reading(scored, query, paths):
        owner, passage = scored.owners[k], scored.paragraphs[k]
        looked[owner] = looked.get(owner, 0) + 1
        if looked[owner] > _DEFINING_LINE_PASSAGES:
            spans.append((owner, passage.start, passage.end))
            continue
        path = os.fsdecode(paths[owner])
        wanted = names or _own_names(passage, path)
        line = _defining_line_of(k, scored, wanted, path) if wanted else None
        if line is not None:
            spans.append((owner, line, line))
        # Its code before its prose: the lines of comments and docstrings (an example
        # there matches a definition pattern as the code does: tokio's ``/// # async fn
        # main() {``, ``rrg.rank.string_lines``) wait for the code of the file's next best
        # passages. The code from the definition on comes first, then any above it (the
        # function a nested definition's passage starts in): a file the cap gives several
        # lines prints them in the file's order, the definition's body first.
        first = passage.start if line is None else line
        skipped = _prose_lines(passage, files.string_spans_of(k, path), path)
        spans.extend((owner, a, b) for a, b in _runs(first, passage.end, skipped))
        spans.extend((owner, a, b) for a, b in _runs(passage.start, first - 1, skipped))
        waiting = prose.setdefault(owner, [])
        if passage.start < first < passage.end:
            waiting.append((owner, first, passage.end))
        waiting.append((owner, passage.start, passage.end))
        if looked[owner] == _DEFINING_LINE_PASSAGES:
            spans.extend(prose.pop(owner))
    for left in prose.values():
        spans.extend(left)
    return list(dict.fromkeys(spans))  # a span again adds nothing: its lines are taken


class _FilePassages:
    """Each file's passages in order, found once a file's are asked for."""

    def __init__(self, scored: ScoredPassages) -> None:
        self.scored = scored
        self._owners: np.ndarray | None = None
        self._held: dict[int, list[int]] = {}

    def string_spans_of(self, k: int, path: str) -> list[tuple[int, int]]:
        """The lines of passage ``k`` inside multi-line strings (``rrg.rank.string_lines``),
        read from the start of the definition it belongs to: a definition's first passage
        starts outside any string, a long one's later piece (or a piece of a module's docs)
        may not."""
        suffix = os.path.splitext(path)[1].lower()
        if suffix not in TRIPLE_QUOTED:
            return []
        paragraphs = self.scored.paragraphs
        held = self._passages_of(self.scored.owners[k])
        at = start = held.index(k)
        while start > 0 and not _opens_definition(paragraphs[held[start]]):
            start -= 1
        return string_spans([paragraphs[j] for j in held[start : at + 1]], suffix)

    def _passages_of(self, owner: int) -> list[int]:
        if owner not in self._held:
            if self._owners is None:
                self._owners = np.asarray(self.scored.owners)
            own = np.flatnonzero(self._owners == owner).tolist()
            self._held[owner] = sorted(own, key=lambda j: self.scored.paragraphs[j].start)
        return self._held[owner]


def _opens_definition(passage: Paragraph) -> bool:
    return bool(passage.name) and not passage.within


def _prose_lines(
    passage: Paragraph, strings: list[tuple[int, int]], path: str
) -> list[tuple[int, int]]:
    """The runs of a passage's lines (first, last; in order) that are prose: inside a
    multi-line string (``strings``), or opened by a comment."""
    openings = comment_openings(os.path.splitext(path)[1].lower())
    runs: list[tuple[int, int]] = []
    held = iter(strings)
    string = next(held, None)
    lines = passage.text.split("\n")[: passage.end - passage.start + 1]
    for number, text in enumerate(lines, passage.start):
        while string is not None and string[1] < number:
            string = next(held, None)
        in_string = string is not None and string[0] <= number
        if in_string or text.lstrip().startswith(openings):
            if runs and runs[-1][1] == number - 1:
                runs[-1] = (runs[-1][0], number)
            else:
                runs.append((number, number))
    return runs


def _runs(first: int, last: int, skipped: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The runs of lines from ``first`` to ``last`` outside the ``skipped`` spans (sorted,
    apart)."""
    runs: list[tuple[int, int]] = []
    at = first
    for a, b in skipped:
        if b < at:
            continue
        if a > last:
            break
        if a > at:
            runs.append((at, a - 1))
        at = b + 1
    if at <= last:
        runs.append((at, last))
    return runs


def _own_names(passage: Paragraph, path: str) -> set[str]:
    """The names whose definition a passage shows: the one it starts; none for a later
    part of a function, which answers as its first passage; else (a passage cut inside a
    macro's body, tokio's ``cfg_rt! {``, where the parse sees no function) those it
    defines as the index reads them."""
    if passage.name:
        return {passage.name}
    if passage.within:
        return set()
    return set(defined_names(passage.text, path))


def _by_each_files_reading(scored: ScoredPassages, query: Query, paths: list[bytes]) -> list[int]:
    """``preferred``'s order, each file by its own reading: a file the model read, by the
    cosine of the passages it read (its others after them, by the cheap score); a file it
    read none of (an embedded root's passages it holds no vector of), by the cheap score."""
    read = ~np.isnan(scored.cosine)
    owners = np.asarray(scored.owners, np.int64)
    by_model = np.zeros(int(owners.max()) + 1 if len(owners) else 0, bool)
    by_model[owners[read]] = True
    cheap = np.asarray(scored.cheap, np.float64)
    keys = np.where(by_model[owners], np.where(read, scored.cosine, -np.inf), cheap)
    return _best_first(keys, scored, query, paths, ties=cheap)


def _best_first(
    keys: np.ndarray,
    scored: ScoredPassages,
    query: Query,
    paths: list[bytes],
    ties: np.ndarray | None = None,
) -> list[int]:
    """The passages by ``keys``, each function's first passage raised to its later parts'
    best (``as_their_functions``), equal keys by ``ties`` (else in order), a file's
    preamble after every other passage (``rrg.rank.preamble``), then the definitions of the
    names the query asks for first (``definitions_first``)."""
    raised = as_their_functions(keys, scored.paragraphs, scored.owners)
    # A function's first passage that its later part raised comes before that part, whose
    # key it now shares: the function is shown from its definition's first line, and a
    # capped search prints the signature (``def Depends(``), not an example in the
    # docstring's later piece that the cheap score, the tie's reading, liked better.
    heads = (raised > keys).astype(np.int8)
    keys = np.round(raised, 6)
    order = order_by(keys) if ties is None else np.lexsort((-ties, -heads, -keys))
    best: list[int] = order.tolist()
    preambles = {k for k in best if is_file_preamble(scored.paragraphs[k])}
    if preambles:
        best = [k for k in best if k not in preambles] + [k for k in best if k in preambles]
    names = _asked_names(query)
    if names:
        owner = _asked_owner(query)
        of_each = [paths[o] for o in scored.owners]
        best = definitions_first(best, names, scored.paragraphs, of_each, owner)
    return best


def _defining_line_of(k: int, scored: ScoredPassages, names: set[str], path: str) -> int | None:
    """The passage's defining line of one of ``names``; for the first piece of a long
    definition of one (its comments alone: ``Paragraph.name``), the line in its later
    pieces, which are read under its signature."""
    passage = scored.paragraphs[k]
    line = _defining_line(passage, names, path)
    if line is not None or passage.name not in names:
        return line
    owner = scored.owners[k]
    later = sorted(
        (
            p
            for j, p in enumerate(scored.paragraphs)
            if scored.owners[j] == owner and p.within == passage.name and p.start > passage.start
        ),
        key=lambda p: p.start,
    )
    return next((n for p in later if (n := _defining_line(p, names, path)) is not None), None)


def _defining_line(passage: Paragraph, names: set[str], path: str) -> int | None:
    """The number of the passage's first line that defines one of ``names``."""
    offset = first_defining(passage.text, names, path)
    return None if offset is None else min(passage.start + offset, passage.end)


def _asked_names(query: Query) -> tuple[str, ...]:
    """The names a query asks for the definitions of: a symbol query's; the members a
    question names by their qualified names (each one's last part, then the whole); a
    one-word query's word; or the identifiers a question names."""
    form = query.form
    if form.symbol:
        return form.names
    members = _members_named(query)
    if members:
        return tuple(dict.fromkeys(name for m in members for name in (m.parts[-1], str(m))))
    # The identifiers a question names as written (``as_coeff_Mul``, not ``as_coeff_mul``,
    # which BM25 reads alike); a report's are the reporter's code, not what it asks for.
    return _one_word(query.text) or (() if is_report(query.text) else form.names)


def _asked_owner(query: Query) -> str | None:
    """What holds the member a query asks for: a qualified symbol query's part before the
    last (``Sender`` of ``tokio::sync::mpsc::Sender::send``), or that of a question's one
    member named so (``where is Sender::send defined``)."""
    if query.form.symbol:
        return asked_owner(query.form.names[-1])
    members = _members_named(query)
    return members[0].parts[-2] if len(members) == 1 else None


def _members_named(query: Query) -> list[NamedFile]:
    """The qualified names a question names as a module's (``Sender::send``,
    ``Expr.as_coeff_Mul``; ``rrg.rank.named_files``) whose last part reads as a member: two
    letters or more (``e.g.``, ``F.C.`` name none)."""
    return [name for name in query.named if name.module and len(name.parts[-1]) > 1]


def _one_word(query: str) -> tuple[str, ...]:
    """A query of one lower-case word, as a name (``sympify``, ``session``): not a symbol
    query by its form, since one plain word is as often a topic, so the files are ordered
    as for a question; but where a passage defines that name, it is what the word asks
    for (``def sympify`` rather than ``class CantSympify``, whose text says "sympify"
    more often)."""
    word = query.strip()
    return (word,) if _LOWER_NAME.fullmatch(word) else ()


def as_their_functions(
    keys: np.ndarray, passages: list[Paragraph], owners: list[int]
) -> np.ndarray:
    """``keys`` with each function's first passage raised to the best of its later parts
    (``Paragraph.within``: a long function's later pieces, a helper nested in it): such a
    part answers as its function, which is then shown from its definition's first line,
    where before a reader got the function cut in the middle of its body (issue 35). The
    part keeps its own key: a file's next passage may still be it."""
    starts: dict[tuple[int, str], list[int]] = {}
    for j, passage in enumerate(passages):
        if passage.name:
            starts.setdefault((owners[j], passage.name), []).append(j)
    out = keys.copy()
    for k, passage in enumerate(passages):
        if not passage.within:
            continue
        named = starts.get((owners[k], passage.within), [])
        heads = [j for j in named if passages[j].start < passage.start]
        if heads:
            head = max(heads, key=lambda j: passages[j].start)  # the nearest above
            out[head] = max(out[head], keys[k])
    return out


def definitions_first(
    best: list[int],
    names: tuple[str, ...],
    passages: list[Paragraph],
    paths: list[bytes],
    owner: str | None = None,
) -> list[int]:
    """``best`` with the passages that define one of the names first (in its order): a
    symbol query asks for the definition, which starts at its first line (its comments and
    decorators above it, as the passages are cut), not for the method that scored best.
    Of those, where a qualified name asks for a member (``Sender::send``), the definitions
    that ``owner`` holds come first (``rrg.rank.member_of``)."""
    wanted = set(names)

    def defines(k: int) -> bool:
        passage = passages[k]
        if passage.name in wanted:  # a definition's first piece, its comments maybe alone
            return True
        if passage.within in wanted:  # a later piece of one: it answers as its first
            return False
        return first_defining(passage.text, wanted, os.fsdecode(paths[k])) is not None

    first = [k for k in best if defines(k)]
    if owner is not None:
        member = names[0]
        held = {k for k in first if is_member_of(passages[k], member, owner, os.fsdecode(paths[k]))}
        first = [k for k in first if k in held] + [k for k in first if k not in held]
    taken = set(first)
    return first + [k for k in best if k not in taken]
