"""The sleep reflex: in the shelter with the door closed, the bot lies down in its bed once
the night allows it (a held bed is put there first); the server wakes it in the morning or
when it is hurt."""

from __future__ import annotations

from loguru import logger

from agency.execution.reflexes.base import ReflexBase, doorway
from agency.shelter.bed import MONSTER_RANGE, is_bed, sleep_time
from agency.tools.results import PRECONDITION_FAILED
from agency.world import WorldSnapshot


class SleepReflex(ReflexBase):
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

    def _note_waking(self, snap: WorldSnapshot) -> None:
        if self._asleep and not snap.isSleeping:
            why = (
                "morning"
                if not sleep_time(snap.timeOfDay)
                else "hurt"
                if self._under_attack()
                else "woken up by the server"
            )
            logger.info("[Reflex] out of bed at time={} ({})", snap.timeOfDay, why)
        self._asleep = snap.isSleeping

    async def _sleep(self, snap: WorldSnapshot) -> None:
        site = self.sheltered
        assert site is not None
        result = await self.tools.execute("sleep_in_shelter", doorway(site), self.ctx)
        if result.success:
            self.stats.sleeps += 1
            self._asleep = bool(result.output.get("sleeping", True))
            logger.info(
                "[Reflex] night: asleep in the bed at {} in the shelter at {} (time={}{})",
                result.output.get("bed"),
                list(site.refCorner),
                snap.timeOfDay,
                ", the held bed put there first" if result.output.get("placedBed") else "",
            )
        elif result.error is not None and result.error.code == PRECONDITION_FAILED:  # no bed there, or no room
            self._bedless, self._sleep_retry_at = site, self.clock() + self.config.sleep_retry_ms
            logger.info(
                "[Reflex] night: not sleeping in the shelter at {}: {}; not asking again tonight unless a bed "
                "is held (then in {} s)",
                list(site.refCorner),
                result.error.message,
                self.config.sleep_retry_ms // 1000,
            )
        else:
            self._sleep_retry_at = self.clock() + self.config.sleep_retry_ms
            logger.info(
                "[Reflex] night: not sleeping in the shelter at {}: {}; trying again in {} s",
                list(site.refCorner),
                result.error.message if result.error else "?",
                self.config.sleep_retry_ms // 1000,
            )
        self._log({"reflex": "sleep", "ok": result.success})
