"""A progress bar for long index builds: on a terminal only, and only after a second.

The build reports counts as it goes; a small thread redraws the bar five times a second with
the rate and the time left, so the bar moves even while one batch is being tokenised.
"""

from __future__ import annotations

import os
import sys
import threading
import time

#: Seconds between redraws, and before the first one (a quick build shows nothing).
REDRAW_S = 0.2
QUIET_START_S = 1.0


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def draws(enabled: bool) -> bool:
    """Whether a bar asked for (``enabled``) is drawn: on a terminal alone, and one that can
    wipe a line. Where TERM is unset or ``dumb`` (Emacs's shell, many agents' terminals,
    which keep every frame in their transcript) five frames a second would each stay."""
    return enabled and sys.stderr.isatty() and os.environ.get("TERM", "") not in ("", "dumb")


class Progress:
    def __init__(self, label: str, enabled: bool, unit: str = "files") -> None:
        self.label = label
        self.unit = unit
        self.enabled = draws(enabled)
        self.start = time.monotonic()
        self.done = 0
        self.total = 0
        self.shown = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __call__(self, done: int, total: int) -> None:
        """Record progress; cheap enough to call once per file."""
        self.done, self.total = done, total
        if self.enabled and self._thread is None:
            self._thread = threading.Thread(target=self._redraw_loop, daemon=True)
            self._thread.start()

    def line(self, now: float) -> str:
        """The bar as drawn: ``label [####......] 1000/1883 512 files/s, 2s left``."""
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        elapsed = max(now - self.start, 1e-6)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        bar = "#" * filled + "." * (width - filled)
        return (
            f"{self.label} [{bar}] {self.done}/{self.total} "
            f"{rate:.0f} {self.unit}/s, {_duration(left)} left"
        )

    def _redraw_loop(self) -> None:
        while not self._stop.wait(REDRAW_S):
            now = time.monotonic()
            if now - self.start < QUIET_START_S:
                continue
            sys.stderr.write("\r\033[K" + self.line(now))
            sys.stderr.flush()
            self.shown = True

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
