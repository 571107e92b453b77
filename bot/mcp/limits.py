"""A tool-call budget per MCP client: a token bucket each, refilled continuously.

One client (a model in a loop) must not flood the daemon with actions; over the budget a
call is answered at once with when to retry, and the daemon never hears of it. Who the
client is: the one peer on stdio; on streamable HTTP the peer's address (a session id
header is the client's own word, so any client could mint a fresh budget with it).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Clock = Callable[[], float]  # seconds, monotonic
LOCAL_CLIENT = "local"  # stdio (and in-process): one process, one client
IDLE_SWEEP_AT = 256  # buckets kept before full (idle) ones are forgotten


def client_key(request_context: Any) -> str:
    """Who is calling, from the SDK's per-request context (`ServerRequestContext`)."""
    request = getattr(request_context, "request", None)
    if request is None:
        return LOCAL_CLIENT
    peer = getattr(request, "client", None)
    return f"peer:{getattr(peer, 'host', None) or 'unknown'}"


@dataclass
class TokenBucket:
    capacity: float
    per_s: float
    tokens: float
    at: float

    def refill(self, now: float) -> None:
        self.tokens = min(self.capacity, self.tokens + max(0.0, now - self.at) * self.per_s)
        self.at = now

    def take(self, now: float) -> float:
        """Take one token: 0.0 when granted, else the seconds until one is there."""
        self.refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.per_s


class RateLimiter:
    """`calls_per_minute` per client; a client may spend a whole minute's budget at once."""

    def __init__(self, calls_per_minute: int, clock: Clock = time.monotonic) -> None:
        if calls_per_minute < 1:
            raise ValueError("calls_per_minute must be >= 1")
        self.calls_per_minute = calls_per_minute
        self.clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def check(self, client: str) -> str | None:
        """None when the call may go ahead (and is counted), else the refusal to return."""
        now = self.clock()
        bucket = self._buckets.get(client)
        if bucket is None:
            self._forget_idle(now)
            bucket = self._buckets[client] = TokenBucket(
                float(self.calls_per_minute), self.calls_per_minute / 60.0, float(self.calls_per_minute), now
            )
        wait_s = bucket.take(now)
        if wait_s == 0.0:
            return None
        return f"rate limited: {self.calls_per_minute} calls per minute; retry in {math.ceil(wait_s * 10) / 10:.1f} s"

    def _forget_idle(self, now: float) -> None:
        """A full bucket is the same as none: drop those once many clients came and went."""
        if len(self._buckets) < IDLE_SWEEP_AT:
            return
        for key, bucket in list(self._buckets.items()):
            bucket.refill(now)
            if bucket.tokens >= bucket.capacity:
                del self._buckets[key]
