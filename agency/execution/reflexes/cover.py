"""The cover reflex: a retreat that got nowhere (a tunnel, a dead end, a cave's ledge) from a
hostile not yet beside the bot, and the bot closes itself in where it stands
(agency.shelter.cover): its tasks held, it eats if it needs to, and it digs its way out again
once its health is back and the hostile gone or a while passed, or at the latest after
COVER_MAX_MS. Of the deaths in the bench runs at 7a85f44 and 5f5a076, three came after
retreats from a skeleton found no way off: a 1.18.2 bot at health 4 in a cave at y 51 (seed
4275) tried three times in three seconds and was shot dead."""

from __future__ import annotations

from loguru import logger

from agency.execution.combat import RETREAT, CombatChoice, is_archer
from agency.execution.reflexes.base import Cover, ReflexBase
from agency.tools.results import ToolExecutionResult
from agency.world import EntityInfo, WorldSnapshot

COVER_FROM = 1.5  # a hostile nearer stands in a cell the cover would fill: fought or eaten past instead
COVER_HEALTH = 14.0  # out of cover once health is back to this (a retreat begins at 6)...
COVER_MIN_MS = 20_000  # ...and no hostile is near, or this long has passed (one waiting outside)
COVER_MAX_MS = 120_000  # out at the latest (not healing: hungry with nothing to eat)
COVER_RETRY_MS = 20_000  # after a cover that could not close every cell
COVER_FIRST_OPEN = 4  # retreating from an archer with at most this many cells open around: cover first
IN_COVER = 0.9  # a hostile this near is in the bot's own cells with it, the only one answered there
NEAR = 16.0  # as far as a snapshot counts hostiles near (the bot's default hostile_radius)


def got_away(res: ToolExecutionResult) -> bool:
    """A flee that left the hostile farther off by at least one leg."""
    return res.success and bool((res.output or {}).get("legs"))


class CoverReflex(ReflexBase):
    def _cover_due(self, target: EntityInfo) -> bool:
        """Cornered by `target` (the retreat from it got nowhere), not yet in reach of the bot,
        and no walls of the night's around it already."""
        night_walls = self._burrowed or self._dug_in or self.sheltered is not None
        recent = self._cover_failed_at is not None and self.clock() - self._cover_failed_at < COVER_RETRY_MS
        return self._cover is None and not night_walls and not recent and target.distance >= COVER_FROM

    async def _cover_first(self, combat: CombatChoice) -> ToolExecutionResult | None:
        """A retreat from an archer where few cells are open around the bot (a tunnel, a cave's
        ledge): cover at once, not a flee first (a flee that finds no way tries its legs for 10
        s under fire: a bot at health 5 in a test's dead end was shot dead meanwhile). The
        cover's result, or None (not taken: the retreat goes on as before)."""
        target = combat.target
        if combat.reflex != RETREAT or not is_archer(target) or not self._cover_due(target):
            return None
        res = await self._take_cover(target, max_open=COVER_FIRST_OPEN, quiet=True)
        return res if self._cover is not None else None

    async def _take_cover(self, target: EntityInfo, *, max_open: int = 10, quiet: bool = False) -> ToolExecutionResult:
        """Close the bot in (agency.shelter.cover); `quiet`: a cover found too open or short of
        blocks is not logged (a first look, before a retreat)."""
        res = await self.tools.execute("take_cover", {"maxOpen": max_open}, self.ctx)
        out = res.output or {}
        filled = [tuple(c) for c in out.get("filled", [])]
        if res.success and not out.get("open"):
            self._cover = Cover(cells=tuple(filled), since=self.clock(), threat=target.name)
            self.stats.covers += 1
            logger.info(
                "[Reflex] cornered by the {} at {:.1f} blocks: in cover where the bot stands ({} block(s) placed); "
                "tasks held until health {:g} and none near, or {} s",
                target.name,
                target.distance,
                len(filled),
                COVER_HEALTH,
                COVER_MAX_MS // 1000,
            )
            return res
        if quiet and not filled:
            return res
        self._cover_failed_at = self.clock()
        if res.success:
            why = out.get("why") or f"{out['open']} left open"
        else:
            why = res.error.message if res.error else "failed"
        logger.info("[Reflex] could not take cover from the {}: {}", target.name, why)
        if filled:  # a half-closed box is no cover and only in the way
            await self.tools.execute("leave_cover", {"cells": [list(c) for c in filled]}, self.ctx)
        return res

    def _leave_cover_due(self, snap: WorldSnapshot) -> bool:
        assert self._cover is not None
        held = self.clock() - self._cover.since
        if held >= COVER_MAX_MS:
            return True
        near = any(e.threat and e.distance <= NEAR for e in snap.entities)
        return snap.health >= COVER_HEALTH and (held >= COVER_MIN_MS or not near)

    async def _leave_cover(self, snap: WorldSnapshot) -> None:
        assert self._cover is not None
        cover, self._cover = self._cover, None
        res = await self.tools.execute("leave_cover", {"cells": [list(c) for c in cover.cells]}, self.ctx)
        logger.info(
            "[Reflex] out of cover from the {} after {} s at health {:g} -> {} {}",
            cover.threat,
            (self.clock() - cover.since) // 1000,
            snap.health,
            "ok" if res.success else "failed",
            res.output if res.success else res.error,
        )
        self._log({"reflex": "leave_cover", "ok": res.success})
