"""Injected time for agency code: a Clock is any zero-argument callable returning epoch ms.

Tick, dedup and uptime logic takes a Clock (or an explicit now_ms) so tests can freeze
time instead of sleeping.
"""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], int]


def system_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class FrozenClock:
    """Test double shipped with the package: time moves only when told to."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self.now_ms = start_ms

    def __call__(self) -> int:
        return self.now_ms

    def advance(self, ms: int) -> int:
        if ms < 0:
            raise ValueError("a frozen clock never goes backwards")
        self.now_ms += ms
        return self.now_ms
