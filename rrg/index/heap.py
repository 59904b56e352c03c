"""Handing the heap's free memory back to the system between the steps of an index build.

glibc keeps memory that Python, numpy and the tokenizer's threads have freed, so a build's
resident size only ever grows: a chunk's texts and tokens, then a merge's sorted postings,
stack up in its peak though they never coexist. ``malloc_trim`` returns those free pages.
Elsewhere (musl, macOS) there is no such call, and nothing is done.
"""

from __future__ import annotations

import functools
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    import ctypes

    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


def release_free_memory() -> None:
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
