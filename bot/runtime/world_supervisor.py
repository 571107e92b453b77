"""Supervision of the embedded world the daemon started: a dead server is reaped at once and
restarted (same port, seed and world folder) with backoff, until it dies too often.

    RestartPolicy   how long to wait before the next restart, or give up (pure, clock injected)
    WorldSupervisor watches one EmbeddedServer from the daemon's event loop
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loguru import logger

from bot.runtime.errors import InitError

BACKOFF_CAP_S = 30.0
CHECK_INTERVAL_S = 0.5  # how soon a death is noticed (and the child reaped)


class WorldGaveUp(InitError):
    """The world died more often than the policy allows: the daemon exits 3."""


@dataclass
class RestartPolicy:
    """At most `max_restarts` restarts within any `window_s`; the delay before a restart
    doubles with each restart already in the window (first `backoff_s`, at most 30 s)."""

    max_restarts: int = 5
    window_s: float = 600.0
    backoff_s: float = 1.0
    clock: Callable[[], float] = time.monotonic
    restarts: deque[float] = field(default_factory=deque)  # when each recent restart was decided

    def in_window(self) -> int:
        horizon = self.clock() - self.window_s
        while self.restarts and self.restarts[0] <= horizon:
            self.restarts.popleft()
        return len(self.restarts)

    def next_delay(self) -> float:
        """Record one more death; the seconds to wait before restarting. Raises WorldGaveUp."""
        n = self.in_window()
        if n >= self.max_restarts:
            raise WorldGaveUp(
                f"embedded world died {n + 1} time{'s' if n else ''} within {self.window_s:.0f} s "
                f"(server.world_max_restarts = {self.max_restarts}); giving up"
            )
        self.restarts.append(self.clock())
        return min(BACKOFF_CAP_S, self.backoff_s * (2**n))


class WorldSupervisor:
    """Polls the server process; `status` is what /healthz shows ("up", "restarting (2/5)")."""

    def __init__(
        self,
        server: Any,
        policy: RestartPolicy,
        on_restarted: Callable[[], None] = lambda: None,
        check_interval_s: float = CHECK_INTERVAL_S,
    ) -> None:
        self.server = server
        self.policy = policy
        self.on_restarted = on_restarted  # e.g. tell the bot to reconnect now
        self.check_interval_s = check_interval_s
        self.status = "up"
        self._starting: asyncio.Future[None] | None = None

    @property
    def up(self) -> bool:
        return self.status == "up"

    async def run(self) -> None:
        """Until cancelled (daemon stop) or WorldGaveUp (raised to the caller)."""
        while True:
            await asyncio.sleep(self.check_interval_s)
            code = self.server.reap()
            if code is not None:
                await self._restart(f"exited with code {code}")

    async def _restart(self, why: str) -> None:
        while True:
            try:
                delay = self.policy.next_delay()
            except WorldGaveUp as e:
                self.status = f"gave up: {e}"
                logger.error("{}; last output: {}", e, " | ".join(self.server.lines[-3:]) or "-")
                raise
            attempt = f"{len(self.policy.restarts)}/{self.policy.max_restarts}"
            self.status = f"restarting ({attempt})"
            logger.warning("embedded world {}; restarting in {:.1f} s ({})", why, delay, attempt)
            await asyncio.sleep(delay)
            self._starting = asyncio.ensure_future(asyncio.to_thread(self.server.start))
            try:
                await asyncio.shield(self._starting)  # cancelled or not, the start runs to its end
            except Exception as e:  # noqa: BLE001 - a failed start counts as one more death
                why = f"failed to restart: {e}"
                continue
            self.status = "up"
            logger.info("embedded world restarted ({})", attempt)
            self.on_restarted()
            return

    async def settle(self, timeout_s: float = 5.0) -> None:
        """Wait for a restart in flight (after `run` was cancelled), so stopping the server
        afterwards stops the new process too."""
        if self._starting is not None and not self._starting.done():
            await asyncio.wait({self._starting}, timeout=timeout_s)
