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


#: The bar's characters where the terminal has room, and the fewest it is drawn with.
BAR_WIDTH = 30
MIN_BAR_WIDTH = 10


def _columns() -> int:
    """The width of the terminal the bar is drawn on (asked at each frame: it may be
    resized); 0 where it says none (a new pseudo-terminal)."""
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 0


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

    def line(self, now: float, columns: int = 0) -> str:
        """The bar as drawn: ``label [####......] 1000/1883 512 files/s, 2s left``, within
        ``columns`` less one (0: no bound). A frame wider than the terminal wraps, and
        ``\r`` then wipes only its last row: each redraw would leave a row behind (the
        model's first preparation, 10-20 s on a new machine, drew 40 of them at 80
        columns). The bar narrows first, then goes, then the label is cut."""
        elapsed = max(now - self.start, 1e-6)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        counts = f"{self.done}/{self.total} {rate:.0f} {self.unit}/s, {_duration(left)} left"
        room = columns - 1 if columns > 0 else 1 << 30
        width = min(BAR_WIDTH, room - len(self.label) - len(counts) - 4)
        if width >= MIN_BAR_WIDTH:
            filled = int(width * self.done / max(self.total, 1))
            return f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {counts}"
        label = self.label
        if len(label) + 1 + len(counts) > room:
            label = label[: max(0, room - len(counts) - 4)] + "..."
        return f"{label} {counts}"[:room]

    def _redraw_loop(self) -> None:
        while not self._stop.wait(REDRAW_S):
            now = time.monotonic()
            if now - self.start < QUIET_START_S:
                continue
            sys.stderr.write("\r\033[K" + self.line(now, _columns()))
            sys.stderr.flush()
            self.shown = True

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
