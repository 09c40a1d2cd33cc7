"""A one-line progress bar for batches: count / total, rate and time left, redrawn in place.

It draws on a text stream (standard error by default) with a carriage return, at most
``1 / min_interval`` times a second, and erases itself when closed.  Used only by ``cli.py``:
library code never draws.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

__all__ = ["Progress", "format_duration"]


def format_duration(seconds: float) -> str:
    """A short clock reading: '0:07', '12:34', '1:02:03'."""
    whole = max(0, int(seconds + 0.5))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Count done items out of ``total`` and show a bar, the rate and an estimate of the time left.

    ``enabled=None`` draws only when the stream is a terminal.  Use it as a context manager, or
    call ``close()``, so the bar is erased at the end.  ``clock`` is injectable for tests.
    """

    def __init__(
        self,
        total: int,
        *,
        label: str = "",
        stream: TextIO | None = None,
        enabled: bool | None = None,
        min_interval: float = 0.1,
        width: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = max(0, total)
        self.count = 0
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.min_interval = min_interval
        self.width = width
        self._clock = clock
        self._start = clock()
        self._last_draw = self._start  # first drawing after min_interval: fast batches show no bar
        self._shown = 0  # characters of the bar now on screen

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    @property
    def rate(self) -> float:
        """Items per second so far (0 before the clock moves)."""
        elapsed = self._clock() - self._start
        return self.count / elapsed if elapsed > 0 else 0.0

    def text(self) -> str:
        """The bar as it would be drawn now, fitted to the width."""
        width = self.width or shutil.get_terminal_size((80, 24)).columns
        rate = self.rate
        left = (self.total - self.count) / rate if rate > 0 else None
        fraction = self.count / self.total if self.total else 1.0
        prefix = f"{self.label} " if self.label else ""
        tail = (
            f" {self.count}/{self.total} {100 * fraction:5.1f}% {rate:,.1f}/s"
            f" ETA {format_duration(left) if left is not None else '?'}"
        )
        room = width - 1 - len(prefix) - len(tail) - 2
        if room < 10:
            return (prefix + tail.strip())[: width - 1]
        filled = int(room * min(1.0, fraction))
        return f"{prefix}[{'#' * filled}{'.' * (room - filled)}]{tail}"

    def update(self, done: int = 1) -> None:
        """Count ``done`` more items; redraw when the last drawing is old enough (or a shown bar is full)."""
        self.count += done
        if not self.enabled:
            return
        now = self._clock()
        if now - self._last_draw >= self.min_interval or (self._shown and self.count >= self.total):
            self._last_draw = now
            self._draw()

    def _draw(self) -> None:
        line = self.text()
        pad = " " * max(0, self._shown - len(line))
        self.stream.write("\r" + line + pad)
        self.stream.flush()
        self._shown = len(line)

    def clear(self) -> None:
        """Erase the bar from the screen (it is drawn again by the next update)."""
        if self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()
            self._shown = 0
            self._last_draw = -float("inf")

    def close(self) -> None:
        """Erase the bar for good."""
        self.clear()
        self.enabled = False
