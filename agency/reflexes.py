"""Survival reflexes: reactions that preempt the current task through the workflow safe
stop, then give it back. Eat when food is low and food is held; fight a hostile within
reach; record deaths (mineflayer respawns the bot); spend the night in a verified shelter
nearby (go in at dusk, close the door, hold every task until morning, then come out).
Never in creative or spectator mode."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.drive_tick import night_approaching
from agency.executor import Executor
from agency.goals.models import SiteSignature
from agency.tools.base import ToolContext
from agency.tools.registry import ToolRegistry
from agency.tools.shelter_door import in_hut
from agency.world import BodyEvent, EventType, WorldSnapshot

PREEMPTED = "preempted"
SHELTERING = "sheltering"  # tasks held while the bot spends the night in a shelter
SAFE_MODES = ("creative", "spectator")
FOODS = ("cooked_beef", "cooked_porkchop", "bread", "cooked_chicken", "cooked_mutton", "baked_potato",
         "apple", "carrot", "beef", "porkchop", "chicken", "mutton", "potato", "rotten_flesh")


@dataclass(frozen=True)
class ReflexConfig:
    enabled: bool = True
    eat_below_food: int = 14  # eat when food is at or below this and something edible is held
    fight_within: float = 4.0  # a hostile this close is fought
    fight_radius: float = 8.0
    shelter_at_night: bool = True  # from dusk to morning, stay in a verified shelter nearby
    shelter_retry_ms: int = 120_000  # after a failed attempt to go in


ShelterLookup = Callable[[WorldSnapshot], SiteSignature | None]  # a verified shelter near the bot


@dataclass
class ReflexStats:
    ate: int = 0
    fought: int = 0
    deaths: int = 0
    preemptions: int = 0
    nights_sheltered: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)


class Reflexes:
    def __init__(self, tools: ToolRegistry, ctx: ToolContext, executor: Executor, config: ReflexConfig = ReflexConfig(),
                 *, shelter_lookup: ShelterLookup | None = None, clock: Clock = system_clock_ms):
        self.tools = tools
        self.ctx = ctx
        self.executor = executor
        self.config = config
        self.shelter_lookup = shelter_lookup
        self.clock = clock
        self.stats = ReflexStats()
        self.sheltered: SiteSignature | None = None  # the shelter the bot spends this night in
        self._shelter_retry_at = 0
        self._site: SiteSignature | None = None  # the shelter choose() picked
        self._started = False
        self._acting = False

    @property
    def holding_tasks(self) -> bool:
        """True while a reflex has the body or the bot spends the night in a shelter: the
        executor claims nothing (else it claimed the next task while the bot walked to its
        shelter, and the two fought over the body) and drive ticks skip."""
        return self.sheltered is not None or self._acting

    def choose(self, snap: WorldSnapshot) -> str | None:
        """Which reflex this snapshot calls for (None = none), for tests and logs."""
        if not self.config.enabled or snap.gameMode in SAFE_MODES:
            return None
        indoors = self.sheltered is not None and in_hut(self.sheltered, snap.position)
        close = [e for e in snap.entities if e.hostile and e.distance <= self.config.fight_within]
        if close and not indoors:  # a zombie at the wall cannot come in through a closed door
            return "fight"
        if snap.food <= self.config.eat_below_food and any(snap.count_of(f) for f in FOODS):
            return "eat"
        return self._choose_shelter(snap, indoors)

    def _choose_shelter(self, snap: WorldSnapshot, indoors: bool) -> str | None:
        if self.sheltered is not None and not night_approaching(snap):
            return "leave_shelter"
        if indoors or not self.config.shelter_at_night or self.shelter_lookup is None:
            return None
        if not night_approaching(snap) or self.clock() < self._shelter_retry_at:
            return None
        site = self.sheltered or self.shelter_lookup(snap)  # pushed out (or respawned): back in
        if site is None or site.entrance is None:
            return None
        self._site = site
        return "shelter"

    def record_events(self, events: Iterable[BodyEvent]) -> None:
        for ev in events:
            if ev.type is EventType.death:
                self.stats.deaths += 1
                logger.warning("[Reflex] death recorded (total {}) at {}", self.stats.deaths, ev.data.get("position"))

    async def tick(self, snap: WorldSnapshot, events: Iterable[BodyEvent] = ()) -> str | None:
        self.record_events(events)
        if not self._started:  # a restart during a night in the shelter: give those tasks back
            self._started = True
            self.executor.resume_paused(SHELTERING)
        reflex = self.choose(snap)
        if reflex is None:
            return None
        self._acting = True
        try:
            await self._act(reflex, snap)
        finally:
            self._acting = False
        return reflex

    async def _act(self, reflex: str, snap: WorldSnapshot) -> None:
        if reflex in ("shelter", "leave_shelter"):
            await self._shelter(reflex)
            return
        paused = await self.executor.preempt(PREEMPTED)
        if paused:
            self.stats.preemptions += 1
        try:
            if reflex == "fight":
                result = await self.tools.execute("attack", {"radius": self.config.fight_radius}, self.ctx)
                self.stats.fought += 1
            else:
                food = next(f for f in FOODS if snap.count_of(f))
                result = await self.tools.execute("eat", {"item": food}, self.ctx)
                self.stats.ate += 1
            logger.info("[Reflex] {} -> {} {}", reflex, "ok" if result.success else "failed",
                        result.output if result.success else result.error)
        finally:
            if paused:
                self.executor.resume_paused(PREEMPTED)
        self.stats.log = (self.stats.log + [{"reflex": reflex, "pausedTask": paused}])[-50:]

    async def _shelter(self, reflex: str) -> None:
        if reflex == "leave_shelter":
            site, self.sheltered = self.sheltered, None
            assert site is not None
            result = await self.tools.execute("leave_shelter", _doorway(site), self.ctx)
            logger.info("[Reflex] morning: leaving the shelter at {} -> {} {}", list(site.refCorner),
                        "ok" if result.success else "failed", result.output if result.success else result.error)
            self.executor.resume_paused(SHELTERING)
            return
        site = self._site
        assert site is not None
        paused = await self.executor.preempt(SHELTERING)
        result = await self.tools.execute("enter_shelter", _doorway(site), self.ctx)
        if result.success:
            if self.sheltered is None:
                self.stats.nights_sheltered += 1
            self.sheltered = site
            logger.info("[Reflex] night: in the shelter at {}, door closed; tasks held until morning (paused {})",
                        list(site.refCorner), paused)
        else:
            self._shelter_retry_at = self.clock() + self.config.shelter_retry_ms
            logger.warning("[Reflex] night: could not get into the shelter at {}: {}; retry in {} s",
                           list(site.refCorner), result.error, self.config.shelter_retry_ms // 1000)
            if self.sheltered is None:
                self.executor.resume_paused(SHELTERING)
        self.stats.log = (self.stats.log + [{"reflex": reflex, "pausedTask": paused, "ok": result.success}])[-50:]


def _doorway(site: SiteSignature) -> dict[str, Any]:
    assert site.entrance is not None
    return {"door": list(site.entrance), "facing": site.facing}
