"""The whole index of a served root brought up to date for every file rg lists: what
``rrg --index`` and ``Project.index`` both do (a search refreshes the index too, bounded in
time; this waits for the whole)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rrg.errors import RrgError
from rrg.paths import relative_to
from rrg.rank.code_priors import primary_sources
from rrg.rg.args import RgArgs
from rrg.rg.candidates import Candidates, list_candidates

if TYPE_CHECKING:
    import numpy as np

    from rrg.index.refresh import RefreshReport
    from rrg.index.served import ServedRoot
    from rrg.index.view import IndexView


@dataclass(frozen=True)
class Built:
    """rg's listing, the index as it now stands (its view, each listed file's row) and what
    the refresh did, in ``seconds`` (the model's preparation apart)."""

    candidates: Candidates
    view: IndexView
    rows: np.ndarray
    report: RefreshReport
    seconds: float


def build_index(
    rg: str,
    args: RgArgs,
    served: ServedRoot,
    warn: Callable[[str], None],
    show_progress: bool,
    where: str,
    prepared: Callable[[float], None] = lambda seconds: None,
) -> Built:
    """The index of ``served`` brought up to date for the files rg lists for ``args``;
    ``prepared`` is told the seconds the model's static table took where this run made it
    (once a machine, before the index is read); ``where`` names the folder in an error."""
    from rrg.index.store import IndexUnavailable

    candidates = list_candidates(rg, args)
    start = time.monotonic()
    if served.prepare_model(show_progress):
        prepared(time.monotonic() - start)
        start = time.monotonic()
    try:
        view, rows, report = served.refresh(
            relative_to(served.root, candidates.paths),
            warn,
            show_progress,
            read_first=primary_sources,
        )
    except IndexUnavailable as err:
        raise RrgError(f"cannot update the index of {where}: {err}") from err
    return Built(candidates, view, rows, report, time.monotonic() - start)
