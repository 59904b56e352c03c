"""Where a query's time goes: with ``RRG_TIMINGS=1`` in the environment, one line on stderr
at the end (``rrg: timings: list 0.031 s, open 0.012 s, stat 0.070 s, ...``).

For benchmarks and for users asking why a search is slow; silent otherwise, and costing a
clock read per phase.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

_spent: dict[str, float] = {}


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Add the time spent in the block to the phase's total."""
    start = time.perf_counter()
    try:
        yield
    finally:
        _spent[name] = _spent.get(name, 0.0) + time.perf_counter() - start


def report() -> None:
    if os.environ.get("RRG_TIMINGS") and _spent:
        parts = ", ".join(f"{name} {secs:.3f} s" for name, secs in _spent.items())
        sys.stderr.write(f"rrg: timings: {parts}\n")
