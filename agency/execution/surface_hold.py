"""Tasks held for the surface.

A drive tick's craft or smelt whose plan hunts, claimed underground, is held as
WAITING_FOR_SURFACE instead of failed (AgentRuntime._hunts_underground); meanwhile it counts as
in flight and its goal is held back from the drive tick (agency.planning.tasks.idempotency,
retry_backoff). The executor gives such tasks back on its first tick with the bot up on the
surface by day (its snapshot not underground, no dusk: a hunt then waits for the morning
anyway), or after SURFACE_MAX_HOLD_MS held wherever the bot is (claimed down there again, held
again).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from loguru import logger

from agency.clock import Clock
from agency.planning.tasks.idempotency import waits_for_surface
from agency.planning.tasks.models import Task
from agency.world import BodyError, WorldSnapshot, night_approaching, underground

HeldTasks = Callable[[], list[Task]]  # this bot's tasks held for the surface
GiveBack = Callable[[Callable[[Task], bool]], list[str]]  # those of them a predicate takes, back in the queue


class SurfaceHold:
    """Whether tasks of this bot's may be held for the surface, and their giving back."""

    def __init__(
        self, clock: Clock, held: HeldTasks, give_back: GiveBack, snapshot: Callable[[], Awaitable[WorldSnapshot]]
    ) -> None:
        self.clock = clock
        self._held, self._give_back, self._snapshot = held, give_back, snapshot
        self.maybe = True  # some may be in the store (a restart): looked for on the first tick

    def held(self) -> None:
        self.maybe = True

    async def give_back_on_the_surface(self) -> None:
        """Those held longest given back whatever, else all of them once the bot is up by day;
        the store is read only while some may be held."""
        if not self.maybe:
            return
        held = self._held()
        if not held:
            self.maybe = False
            return
        now = self.clock()
        if stale := {t.id for t in held if not waits_for_surface(t, now)}:
            given = self._give_back(lambda t: t.id in stale)
            logger.info("[Executor] {} task(s) held for the surface given back after their longest hold", len(given))
            return
        try:
            snap = await self._snapshot()
        except BodyError:  # lost, or a bridge error: asked again on the next tick
            return
        if underground(snap) or night_approaching(snap):
            return
        given = self._give_back(lambda t: True)
        self.maybe = False
        logger.info("[Executor] up on the surface: {} task(s) held for it given back", len(given))
