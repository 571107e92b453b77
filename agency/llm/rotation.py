"""Provider cycling (docs/contracts.md LLM-3, LLM-12): attempt N of a turn goes to
targets[(N-1) % len]. Rate limits honour Retry-After, else back off 1 s -> 60 s per target;
the session sleeps only when every target in the rotation is rate limited. Sleep and
clock are injected so tests never wait for real."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from loguru import logger

from agency.clock import Clock
from agency.llm.settings import TargetConfig

Sleep = Callable[[float], Awaitable[None]]
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 60.0


class TargetRotation:
    def __init__(self, targets: list[TargetConfig], sleep: Sleep, clock: Clock) -> None:
        if not targets:
            raise ValueError("no LLM targets configured")
        self.targets = targets
        self.sleep = sleep
        self.clock = clock
        self._limited_until_ms: dict[int, int] = {}
        self._strikes: dict[int, int] = {}
        self.slept_s: list[float] = []  # observable: how long each all-limited wait was

    def target_for(self, attempt: int) -> tuple[int, TargetConfig]:
        index = (attempt - 1) % len(self.targets)
        return index, self.targets[index]

    def note_rate_limit(self, index: int, retry_after_s: float | None) -> float:
        strikes = self._strikes.get(index, 0)
        self._strikes[index] = strikes + 1
        wait = retry_after_s if retry_after_s is not None else min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2**strikes)
        self._limited_until_ms[index] = self.clock() + int(wait * 1000)
        return wait

    def note_ok(self, index: int) -> None:
        self._strikes.pop(index, None)
        self._limited_until_ms.pop(index, None)

    async def wait_if_all_limited(self) -> float:
        """Sleep the longest pending wait when no target is free; returns seconds slept."""
        now = self.clock()
        waits = [self._limited_until_ms.get(i, 0) - now for i in range(len(self.targets))]
        if min(waits) <= 0:
            return 0.0
        seconds = max(waits) / 1000
        logger.info("every LLM target is rate limited; waiting {:.1f} s", seconds)
        self.slept_s.append(seconds)
        await self.sleep(seconds)
        return seconds
