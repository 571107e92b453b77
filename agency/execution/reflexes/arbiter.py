"""The arbiter: which reflex a snapshot calls for, in order (air under water, a hostile, food
cooked or eaten, the items after a death, the night's shelter and sleep, forage), and the tick
that takes the body from a direct action and acts on it."""

from __future__ import annotations

from collections.abc import Iterable

from loguru import logger

from agency.execution.combat import RETREAT, choose_combat
from agency.execution.reflexes.base import DIED, SAFE_MODES
from agency.execution.reflexes.combat import CORNERED_MS, CombatReflex
from agency.execution.reflexes.cook import CookReflex
from agency.execution.reflexes.cover import IN_COVER, CoverReflex
from agency.execution.reflexes.drowned_ways import Spot, from_spot, given_up_reason
from agency.execution.reflexes.eat import EatReflex
from agency.execution.reflexes.forage import ForageReflex
from agency.execution.reflexes.head_free import HeadFreeReflex
from agency.execution.reflexes.recover import RecoverReflex
from agency.execution.reflexes.shelter import POCKET_REACH, ShelterReflex, in_pocket_only, inside_only
from agency.execution.reflexes.sleep import SleepReflex
from agency.planning.tasks.idempotency import SHELTERING, WAITING_FOR_MORNING
from agency.shelter.door import in_hut
from agency.world import BodyEvent, WorldSnapshot, night_approaching, underground


class Reflexes(
    CombatReflex,
    CookReflex,
    CoverReflex,
    EatReflex,
    ForageReflex,
    HeadFreeReflex,
    RecoverReflex,
    ShelterReflex,
    SleepReflex,
):
    @property
    def holding_tasks(self) -> bool:
        """True while a reflex has the body or the bot spends the night in a shelter: the
        executor claims nothing (else it claimed the next task while the bot walked to its
        shelter, and the two fought over the body) and drive ticks skip. Also from a death
        until its items are recovered or given up (at most the items' despawn time), and while
        it is in cover (agency.execution.reflexes.cover)."""
        return (
            self.sheltered is not None
            or self._burrowed
            or self._acting
            or self.death is not None
            or self._cover is not None
        )

    @property
    def acting(self) -> bool:
        """A reflex has the body this moment (a fight, a flight, an eat, a forage, the walk to
        the shelter or to a death's items): not while the bot only stays in its shelter,
        burrow or cover. The bench counts it as work (bot/tooling/competence.py idle_share)."""
        return self._acting

    @property
    def hold_reason(self) -> str | None:
        """Why the reflexes hold the body, in words (None: they do not)."""
        if self.sheltered is not None:
            return "the bot is sheltering for the night (until morning)"
        if self._burrowed:
            return "the bot is burrowed in for the night (until morning)"
        if self.death is not None:
            return "the bot is recovering the items it dropped when it died"
        if self._cover is not None:
            return f"the bot has taken cover from a {self._cover.threat} (out once its health is back)"
        if self._acting:
            return "a reflex is acting (a threat, hunger or the night)"
        return None

    def choose(self, snap: WorldSnapshot) -> str | None:
        """Which reflex this snapshot calls for (None = none), for tests and logs."""
        if not self.config.enabled or snap.gameMode in SAFE_MODES:
            return None
        if snap.oxygen is not None and snap.health > 0 and snap.oxygen <= self.config.surface_below_air:
            return "surface"  # before a fight: drowning wins every fight under water
        if self._head_free_due(snap):
            return "free_head"  # before a fight too: a block at the head takes 1 health every half second
        indoors = self.sheltered is not None and in_hut(self.sheltered, snap.position)
        # a closed door keeps them out: indoors only a hostile inside the hut is answered
        now = self.clock()
        self._out_of_reach = self.left_be(now)
        unreachable = frozenset(self._out_of_reach)
        # in a burrow or in cover only a hostile in its pocket is answered, as one inside the hut is
        covered = self._still_in_cover(snap)
        pocket = self._still_in_burrow(snap) or covered
        reach = IN_COVER if covered else POCKET_REACH
        seen = inside_only(snap, self.sheltered) if indoors else in_pocket_only(snap, reach) if pocket else snap
        self._combat = choose_combat(
            seen,
            self.config,
            unreachable=unreachable,
            hurt=self._lately(self._hurt_at, self.config.under_attack_ms),
            cornered=indoors or pocket or self._lately(self._evade_failed_at, CORNERED_MS),
            creeper_stuck=self._lately(self._creeper_stuck_at, CORNERED_MS),
            retreat_stuck=self._retreat_stuck(),
            no_cover=self._no_cover_now(snap),
        )
        if self._combat is not None and self._combat.reflex == RETREAT and self._eat_cornered(snap):
            self._combat = None  # _act answers no hostile: it eats
            return "eat"
        if self._combat is not None:
            return self._combat.reflex
        if covered:  # nothing else until out of it
            return "eat" if self._eat_due(snap) else "leave_cover" if self._leave_cover_due(snap) else None
        if self._cook_due(snap):
            return "cook"
        if self._eat_due(snap):
            return "eat"
        if self.death is not None and not indoors and self._safe_to_recover(snap):
            return "recover"
        return self._choose_shelter(snap, indoors) or ("forage" if self._forage_due(snap) else None)

    def _retreat_stuck(self) -> bool:
        """A retreat got nowhere within CORNERED_MS, and something hurt the bot after it began."""
        stuck, started, hurt = self._retreat_failed_at, self._retreat_started_at, self._hurt_at
        if stuck is None or started is None or hurt is None or self.clock() - stuck >= CORNERED_MS:
            return False
        return hurt >= started

    def _eat_cornered(self, snap: WorldSnapshot) -> bool:
        """A retreat got nowhere a moment ago and nothing has hurt the bot since it began, nor
        within under_attack_ms: the hostile cannot reach it either, and eating is what heals it.
        A 1.18.2 bench bot at health 5, food 17 and a cooked beef held retreated from a zombie 3
        blocks off that could not reach it every 4-8 s for minutes, never getting away and never
        eating."""
        stuck, started = self._retreat_failed_at, self._retreat_started_at
        if stuck is None or started is None or self.clock() - stuck >= CORNERED_MS:
            return False
        # a hit during the retreat is stamped when its event is read, after it began
        if self._under_attack() or (self._hurt_at is not None and self._hurt_at >= started):
            return False
        return self._eat_due(snap)

    async def tick(self, snap: WorldSnapshot, events: Iterable[BodyEvent] = ()) -> str | None:
        await self.on_events(events)
        self._act_again()  # nothing of this tick's is in flight yet: a death just read stops nothing
        if not self._started:  # a restart during a night in the shelter: give those tasks back
            self._started = True
            self.executor.resume_paused(SHELTERING)
            self.executor.waiting_for_morning = True  # any held before the restart: given back by day
            if self.death is None:  # a death before the restart: its items are not tracked
                self.executor.resume_paused(DIED)
            await self._unbox_at_start(snap)
        self._note_waking(snap)
        self._note_morning(snap)
        self._hold_for_the_night()
        waiting = self.executor.waiting_for_morning and not night_approaching(snap)
        if waiting and self.executor.resume_paused(WAITING_FOR_MORNING):
            logger.info("[Reflex] morning: the surface work held for the day is given back")
        if self.death is not None:
            why = self._recovery_out_of_reach(snap)
            if why is not None:
                self._end_recovery(f"not recovering the items: {why}")
        reflex = self.choose(snap)
        if reflex is None:
            return None
        self._acting = True
        self._ask_night_work = False
        try:
            await self._take_body(f"reflex {reflex}")
            await self._act(reflex, snap)
        finally:
            self._acting = False
        if self._ask_night_work:  # the drive tick's gates are open again: the reflex let go
            self._ask_night_work = False
            await self.executor.follow_ups.ask_for_the_night()
        return reflex

    async def _act(self, reflex: str, snap: WorldSnapshot) -> None:
        if snap.isSleeping and reflex != "sleep":  # nothing else is done lying in bed
            woke = await self.tools.execute("wake", {}, self.ctx)
            logger.info(
                "[Reflex] getting out of bed to {} -> {}",
                reflex,
                "ok" if woke.success else woke.error.message if woke.error else "failed",
            )
            self._asleep = False
        if reflex == "sleep":
            await self._sleep(snap)
            return
        if reflex in ("shelter", "leave_shelter", "look_for_bed", "dig_in", "burrow"):
            await self._shelter(reflex)
            return
        if reflex == "come_up":
            await self._come_up(snap)
            return
        if reflex == "recover":
            await self._recover()
            return
        if reflex == "cook":
            await self._cook(snap)
            return
        if reflex == "forage":
            await self._forage(snap)
            return
        if reflex == "leave_cover":
            await self._leave_cover(snap)
            return
        if reflex == "surface":
            await self._surface(snap)
            return
        if reflex == "free_head":
            await self._free_head()
            return
        combat = self._combat
        if combat is not None:
            logger.info(
                "[Reflex] {} at {:.1f} blocks -> {}: {}",
                combat.target.name,
                combat.target.distance,
                combat.reflex,
                combat.reason,
            )
            if (
                combat.reflex == RETREAT
                and night_approaching(snap)
                and not underground(snap)  # not up through the night to the shelter: a retreat down here
                and self._retreat_site(snap) is not None
            ):
                self.stats.retreats += 1
                await self._shelter("shelter")  # by night into the shelter, tasks held until morning
                return
        async with self._task_held() as paused:
            if combat is not None:
                result = await self._cover_first(combat, snap) or await self._answer(combat, snap)
                await self._cover_if_cornered(combat, result)  # no way off: closed in where it stands
            else:
                result = await self._eat(snap)
            logger.info(
                "[Reflex] {} -> {} {}",
                reflex,
                "ok" if result.success else "failed",
                result.output if result.success else result.error,
            )
        self._log({"reflex": reflex, "pausedTask": paused})

    async def _surface(self, snap: WorldSnapshot) -> None:
        logger.info("[Reflex] under water with {} of 20 air -> surface", snap.oxygen)
        async with self._task_held() as paused:
            result = await self.tools.execute("surface", {}, self.ctx)
            if paused is not None and result.success:
                self._give_up_if_drowned(paused, from_spot(result.output))
        self.stats.surfaced += 1
        logger.info(
            "[Reflex] surface -> {} {}",
            "ok" if result.success else "failed",
            result.output if result.success else result.error,
        )
        self._log({"reflex": "surface", "pausedTask": paused, "ok": result.success})

    def _give_up_if_drowned(self, task_id: str, spot: Spot | None) -> None:
        """The task taken up for air from the same water once too often fails (drowned_ways.py);
        the hold's end gives back only what is still paused, so it is not walked back in."""
        if spot is None or not self.drowned.surfaced(task_id, spot, self.clock()):
            return
        if self.executor.give_up(task_id, given_up_reason(spot)):
            self.drowned.forget()
