"""Progress lines of a long command (a bench, a soak): what it is doing, how far it is (i/n),
the time since it started and, once a step is done, about how long is left. A command quiet
for minutes looks hung."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


def clock_text(seconds: float) -> str:
    """0:07, 12:05, 1:02:03."""
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)  # sys.stderr looked up now: a test's capture replaces it


class Progress:
    """`prefix: what (0:42 elapsed)` lines through `say`, timed on `clock` (injected in tests)."""

    def __init__(
        self, prefix: str, say: Callable[[str], None] = to_stderr, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.prefix, self.say, self.clock = prefix, say, clock
        self.started = clock()
        self.last = self.started  # when the last line was said
        self.total, self.steps_from = 0, 0.0

    def elapsed(self) -> float:
        return self.clock() - self.started

    def note(self, what: str) -> None:
        """A phase begins (`starting the embedded world`)."""
        self._line(f"{what} ({clock_text(self.elapsed())} elapsed)")

    def begin(self, total: int, what: str) -> None:
        """`total` steps start now: the time left is the mean step's since here (the set-up
        before them is not a step's)."""
        self.total, self.steps_from = total, self.elapsed()
        self.note(what)

    def step(self, done: int, what: str) -> None:
        """Step `done` of the total is over."""
        now = self.elapsed()
        left = ""
        if 1 <= done < self.total:
            left = f", about {clock_text((now - self.steps_from) / done * (self.total - done))} left"
        self._line(f"{done}/{self.total} {what} ({clock_text(now)} elapsed{left})")

    def due(self, every_s: float) -> bool:
        """A loop's heartbeat: True when nothing was said for `every_s`."""
        return self.clock() - self.last >= every_s

    def _line(self, text: str) -> None:
        self.last = self.clock()
        self.say(f"{self.prefix}: {text}")
