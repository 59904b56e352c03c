"""What rrg's commands say on standard output, in their words: each function takes what a
command found and writes it (``rrg.output.stdout`` is the one writer). The commands in
``rrg.search.commands`` decide; they do not word or write.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from rrg.output import stdout

if TYPE_CHECKING:
    from rrg.index.refresh import RefreshReport
    from rrg.model.registry import ModelSpec
    from rrg.rank.embedding import EmbedReport


def passed_on(data: bytes) -> None:
    """rg's own output (or rrg's, already in rg's form), byte for byte."""
    stdout.write(data)


def file_list(paths: list[bytes], end: bytes) -> None:
    """``--files``: one path a record, each ended by ``end`` (a newline, or NUL)."""
    stdout.write(b"".join(p + end for p in paths))


def scope_written(query: str, target: object, count: int) -> None:
    stdout.say(f'"{query}" \u2192 {target} ({count} docs)')


def not_its_own_index(where: str, root: bytes) -> None:
    served_by = os.fsdecode(root)
    stdout.say(
        f"no index of its own for {where}; it is served by the index of "
        f"{served_by} (rrg --index-clear {served_by} removes that)"
    )


def index_cleared(where: str, removed: bool, stopped_job: bool = False) -> None:
    said = f"removed the index of {where}" if removed else f"no index for {where}"
    stopped = " (and stopped the background job that was embedding it)" if stopped_job else ""
    stdout.say(said + stopped)


def not_indexed(where: str) -> None:
    stdout.say(f"{where}: not indexed (rrg --index {where} builds it)")


def index_status(text: str) -> None:
    stdout.say(text)


def model_prepared(seconds: float) -> None:
    # Said apart: it is the model's, once a machine, not this tree's indexing time.
    stdout.say(f"prepared the model's static table in {seconds:.2f} s (once)")


def index_built(where: str, report: RefreshReport, seconds: float) -> None:
    stdout.say(
        f"indexed {where}: {report.listed} files, {report.read} read, "
        f"{report.touched} unchanged content, {report.deleted} removed "
        f"in {seconds:.2f} s"
    )


def embedded(where: str, report: EmbedReport) -> None:
    rate = report.passages / report.seconds if report.seconds else 0.0
    stdout.say(
        f"embedded {where}: {report.files} files ({report.passages} "
        f"passages, {rate:.1f} a second), {report.kept} already embedded, "
        f"in {report.seconds:.2f} s"
    )


def version(rrg_version: str, rg_version: str, rg: str) -> None:
    stdout.say(f"rrg {rrg_version}\nripgrep {rg_version} at {rg}")


def model_imported(given: str, folder: os.PathLike[str]) -> None:
    name = os.path.basename(os.fspath(folder))
    stdout.say(f"imported {given} into {os.fspath(folder)}\nuse it with: rrg --model {name} -q ...")


def models(specs: Iterable[ModelSpec]) -> None:
    """``--list-models``: one model a line, its fields tab-separated."""
    for spec in specs:
        stdout.say(
            f"{spec.name}\tdims={spec.dims or '?'}\tsource={spec.source}\tlicence={spec.licence}"
        )
