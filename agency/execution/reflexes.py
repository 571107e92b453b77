"""Survival reflexes: reactions that preempt the current task through the workflow safe
stop, then give it back. Answer hostiles by their kind (agency.execution.combat: retreat
when hurt or outnumbered, keep out of a creeper's blast, close in on a skeleton, fight
zombies and spiders); eat when food is low, or to heal, and food is held, and forage (hunt an
animal in sight, or explore for one) when hungry with nothing to eat (agency.execution.hunger);
spend the night in a verified shelter nearby (go in at dusk, close the door, hold every task
until morning, then come out once no hostile is near). In the shelter with the door closed, the bot
lies down in its bed once the night allows it (a held bed is put there first); the server
wakes it in the morning or when it is hurt, and a hostile inside the hut is fought (out of
bed first). Never in creative or spectator mode.

A death (mineflayer respawns the bot) is recorded with its cause and holds the running task
('died'); once respawned and safe, the bot walks back and picks up what it dropped while the
items still lie there (vanilla despawns them after 5 minutes), then the task resumes. What
could not be recovered the task's re-plan gathers again."""

from __future__ import annotations

from collections import Counter
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Iterable, Protocol

from loguru import logger

from agency.clock import Clock, system_clock_ms

from agency.execution.combat import (CLOSE_IN, EVADE, FIGHT, RETREAT, STRIKE_AND_BACK_OFF, CombatChoice,
                                     choose_combat)
from agency.execution.executor import Executor
from agency.execution.hunger import fed_by, food_to_eat, forage_wait_ms, should_forage, vitals
from agency.tools.hunting import game_in_sight
from agency.shelter.models import SiteSignature
from agency.tools.base import ToolContext
from agency.tools.registry import ToolRegistry
from agency.tools.results import PRECONDITION_FAILED
from agency.shelter.bed import MONSTER_RANGE, is_bed, sleep_time
from agency.shelter.door import in_hut
from agency.world import DUSK_START, BodyEvent, EventType, Vec3, WorldSnapshot, night_approaching
from agency.execution.settings import ReflexConfig  # the one schema, also the [reflexes] section

PREEMPTED = "preempted"
DIED = "died"  # tasks held from a death until the dropped items are back (or given up)
SHELTERING = "sheltering"  # tasks held while the bot spends the night in a shelter
SAFE_MODES = ("creative", "spectator")


ShelterLookup = Callable[[WorldSnapshot], SiteSignature | None]  # a verified shelter near the bot


class YieldsBody(Protocol):
    """A direct action holder (agency.execution.direct.DirectActions): a reflex that needs
    the body stops the direct action holding it first."""

    async def yield_body(self, why: str) -> None: ...


@dataclass(frozen=True)
class Death:
    cause: str  # the killer's kind ('zombie'), 'fall', 'starvation', ... or 'unknown'
    position: Vec3 | None  # where the items dropped
    at_ms: int  # on the reflexes' clock
    dimension: str | None = None


@dataclass
class ReflexStats:
    ate: int = 0
    forages: int = 0  # hunts and walks for food with nothing to eat held
    fought: int = 0  # fights, close-ins and strikes
    evaded: int = 0  # creepers kept out of blast range
    retreats: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)  # combat reflexes by the hostile's kind
    deaths: int = 0
    death_causes: Counter[str] = field(default_factory=Counter)
    items_recovered: int = 0
    preemptions: int = 0  # tasks paused for a reflex's tool calls (and given back)
    nights_sheltered: int = 0
    sleeps: int = 0  # times the bot lay down in a shelter's bed
    log: list[dict[str, Any]] = field(default_factory=list)


class Reflexes:
    def __init__(self, tools: ToolRegistry, ctx: ToolContext, executor: Executor, config: ReflexConfig = ReflexConfig(),
                 *, shelter_lookup: ShelterLookup | None = None, direct: YieldsBody | None = None,
                 clock: Clock = system_clock_ms):
        self.tools = tools
        self.ctx = ctx
        self.executor = executor
        self.config = config
        self.shelter_lookup = shelter_lookup
        self.clock = clock
        self.stats = ReflexStats()
        self.sheltered: SiteSignature | None = None  # the shelter the bot spends this night in
        self._shelter_retry_at = 0
        self._morning_wait_logged = False
        self._forage_retry_at = 0
        self._fruitless_forages = 0  # in a row: the wait between them doubles
        self._sleep_retry_at = 0
        self._bedless: SiteSignature | None = None  # a shelter found with no bed tonight (and none held)
        self._asleep = False  # in bed at the last tick (to log the waking and why)
        self._site: SiteSignature | None = None  # the shelter choose() picked
        self._started = False
        self._acting = False
        self.death: Death | None = None  # the last death, until its items are recovered or given up
        self._hurt_at: int | None = None
        self._combat: CombatChoice | None = None  # what choose() answered, for _act
        self.direct = direct  # stopped when a reflex needs the body

    @property
    def holding_tasks(self) -> bool:
        """True while a reflex has the body or the bot spends the night in a shelter: the
        executor claims nothing (else it claimed the next task while the bot walked to its
        shelter, and the two fought over the body) and drive ticks skip. Also from a death
        until its items are recovered or given up (at most the items' despawn time)."""
        return self.sheltered is not None or self._acting or self.death is not None

    @property
    def hold_reason(self) -> str | None:
        """Why the reflexes hold the body, in words (None: they do not)."""
        if self.sheltered is not None:
            return "the bot is sheltering for the night (until morning)"
        if self.death is not None:
            return "the bot is recovering the items it dropped when it died"
        if self._acting:
            return "a reflex is acting (a threat, hunger or the night)"
        return None

    def choose(self, snap: WorldSnapshot) -> str | None:
        """Which reflex this snapshot calls for (None = none), for tests and logs."""
        if not self.config.enabled or snap.gameMode in SAFE_MODES:
            return None
        indoors = self.sheltered is not None and in_hut(self.sheltered, snap.position)
        # a closed door keeps them out: indoors only a hostile inside the hut is answered
        self._combat = choose_combat(_inside_only(snap, self.sheltered) if indoors else snap, self.config)
        if self._combat is not None:
            return self._combat.reflex
        if food_to_eat(snap, self.config) is not None:
            return "eat"
        if self.death is not None and not indoors and self._safe_to_recover(snap):
            return "recover"
        return self._choose_shelter(snap, indoors) or ("forage" if self._forage_due(snap) else None)

    def _forage_due(self, snap: WorldSnapshot) -> bool:
        """By day, out of the shelter, no hostile near, not just tried: hungry or unable to heal
        with nothing to eat held (the drive tick, gated on the same vitals, cannot hunt)."""
        if self.sheltered is not None or self.death is not None or night_approaching(snap):
            return False
        if self.clock() < self._forage_retry_at or not should_forage(snap, self.config):
            return False
        return not self._hostile_near(snap)

    def _hostile_near(self, snap: WorldSnapshot) -> bool:
        """A hostile within fight_radius: no walk away for food or dropped items."""
        return any(e.hostile and e.distance <= self.config.fight_radius for e in snap.entities)

    def _safe_to_recover(self, snap: WorldSnapshot) -> bool:
        """Respawned, no hostile within reach, and by night not under attack."""
        if snap.health <= 0 or self._hostile_near(snap):
            return False
        return snap.isDay or not self._under_attack()

    def _recovery_out_of_reach(self, snap: WorldSnapshot) -> str | None:
        """Why the last death's items cannot be recovered any more (None = they can)."""
        d = self.death
        assert d is not None
        if not self.config.recover_items or d.position is None:
            return "recovery off" if not self.config.recover_items else "death position unknown"
        if self.clock() - d.at_ms > self.config.item_despawn_ms:
            return f"the items despawned ({(self.clock() - d.at_ms) // 1000} s since the death)"
        if d.dimension and d.dimension != snap.dimension:
            return f"died in {d.dimension}, now in {snap.dimension}"
        far = snap.position.distance_to(d.position)
        if snap.health > 0 and far > self.config.recover_within:
            return f"the death spot is {far:.0f} blocks away (over {self.config.recover_within:g})"
        return None

    def _choose_shelter(self, snap: WorldSnapshot, indoors: bool) -> str | None:
        if self.sheltered is not None and not night_approaching(snap):
            return "leave_shelter" if self._morning_clear(snap) else None
        if indoors:
            return "sleep" if self._sleep_due(snap) else None
        if not self.config.shelter_at_night or self.shelter_lookup is None:
            return None
        if not night_approaching(snap) or self.clock() < self._shelter_retry_at:
            return None
        site = self.sheltered or self.shelter_lookup(snap)  # pushed out (or respawned): back in
        if site is None or site.entrance is None:
            return None
        self._site = site
        return "shelter"

    def _morning_clear(self, snap: WorldSnapshot) -> bool:
        """Out of the shelter once no hostile is near (the morning sun burns zombies and
        skeletons for a while yet), or at the latest at morning_leave_by."""
        cfg = self.config
        near = [e for e in snap.entities if e.hostile and e.distance <= cfg.morning_clear_within]
        if not near or cfg.morning_leave_by <= snap.timeOfDay < DUSK_START:
            self._morning_wait_logged = False
            return True
        if not self._morning_wait_logged:
            self._morning_wait_logged = True
            first = min(near, key=lambda e: e.distance)
            logger.info("[Reflex] morning: staying in the shelter while {} hostile(s) are within {:g} blocks "
                        "({} at {:.1f}); out when they are gone or at time {}", len(near), cfg.morning_clear_within,
                        first.name, first.distance, cfg.morning_leave_by)
        return False

    def _sleep_due(self, snap: WorldSnapshot) -> bool:
        """In the shelter (door closed) and not in bed: is this a moment vanilla lets the bot
        sleep (the night's sleep window, no monster within 8 blocks) and not under attack?"""
        if not self.config.sleep_in_shelter or snap.isSleeping or not sleep_time(snap.timeOfDay):
            return False
        if self.clock() < self._sleep_retry_at or self._under_attack():
            return False
        if self._bedless == self.sheltered and not any(is_bed(i.name) for i in snap.inventory):
            return False  # no bed there tonight: asked again only once one is held
        return not any(e.hostile and e.distance <= MONSTER_RANGE for e in snap.entities)

    def _under_attack(self) -> bool:
        return self._hurt_at is not None and self.clock() - self._hurt_at < self.config.under_attack_ms

    def record_events(self, events: Iterable[BodyEvent]) -> bool:
        """Count deaths (with their cause) and note hits taken; True if the bot died."""
        died = False
        for ev in events:
            if ev.type is EventType.entity_hurt and ev.data.get("self"):
                self._hurt_at = self.clock()
            if ev.type is not EventType.death:
                continue
            died = True
            cause = str(ev.data.get("cause") or "unknown")
            self.stats.deaths += 1
            self.stats.death_causes[cause] += 1
            where = ev.data.get("position")
            self.death = Death(cause=cause, position=Vec3(**where) if where else None, at_ms=self.clock(),
                               dimension=ev.data.get("dimension") or None)
            logger.warning("[Reflex] death recorded (total {}) cause={} at {}", self.stats.deaths, cause, where)
        return died

    async def on_events(self, events: Iterable[BodyEvent]) -> None:
        """The body's events as they are drained: a death holds the running task at once
        (before it fails on an empty inventory), until the items are back."""
        if self.record_events(events):
            await self._take_body("the bot died")
            held = await self.executor.preempt(DIED)
            if held is not None:
                logger.info("[Reflex] task={} held until the dropped items are recovered", held)

    async def tick(self, snap: WorldSnapshot, events: Iterable[BodyEvent] = ()) -> str | None:
        await self.on_events(events)
        if not self._started:  # a restart during a night in the shelter: give those tasks back
            self._started = True
            self.executor.resume_paused(SHELTERING)
            if self.death is None:  # a death before the restart: its items are not tracked
                self.executor.resume_paused(DIED)
        self._note_waking(snap)
        if self.death is not None:
            why = self._recovery_out_of_reach(snap)
            if why is not None:
                self._end_recovery(f"not recovering the items: {why}")
        reflex = self.choose(snap)
        if reflex is None:
            return None
        self._acting = True
        try:
            await self._take_body(f"reflex {reflex}")
            await self._act(reflex, snap)
        finally:
            self._acting = False
        return reflex

    async def _take_body(self, why: str) -> None:
        """A direct action (a user's or MCP client's) holding the body stops first."""
        if self.direct is not None:
            await self.direct.yield_body(why)

    def _note_waking(self, snap: WorldSnapshot) -> None:
        if self._asleep and not snap.isSleeping:
            why = ("morning" if not sleep_time(snap.timeOfDay) else "hurt" if self._under_attack()
                   else "woken up by the server")
            logger.info("[Reflex] out of bed at time={} ({})", snap.timeOfDay, why)
        self._asleep = snap.isSleeping

    def _end_recovery(self, outcome: str, death: Death | None = None) -> None:
        d = death or self.death
        assert d is not None
        logger.info("[Reflex] after the death (cause={}): {}", d.cause, outcome)
        if self.death is not d:
            return  # died again on the way: that death's recovery holds the tasks now
        self.death = None
        self.executor.resume_paused(DIED)

    async def _recover(self) -> None:
        d = self.death
        assert d is not None and d.position is not None
        p = d.position
        async with self._task_held() as paused:
            result = await self.tools.execute("pick_up_items", {"x": p.x, "y": p.y, "z": p.z}, self.ctx)
        if result.success:
            got = int(result.output["pickedUp"])
            self.stats.items_recovered += max(0, got)
            self._end_recovery(f"recovered {got} items at {[round(p.x), round(p.y), round(p.z)]} "
                               f"({result.output['itemsLeft']} left there)", d)
        else:
            self._end_recovery(f"recovering the items failed: {result.error}", d)
        self._log({"reflex": "recover", "pausedTask": paused, "ok": result.success})

    @asynccontextmanager
    async def _task_held(self) -> AsyncIterator[str | None]:
        """The running task paused (through the workflow's safe stop) for a reflex's tool
        calls, and given back after; yields its id (None: no task was running)."""
        paused = await self.executor.preempt(PREEMPTED)
        if paused:
            self.stats.preemptions += 1
        try:
            yield paused
        finally:
            if paused:
                self.executor.resume_paused(PREEMPTED)

    def _log(self, entry: dict[str, Any]) -> None:
        self.stats.log = (self.stats.log + [entry])[-50:]

    async def _act(self, reflex: str, snap: WorldSnapshot) -> None:
        if snap.isSleeping and reflex != "sleep":  # nothing else is done lying in bed
            woke = await self.tools.execute("wake", {}, self.ctx)
            logger.info("[Reflex] getting out of bed to {} -> {}", reflex,
                        "ok" if woke.success else woke.error.message if woke.error else "failed")
            self._asleep = False
        if reflex == "sleep":
            await self._sleep(snap)
            return
        if reflex in ("shelter", "leave_shelter"):
            await self._shelter(reflex)
            return
        if reflex == "recover":
            await self._recover()
            return
        if reflex == "forage":
            await self._forage(snap)
            return
        combat = self._combat
        if combat is not None:
            logger.info("[Reflex] {} at {:.1f} blocks -> {}: {}", combat.target.name, combat.target.distance,
                        combat.reflex, combat.reason)
            if combat.reflex == RETREAT and night_approaching(snap) and self._retreat_site(snap) is not None:
                self.stats.retreats += 1
                await self._shelter("shelter")  # by night into the shelter, tasks held until morning
                return
        async with self._task_held() as paused:
            if combat is not None:
                result = await self._answer(combat)
            else:
                result = await self.tools.execute("eat", {"item": food_to_eat(snap, self.config)}, self.ctx)
                self.stats.ate += 1
            logger.info("[Reflex] {} -> {} {}", reflex, "ok" if result.success else "failed",
                        result.output if result.success else result.error)
        self._log({"reflex": reflex, "pausedTask": paused})

    async def _forage(self, snap: WorldSnapshot) -> None:
        game = sorted(game_in_sight(snap.entities), key=lambda e: e.distance)
        if game:
            logger.info("[Reflex] forage: {}, nothing to eat held -> hunting the {} at {:.1f} blocks", vitals(snap),
                        game[0].name, game[0].distance)
            call, args = "hunt", {"target": "animal", "count": 1}
        else:
            logger.info("[Reflex] forage: {}, nothing to eat held and no animal in sight -> exploring for one",
                        vitals(snap))
            call, args = "explore", {"legs": 2, "leg_distance": 12}  # a short walk: the shelter stays near
        async with self._task_held() as paused:
            self.stats.forages += 1
            result = await self.tools.execute(call, args, self.ctx)
        fed = result.success and fed_by(result.output.get("gained"))
        self._fruitless_forages = 0 if fed else self._fruitless_forages + 1
        wait = 0 if fed else forage_wait_ms(self.config, self._fruitless_forages)
        self._forage_retry_at = self.clock() + wait
        logger.info("[Reflex] forage -> {} {}{}", "ok" if result.success else "failed",
                    result.output if result.success else result.error,
                    "" if fed else f"; no food: next forage in {wait // 1000} s at the earliest")
        self._log({"reflex": "forage", "pausedTask": paused, "ok": result.success})

    def _retreat_site(self, snap: WorldSnapshot) -> SiteSignature | None:
        site = self.sheltered or (self.shelter_lookup(snap) if self.shelter_lookup is not None else None)
        if site is None or site.entrance is None:
            return None
        self._site = site
        return site

    async def _answer(self, combat: CombatChoice) -> Any:
        """Carry out a combat reflex with the tools: one tool call, or a strike then an evasion."""
        cfg, name = self.config, combat.target.name
        self.stats.by_kind[name] += 1
        evade = {"threat": name, "radius": max(cfg.creeper_flee_within, cfg.fight_radius),
                 "distance": cfg.creeper_safe_distance, "legs": 3}
        if combat.reflex in (FIGHT, CLOSE_IN):
            self.stats.fought += 1
            radius = cfg.skeleton_engage_within if combat.reflex == CLOSE_IN else cfg.fight_radius
            return await self.tools.execute("attack", {"target": name, "radius": radius}, self.ctx)
        if combat.reflex == STRIKE_AND_BACK_OFF:
            self.stats.fought += 1
            struck = await self.tools.execute("attack", {"target": name, "radius": 4.0, "hits": 1}, self.ctx)
            if not struck.success:
                logger.info("[Reflex] the strike on {} failed ({}): evading it", name, struck.error)
            return await self.tools.execute("flee", evade, self.ctx)
        if combat.reflex == EVADE:
            self.stats.evaded += 1
            return await self.tools.execute("flee", evade, self.ctx)
        assert combat.reflex == RETREAT
        self.stats.retreats += 1
        return await self.tools.execute("flee", {"radius": cfg.fight_radius * 2, "distance": 16.0, "legs": 3}, self.ctx)

    async def _shelter(self, reflex: str) -> None:
        if reflex == "leave_shelter":
            site, self.sheltered, self._bedless = self.sheltered, None, None
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
        self._log({"reflex": reflex, "pausedTask": paused, "ok": result.success})

    async def _sleep(self, snap: WorldSnapshot) -> None:
        site = self.sheltered
        assert site is not None
        result = await self.tools.execute("sleep_in_shelter", _doorway(site), self.ctx)
        if result.success:
            self.stats.sleeps += 1
            self._asleep = bool(result.output.get("sleeping", True))
            logger.info("[Reflex] night: asleep in the bed at {} in the shelter at {} (time={}{})", result.output.get("bed"),
                        list(site.refCorner), snap.timeOfDay, ", the held bed put there first" if result.output.get("placedBed") else "")
        elif result.error is not None and result.error.code == PRECONDITION_FAILED:  # no bed there, or no room
            self._bedless, self._sleep_retry_at = site, self.clock() + self.config.sleep_retry_ms
            logger.info("[Reflex] night: not sleeping in the shelter at {}: {}; not asking again tonight unless a bed "
                        "is held (then in {} s)", list(site.refCorner), result.error.message,
                        self.config.sleep_retry_ms // 1000)
        else:
            self._sleep_retry_at = self.clock() + self.config.sleep_retry_ms
            logger.info("[Reflex] night: not sleeping in the shelter at {}: {}; trying again in {} s",
                        list(site.refCorner), result.error.message if result.error else "?",
                        self.config.sleep_retry_ms // 1000)
        self._log({"reflex": "sleep", "ok": result.success})


def _inside_only(snap: WorldSnapshot, site: SiteSignature | None) -> WorldSnapshot:
    """The snapshot with only the hostiles inside the hut: the ones a closed door does not stop."""
    inside = [e for e in snap.entities if not e.hostile or (site is not None and in_hut(site, e.position))]
    return snap.model_copy(update={"entities": inside, "hostiles": sum(e.hostile for e in inside)})


def _doorway(site: SiteSignature) -> dict[str, Any]:
    assert site.entrance is not None
    return {"door": list(site.entrance), "facing": site.facing}
