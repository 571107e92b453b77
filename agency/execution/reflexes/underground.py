"""The night under ground: a bot underground at dusk (agency.world.underground: rock over its
head) is not called up: the night changes nothing down there, so its task goes on. Once it
comes up into the open at night, the shelter is where it goes, as from anywhere else
(agency.execution.reflexes.shelter).

In the hut with no bed to sleep in and underground work to do (`night_work`: the drive tick's
next goal digs or crafts; or `night_task`: a task held is such work), the bot digs in (at dusk
already when a look finds no bed in the hut and none is held, not when the sleep reflex would
find none): a staircase under the hut, its floor closed behind (agency.shelter.dig_in), once a
night. From there it is underground and works on; the tasks
held at dusk wait for the morning, but those that are work for down here (`night_task`: a craft
or smelt whose plan does not hunt), given back at once.

With no shelter to go to at night proper (none verified within reach, or the way in failed), the
bot burrows in where it stands (agency.shelter.burrow) and holds its tasks until morning.

In the morning a bot still in its pocket comes up first (`come_up`): back up the staircase into
the hut, which it then leaves by the door (agency.shelter.dig_in.climb_back), or out of the
burrow to where it began (agency.shelter.burrow.dig_out); then the tasks held are given back."""

from __future__ import annotations

from typing import Any

from loguru import logger

from agency.execution.reflexes.base import ReflexBase, doorway
from agency.execution.runs import task_spec
from agency.planning.tasks.idempotency import GAVE_WAY, SHELTERING
from agency.shelter.bed import is_bed
from agency.shelter.models import SiteSignature
from agency.shelter.tool_inputs import HOOKS_KEY as SHELTER_HOOKS
from agency.tools import ToolExecutionResult
from agency.world import NIGHT_START, SAFE_HEALTH, BodyLost, Vec3, WorldSnapshot, underground

BURROW_RETRY_AFTER_STOP_MS = 5000
IDLE_UNDERGROUND_MS = 60_000  # no work underground at night this long, none to come: burrowed in (_idle_down_there)
IDLE_UNDERGROUND_LONG_MS = 240_000  # none this long, whatever is due: the drive tick (180 s) had its chance
# Badly hurt (HURT_BADLY or under; under SAFE_HEALTH no drive tick fires: no night's work comes), a
# pause between two runs this long: a 26.1 bench bot at health 8 in a cave at y 40 stood there after
# its last task for the minute, fighting a skeleton, a creeper and a zombie, which killed it 33 s in
# (seed 6193 at 69f906a). Lightly hurt, it heals in that minute and works on.
IDLE_HURT_UNDERGROUND_MS = 10_000
HURT_BADLY = 10.0
MAX_REFILL = 64  # the dig_out tool's refill cells at most (a burrow closes 3 or so)
LEFT_BURROW_AT = 1.5  # blocks from where the bot sat in its burrow: out of its pocket


class NightUndergroundReflex(ReflexBase):
    def _stays_down(self, snap: WorldSnapshot) -> bool:
        """Underground at dusk, or still under some ground (cover 1 or more) once the night is
        worked down there: a staircase on from under the hut passes under open ground with 1 to
        3 blocks over it. Only the open sky (cover 0) calls the bot up to its shelter."""
        if underground(snap):
            return True
        return (self._dug_in or self._underground_tonight) and bool(snap.cover)

    def _dig_in_due(self, snap: WorldSnapshot) -> bool:
        """Once a night, with work underground, no bed to sleep in (the sleep reflex found none
        in the hut and none is held, or sleeping is off), not in bed."""
        if not self.config.dig_in_at_night or self.night_work is None or self._dig_in_tried or snap.isSleeping:
            return False
        bedless = not self.config.sleep_in_shelter or (
            self._bedless == self.sheltered and not any(is_bed(i.name) for i in snap.inventory)
        )
        return bedless and not self._hostile_near(snap) and self._work_down_there(snap)

    def _work_down_there(self, snap: WorldSnapshot) -> bool:
        """Work for a night under the hut: the drive tick's next goal (`night_work`), or a task
        held at dusk or waiting its turn that is such work (`night_task`; the staircase down
        needs a pickaxe). A 26.1 bench bot with its shield's iron held raw stood the last 70 s of
        the dusk on its hut's floor: its next goal was a bed, whose wool the sheep had."""
        assert self.night_work is not None
        if self.night_work(snap):
            return True
        if self.night_task is None or snap.count_matching("_pickaxe") == 0:
            return False
        judge, held, ex = self.night_task, snap.held(), self.executor
        # those the dig-in gives back: held at dusk, or waiting their turn and no goal's (hold_turns)
        down = [
            t
            for t in ex.held(SHELTERING, GAVE_WAY)
            if t.metadata.blockedReason == SHELTERING or not ex.endings.goal_bound(t)
        ]
        return any(judge(task_spec(t), held) for t in down)

    def _burrow_due(self, snap: WorldSnapshot) -> bool:
        """Night proper (hostiles spawn from 13000) with no shelter to go to, not just tried."""
        if not self.config.burrow_at_night or self.clock() < self._burrow_retry_at:
            return False
        return not snap.isDay or snap.timeOfDay >= NIGHT_START

    def _idle_down_there(self, snap: WorldSnapshot) -> bool:
        """Underground in the night proper (not in the pocket dug under the hut: that one is
        closed) with no run in flight for IDLE_UNDERGROUND_MS (IDLE_HURT_UNDERGROUND_MS hurt) and
        no night's work to come (none due, or the drive gate shut by the bot's health), or none
        for IDLE_UNDERGROUND_LONG_MS
        whatever is due: sealed in a burrow rather than standing in the open mine, where hostiles
        spawn in the dark (a 26.1 bench bot stood at health 10 for 3 minutes in its mine after its
        iron pickaxe, no tick firing under 16, until a zombie killed it). Dug in, the night's work
        may have taken the bot out of the pocket, along its staircase into a cave: a 1.18.2 bench
        bot (seed 3052 at c13238d) stood there at health 7 for the rest of the night."""
        in_the_pocket = self._dug_in and not self._left_the_pocket(snap)
        if snap.health <= 0 or in_the_pocket or self.executor.current is not None or not self._burrow_due(snap):
            self._idle_seen = None
            return False
        busy = self.executor.stats.last_busy_ms
        if busy is None:  # no run since the daemon started: idle from when first seen so
            busy = self._idle_seen = self._idle_seen or self.clock()
        idle, hurt = self.clock() - busy, snap.health < SAFE_HEALTH
        if idle < (IDLE_HURT_UNDERGROUND_MS if snap.health <= HURT_BADLY else IDLE_UNDERGROUND_MS):
            return False
        work = self.night_work is not None and self.night_work(snap)
        return not work or hurt or idle >= IDLE_UNDERGROUND_LONG_MS

    def _still_in_burrow(self, snap: WorldSnapshot) -> bool:
        """Burrowed, and still in the pocket; out of it (a fight's chase, knocked back), the
        burrow is over, logged, its tasks still held for the night (`_night_hold`: the morning
        gives them back) and every hostile answered again; another burrow or shelter may follow.
        A 26.1 bench bot at 9b80dc7 (seed 6927) fought a spider and a zombie out of its burrow's
        pocket, stood 8 blocks off it counted as burrowed, a skeleton seen only in a pocket's
        reach, and was shot from 12.7 to 0 in 29 s with no reflex answering."""
        if not self._burrowed:
            return False
        at = self._burrow_at
        if at is None or snap.position.distance_to(at) <= LEFT_BURROW_AT:
            return True
        logger.info(
            "[Reflex] no longer in the burrow (at {}, it was at {}): the burrow is over, the tasks stay held "
            "for the night",
            [round(v, 1) for v in (snap.position.x, snap.position.y, snap.position.z)],
            [round(v, 1) for v in (at.x, at.y, at.z)],
        )
        self._burrowed = False
        self._burrow_at = None
        return False

    async def _come_up(self, snap: WorldSnapshot) -> None:
        """Out of the night's pocket: into the hut (left by the door next, as after a night on
        its floor), or out of the burrow; a bot that is no longer in the pocket under the hut
        (it worked on from there) goes on from where it is."""
        site, start, dug_in = self._dug_in_under, self._burrow_start, self._dug_in
        self._dug_in = self._burrowed = self._night_hold = False
        if dug_in and site is not None and site.entrance is not None:
            if self._left_the_pocket(snap):
                logger.info("[Reflex] morning: the night underground is over; the tasks held are given back")
                self.executor.resume_paused(SHELTERING)
                return
            await self.executor.preempt(SHELTERING)  # the night's work stops: it would dig on down there
            result = await self._reshape("climb_back", site)
            if result.success:
                self.sheltered = site  # the tasks stay held until it leaves by the door
        elif start is not None:
            refill = [list(c) for c in self._burrow_closed[:MAX_REFILL]]
            self._burrow_closed = []
            result = await self.tools.execute("dig_out", {"start": list(start), "refill": refill}, self.ctx)
        else:
            self.executor.resume_paused(SHELTERING)
            return
        logger.log(
            "INFO" if result.success else "WARNING",
            "[Reflex] morning: up out of the {} -> {} {}",
            "pocket under the hut" if dug_in else "burrow",
            "ok" if result.success else "failed",
            result.output if result.success else result.error,
        )
        if self.sheltered is None:
            self.executor.resume_paused(SHELTERING)
            logger.info("[Reflex] morning: the tasks held are given back")
        self._log({"reflex": "come_up", "ok": result.success})

    def _night_underground(self, snap: WorldSnapshot) -> None:
        if self._underground_tonight or self._dug_in:
            return
        self._underground_tonight = True
        self.stats.nights_underground += 1
        logger.info(
            "[Reflex] night: underground ({} solid blocks overhead at y={:.0f}); working on through the night "
            "rather than walking up to the shelter",
            snap.cover,
            snap.position.y,
        )

    async def _reshape(self, tool: str, site: SiteSignature) -> ToolExecutionResult:
        """Dig under the hut or climb back into it: its floor is open meanwhile, and the goal
        review waits (reshaping_shelter)."""
        self.reshaping_shelter = True
        try:
            return await self.tools.execute(tool, doorway(site), self.ctx)
        finally:
            self.reshaping_shelter = False

    async def _dig_in(self) -> None:
        site = self.sheltered
        assert site is not None
        self._dig_in_tried = True
        result = await self._reshape("dig_in", site)
        if result.success:
            self.sheltered, self._dug_in, self._night_hold, self._dug_in_under = None, True, True, site
            self.stats.nights_dug_in += 1
            self.executor.hold_turns(SHELTERING)  # judged with the tasks held at dusk
            going_on = await self._night_work_held()
            self._ask_night_work = not going_on  # asked once the reflex lets go (Reflexes.tick)
            logger.info(
                "[Reflex] night: dug in under the shelter at {} -> {}; working underground until morning ({})",
                list(site.refCorner),
                result.output,
                f"given back, work for down here: {', '.join(going_on)}; the other tasks held at dusk wait for it"
                if going_on
                else "the tasks held at dusk wait for it",
            )
        else:
            logger.warning(
                "[Reflex] night: could not dig in under the shelter at {}: {}; staying in it until morning",
                list(site.refCorner),
                result.error,
            )
        self._log({"reflex": "dig_in", "ok": result.success})

    async def _night_work_held(self) -> list[str]:
        """The tasks held at dusk (and those that were waiting their turn: Executor.hold_turns)
        that are work for down here (`night_task`: a craft or smelt whose plan does not hunt) go
        back in the queue now, the rest wait for the morning (a
        1.18.2 bench bot dug in at dusk with its iron pickaxe's task held, and stood idle in
        its pocket until the next tick asked for it). Their ids."""
        if self.night_task is None:
            return []
        judge = self.night_task
        try:
            held = (await self.ctx.snapshot()).held()
        except BodyLost:
            return []  # no inventory to judge by: they wait for the morning as before
        return self.executor.resume_paused(SHELTERING, only=lambda t: judge(task_spec(t), held))

    async def _burrow(self) -> None:
        paused = await self.executor.preempt(SHELTERING)
        result = await self.tools.execute("burrow", self._burrow_args(paused), self.ctx)
        if result.success:
            self._burrowed = self._night_hold = True
            self._dug_in = False  # out of the pocket under the hut: the morning digs out of the burrow
            x, y, z = result.output["from"]
            self._burrow_start = (int(x), int(y), int(z))
            at = result.output.get("at")
            self._burrow_at = Vec3(x=at[0], y=at[1], z=at[2]) if at else None
            self._burrow_closed = [tuple(c) for c in result.output.get("closed", [])]
            self.stats.nights_burrowed += 1
            logger.info(
                "[Reflex] night: {}; burrowed in -> {}; tasks held until morning (paused {})",
                self._burrow_why,
                result.output,
                paused,
            )
        else:
            # a dig stopped half-way (a hostile's hit, the threat watch taking the body) says
            # nothing against the ground here: tried again soon, not after shelter_retry_ms
            stopped = result.error is not None and "aborted" in result.error.message
            wait = BURROW_RETRY_AFTER_STOP_MS if stopped else self.config.shelter_retry_ms
            wait = 0 if self._died_meanwhile(result) else wait  # the respawned bot may burrow at once
            self._burrow_retry_at = self.clock() + wait
            logger.warning(
                "[Reflex] night: no shelter to go to and could not burrow in: {}; retry in {} s",
                result.error,
                wait // 1000,
            )
            # dug in: the surface work held at dusk still waits for the morning
            self.executor.resume_paused(SHELTERING, only=(lambda t: t.id == paused) if self._night_hold else None)
        self._log({"reflex": "burrow", "pausedTask": paused, "ok": result.success})

    def _burrow_args(self, paused: str | None) -> dict[str, Any]:
        """Away from the site of the hut the paused task builds, or else of one held for the
        morning (it met surface work in the dark; another goal has the body meanwhile): a bench
        bot's burrow went under the floor of its half-built hut, and the build failed on the
        hole it left. Else away from the hut it sought tonight (agency.shelter.burrow._away
        leaves a site out of the burrow's reach alone)."""
        hooks = self.ctx.hooks.get(SHELTER_HOOKS)
        building = ([paused] if paused else []) + self.executor.held_for_morning()
        for site in (hooks.anchored_site(task_id) for task_id in building) if hooks is not None else ():
            if site and "origin" in site:
                return {"awayFrom": list(site["origin"])}
        # else the hut it sought tonight and could not get into (no way to its door): a 1.18.2
        # bench bot burrowed from beside its hut straight under the floor, and the goal review
        # found the hut not enclosed and reopened it for the night
        if self._site is not None:
            return {"awayFrom": list(self._site.refCorner)}
        return {}
