"""Rate limits for log lines a steady daemon would repeat every tick.

A line is never lost (docs/contracts.md LOG-1): every occurrence is still logged, but only the first in each
window goes out at INFO; the rest go to DEBUG, and INFO gets one summary with their count
when the window ends. A line that mostly repeats the same values is logged at INFO only when
it changes. The daemon flushes every live aggregator once a minute (flush_all), so a summary
is not held back until the line recurs. Clocks are injected (seconds) so tests freeze time.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from typing import Any

from loguru import logger

Clock = Callable[[], float]
WINDOW_S = 60.0

_live: weakref.WeakSet[LogRate] = weakref.WeakSet()


class LogRate:
    """One repetitive line: the first per window at INFO, the others at DEBUG, then
    `{summary} x{n} in the last {s} s{suffix}` at INFO when the window is over."""

    def __init__(
        self, summary: str, *, suffix: str = "", window_s: float = WINDOW_S, clock: Clock = time.monotonic
    ) -> None:
        self.summary, self.suffix, self.window_s, self._clock = summary, suffix, window_s, clock
        self._start: float | None = None  # when the current window opened (its first line)
        self._count = 0
        _live.add(self)

    def log(self, message: str, *args: Any) -> None:
        now = self._clock()
        self.flush(now)
        self._count += 1
        if self._start is None:
            self._start = now
            logger.opt(depth=1).info(message, *args)
        else:
            logger.opt(depth=1).debug(message, *args)

    def flush(self, now: float | None = None) -> None:
        """Close the window if it is over: one summary when the line came more than once."""
        now = self._clock() if now is None else now
        if self._start is None or now - self._start < self.window_s:
            return
        if self._count > 1:
            logger.info(
                "{} x{} in the last {:.0f} s{}",
                self.summary,
                self._count,
                now - self._start,
                f" {self.suffix}" if self.suffix else "",
            )
        self._start, self._count = None, 0


class LogOnChange:
    """A line whose values rarely change: INFO when it differs from the last one, else DEBUG.

    `key` names what counts as a change when the line also carries figures that drift
    (a queue's size): those go to INFO only with the next change of the key."""

    def __init__(self) -> None:
        self._last: object = None

    def log(self, message: str, *args: Any, key: object = None) -> None:
        text = message.format(*args)
        changed = text if key is None else key
        if changed != self._last:
            self._last = changed
            logger.opt(depth=1).info("{}", text)
        else:
            logger.opt(depth=1).debug("{}", text)


def flush_all() -> None:
    """Close every live aggregator's window that is over (the daemon calls this each minute)."""
    for rate in list(_live):
        rate.flush()
