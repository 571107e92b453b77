"""The night's shelter: in at dusk once the walk in no longer fits before the night
(agency.shelter.head_in), or when a retreat at night calls for it, the door
closed and every task held until morning, then out once no hostile near holds it in
(agency.execution.reflexes.morning_wait). Sleeping in its
bed is the sleep reflex, asked for once the bot is inside.

The night under ground (a bot underground at dusk works on; dug in under the hut or
burrowed in, and up out of it in the morning) is agency.execution.reflexes.underground."""

from __future__ import annotations

from loguru import logger

from agency.execution.reflexes.base import doorway
from agency.execution.reflexes.morning_wait import morning_wait
from agency.execution.reflexes.sleep import SleepReflex
from agency.execution.reflexes.underground import NightUndergroundReflex
from agency.planning.tasks.idempotency import SHELTERING
from agency.shelter.bed import is_bed, sleep_time
from agency.shelter.door import in_hut
from agency.shelter.head_in import distance_to, head_in_due, head_in_time
from agency.shelter.models import SiteSignature
from agency.world import WorldSnapshot, night_approaching


class ShelterReflex(NightUndergroundReflex, SleepReflex):
    def _choose_shelter(self, snap: WorldSnapshot, indoors: bool) -> str | None:
        if (self._dug_in or self._burrowed) and not night_approaching(snap):
            # into the closed hut at once; out of a burrow once the morning is clear of hostiles
            return "come_up" if self._dug_in or self._morning_clear(snap) else None
        if self.sheltered is not None and not night_approaching(snap):
            return "leave_shelter" if self._morning_clear(snap) else None
        if indoors:
            if self._sleep_due(snap):
                return "sleep"
            if self._bed_look_due(snap):
                return "look_for_bed"
            return "dig_in" if self._dig_in_due(snap) else None
        if not self.config.shelter_at_night or self.shelter_lookup is None:
            return None
        if not night_approaching(snap) or self._burrowed:
            return None
        finishing = self.executor.finishing_goal()
        if self.sheltered is None and finishing is not None and finishing[0] == "build":
            # a hut being verified is the night's shelter in a second: a bench bot burrowed in
            # the gap between its workflow's end and the task's completion, under its new hut
            return None
        if self.sheltered is None and self._stays_down(snap) and not self._at_home(snap):
            self._night_underground(snap)
            self._burrow_why = "no work underground"
            return "burrow" if self._idle_down_there(snap) else None
        self._burrow_why = "no shelter to go to"
        if self.clock() < self._shelter_retry_at:
            return "burrow" if self._burrow_due(snap) else None
        site = self.sheltered or self.shelter_lookup(snap)  # pushed out (or respawned): back in
        if site is None or site.entrance is None:
            return "burrow" if self._burrow_due(snap) else None
        if self.sheltered is None and not head_in_due(snap, site.entrance):
            self._say_working_on(snap, site)
            return None
        self._site = site
        return "shelter"

    def _say_working_on(self, snap: WorldSnapshot, site: SiteSignature) -> None:
        """Once a dusk: the bot works on, and until when (agency.shelter.head_in)."""
        if self._head_in_said:
            return
        self._head_in_said = True
        assert site.entrance is not None
        distance = distance_to(snap, site.entrance)
        logger.info(
            "[Reflex] dusk: the shelter at {} is {:.0f} blocks away; working on until time {} (its walk in, "
            "with room, before the night)",
            list(site.refCorner),
            distance,
            head_in_time(distance),
        )

    def _at_home(self, snap: WorldSnapshot) -> bool:
        """In the hut of the shelter it would go to (a hut under a cliff has rock over its roof)."""
        assert self.shelter_lookup is not None
        site = self.shelter_lookup(snap)
        return site is not None and in_hut(site, snap.position)

    def _bed_look_due(self, snap: WorldSnapshot) -> bool:
        """In the hut before the night lets the bot sleep, no bed held, a dig-in to follow if
        there is none: is there a bed in the hut? Asked once a night. With none, the night's
        work starts now rather than when the sleep reflex finds none at 12542 (a bench bot
        waited 75 s of daylight on its hut's floor)."""
        cfg = self.config
        if not (cfg.sleep_in_shelter and cfg.dig_in_at_night) or self.night_work is None or self._dig_in_tried:
            return False
        site = self.sheltered
        if site is None or self._bed_looked == site or self._bedless == site:
            return False
        if snap.isSleeping or sleep_time(snap.timeOfDay) or any(is_bed(i.name) for i in snap.inventory):
            return False
        return not self._hostile_near(snap) and self._work_down_there(snap)

    async def _look_for_bed(self) -> None:
        site = self._bed_looked = self.sheltered
        assert site is not None
        result = await self.tools.execute("shelter_bed", doorway(site), self.ctx)
        if not result.success:
            where = list(site.refCorner)
            logger.info("[Reflex] dusk: could not look for a bed in the shelter at {}: {}", where, result.error)
        elif result.output.get("bed") is None:
            self._bedless = site  # what the sleep reflex would find at 12542
            logger.info(
                "[Reflex] dusk: no bed in the shelter at {} and none held; the night's work starts now",
                list(site.refCorner),
            )
        else:
            logger.info(
                "[Reflex] dusk: a bed at {} in the shelter at {}; sleeping once the night allows it",
                result.output["bed"],
                list(site.refCorner),
            )
        self._log({"reflex": "look_for_bed", "ok": result.success})

    def _hold_for_the_night(self) -> None:
        """In the shelter or a burrow for the night, a task that came active meanwhile (its goal
        reopened: the hut found not enclosed) waits for the morning with the tasks held at dusk,
        paused, not active with no one working it."""
        if self.sheltered is None and not self._burrowed:
            return
        held = self.executor.hold_unrun(SHELTERING)
        if held:
            logger.info(
                "[Reflex] night: task(s) {} came active while the bot is held for the night; held until morning",
                ", ".join(held),
            )

    def _note_morning(self, snap: WorldSnapshot) -> None:
        """The night's marks cleared in the morning; a night held out of a pocket (a death took
        the bot out of its burrow) ends with the tasks held given back. From a pocket, come_up
        ends it."""
        if night_approaching(snap):
            return
        self._underground_tonight = self._dig_in_tried = self._head_in_said = False
        self._bed_looked = self._bedless = None  # a bed may be there by the next night
        self._site = None  # the hut sought tonight (a burrow's awayFrom)
        if self._night_hold and not (self._dug_in or self._burrowed):
            self._night_hold = False
            self.executor.resume_paused(SHELTERING)
            logger.info("[Reflex] morning: the night out is over; the tasks held are given back")

    def _morning_clear(self, snap: WorldSnapshot) -> bool:
        """Out of the shelter once no hostile near holds the bot in (morning_wait), saying once
        what it waits for."""
        wait = morning_wait(snap, self.config)
        if wait is None:
            self._morning_wait_logged = False
            return True
        if not self._morning_wait_logged:
            self._morning_wait_logged = True
            logger.info(
                "[Reflex] morning: staying in the shelter while {} hostile(s) are within {:g} blocks "
                "({} at {:.1f}); out when they are gone or at time {}",
                wait.near,
                self.config.morning_clear_within,
                wait.first.name,
                wait.first.distance,
                wait.until,
            )
        return False

    def _retreat_site(self, snap: WorldSnapshot) -> SiteSignature | None:
        site = self.sheltered or (self.shelter_lookup(snap) if self.shelter_lookup is not None else None)
        if site is None or site.entrance is None:
            return None
        self._site = site
        return site

    async def _shelter(self, reflex: str) -> None:
        if reflex == "look_for_bed":
            await self._look_for_bed()
            return
        if reflex == "dig_in":
            await self._dig_in()
            return
        if reflex == "burrow":
            await self._burrow()
            return
        if reflex == "leave_shelter":
            site, self.sheltered, self._bedless = self.sheltered, None, None
            assert site is not None
            result = await self.tools.execute("leave_shelter", doorway(site), self.ctx)
            logger.info(
                "[Reflex] morning: leaving the shelter at {} -> {} {}",
                list(site.refCorner),
                "ok" if result.success else "failed",
                result.output if result.success else result.error,
            )
            self.executor.resume_paused(SHELTERING)
            return
        site = self._site
        assert site is not None
        paused = await self.executor.preempt(SHELTERING)
        result = await self.tools.execute("enter_shelter", doorway(site), self.ctx)
        if result.success:
            if self.sheltered is None:
                self.stats.nights_sheltered += 1
            self.sheltered = site
            logger.info(
                "[Reflex] night: in the shelter at {}, door closed; tasks held until morning (paused {})",
                list(site.refCorner),
                paused,
            )
        elif self._died_meanwhile(result):  # no fault of the way in: the respawned bot may go at once
            if self.sheltered is None:
                self.executor.resume_paused(SHELTERING)
        else:
            self._shelter_retry_at = self.clock() + self.config.shelter_retry_ms
            logger.warning(
                "[Reflex] night: could not get into the shelter at {}: {}; retry in {} s",
                list(site.refCorner),
                result.error,
                self.config.shelter_retry_ms // 1000,
            )
            if self.shelter_failed is not None:
                self.shelter_failed(site)
            if self.sheltered is None:
                self.executor.resume_paused(SHELTERING)
        self._log({"reflex": reflex, "pausedTask": paused, "ok": result.success})


POCKET_REACH = 2.5  # a burrow's pocket: two cells; a hostile further off is outside its ground


def in_pocket_only(snap: WorldSnapshot, reach: float = POCKET_REACH) -> WorldSnapshot:
    """The snapshot with only the hostiles in the burrow's pocket with the bot (`reach`: a
    cover's is the bot's own cell): the ground over it keeps the others off (a zombie standing
    on the fill is 3 blocks up, and not fought)."""
    me = snap.position
    near = [e for e in snap.entities if not e.threat or (e.distance <= reach and abs(e.position.y - me.y) < 1.5)]
    return snap.model_copy(update={"entities": near, "hostiles": sum(e.threat for e in near)})


def inside_only(snap: WorldSnapshot, site: SiteSignature | None) -> WorldSnapshot:
    """The snapshot with only the hostiles inside the hut: the ones a closed door does not stop."""
    inside = [e for e in snap.entities if not e.threat or (site is not None and in_hut(site, e.position))]
    return snap.model_copy(update={"entities": inside, "hostiles": sum(e.threat for e in inside)})
