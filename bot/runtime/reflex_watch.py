"""The reflexes, woken by threats. The reflex job ticks the reflexes once, then spends the
rest of its interval polling the bot's threat watch (node/lib/threats.js, one cheap call
every `poll_s`): a hostile that comes within its kind's radius is answered within one poll
(tens of milliseconds), not at the next tick a second later. The radii are the reflexes' own
(agency.execution.combat.threat_radii)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

from loguru import logger

from agency.execution.combat import threat_radii
from agency.execution.reflexes import Reflexes
from bot.runtime.body import BodyLost, MineflayerBody

DEFAULT_POLL_S = 0.02  # one server tick is 50 ms: p50 of a poll's wait is 10 ms


class ReflexWatch:
    def __init__(self, body: MineflayerBody, reflexes: Reflexes, *, poll_s: float = DEFAULT_POLL_S,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.body = body
        self.reflexes = reflexes
        self.poll_s = poll_s
        self.monotonic = monotonic
        self.woken = 0  # reflex ticks a threat started
        self.recent_threats: list[dict[str, Any]] = []  # the last 100 threats, oldest first
        body.watch_threats(threat_radii(reflexes.config))

    async def tick(self, *, woken: bool = False) -> str | None:
        """One reflex tick (None: no reflex, or the body went away): on a snapshot read now
        when a threat woke it, else on one at most 0.25 s old read with the other bots'."""
        try:
            snap = await asyncio.to_thread(self.body.snapshot if woken else self.body.recent_snapshot)
        except BodyLost as e:
            logger.debug("reflex snapshot skipped: {}", e)
            return None
        return await self.reflexes.tick(snap)

    async def run(self, budget_s: float) -> None:
        """Tick, then answer threats as they come until `budget_s` has passed."""
        await self.tick()
        if not self.reflexes.config.enabled:
            return
        deadline = self.monotonic() + budget_s
        while self.monotonic() < deadline and self.body.connected:
            await asyncio.sleep(self.poll_s)
            try:
                threats = await asyncio.to_thread(self.body.new_threats)
            except BodyLost:
                return
            if threats:
                self.woken += 1
                self.recent_threats = (self.recent_threats + threats)[-100:]
                logger.debug("[Reflex] woken by {}", ", ".join(f"{t['name']} at {t['distance']:.1f}" for t in threats))
                await self.tick(woken=True)
