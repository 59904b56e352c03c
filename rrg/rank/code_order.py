"""The code priors (``rrg.rank.code_priors``) applied to a ranking's head: the best files of
the cheap tier and, for a query naming an identifier, every file named after it or
defining it (the index knows which do: ``rrg.index.definitions``). No file is read."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from rrg.rank import code_priors as priors
from rrg.rank.member_of import asked_owner
from rrg.rank.query import Query
from rrg.rank.scoring import order_by
from rrg.rank.tuning import Tuning

#: Files of the cheap order whose paths and texts the priors weigh.
HEAD_FILES = 200
#: Above this many candidates the files named after an identifier are looked for in the
#: head alone: the scan of every path is a Python loop over the index's paths (measured only
#: on trees of up to 3,892 files, where the whole step takes 0.02-0.03 s).
NAME_SCAN_LIMIT = 200_000
#: Candidates whose paths say whether a tree is a repository of code (an even sample).
CODE_SAMPLE = 1000


class CodeOrder(NamedTuple):
    scores: np.ndarray  # the candidates' scores with the priors applied
    offsets: np.ndarray  # each one's offset
    among_code: bool  # the candidates are a repository of code (``priors.holds_code``)
    copies: np.ndarray  # those that repeat a page in another language (``_sink_copies``)


def skips_stage(query: Query, among_code: bool = True) -> bool:
    """Whether the cheap tier orders this query alone: a symbol query in a tree of code,
    which asks for the files that define it (the index's definitions, the passage tier's
    lift of a definition). The stage changed no figure of semble-code's dev half on them,
    where it ran for those with no definer first or more than three (docs/benchmarks.md,
    "Where the stage earns its time"), and its model run is most of a new query's time. In
    a tree of prose a lone capitalised word ("Aspirin", 21 of nfcorpus's queries) is a
    topic, and the stage reads it."""
    return among_code and query.form.symbol


def code_order(
    query: Query,
    fused: np.ndarray,
    rel_of: Callable[[int], bytes],
    definers: Callable[[tuple[str, ...]], set[int]],
    tuning: Tuning,
) -> CodeOrder:
    """The candidates' scores with the priors applied, each one's offset (``fused``'s
    order and units), and whether they are a repository of code. ``rel_of(k)``: the
    k-th candidate's path relative to the root; ``definers(names)``: the candidates that
    define one of the names.

    The priors re-order the files they weigh among themselves, and those stay above every
    other file: a file outside them was weighed by nobody, so an offset there is unknown,
    not zero."""
    form = query.form
    offsets = np.zeros(len(fused))
    weighed = order_by(fused)[:HEAD_FILES].tolist()
    defining = definers(form.names) if form.names else set()
    if defining and form.symbol:
        defining = _holding_owner(defining, form.names[-1], definers)
    if form.names and len(fused) <= NAME_SCAN_LIMIT:
        weighed += _named_after(form.names, len(fused), rel_of, set(weighed))
    weighed += sorted(defining.difference(weighed))
    scale = 1.0 if form.symbol else tuning.in_sentence_scale
    among_code = _holds_code(len(fused), rel_of, tuning.code_tree_share)
    paths = {k: rel_of(k).decode("utf-8", "replace") for k in weighed}
    older = priors.superseded_versions(paths.values(), form.words)
    kinds_of = {
        k: priors.secondary_kinds(p, form.asks_for, among_code, older) for k, p in paths.items()
    }
    defining = _primary_where_any(defining, kinds_of)
    for k, path in paths.items():
        kinds = kinds_of[k]
        offset = -tuning.path_penalty * kinds
        offset += priors.prose_offset(path, form.asks_for, among_code, tuning.prose_penalty)
        if not form.symbol:
            offset += tuning.stem_weight * priors.stem_share(form.words, priors.stem_words(path))
        if k in defining:
            offset += scale * tuning.definition_weight
        offsets[k] = offset
    scores = fused.copy()
    if len(weighed) < len(fused):
        rest = np.ones(len(fused), bool)
        rest[weighed] = False
        mixed = fused[weighed] + offsets[weighed]
        scores[weighed] = float(fused[rest].max()) + 1.0 + mixed - mixed.min()
    else:
        scores = fused + offsets
    copies: list[int] = []
    if "translation" not in form.asks_for:
        scored = ((p, float(fused[k])) for k, p in paths.items())
        copied = priors.translated_copies(scored, query.text.isascii())
        copies = [k for k, p in paths.items() if p in copied]
        _sink_copies(scores, offsets, copies)
    return CodeOrder(np.round(scores, 9), offsets, among_code, np.array(copies, np.int64))


def _holding_owner(
    defining: set[int], qualified: str, definers: Callable[[tuple[str, ...]], set[int]]
) -> set[int]:
    """Of the files that define a qualified name's member, those that define its owner too,
    where any does: ``BaseModel.model_dump`` is pydantic's ``main.py``'s (``class
    BaseModel``), not ``root_model.py``'s, whose ``RootModel`` defines a ``model_dump`` of
    its own. Only a type's name is an owner here (a capital first letter): a lower-case
    one is a module or a variable (``os.path.join``, zod's ``z.object``), which many files
    define something of that name beside."""
    owner = asked_owner(qualified)
    if owner is None or not owner[:1].isupper():
        return defining
    held = defining & definers((owner,))
    return held or defining


def _sink_copies(scores: np.ndarray, offsets: np.ndarray, copies: list[int]) -> None:
    """Put the ``copies`` (pages in another language: ``translated_copies``) below every
    other candidate, in their own order, their offsets with them (the stage adds those;
    ``rrg.rank.files`` puts them last again after the stage and the passage tier).
    The one exception to the priors' rule that what they weigh stays above what they do
    not: a copy is known to repeat a page above it, where a file nobody weighed may still
    answer. As one kind more of secondary file, eleven copies of one page took places
    11-21 of the files a capped search printed (fastapi's "BackgroundTasks"); sunk to the
    bottom of the weighed files, they still came before every matching file below them."""
    if not copies or len(copies) == len(scores):
        return
    others = np.ones(len(scores), bool)
    others[copies] = False
    shift = float(scores[copies].max() - scores[others].min()) + 1.0
    scores[copies] -= shift
    offsets[copies] -= shift


def _primary_where_any(defining: set[int], kinds_of: dict[int, int]) -> set[int]:
    """The definers of the query's names that are primary files, where any is: a name
    that the source defines is asked of the source; a test double, an example's own copy
    or an older version's (zod's ``v3/ZodError.ts`` beside ``v4/classic/errors.ts``)
    that defines it too is a copy, as a nested definition is beside a top-level one
    (``rank.cheap.defining_candidates``). Where only secondary files define it, they
    keep the boost."""
    primary = {k for k in defining if kinds_of[k] == 0}
    return primary or defining


def _holds_code(count: int, rel_of: Callable[[int], bytes], share: float) -> bool:
    """Whether the candidates are a repository of code, from an even sample of
    ``CODE_SAMPLE``."""
    step = max(1, count // CODE_SAMPLE)
    sample = [rel_of(k).decode("utf-8", "replace") for k in range(0, count, step)]
    return priors.holds_code(sample, share)


def _named_after(
    names: tuple[str, ...], count: int, rel_of: Callable[[int], bytes], skip: set[int]
) -> list[int]:
    """Candidates outside ``skip`` whose file stem is one of the names."""
    wanted = [name.lower().encode() for name in names]
    found = []
    for k in range(count):
        if k in skip:
            continue
        base = rel_of(k).rsplit(b"/", 1)[-1].lower()
        if any(name in base for name in wanted):
            stem = base.split(b".", 1)[0].decode("utf-8", "replace")
            if any(priors.stem_is(stem, name) for name in names):
                found.append(k)
    return found
