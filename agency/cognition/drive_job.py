"""The daemon's drive-tick job: when a tick may fire, what it reads first, and where its
thought goes.

It fires nothing while the bot is away, while a user's direct action has the body (the
bot's own goals wait for it), or while a gate on the last snapshot is shut (the night in
the shelter, low vitals, the interval). The job runs every second or two, so nothing more
is read until those pass. Then it reads the world (agency.cognition.drive_reads), reading
the blocks in sight only for a candidate goal that grounds on them, and publishes the
thought a fired tick makes on the cognitive stream.

A tick due by the interval that does not fire says why, once for each reason until one fires
(`[DriveTick] due but not firing: low_food (food=15)`): the bot stands idle until it fires."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from loguru import logger

from agency.clock import Clock
from agency.cognition.counters import AgencyCounters
from agency.cognition.drive_duplicates import step_held_back, step_in_flight
from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_reads import DriveReads
from agency.cognition.drive_selection import DriveSelection
from agency.cognition.drive_tick import (
    DriveSkipReason,
    DriveTickFired,
    DriveTickResult,
    DriveTickSkipped,
    drive_candidate,
    drive_gate,
    evaluate_drive_tick,
    needs_sight,
)
from agency.cognition.follow_ups import FollowUp, Places, as_first, follow_ups, looks_for_game
from agency.cognition.settings import DriveTickConfig
from agency.execution.body_holder import BodyHolder
from agency.goal_tag import canonical_goal_key
from agency.perception.body_gate import BodyGate
from agency.perception.last_seen import LastSeen
from agency.planning.tasks.idempotency import TaskLookup
from agency.planning.tasks.retry_backoff import held_back
from agency.thoughts import Thought
from agency.world import WorldSnapshot


@dataclass(frozen=True)
class _Choice:
    """What a tick read and chose before judging its candidate goal."""

    snap: WorldSnapshot
    shelter_nearby: bool | None
    places: dict[str, bool | None]
    sheltering: bool
    candidate: DriveSelection | DriveTickSkipped


class DriveJob:
    def __init__(
        self,
        reads: DriveReads,
        *,
        holder: BodyHolder,
        gate: BodyGate,
        seen: LastSeen,
        tasks: TaskLookup,
        publish: Callable[[Thought], Thought],
        shelter_nearby: Callable[[WorldSnapshot], bool | None],
        state: DriveTickState,
        config: DriveTickConfig,
        counters: AgencyCounters,
        clock: Clock,
        bot: str | None = None,
    ) -> None:
        self.reads = reads
        self.holder = holder
        self.gate = gate
        self.seen = seen
        self.tasks = tasks
        self.publish = publish  # the cognitive stream's
        self.shelter_nearby = shelter_nearby  # a verified shelter to walk back to (the goal store knows them)
        self.state = state
        self.config = config
        self.counters = counters
        self.clock = clock
        self.bot = bot  # whose tick (a fleet's bot), None = the one bot's
        self._calm_logged = False
        self._skip_said: set[DriveSkipReason] = set()  # why a due tick did not fire, said since the last one fired
        self._between_said: str | None = None  # why the last ask between ticks gave no goal (said once)

    def _calm(self, snap: WorldSnapshot) -> WorldSnapshot:
        """The snapshot as the safety gate judges it: hostiles the reflexes leave be (all of a
        kind an attack could not reach a moment ago or creepers not yet close, none hurting the
        bot: CombatReflex.leaves_be) are not near."""
        if not self.holder.hostiles_left_be(snap):
            self._calm_logged = False  # said again the next time it happens
            return snap
        if not self._calm_logged:
            self._calm_logged = True
            near = sorted({e.name for e in snap.entities if e.threat})
            logger.info(
                "[DriveTick] {} hostile(s) near ({}) left be by the reflexes, not hurting the bot: "
                "not a reason to stand idle",
                snap.hostiles,
                ", ".join(near),
            )
        return snap.model_copy(update={"hostiles": 0})

    async def _choose(self, state: DriveTickState, now: int, *, every_place: bool) -> _Choice | DriveTickSkipped | None:
        """The tick's sequence up to its candidate goal: None while away or held, the gate's
        skip while one is shut, else the fresh snapshot read, the places near it (those due
        to be read now, or every_place whatever their interval) and the candidate chosen."""
        snap = self.seen.get()
        if snap is None or not self.gate.open("DriveTick", self.reads.connected) or self.holder.direct_holds:
            return None
        gated = drive_gate(self._calm(snap), now, state, sheltering=self.holder.reflexes_hold, config=self.config)
        if gated is not None:
            return gated
        snap = self._calm(await self.reads.fresh_snapshot(snap))
        shelter_nearby = self.shelter_nearby(snap)
        places = await self.reads.places_nearby(snap, None if every_place else now)
        sheltering = self.holder.reflexes_hold  # as it is after the reads
        candidate = drive_candidate(
            snap,
            now,
            state,
            self.tasks,
            bot=self.bot,
            shelter_nearby=shelter_nearby,
            sheltering=sheltering,
            config=self.config,
            **places,
        )
        return _Choice(snap, shelter_nearby, places, sheltering, candidate)

    async def run(self) -> DriveTickResult | None:
        """One tick; None when it did not get as far as choosing (away, held, gated)."""
        now = self.clock()
        choice = await self._choose(self.state, now, every_place=False)
        if isinstance(choice, DriveTickSkipped):
            self._say_why_not(choice, now)
        if not isinstance(choice, _Choice):
            return None
        snap = choice.snap
        region = await self.reads.in_sight(snap) if needs_sight(choice.candidate) else None
        result = evaluate_drive_tick(
            snap,
            now,
            self.state,
            self.tasks,
            region=region,
            counters=self.counters,
            bot=self.bot,
            shelter_nearby=choice.shelter_nearby,
            sheltering=choice.sheltering,
            config=self.config,
            **choice.places,
        )
        if isinstance(result, DriveTickSkipped):
            self._say_why_not(result, now)
        if isinstance(result, DriveTickFired):
            self._skip_said.clear()
            stored = self.publish(result.thought)
            logger.info(
                "[DriveTick] fired goal={} rule={} thought={}{}",
                stored.metadata.goalKey,
                result.selection.rule,
                stored.id,
                _listed(" then=", result.follow_ups) + _listed(" queued=", result.queued),
            )
        return result

    async def goals_now(self) -> tuple[FollowUp, ...]:
        """What the next tick would choose now and the chain after it, for the executor to do at
        once when a tick's work is done and nothing follows it (FollowUpWatch.queue_after):
        every gate but the interval asked, nothing fired, published or counted; () when a gate
        is shut or the goal is none a chain may take (agency.cognition.follow_ups.as_first)."""
        now = self.clock()
        unfired = DriveTickState()  # as if due: the interval is the tick's alone
        choice = await self._choose(unfired, now, every_place=True)
        if not isinstance(choice, _Choice) or not isinstance(sel := choice.candidate, DriveSelection):
            skipped = choice.candidate if isinstance(choice, _Choice) else choice
            why = "not connected or held"
            if isinstance(skipped, DriveTickSkipped):
                why = f"{skipped.reason.value}: {skipped.detail or '-'}"
            if why != self._between_said:  # asked again while idle: said once until it changes
                self._between_said = why
                logger.info("[DriveTick] asked between ticks: no goal now ({})", why)
            return ()
        first = as_first(sel, choice.snap)
        # near a verified shelter only: the explore's legs keep near home (agency.places.home)
        look = looks_for_game(sel, choice.snap) if first is None and choice.shelter_nearby else None
        look_key = None if look is None else canonical_goal_key(look.action, look.target)
        if look_key is not None and held_back(self.tasks, look_key, now, bot=self.bot):
            look = None  # an explore that failed a moment ago waits for its backoff, as the tick's would
        if look is not None and self.config.follow_ups:
            why = f"{sel.action}:{sel.target} waits for its tick (its game out of sight): exploring nearby meanwhile"
            if why != self._between_said:
                self._between_said = why
                logger.info("[DriveTick] asked between ticks: {}", why)
            return (look,)
        if first is None or self.config.follow_ups == 0:
            why = f"{sel.action}:{sel.target} waits for its tick"
            if why != self._between_said:
                self._between_said = why
                logger.info("[DriveTick] asked between ticks: {}", why)
            return ()
        self._between_said = None
        places = choice.places
        chain = follow_ups(
            sel,
            choice.snap,
            Places(
                choice.shelter_nearby,
                places.get("table_nearby"),
                places.get("furnace_nearby"),
                places.get("bed_known"),
            ),
            self.config.follow_ups,  # a task as long as a tick's: its completion asks again
            held=lambda step: step_held_back(self.tasks, step, now, self.bot),
            in_flight=lambda step: step_in_flight(self.tasks, step, now, self.config, self.bot),
        )
        return (first, *chain)

    def _say_why_not(self, skipped: DriveTickSkipped, now_ms: int) -> None:
        quiet = (DriveSkipReason.interval_not_elapsed, DriveSkipReason.disabled)
        if skipped.reason in quiet or not self.state.due(now_ms, self.config.interval_ms):
            return
        if skipped.reason in self._skip_said:
            return
        self._skip_said.add(skipped.reason)
        logger.info("[DriveTick] due but not firing: {} ({})", skipped.reason.value, skipped.detail or "-")


def _listed(label: str, goals: tuple[FollowUp, ...]) -> str:
    return f"{label}{','.join(f'{f.action}:{f.target}' for f in goals)}" if goals else ""
