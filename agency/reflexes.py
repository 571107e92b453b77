"""Survival reflexes: reactions that preempt the current task through the workflow safe
stop, then give it back. Eat when food is low and food is held; fight a hostile within
reach; record deaths (mineflayer respawns the bot). Never in creative or spectator mode."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from loguru import logger

from agency.executor import Executor
from agency.tools.base import ToolContext
from agency.tools.registry import ToolRegistry
from agency.world import BodyEvent, EventType, WorldSnapshot

PREEMPTED = "preempted"
SAFE_MODES = ("creative", "spectator")
FOODS = ("cooked_beef", "cooked_porkchop", "bread", "cooked_chicken", "cooked_mutton", "baked_potato",
         "apple", "carrot", "beef", "porkchop", "chicken", "mutton", "potato", "rotten_flesh")


@dataclass(frozen=True)
class ReflexConfig:
    enabled: bool = True
    eat_below_food: int = 14  # eat when food is at or below this and something edible is held
    fight_within: float = 4.0  # a hostile this close is fought
    fight_radius: float = 8.0


@dataclass
class ReflexStats:
    ate: int = 0
    fought: int = 0
    deaths: int = 0
    preemptions: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)


class Reflexes:
    def __init__(self, tools: ToolRegistry, ctx: ToolContext, executor: Executor, config: ReflexConfig = ReflexConfig()):
        self.tools = tools
        self.ctx = ctx
        self.executor = executor
        self.config = config
        self.stats = ReflexStats()

    def choose(self, snap: WorldSnapshot) -> str | None:
        """Which reflex this snapshot calls for (None = none); pure, for tests and logs."""
        if not self.config.enabled or snap.gameMode in SAFE_MODES:
            return None
        close = [e for e in snap.entities if e.hostile and e.distance <= self.config.fight_within]
        if close:
            return "fight"
        if snap.food <= self.config.eat_below_food and any(snap.count_of(f) for f in FOODS):
            return "eat"
        return None

    def record_events(self, events: Iterable[BodyEvent]) -> None:
        for ev in events:
            if ev.type is EventType.death:
                self.stats.deaths += 1
                logger.warning("[Reflex] death recorded (total {}) at {}", self.stats.deaths, ev.data.get("position"))

    async def tick(self, snap: WorldSnapshot, events: Iterable[BodyEvent] = ()) -> str | None:
        self.record_events(events)
        reflex = self.choose(snap)
        if reflex is None:
            return None
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
        return reflex
