"""Assembles the pure agency pieces for the daemon: stores, perception, keep-alive, drive
ticks, planning; and the scheduled jobs and HTTP context that drive them. Every method
here runs on the daemon's event loop (the one owner of agency state); bridge calls are
awaited on the bridge's thread."""

from __future__ import annotations

import asyncio
from typing import Any

from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.cognition.counters import AgencyCounters
from agency.execution.agents import AgentRuntime, bot_agents
from agency.execution.executor import DISCONNECTED, Executor
from agency.execution.direct import DirectActions
from agency.execution.reflexes import Reflexes
from agency.planning.stalls import stalled_tasks
from agency.planning.tasks.events import record_step
from agency.execution.tools import ToolContext
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.tools.crafting import nearby_table
from agency.execution.workflows import SqliteCheckpointStore
from agency.perception.body_gate import BodyGate
from agency.cognition.drive_tick import (SIGHT_ACTIONS, DriveTickFired, DriveTickMemory, drive_candidate, drive_gate,
                               evaluate_drive_tick, needs_sight, sight_box)
from agency.cognition.eligibility import routable_by
from agency.cognition.grounding import FrameFacts
from agency.goals.user_goals import GoalDecision, GoalRequest, GoalRequestError, submit_user_goal
from agency.cognition.keepalive import build_keepalive
from agency.cognition.llm_thoughts import build_thought_generator
from agency.perception.stimuli import Perception, Stimulus
from agency.planning.consumer import IdleReporter, PlanningConsumer
from agency.stream.cognitive_stream import CognitiveStream
from agency.planning.tasks.models import TaskStatus
from agency.planning.tasks.store import TaskStore
from agency.world import BlockRegion, BodyEvent, BodyLost, WorldSnapshot
from agency.goals.runtime import GoalRuntime
from agency.goals.world_identity import WorldEntry, enter_world
from agency.places.memory import HOOK as PLACES_HOOK, PlaceMemory
from agency.execution.tools.mining import STAIRCASES_HOOK
from agency.places.store import PlaceStore
from agency.planning.delivery import DELIVER, DELIVERY_HOOK, DeliveryBoard
from bot.config.loader import BotEntry, McbotConfig
from bot.runtime.api import ApiContext, BotUnavailable
from bot.runtime.body import MineflayerBody
from bot.runtime.bridge_downs import bridge_downs
from bot.runtime.reflex_watch import ReflexWatch
from bot.runtime.scheduler import JobSpec
from bot.runtime.stores import SharedStores
from bot.runtime.world_id import world_identity


class GoalWiring(GoalRuntime):
    """The goal runtime on the configured store file."""

    def __init__(self, cfg: McbotConfig, tasks: TaskStore, clock: Clock, db: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(db if db is not None else cfg.storage.db_path, tasks, clock, **kwargs)


class Agency:
    """One bot's agency: its perception, thoughts, drive ticks, goals, executor and reflexes,
    on the daemon's database and task store (`shared`, opened here when not given: a
    one-bot daemon, tests). `bot` is its `[[bots]]` entry; None = the single bot of [bot]."""

    def __init__(self, cfg: McbotConfig, clock: Clock = system_clock_ms, *, bot: BotEntry | None = None,
                 shared: SharedStores | None = None, fleet: bool = False) -> None:
        self.cfg = cfg
        self.clock = clock
        self.entry = bot or cfg.bot_entries()[0]
        self.name = self.entry.username
        self._owns_stores = shared is None
        self.shared = shared = shared if shared is not None else SharedStores.open(cfg, clock)
        # Whose tasks it claims and resumes: its own name when it shares the store with other
        # bots (a fleet, or other daemons on PostgreSQL); None = every task (one bot alone).
        self.claim_as: str | None = self.name if fleet or shared.postgres else None
        # One connection to the agency's database for every store, used only on the daemon's loop.
        self.db = db = shared.db
        self.counters = AgencyCounters(clock)
        self.tasks = shared.tasks
        # On PostgreSQL a daemon's thoughts are its own (its bots' only): no other daemon converts them.
        self.stream = CognitiveStream(db, clock=clock, max_thoughts=cfg.stream.max_thoughts, daemon_id=shared.daemon_id)
        self.perception = Perception(clock, publish=self.stream.publish)
        self.keepalive = build_keepalive(  # with situation-signature gate and content dedup (contract 4)
            stream=self.stream,
            perception=self.perception,
            clock=clock,
            generator=build_thought_generator(cfg.llm, clock),  # None without [[llm.targets]]: frames only (I-2)
            config=cfg.keepalive,
            counters=self.counters,
        )
        self.planning = PlanningConsumer(self.stream, self.tasks, clock, stuck_timeout_ms=cfg.drive_tick.stuck_timeout_ms)
        self.idle = IdleReporter(self.tasks, clock)
        self.goals = GoalWiring(cfg, self.tasks, clock, db, last_snapshot=lambda: self.last_snapshot)
        self.planning.router = self.goals.router  # `build basic_shelter` -> the goal resolver
        self.drive_memory = DriveTickMemory(db, bot=self.claim_as or "")  # the interval survives a restart, per bot
        self.drive_state = self.drive_memory.state()
        self.drive_config = cfg.drive_tick
        self.checkpoints = SqliteCheckpointStore(db, clock=clock)
        # Tables, furnaces and beds of the world entered at attach_body (none before it).
        self.places = PlaceMemory(PlaceStore(db, clock=clock), lambda: self.world.world if self.world else None,
                                  config=cfg.places, shelters=self._shelter_places)
        self.tools = default_tool_registry()
        self.agents = bot_agents(self.entry.agents)  # AgentProfileError: an unknown profile name
        shared.bot_actions[self.name] = self.agents.routable_actions()
        shared.bot_up[self.name] = lambda: self._connected
        # Materials asked of the other bots through the task store (a shelter's planks).
        self.delivery = DeliveryBoard(self.tasks, self.name, lambda: shared.bots_that_can(DELIVER))
        self.staircases: list[tuple[float, float, float]] = []  # the tops of the staircases dug (climb_out)
        self.executor: Executor | None = None  # built once the body exists (tools act on it)
        self.reflexes: Reflexes | None = None
        self.direct: DirectActions | None = None  # a user's or MCP client's tool calls (POST /api/actions)
        self.reflex_watch: ReflexWatch | None = None
        self.tool_ctx: ToolContext | None = None
        self.body: MineflayerBody | None = None
        self._embedded: bool | None = None  # did the daemon start the world (attach_body)
        self.world: WorldEntry | None = None  # which world the store's memories are of (attach_body)
        self.gate = BodyGate()  # jobs that act on the world wait for a connected bot
        self.last_snapshot: WorldSnapshot | None = None
        self._events: list[BodyEvent] = []
        self._stimuli: list[Stimulus] = []

    def attach_body(self, body: MineflayerBody, *, embedded: bool | None = None) -> None:
        """embedded: the daemon started the world (None = infer it from config and host)."""
        self._embedded = embedded
        settings = getattr(body, "settings", None)  # test doubles have no address: no world to check
        if settings is not None:  # before any job: another world's places are archived first
            self._enter_world(settings)
        self.body = body
        self.goals.body = body
        ctx = ToolContext(body=body, clock=self.clock, poll_interval_s=0.2, offload=isinstance(body, MineflayerBody),
                          hooks={"shelter": self.goals.hooks, PLACES_HOOK: self.places, STAIRCASES_HOOK: self.staircases,
                                 DELIVERY_HOOK: self.delivery})
        self.tool_ctx = ctx
        # A fake or replayed body has no bridge to lose: no task is poison. A live one is blamed
        # only for the downs it had actions running in (a fleet's bots share the bridge).
        bridge = getattr(body, "bridge", None)
        runtime = AgentRuntime(self.agents, self.tools, ctx, checkpoints=self.checkpoints,
                               plan_facts=self._plan_facts,
                               on_step=record_step(self.tasks))  # each step in the task's event log
        self.executor = Executor(self.tasks, runtime, self.clock, on_lifecycle=self._on_task_event,
                                 goals=self.goals.hooks, before_tick=self.goals.on_executor_tick, bot=self.claim_as,
                                 actions=self.agents.routable_actions() if self.entry.agents else None,
                                 bridge=None if bridge is None else bridge_downs(bridge).of_body(body.actions_running))
        self.reflexes = Reflexes(self.tools, ctx, self.executor,
                                 self.cfg.reflexes,
                                 shelter_lookup=self.goals.nearest_verified_shelter, clock=self.clock)
        self.direct = DirectActions(self.tools, ctx, self.executor, reflex_holding=self._reflex_holding,
                                    connected=lambda: self._connected, clock=self.clock)
        self.direct.give_back_orphans()  # a task paused for a direct action the last daemon never ended
        self.reflexes.direct = self.direct
        if isinstance(body, MineflayerBody):  # a live bot: threats wake the reflexes
            self.reflex_watch = ReflexWatch(body, self.reflexes, poll_s=self.cfg.jobs.reflex_watch_s)

    def _on_task_event(self, kind: str, task: Any) -> None:
        self.goals.on_task_event(kind, task)
        self.delivery.on_task_event(kind, task)

    async def _plan_facts(self, task: Any) -> dict[str, Any]:
        """What a workflow generator may know beyond the inventory and what its generator
        reads of the world itself (generators.WORLD_FACTS: the table a craft uses): the goal
        store's facts, a build's helpers, where a delivery goes."""
        facts = dict(self.goals.hooks.plan_facts(task) or {})
        if task.action.lower() == "build" and (helpers := self.delivery.helpers()):
            facts["helpers"] = helpers
        if task.action.lower() == DELIVER and (near := self.delivery.near(task.id)):
            facts["near"] = near
        return facts

    def _shelter_places(self) -> list[dict[str, Any]]:
        """The verified shelters (the goal store is their memory), for the places view."""
        out = []
        for task, binding in self.goals.finished_shelters():
            site, last = binding.anchors.siteSignature, binding.completion.lastResult
            if site is not None:
                x, y, z = site.refCorner
                out.append({"kind": "shelter", "x": x, "y": y, "z": z, "facing": site.facing, "taskId": task.id,
                            "verified": bool(last is not None and last.done)})
        return out

    def _enter_world(self, settings: Any) -> None:
        # One identity for every bot of the daemon (an in-memory world's is generated: each
        # bot making its own would archive the others' goals as another world's).
        if self.shared.world_id is None:
            self.shared.world_id = world_identity(self.cfg.server, settings.host, settings.port, self._embedded)
        self.world = enter_world(self.db, self.shared.world_id,
                                 lifecycle=self.goals.lifecycle, checkpoints=self.checkpoints)

    def world_restarted(self) -> None:
        """The supervisor restarted the embedded world: one kept in memory is a new world
        (its builds are gone), so its places are archived like at a start."""
        settings = getattr(self.body, "settings", None)
        if settings is not None and not self.cfg.server.world_folder:
            if self._owns_stores:  # a fleet's daemon forgets the old world once, for all its bots
                self.shared.world_id = None
            self._enter_world(settings)

    # ---- jobs --------------------------------------------------------------------------
    async def job_body(self) -> None:
        """Keep the bot connected (reconnect, rebuild a dead bridge); collect its events
        (a lost bot's too: its `end` says why). A disconnect holds the running task
        ('disconnected'); the executor gives it back once the bot is ready again, unless the
        run took the bridge down a second time (a poison task: failed, not held)."""
        assert self.body is not None and self.executor is not None
        if not self.body.connected and self.executor.current is not None:
            await self.executor.preempt(DISCONNECTED)
        await asyncio.to_thread(self.body.maintain)
        events = await asyncio.to_thread(self.body.events)
        self._events.extend(events)
        if self.reflexes is not None:
            await self.reflexes.on_events(events)  # a death holds the running task at once
        if not self.body.connected and self.executor.current is not None:
            await self.executor.preempt(DISCONNECTED)  # the drained events held an `end`

    async def job_perception(self) -> None:
        assert self.body is not None
        if not self.body.connected:
            return
        snap = await self._snapshot(recent=True)  # periodic: read with the other bots' (bulk_reads.py)
        if snap is None:
            return
        events, self._events = self._events, []
        update = self.perception.observe(snap, events)
        self._stimuli.extend(update.stimuli)
        self.last_snapshot = snap

    async def job_keepalive(self) -> None:
        if self.last_snapshot is None:
            return
        stimuli, self._stimuli = self._stimuli, []
        # On the loop: with an LLM generator the tick awaits the HTTP call.
        await self.keepalive.atick(self.last_snapshot, stimuli)

    @property
    def _connected(self) -> bool:
        return self.body is not None and self.body.connected

    async def job_drive_tick(self) -> None:
        if self.last_snapshot is None or not self.gate.open("DriveTick", self._connected):
            return
        if self.direct is not None and self.direct.body_busy is not None:
            return  # a user's direct action has the body: the bot's own goals wait for it
        now, snap = self.clock(), self.last_snapshot
        # Nothing more is read while a gate is shut (the night in the shelter, low vitals, the
        # interval): the job runs every second or two.
        if drive_gate(snap, now, self.drive_state, sheltering=self._held_by_reflexes, config=self.drive_config):
            return
        # The perception job's snapshot may predate the task that just ended (a table crafted a
        # moment ago, not in it yet): a tick chooses on a fresh one.
        try:
            snap = await self._snapshot() or snap
        except Exception as e:  # a failed read must not stop the tick: it chooses on the last one
            self._read_failed("fresh snapshot", e)
        frame = dict(shelter_nearby=self.goals.shelter_nearby(snap),  # a verified shelter within 32 m
                     table_nearby=await self._table_nearby(snap, now), furnace_nearby=await self._furnace_nearby(snap, now),
                     bed_known=await self._bed_known(snap, now),
                     sheltering=self._held_by_reflexes,
                     config=self.drive_config)
        # The big read of the blocks in sight only for a tick that will ground a collect or craft goal.
        candidate = drive_candidate(snap, now, self.drive_state, self.tasks, bot=self.claim_as, **frame)
        region = await self._in_sight(snap) if needs_sight(candidate) else None
        result = evaluate_drive_tick(snap, now, self.drive_state, self.tasks, region=region, counters=self.counters,
                                     bot=self.claim_as, **frame)
        if isinstance(result, DriveTickFired):
            stored = self.stream.publish(result.thought)
            logger.info("[DriveTick] fired goal={} rule={} thought={}", stored.metadata.goalKey, result.selection.rule, stored.id)

    @property
    def _held_by_reflexes(self) -> bool:
        """Reflexes have the body (or the night in the shelter): no claims, no drive ticks."""
        return self.reflexes is not None and self.reflexes.holding_tasks

    @property
    def _body_taken(self) -> bool:
        """Reflexes or a direct action have the body: the executor claims nothing."""
        return self._held_by_reflexes or (self.direct is not None and self.direct.body_busy is not None)

    def _reflex_holding(self) -> str | None:
        """Why the reflexes hold the body (a direct action is refused meanwhile), None if free."""
        return self.reflexes.hold_reason if self.reflexes is not None else None

    async def _table_nearby(self, snap: WorldSnapshot, now_ms: int) -> bool | None:
        """Is a placed crafting table in the crafter's reach, or remembered and still standing
        within the reuse distance? Read only when a drive tick is due and no table is held
        (one small region read, and one block per remembered table); None = not looked."""
        due = self.drive_state.due(now_ms, self.drive_config.interval_ms)
        if not due or snap.count_of("crafting_table") or self.tool_ctx is None or self.body is None or not self.body.connected:
            return None
        try:  # one in reach (usable_table's order), or a remembered one still standing
            near = await nearby_table(self.tool_ctx)
            if near is not None:
                self.places.saw(near["name"], near["x"], near["y"], near["z"])
                return True
            here = (snap.position.x, snap.position.y, snap.position.z)
            return await self.places.standing_read(self._block_at, "crafting_table", here) is not None
        except Exception as e:  # a failed read must not stop the drive tick: judge by the inventory
            self._read_failed("crafting table search", e)
            return None

    async def _furnace_nearby(self, snap: WorldSnapshot, now_ms: int) -> bool | None:
        """Is a furnace remembered and still standing within the reuse distance? (One in
        sight is found in the blocks the tick reads.) Read only when a drive tick is due and
        no furnace is held, one block per remembered furnace; None = not looked."""
        return await self._remembered_standing(snap, now_ms, "furnace", held=snap.count_of("furnace"))

    async def _bed_known(self, snap: WorldSnapshot, now_ms: int) -> bool | None:
        """Is a bed the bot placed or saw remembered and still standing within the reuse
        distance? Then no second one is crafted. Same reads as _furnace_nearby."""
        return await self._remembered_standing(snap, now_ms, "bed", held=snap.count_matching("_bed"))

    async def _remembered_standing(self, snap: WorldSnapshot, now_ms: int, kind: str, held: int) -> bool | None:
        due = self.drive_state.due(now_ms, self.drive_config.interval_ms)
        if not due or held or self.body is None or not self.body.connected:
            return None
        try:
            here = (snap.position.x, snap.position.y, snap.position.z)
            return await self.places.standing_read(self._block_at, kind, here) is not None
        except Exception as e:  # a failed read must not stop the drive tick: judge by the inventory
            self._read_failed(f"{kind} search", e)
            return None

    async def _block_at(self, pos: tuple[int, int, int]) -> str | None:
        """One block's name (None = unloaded), read on a worker thread."""
        assert self.body is not None
        return (await asyncio.to_thread(self.body.region, pos, (1, 1, 1))).block_at(*pos)

    async def _in_sight(self, snap: WorldSnapshot) -> BlockRegion | None:
        """The blocks around the bot a drive tick grounds its goal on (one region read);
        None = not read, which grounds nothing in sight."""
        if self.body is None or not self.body.connected:
            return None
        try:
            region = await asyncio.to_thread(self.body.region, *sight_box(snap))
        except Exception as e:  # a failed read must not stop the drive tick: it explores first
            self._read_failed("reading the blocks in sight", e)
            return None
        self.places.observe(region)  # tables, furnaces, beds in sight remembered; gone ones forgotten
        return region

    def _read_failed(self, what: str, e: Exception) -> None:
        """One line (a bridge error carries a JS stack); DEBUG when the bot went away with
        the read, since the body gate says that once."""
        line = str(e).splitlines()[0] if str(e) else type(e).__name__
        if isinstance(e, BodyLost) or self.body is None or not self.body.connected:
            logger.debug("[DriveTick] {} skipped: {}", what, line)
        else:
            logger.warning("[DriveTick] {} failed: {}", what, line)

    async def job_planning(self) -> None:
        if self.gate.open("Planning", self._connected):  # no claims for a bot that is not there
            self.planning.poll_once()

    async def job_executor(self) -> None:
        assert self.executor is not None and self.body is not None
        outcome = await self.executor.tick(can_work=self.gate.open("Executor", self._connected),
                                           held=self._body_taken)
        if outcome == "idle":
            self.idle.check()

    async def job_reflexes(self) -> None:
        if self.reflexes is None or not self.gate.open("Reflexes", self._connected):
            return
        if self.reflex_watch is not None:  # a tick, then threats answered as they come this interval
            await self.reflex_watch.run(budget_s=self.cfg.jobs.reflexes_s * 0.9)
            return
        snap = await self._snapshot()
        if snap is not None:
            await self.reflexes.tick(snap)

    async def _snapshot(self, *, recent: bool = False) -> WorldSnapshot | None:
        """A snapshot, or None when the body went away between the connected check and the
        read (a dying world or bridge): the body gate says so once, not a stack trace a tick.
        recent: one at most 0.5 s old is good enough (a live body reads it in bulk)."""
        read = getattr(self.body, "recent_snapshot", self.body.snapshot) if recent else self.body.snapshot
        try:
            return await asyncio.to_thread(read)
        except BodyLost as e:
            logger.debug("snapshot skipped: {}", e)
            return None

    async def job_counters_log(self) -> None:
        logger.info(self.counters.format_agency_log_line())

    async def job_stream_prune(self) -> None:
        self.stream.prune()

    def jobs(self, *, bot: str | None = None, planning: bool = True) -> list[JobSpec]:
        """This bot's periodic jobs, declared as data: name, body, interval, whether on
        (`jobs.disabled` names a job, or its bot's entry switches a loop off). `bot` names a
        fleet's bot: its jobs are told apart (`executor@alice`) and their log lines name it;
        planning=False leaves turning the shared stream's thoughts into tasks to another
        bot's job (one consumer a daemon)."""
        j, e = self.cfg.jobs, self.entry
        switched_off = {"drive_tick": not e.drives, "reflexes": not e.reflexes, "keepalive": not e.keepalive,
                        "planning": not planning}
        declared = [
            ("body", self.job_body, j.body_s, 90.0),
            ("perception", self.job_perception, j.perception_s, 30.0),
            ("keepalive", self.job_keepalive, j.keepalive_s, 30.0),
            ("drive_tick", self.job_drive_tick, j.drive_tick_s, 30.0),
            ("planning", self.job_planning, j.planning_s, 30.0),
            ("executor", self.job_executor, j.executor_s, 30.0),
            ("reflexes", self.job_reflexes, j.reflexes_s, 120.0),  # a flee may walk for 90 s
            ("counters_log", self.job_counters_log, j.counters_log_s, 30.0),
            ("stream_prune", self.job_stream_prune, j.stream_prune_s, 30.0),
            ("review", self.goals.job_review, j.review_s, 30.0),
        ]
        suffix = f"@{bot}" if bot else ""
        # planning turns every bot's thoughts into tasks: its lines are the daemon's
        return [JobSpec(name + suffix, body, interval_s, timeout_s=timeout_s, bot=None if name == "planning" else bot,
                        enabled=name not in j.disabled and not switched_off.get(name, False))
                for name, body, interval_s, timeout_s in declared]

    def api_context(self, daemon: Any) -> ApiContext:
        """This bot's HTTP API (bot/runtime/api_context.py)."""
        from bot.runtime.api_context import bot_api_context  # noqa: PLC0415 - it imports this module's users

        return bot_api_context(self, daemon)

    async def blocks_around(self, radius: int) -> dict[str, Any]:
        """Block counts by name in the cube of `radius` around the bot (air left out)."""
        if self.body is None or not self.body.connected:
            raise BotUnavailable("bot is not connected")
        snap = await asyncio.to_thread(self.body.snapshot)
        c = (int(snap.position.x // 1), int(snap.position.y // 1), int(snap.position.z // 1))
        side = 2 * radius + 1
        region = await asyncio.to_thread(self.body.region, (c[0] - radius, c[1] - radius, c[2] - radius), (side, side, side))
        counts = region.counts()
        return {"center": {"x": c[0], "y": c[1], "z": c[2]}, "radius": radius, "total": sum(counts.values()),
                "counts": counts}

    async def submit_goal(self, request: GoalRequest) -> GoalDecision:
        """A user's goal, checked against a fresh snapshot (and the blocks in sight for a
        collect or craft goal, as a drive tick reads them). BotUnavailable when there is no
        bot to check it against: nothing is stored."""
        goal = request.goal()  # GoalRequestError: a 400, before any world read
        if request.bot is not None and request.bot.lower() != self.name.lower():
            raise GoalRequestError(f"unknown bot {request.bot!r} (this daemon drives {self.name})")
        if self.body is None or not self.body.connected or self.executor is None:
            raise BotUnavailable("bot is not connected; the goal was not stored")
        try:
            snap = await asyncio.to_thread(self.body.snapshot)
            region = await asyncio.to_thread(self.body.region, *sight_box(snap)) if goal.action in SIGHT_ACTIONS else None
        except BodyLost as e:
            raise BotUnavailable(f"bot went away while checking the goal ({e}); the goal was not stored") from None
        self.last_snapshot = snap
        return submit_user_goal(goal, store=self.tasks, now_ms=self.clock(), facts=FrameFacts.from_snapshot(snap, region=region),
                                is_routable=routable_by(self.executor.runtime.agents), router=self.goals.router,
                                priority=request.priority, stuck_timeout_ms=self.cfg.drive_tick.stuck_timeout_ms,
                                bot=self.name if request.bot is not None else None)

    def stalled(self) -> list[dict[str, Any]]:
        stats = self.executor.stats if self.executor else None
        return stalled_tasks(self.tasks.list_by_status(*TaskStatus), self.clock(), stats and stats.last_tick_ms,
                             self.cfg.drive_tick.stuck_timeout_ms, stats and stats.last_busy_ms)

    async def on_shutdown(self) -> None:
        """In-flight work reaches a safe stop before the body goes away; the task stays
        active and resumes from its checkpoint on the next start."""
        if self.direct is not None:
            await self.direct.shutdown()
        if self.executor is not None:
            await self.executor.shutdown()

    def close(self) -> None:
        self.drive_memory.close()
        self.places.store.close()
        self.checkpoints.close()
        self.goals.close()
        self.stream.close()
        if self._owns_stores:  # a fleet's daemon closes the shared ones after every bot
            self.shared.close()
