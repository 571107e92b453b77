"""What the bot may say, and to whom: a rate gate (at most BURST replies at once, then one
every `every_ms`: a busy chat is never spammed; what does not pass is counted, not queued),
and the strangers already answered (one polite line each, the names kept bounded)."""

from __future__ import annotations

from collections import OrderedDict

from agency.clock import Clock

BURST = 4
KEEP_STRANGERS = 1000  # names remembered; the oldest forgotten first


class ReplyGate:
    def __init__(self, clock: Clock, *, every_ms: int = 1000, burst: int = BURST) -> None:
        self.clock, self.every_ms, self.burst = clock, every_ms, burst
        self.tokens = float(burst)
        self.at = clock()
        self.dropped = 0

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) / self.every_ms)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.dropped += 1
        return False


class Strangers:
    """Players not trusted: each gets one polite line, ever (while remembered)."""

    def __init__(self, keep: int = KEEP_STRANGERS) -> None:
        self.keep = keep
        self._seen: OrderedDict[str, None] = OrderedDict()

    def first_time(self, name: str) -> bool:
        key = name.lower()
        if key in self._seen:
            return False
        self._seen[key] = None
        while len(self._seen) > self.keep:
            self._seen.popitem(last=False)
        return True
