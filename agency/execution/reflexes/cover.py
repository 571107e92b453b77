"""The cover reflex: hurt, retreating, and the retreat got nowhere (a tunnel, a dead end, a
cave's ledge) from a hostile not yet beside the bot, the bot closes itself in where it stands
(agency.shelter.cover): its tasks held, it eats if it needs to, and it digs its way out again
once its health is back and the hostile gone or a while passed, at the latest after
COVER_MAX_MS (up through the ground to the surface then, when it has not healed and a hostile
is still near, and the column over it is safe to dig), and at once when something hurts it in
there (a cell opened) or it is no longer where it took cover. Of the deaths in the bench runs
at 7a85f44 and 5f5a076, three came after retreats from a skeleton found no way off: a 1.18.2
bot at health 4 in a cave at y 51 (seed 4275) tried three times in three seconds and was shot
dead. Under ground it also closes itself in at any health from an archer shooting it that it
can neither reach nor flee, and from a creeper it has no way away from (the cells toward it
first), and leaves such a cover up through the ground, not out beside them before COVER_MAX_MS."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from loguru import logger

from agency.execution.combat import (
    ARCHERS,
    CREEPERS,
    EVADE,
    RETREAT,
    STRIKE_AND_BACK_OFF,
    CombatChoice,
    is_archer,
    is_creeper,
)
from agency.execution.reflexes.base import Cover, ReflexBase
from agency.execution.reflexes.combat import CORNERED_MS
from agency.game.foods import REGEN_FOOD
from agency.names import same
from agency.shelter.cover import placed_walls
from agency.tools.results import ToolExecutionResult
from agency.tools.spatial import block_pos
from agency.world import BodyError, EntityInfo, WorldSnapshot, night_approaching, underground

COVER_FROM = 1.5  # a hostile nearer stands in a cell the cover would fill: fought or eaten past instead
COVER_HEALTH = 14.0  # out of cover once health is back to this (a retreat begins at 6)...
COVER_MIN_MS = 20_000  # ...and no hostile is near, or this long has passed (one waiting outside)
COVER_MAX_MS = 120_000  # out at the latest (not healing: hungry with nothing to eat)
COVER_RETRY_MS = 20_000  # no cover again this soon after one left or one that could not close every cell
COVER_GRACE_MS = 2_000  # hurt later than this in cover: a cell is open (an arrow in flight is not that)
LEAVE_TRIES = 3  # ways out that leave a block standing before the cover is given up (logged)
COVER_FIRST_OPEN = 4  # retreating from an archer with at most this many cells open around: cover first
CREEPER_COVER_OPEN = 4  # a creeper walled off only where this few cells are open (a tunnel, a pocket)
DEAD_END_OPEN = 2  # one side open: no way away from a creeper but past it, so walled off before a flee
CREEPER_COVER_FROM = 2.5  # a creeper nearer may stand in a cell the wall fills (its box is 0.6 wide)
IN_COVER = 0.9  # a hostile this near is in the bot's own cells with it, the only one answered there
NEAR = 16.0  # as far as a snapshot counts hostiles near (the bot's default hostile_radius)


def got_away(res: ToolExecutionResult) -> bool:
    """A flee that left the hostile farther off by at least one leg, or found none to flee."""
    out = res.output or {}
    return res.success and (bool(out.get("legs")) or not out.get("fled"))


class CoverReflex(ReflexBase):
    def _cover_due(self, target: EntityInfo, snap: WorldSnapshot) -> bool:
        """Hurt to the retreat's threshold, cornered by `target`, not yet in reach of the bot,
        no walls of the night's around it already, no cover just left or failed, and no
        creeper within its fuse's range: a cover is for healing (one taken at full health from
        an archer out of reach, or from three zombies, was left after 20 s and taken again,
        over and over; but see _shot_at_down_here), and its blocks take seconds to place, a
        creeper's fuse 1.5 s (a 1.18.2 bench bot at a2b08ad, at health 4, spent 7 s closing itself
        in from a creeper, left every cell open, and was blown up)."""
        return (
            self._cover_free(snap)
            and (snap.health <= self.config.retreat_below_health or self._shot_at_down_here(snap))
            and target.distance >= COVER_FROM
            and not any(is_creeper(e) and e.distance <= self.config.creeper_flee_within for e in snap.entities)
        )

    def _cover_free(self, snap: WorldSnapshot) -> bool:
        """Not in cover, no walls of the night's around the bot already, no cover just left or
        failed, the bot alive (health 0: dead, the respawn not yet read)."""
        free = self._cover is None and not self._in_night_walls(snap)
        return free and not self._no_cover_now(snap) and snap.health > 0

    def _no_cover_now(self, snap: WorldSnapshot) -> bool:
        """Within COVER_RETRY_MS of a cover left or one that could not close every cell, unless
        the bot was hurt to the retreat's threshold since it left its last cover: a 1.18.2 bench
        bot at 9b80dc7 (seed 6259) came out at health 20, closed in on a skeleton, was shot down
        to 5 in 7 s, and died retreating with no way off 13 s after leaving, no cover allowed."""
        if self.clock() >= self._no_cover_until:
            return False
        left, hurt = self._cover_left_at, self._hurt_at
        hurt_since = left is not None and hurt is not None and hurt > left
        return not (hurt_since and snap.health <= self.config.retreat_below_health)

    def _cover_over(self, *, left: bool) -> None:
        """No cover again for COVER_RETRY_MS: one was left (`left`), or could not close every cell."""
        self._no_cover_until = self.clock() + COVER_RETRY_MS
        self._cover_left_at = self.clock() if left else None

    def _shot_at_down_here(self, snap: WorldSnapshot) -> bool:
        """Underground, hurt a moment ago (an arrow, most likely), an archer near: cover at any
        health, from a retreat (an archer out of reach that shoots, or outnumbered) in a tunnel
        or one that got nowhere.
        A 1.18.2 bench bot at b21a4b1 (seed 3619), at health 20 in a cave at y 20 by a skeleton it
        could not get at, retreated five times in 14 s, each finding no way (2.8 -> 2.8 blocks),
        and was down to 5 when its cover came at the threshold; the cover's way out up through the
        ground (_up_and_away) is what gets it away from one down there."""
        return underground(snap) and self._under_attack() and _near(snap, is_archer)

    async def _cover_first(self, combat: CombatChoice, snap: WorldSnapshot) -> ToolExecutionResult | None:
        """A retreat from an archer where few cells are open around the bot (a tunnel, a cave's
        ledge): cover at once, not a flee first (a flee that finds no way tries its legs for 10
        s under fire: a bot at health 5 in a test's dead end was shot dead meanwhile). A creeper
        evaded in a dead end, or struck in reach after an evasion got nowhere: walled off
        (_cover_from_creeper), not fled past. The cover's result, or None (not taken: the
        reflex goes on as before)."""
        target = combat.target
        stuck = self._lately(self._creeper_stuck_at, CORNERED_MS)
        if combat.reflex == STRIKE_AND_BACK_OFF and is_creeper(target) and stuck:
            return await self._cover_from_creeper(target, snap)  # its back-off would find no way either
        if combat.reflex == EVADE and is_creeper(target):  # in a dead end: walled off, not fled past
            return await self._cover_from_creeper(target, snap, max_open=DEAD_END_OPEN, quiet=True)
        if combat.reflex != RETREAT or not is_archer(target) or not self._cover_due(target, snap):
            return None
        res = await self._take_cover(target, max_open=COVER_FIRST_OPEN, quiet=True)
        return res if self._cover is not None else None

    async def _cover_from_creeper(
        self, creeper: EntityInfo, snap: WorldSnapshot, *, max_open: int = CREEPER_COVER_OPEN, quiet: bool = False
    ) -> ToolExecutionResult | None:
        """Under ground, no way away from a creeper (an evasion got nowhere, or a dead end), few
        cells open around the bot: the cells toward it closed first, out of its sight, where its
        swell falls back (node/plugins/mob_kinds.js) and its blast's rays are stopped
        (explosions.js). Both creeper deaths of the 26.1 s2491 bench run at b21a4b1 came in a cave
        at y 48-50, an evasion failing (5.8 -> 5.7 blocks), then the strike's back-off finding no
        way either (2.6 -> 3.0 blocks in 20 s). Not where many cells are open (seconds to close
        them: the creeper deaths of _cover_due). The cover's result, or None (not taken)."""
        if not (self._cover_free(snap) and underground(snap) and creeper.distance >= CREEPER_COVER_FROM):
            return None
        p = creeper.position
        # at its eyes' height, the bot's head cell first: sight runs eyes to eyes (mobs.js canSee)
        res = await self._take_cover(creeper, max_open=max_open, quiet=quiet, toward=(p.x, p.y + 1.5, p.z))
        return res if self._cover is not None else None

    async def _cover_if_cornered(self, combat: CombatChoice, result: ToolExecutionResult) -> None:
        """After a retreat that got nowhere: cover from the nearest hostile as the bot stands now;
        after an evasion from a creeper that got nowhere: cover from it (_cover_from_creeper)."""
        if got_away(result) or self._cover is not None or self._died_meanwhile(result):
            return
        if combat.reflex in (EVADE, STRIKE_AND_BACK_OFF) and is_creeper(combat.target):
            snap = await self.ctx.snapshot()
            within = self.config.creeper_flee_within  # one the reflexes keep out of the way of
            fuses = (e for e in snap.entities if is_creeper(e) and e.threat and e.distance <= within)
            creeper = min(fuses, key=lambda e: e.distance, default=None)
            if creeper is not None:
                await self._cover_from_creeper(creeper, snap)
            return
        if combat.reflex != RETREAT:
            return
        snap = await self.ctx.snapshot()
        near = _threats_near(snap)
        if near and self._cover_due(near[0], snap):
            await self._take_cover(near[0])

    async def _take_cover(
        self,
        target: EntityInfo,
        *,
        max_open: int = 10,
        quiet: bool = False,
        toward: tuple[float, float, float] | None = None,
    ) -> ToolExecutionResult:
        """Close the bot in (agency.shelter.cover), the cells nearest `toward` first if given;
        `quiet`: a cover found too open or short of blocks is not logged (a first look, before a
        retreat)."""
        args: dict[str, object] = {"maxOpen": max_open}
        if toward is not None:
            args["toward"] = list(toward)
        res = await self.tools.execute("take_cover", args, self.ctx)
        out = res.output or {}
        filled = [tuple(c) for c in out.get("filled", [])]
        if res.success and not out.get("open"):
            x, y, z = out["feet"]  # where it sealed around (a flee's drift may have moved the bot since)
            self._cover = Cover(cells=tuple(filled), since=self.clock(), threat=target.name, feet=(x, y, z))
            self.stats.covers += 1
            logger.info(
                "[Reflex] cornered by the {} at {:.1f} blocks: in cover where the bot stands ({} block(s) placed); "
                "tasks held until health {:g} and none near (out after {} s with one near, or not healing), "
                "{} s at the latest",
                target.name,
                target.distance,
                len(filled),
                COVER_HEALTH,
                COVER_MIN_MS // 1000,
                COVER_MAX_MS // 1000,
            )
            return res
        if quiet and not filled:
            return res
        self._cover_over(left=False)
        if res.success:
            why = out.get("why") or f"{out['open']} left open"
        else:
            why = res.error.message if res.error else "failed"
        logger.info("[Reflex] could not take cover from the {}: {}", target.name, why)
        if filled:  # a half-closed box is no cover and only in the way
            await self.tools.execute("leave_cover", {"cells": [list(c) for c in filled]}, self.ctx)
        return res

    def _still_in_cover(self, snap: WorldSnapshot) -> bool:
        """In cover, and still where it was taken; moved out of it (pushed, a flee from one
        inside, respawned), the cover is over, its blocks left where they stand (logged)."""
        if self._cover is None:
            return False
        if block_pos(snap.position) == self._cover.feet:
            return True
        logger.info(
            "[Reflex] no longer in the cover from the {} (at {}, it was at {}): its blocks left at {}",
            self._cover.threat,
            list(block_pos(snap.position)),
            list(self._cover.feet),
            [list(c) for c in self._cover.cells],
        )
        self._cover = None
        self._cover_over(left=True)
        return False

    def _breached(self, snap: WorldSnapshot) -> bool:
        """Hurt in cover with a hostile the snapshot reads not sealed off: a cell is open (hunger,
        poison or fire hurt too, and are no reason to open the cover beside the hostile)."""
        assert self._cover is not None
        hurt = self._hurt_at is not None and self._hurt_at > self._cover.since + COVER_GRACE_MS
        return hurt and bool(_threats_near(snap))

    @staticmethod
    def _hostile_by_cover(snap: WorldSnapshot) -> bool:
        """Any hostile near, those sealed off too: from in cover every one is (a bench bot at
        231dfcb came out at health 14 after 6 s, a skeleton 5 blocks off, five times in two minutes)."""
        return any(e.hostile and e.distance <= NEAR for e in snap.entities)

    def _them_by_cover(self, snap: WorldSnapshot) -> bool:
        """The cover was taken from an archer and one is within NEAR (a bow's reach), or from a
        creeper and one is within creeper_flee_within: out beside the one, the bot is shot at
        again and cannot reach it; beside the other, it has no way away from its blast."""
        assert self._cover is not None
        kind = self._cover.threat
        if any(same(kind, k) for k in ARCHERS):
            return _near(snap, is_archer)
        if any(same(kind, k) for k in CREEPERS):
            within = self.config.creeper_flee_within
            return any(is_creeper(e) and e.distance <= within for e in snap.entities)
        return False

    def _leave_cover_due(self, snap: WorldSnapshot) -> bool:
        """Healed and none near, or healed and COVER_MIN_MS passed; not healing (food under
        REGEN_FOOD: choose eats first whatever it can) once COVER_MIN_MS passed, as waiting heals
        nothing (the 1.18.2 bench bot of _shot_at_down_here, at food 16 with no food, sat 120 s in
        its cover at health 5); breached; at the latest after COVER_MAX_MS, but by night not
        while the archer or creeper it took cover from is by it, or any hostile with the bot not
        healed (food left: a starving one goes by the day's rules): the cover is the night's
        shelter then, given up by day (a 1.18.2 bench bot at 5832c56 working its night in a mine
        was shot dead by a skeleton in a cave, seed 9603). Before the latest, never out beside a
        hostile when the way up is refused and the bot is not healed, nor beside the archer or
        creeper it took cover from when the way up is refused; and a creeper within NEAR is
        waited out (unseen, it gives its target up after 5 s and strolls off:
        node/plugins/mobs.js), not come out to or climbed away from."""
        assert self._cover is not None
        held = self.clock() - self._cover.since
        if self._breached(snap):
            return True
        near = self._hostile_by_cover(snap)
        them = near and self._them_by_cover(snap)
        if night_approaching(snap) and (them or (near and snap.health < COVER_HEALTH and snap.food > 0)):
            return False
        if held >= COVER_MAX_MS:
            return True
        if near:
            if self._cover.up_refused and (snap.health < COVER_HEALTH or them):
                return False
            creepers_near = _near(snap, is_creeper)
            if creepers_near and any(same(self._cover.threat, k) for k in CREEPERS):
                return False
        if snap.health >= COVER_HEALTH:
            return held >= COVER_MIN_MS or not near
        return held >= COVER_MIN_MS and snap.food < REGEN_FOOD

    def _up_and_away(self, snap: WorldSnapshot) -> bool:
        """Out, the first try, the way up not refused yet, not breached, a hostile still near,
        and the bot not healed, or by day under ground the archer or creeper it took cover from
        near (_them_by_cover): up through the ground rather than out beside it (leave_cover_up)."""
        assert self._cover is not None
        cover = self._cover
        if cover.tries or cover.up_refused or self._breached(snap) or not self._hostile_by_cover(snap):
            return False
        by_day = not night_approaching(snap)
        return snap.health < COVER_HEALTH or (by_day and underground(snap) and self._them_by_cover(snap))

    async def _leave_cover_up(self, snap: WorldSnapshot) -> bool:
        """True when the bot got up and away or part of the way (its cover is over), else the cover
        is left as usual."""
        cover = self._cover
        assert cover is not None
        res = await self.tools.execute("leave_cover_up", {"cells": [list(c) for c in cover.cells]}, self.ctx)
        logger.info(
            "[Reflex] out of cover from the {} after {} s at health {:g}, hostiles still near: up through the "
            "ground -> {} {}",
            cover.threat,
            (self.clock() - cover.since) // 1000,
            snap.health,
            "ok" if res.success else "failed",
            res.output if res.success else res.error,
        )
        if not res.success and block_pos((await self.ctx.snapshot()).position) == cover.feet:
            self._cover = replace(cover, up_refused=True)  # refused before a block was touched
            return False
        # up and away, or stopped part-way up: then the walls are below, and digging them would
        # not let it out (the two tools together outlast the reflex job): the cover is over
        self._cover = None
        self._cover_over(left=True)
        self._log({"reflex": "leave_cover", "ok": res.success, "up": True})
        return True

    async def _leave_cover(self, snap: WorldSnapshot) -> None:
        cover = self._cover
        assert cover is not None
        if self._up_and_away(snap):
            if await self._leave_cover_up(snap):
                return
            if not self._leave_cover_due(snap):  # the way up refused: not out beside them yet
                return
        res = await self.tools.execute("leave_cover", {"cells": [list(c) for c in cover.cells]}, self.ctx)
        left = [tuple(c) for c in (res.output or {}).get("left", [])] if res.success else list(cover.cells)
        held_s = (self.clock() - cover.since) // 1000
        if left and cover.tries + 1 < LEAVE_TRIES:
            self._cover = replace(cover, cells=tuple(left), tries=cover.tries + 1)
            logger.info("[Reflex] out of cover from the {}: {} still standing, tried again next", cover.threat, left)
            return
        self._cover = None
        self._cover_over(left=True)
        if left:
            logger.warning(
                "[Reflex] out of cover from the {}: {} still standing after {} tries, given up",
                cover.threat,
                left,
                LEAVE_TRIES,
            )
        logger.info(
            "[Reflex] out of cover from the {} after {} s at health {:g} -> {} {}",
            cover.threat,
            held_s,
            snap.health,
            "ok" if res.success else "failed",
            res.output if res.success else res.error,
        )
        self._log({"reflex": "leave_cover", "ok": res.success and not left})

    async def _unbox_at_start(self, snap: WorldSnapshot) -> None:
        """Started by day closed in by blocks no walk digs through (a cover left standing over a
        restart: the blocks stay, the daemon's state of them does not): those dug, once."""
        if night_approaching(snap) or snap.health <= 0:
            return
        try:
            walls = await placed_walls(self.ctx)
        except BodyError:  # BodyLost too: nothing read, nothing dug
            return
        if not walls:
            return
        logger.info("[Reflex] started closed in by {}: dug out (a cover left standing over a restart)", walls)
        await self.tools.execute("leave_cover", {"cells": [list(c) for c in walls]}, self.ctx)


def _near(snap: WorldSnapshot, kind: Callable[[EntityInfo], bool]) -> bool:
    """Is an entity of `kind` (is_archer, is_creeper) within NEAR?"""
    return any(kind(e) and e.distance <= NEAR for e in snap.entities)


def _threats_near(snap: WorldSnapshot) -> list[EntityInfo]:
    """The threats within NEAR, nearest first."""
    return sorted((e for e in snap.entities if e.threat and e.distance <= NEAR), key=lambda e: e.distance)
