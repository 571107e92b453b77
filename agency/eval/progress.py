"""A one-line progress bar on stderr, only when stderr is a terminal: piped or captured
output (CI, log files) stays free of carriage-return noise."""

from __future__ import annotations

import sys
from typing import TextIO

BAR_WIDTH = 30


class Progress:
    def __init__(self, total: int, label: str = "eval", stream: TextIO | None = None) -> None:
        self.total = total
        self.done = 0
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)()) and total > 0

    def advance(self, note: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        filled = BAR_WIDTH * self.done // self.total
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} {note[:40]:<40}")
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()
