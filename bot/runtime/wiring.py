"""The daemon's composition root: builds one bot's agency (stores, perception, keep-alive,
drive ticks, planning, goals, the executor, reflexes and direct actions) and declares the
jobs that drive it. What they decide lives in agency/; here they are only built and handed
to each other. Every method runs on the daemon's event loop (the one owner of agency
state); bridge calls are awaited on worker threads."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from loguru import logger

from agency.chat.gate import ReplyGate
from agency.chat.handler import ChatHandler
from agency.chat.status import status_line
from agency.chat.talk import build_chat_talk, chat_frame
from agency.clock import Clock, system_clock_ms
from agency.cognition.counters import AgencyCounters
from agency.cognition.drive_job import DriveJob
from agency.cognition.drive_reads import DriveReads
from agency.cognition.drive_tick import DriveTickMemory, sight_box
from agency.cognition.eligibility import routable_by
from agency.cognition.keepalive import build_keepalive
from agency.cognition.llm_thoughts import build_thought_generator
from agency.cognition.night_work import night_work_due
from agency.execution.agents import AgentRuntime, bot_agents
from agency.execution.body_holder import BodyHolder
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.direct import DirectActions
from agency.execution.executor import DISCONNECTED, Executor
from agency.execution.reflexes import Reflexes
from agency.execution.workflows import SqliteCheckpointStore
from agency.goals.intake import GoalIntake
from agency.goals.plan_facts import PlanFacts
from agency.goals.runtime import GoalRuntime
from agency.goals.user_goals import GoalDecision, GoalRequest
from agency.goals.world_identity import WorldEntry, enter_world
from agency.perception.body_gate import BodyGate
from agency.perception.last_seen import LastSeen
from agency.perception.reads import blocks_around, snapshot_or_none
from agency.perception.stimuli import Perception, Stimulus
from agency.places.memory import HOOK as PLACES_HOOK, PlaceMemory
from agency.places.store import PlaceStore
from agency.planning.consumer import IdleReporter, PlanningConsumer
from agency.planning.delivery import DELIVER, DELIVERY_HOOK, DeliveryBoard
from agency.planning.stalls import stalled_tasks
from agency.planning.tasks.events import record_step
from agency.planning.tasks.models import TaskStatus
from agency.planning.tasks.store import TaskStore
from agency.planning.waiting import waiting_reason
from agency.stream.cognitive_stream import CognitiveStream
from agency.tools import ToolContext
from agency.tools.mining import STAIRCASES_HOOK
from agency.world import BodyError, BodyEvent, BodyUnavailable, ConnectedBody, WorldSnapshot, is_remote
from bot.config.loader import BotEntry, McbotConfig
from bot.runtime.api import ApiContext, BotUnavailable
from bot.runtime.bridge_downs import bridge_downs
from bot.runtime.reflex_watch import ReflexWatch, WatchesThreats
from bot.runtime.scheduler import JobSpec
from bot.runtime.stores import SharedStores
from bot.runtime.world_id import world_identity


class GoalWiring(GoalRuntime):
    """The goal runtime on the configured store file."""

    def __init__(self, cfg: McbotConfig, tasks: TaskStore, clock: Clock, db: Any = None, **kwargs: Any) -> None:
        super().__init__(db if db is not None else cfg.storage.db_path, tasks, clock, **kwargs)


class Agency:
    """One bot's agency: its perception, thoughts, drive ticks, goals, executor and reflexes,
    on the daemon's database and task store (`shared`, opened here when not given: a
    one-bot daemon, tests). `bot` is its `[[bots]]` entry; None = the single bot of [bot].

    Built in two steps: the stores and loops here, what acts on the body in attach_body()
    once the bot has connected (the world and the bridge start in between, and a config
    error must surface before either)."""

    def __init__(
        self,
        cfg: McbotConfig,
        clock: Clock = system_clock_ms,
        *,
        bot: BotEntry | None = None,
        shared: SharedStores | None = None,
        fleet: bool = False,
    ) -> None:
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
        self.seen = LastSeen()
        # On PostgreSQL a daemon's thoughts are its own (its bots' only): no other daemon converts them.
        self.stream = CognitiveStream(db, clock=clock, max_thoughts=cfg.stream.max_thoughts, daemon_id=shared.daemon_id)
        self.perception = Perception(clock, publish=self.stream.publish)
        self.thoughts = build_thought_generator(cfg.llm, clock)  # None without [[llm.targets]]
        self.keepalive = build_keepalive(  # situation and content dedup (docs/contracts.md DEDUP-1..2)
            stream=self.stream,
            perception=self.perception,
            clock=clock,
            # None without [[llm.targets]]: frames only (AUTONOMY-2)
            generator=self.thoughts,
            config=cfg.keepalive,
            counters=self.counters,
        )
        self.goals = GoalWiring(cfg, self.tasks, clock, db, last_snapshot=self.seen.get, body=lambda: self.body)
        # `build basic_shelter` -> the goal resolver
        self.planning = PlanningConsumer(
            self.stream, self.tasks, clock, stuck_timeout_ms=cfg.drive_tick.stuck_timeout_ms, router=self.goals.router
        )
        self.idle = IdleReporter(self.tasks, clock)
        self.drive_memory = DriveTickMemory(db, bot=self.claim_as or "")  # the interval survives a restart, per bot
        self.drive_state = self.drive_memory.state()
        self.drive_config = cfg.drive_tick
        self.checkpoints = SqliteCheckpointStore(db, clock=clock)
        # Tables, furnaces and beds of the world entered at attach_body (none before it).
        self.places = PlaceMemory(
            PlaceStore(db, clock=clock),
            lambda: self.world.world if self.world else None,
            config=cfg.places,
            shelters=self.goals.shelter_places,
        )
        self.tools = default_tool_registry()
        self.agents = bot_agents(self.entry.agents)  # AgentProfileError: an unknown profile name
        shared.bot_actions[self.name] = self.agents.routable_actions()
        shared.bot_up[self.name] = lambda: self._connected
        shared.bot_held[self.name] = lambda: snap.held() if (snap := self.seen.get()) is not None else {}
        # Materials asked of the other bots through the task store (a shelter's planks, a
        # craft's ingredients), of the one holding them when one of this daemon's does.
        self.delivery = DeliveryBoard(
            self.tasks, self.name, lambda: shared.bots_that_can(DELIVER), held_by=shared.held_by
        )
        self.intake = GoalIntake(
            self.name,
            body=lambda: self.body,
            seen=self.seen,
            tasks=self.tasks,
            is_routable=routable_by(self.agents),
            router=self.goals.router,
            clock=clock,
            stuck_timeout_ms=cfg.drive_tick.stuck_timeout_ms,
            team_held=self.delivery.helpers_hold,
        )
        self.staircases: list[tuple[float, float, float]] = []  # the tops of the staircases dug (climb_out)
        self.gate = BodyGate()  # jobs that act on the world wait for a connected bot
        self._embedded: bool | None = None  # did the daemon start the world (attach_body)
        self.world: WorldEntry | None = None  # which world the store's memories are of (attach_body)
        self._events: list[BodyEvent] = []
        self._stimuli: list[Stimulus] = []
        # What acts on the body: built by attach_body.
        self.body: Any = None  # a ConnectedBody (bot.runtime.body.MineflayerBody on a live bot)
        self.tool_ctx: ToolContext | None = None
        self.executor: Executor | None = None
        self.reflexes: Reflexes | None = None
        self.direct: DirectActions | None = None  # a user's or MCP client's tool calls (POST /api/actions)
        self.chat: ChatHandler | None = None  # players' commands in chat ([chat]), with the body
        self._chat_notices: set[asyncio.Future[None]] = set()  # a chat task's start or end, being said
        self.holder = BodyHolder()  # who has the body: nobody else's before one is attached
        self.drive: DriveJob | None = None
        self.reflex_watch: ReflexWatch | None = None

    @property
    def last_snapshot(self) -> WorldSnapshot | None:
        return self.seen.snapshot

    @last_snapshot.setter
    def last_snapshot(self, snap: WorldSnapshot | None) -> None:
        self.seen.snapshot = snap

    def attach_body(self, body: ConnectedBody, *, embedded: bool | None = None) -> None:
        """Build what acts on the body, once (the one late step: see the class).
        embedded: the daemon started the world (None = infer it from config and host)."""
        self._embedded = embedded
        address = getattr(body, "settings", None)  # a body on a server has one; doubles have no world to check
        if address is not None:  # before any job: another world's places are archived first
            self._enter_world(address)
        self.body = body
        ctx = self.tool_ctx = ToolContext(
            body=body,
            clock=self.clock,
            poll_interval_s=0.2,
            offload=is_remote(body),
            hooks={
                "shelter": self.goals.hooks,
                PLACES_HOOK: self.places,
                STAIRCASES_HOOK: self.staircases,
                DELIVERY_HOOK: self.delivery,
            },
        )
        # A body with no bridge (a fake or replayed one) has none to lose: no task is poison. A
        # live one is blamed only for the downs it had actions running in (a fleet's bots share the bridge).
        bridge = getattr(body, "bridge", None)
        running = getattr(body, "actions_running", None)  # a live body's long actions on node
        runtime = AgentRuntime(
            self.agents,
            self.tools,
            ctx,
            checkpoints=self.checkpoints,
            plan_facts=PlanFacts(self.goals.hooks, self.delivery),
            on_step=self._on_step(record_step(self.tasks)),
        )  # each step in the task's event log, and a chat task's progress in chat
        executor = self.executor = Executor(
            self.tasks,
            runtime,
            self.clock,
            on_lifecycle=self._on_task_event,
            goals=self.goals.hooks,
            before_tick=self.goals.on_executor_tick,
            bot=self.claim_as,
            actions=self.agents.routable_actions() if self.entry.agents else None,
            bridge=None if bridge is None or running is None else bridge_downs(bridge).of_body(running),
        )
        direct = self.direct = DirectActions(
            self.tools, ctx, executor, connected=lambda: self._connected, clock=self.clock
        )
        reflexes = self.reflexes = Reflexes(
            self.tools,
            ctx,
            executor,
            self.cfg.reflexes,
            direct=direct,
            shelter_lookup=self.goals.nearest_verified_shelter,
            shelter_failed=self.goals.shelter_unreachable,
            # a night dug in under the hut is for the drive tick's work: none without its ticks
            night_work=night_work_due if self.cfg.drive_tick.enabled else None,
            clock=self.clock,
        )
        self.goals.review_held = lambda: reflexes.reshaping_shelter
        direct.defer_to(reflexes)  # each needs the other: the reflexes stop a direct action, which they refuse
        direct.give_back_orphans()  # a task paused for a direct action the last daemon never ended
        self.holder = BodyHolder(reflexes, direct)
        self.chat = (
            ChatHandler(
                self.name,
                commanders=self.cfg.chat.commanders,
                say=self._say,
                submit=self.intake.submit,
                snapshot=self._look,
                status=lambda: status_line(self.tasks, self.claim_as, reflexes.hold_reason),
                direct=lambda: self.direct,
                clock=self.clock,
                gate=ReplyGate(self.clock, every_ms=round(self.cfg.chat.reply_every_s * 1000)),
                talk=build_chat_talk(
                    self.cfg.llm,
                    self._chat_frame,
                    is_routable=routable_by(self.agents),
                    counters=self.counters,
                    clock=self.clock,
                    budget=self.thoughts.budget if self.thoughts is not None else None,
                ),
            )
            if self.cfg.chat.enabled
            else None
        )
        self.drive = DriveJob(
            DriveReads(body, ctx, self.places, self.drive_state, self.drive_config),
            holder=self.holder,
            gate=self.gate,
            seen=self.seen,
            tasks=self.tasks,
            publish=self.stream.publish,
            shelter_nearby=self.goals.shelter_nearby,
            state=self.drive_state,
            config=self.drive_config,
            counters=self.counters,
            clock=self.clock,
            bot=self.claim_as,
        )
        if isinstance(body, WatchesThreats):  # a live bot: threats wake the reflexes
            self.reflex_watch = ReflexWatch(body, reflexes, poll_s=self.cfg.jobs.reflex_watch_s)

    def _on_step(self, record: Any) -> Any:
        def observe(e: Any) -> None:
            record(e)
            said = self.chat.on_step(e.task_id, e.kind, e.index, e.total, e.step_id) if self.chat is not None else None
            self._notice(said)

        return observe

    def _notice(self, said: Any) -> None:
        """A chat line the handler made on a task's event, said when the loop next runs."""
        if said is not None:
            self._chat_notices.add(asyncio.ensure_future(said))
            self._chat_notices = {f for f in self._chat_notices if not f.done()}

    def _on_task_event(self, kind: str, task: Any) -> None:
        self.goals.on_task_event(kind, task)
        self.delivery.on_task_event(kind, task)
        self._notice(self.chat.on_task_event(kind, task) if self.chat is not None else None)

    async def _look(self) -> WorldSnapshot | None:
        """A fresh read for a chat command (the last one when the bot cannot be read now)."""
        snap = await snapshot_or_none(self.body) if self.body is not None and self.body.connected else None
        if snap is not None:
            self.seen.saw(snap)
        return snap or self.seen.get()

    async def _chat_frame(self) -> Any:
        """The frame a chat sentence is answered with (agency.chat.talk.chat_frame)."""
        snap = await self._look()
        if snap is None:
            return None
        region = None
        if self.body is not None and self.body.connected:
            with contextlib.suppress(BodyError):  # unread: answered from the snapshot alone
                region = await asyncio.to_thread(self.body.region, *sight_box(snap))
        return chat_frame(snap, region, self.cfg.keepalive.profile)

    async def _say(self, line: str) -> bool:
        """Say a line in chat; False when the bot cannot (not connected, the server refuses)."""
        if self.body is None or not self.body.connected:
            return False
        try:
            await asyncio.to_thread(self.body.chat, line)
        except Exception as e:  # noqa: BLE001 - a refused chat (chat_guard) or a lost bot: the reply is a log line
            logger.debug("[Chat] not said ({}): {}", e, line)
            return False
        return True

    def _enter_world(self, settings: Any) -> None:
        # One identity for every bot of the daemon (an in-memory world's is generated: each
        # bot making its own would archive the others' goals as another world's).
        if self.shared.world_id is None:
            self.shared.world_id = world_identity(self.cfg.server, settings.host, settings.port, self._embedded)
        self.world = enter_world(
            self.db, self.shared.world_id, lifecycle=self.goals.lifecycle, checkpoints=self.checkpoints
        )

    def world_restarted(self) -> None:
        """The supervisor restarted the embedded world: one kept in memory is a new world
        (its builds are gone), so its places are archived like at a start."""
        settings = getattr(self.body, "settings", None)
        if settings is not None and not self.cfg.server.world_folder:
            if self._owns_stores:  # a fleet's daemon forgets the old world once, for all its bots
                self.shared.world_id = None
            self._enter_world(settings)

    @property
    def _connected(self) -> bool:
        return self.body is not None and self.body.connected

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
        if self.chat is not None:
            await self.chat.on_events(events)  # players' commands (agency.chat)
        if not self.body.connected and self.executor.current is not None:
            await self.executor.preempt(DISCONNECTED)  # the drained events held an `end`

    async def job_perception(self) -> None:
        assert self.body is not None
        if not self.body.connected:
            return
        snap = await snapshot_or_none(self.body, recent=True)  # periodic: read with the other bots' (bulk_reads.py)
        if snap is None:
            return
        events, self._events = self._events, []
        update = self.perception.observe(snap, events)
        self._stimuli.extend(update.stimuli)
        self.seen.saw(snap)

    async def job_keepalive(self) -> None:
        if self.last_snapshot is None:
            return
        stimuli, self._stimuli = self._stimuli, []
        # On the loop: with an LLM generator the tick awaits the HTTP call.
        await self.keepalive.atick(self.last_snapshot, stimuli)

    async def job_drive_tick(self) -> None:
        if self.drive is not None:
            await self.drive.run()

    async def job_planning(self) -> None:
        if self.gate.open("Planning", self._connected):  # no claims for a bot that is not there
            self.planning.poll_once()

    async def job_executor(self) -> None:
        assert self.executor is not None and self.body is not None
        outcome = await self.executor.tick(can_work=self.gate.open("Executor", self._connected), held=self.holder.taken)
        if outcome == "idle":
            self.idle.check()

    async def job_reflexes(self) -> None:
        if self.reflexes is None or not self.gate.open("Reflexes", self._connected):
            return
        if self.reflex_watch is not None:  # a tick, then threats answered as they come this interval
            await self.reflex_watch.run(budget_s=self.cfg.jobs.reflexes_s * 0.9)
            return
        snap = await snapshot_or_none(self.body)
        if snap is not None:
            await self.reflexes.tick(snap)

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
        switched_off = {
            "drive_tick": not e.drives,
            "reflexes": not e.reflexes,
            "keepalive": not e.keepalive,
            "planning": not planning,
        }
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
        return [
            JobSpec(
                name + suffix,
                body,
                interval_s,
                timeout_s=timeout_s,
                bot=None if name == "planning" else bot,
                enabled=name not in j.disabled and not switched_off.get(name, False),
            )
            for name, body, interval_s, timeout_s in declared
        ]

    # ---- what the HTTP API calls -------------------------------------------------------
    def api_context(self, daemon: Any) -> ApiContext:
        """This bot's HTTP API (bot/runtime/api/daemon_context.py)."""
        from bot.runtime.api.daemon_context import bot_api_context  # noqa: PLC0415 - it imports this module's users

        return bot_api_context(self, daemon)

    async def blocks_around(self, radius: int) -> dict[str, Any]:
        """Block counts by name in the cube of `radius` around the bot (agency.perception.reads)."""
        with _unavailable_is_503():
            return await blocks_around(self.body, radius)

    async def submit_goal(self, request: GoalRequest) -> GoalDecision:
        """A user's goal (agency.goals.intake)."""
        with _unavailable_is_503():
            return await self.intake.submit(request)

    def waiting_now(self) -> Callable[[Any], str | None]:
        """Why a task waits, in words (agency.planning.waiting), None when it does not: the
        bot's state read once, for a whole list of tasks."""
        mine = self.claim_as
        active = self.tasks.held_by(mine, TaskStatus.active) if mine else self.tasks.list_by_status(TaskStatus.active)
        held = self.reflexes.hold_reason if self.reflexes is not None else None
        running, connected = (active[0] if active else None), self._connected
        return lambda task: waiting_reason(task, held=held, running=running, connected=connected)

    def stalled(self) -> list[dict[str, Any]]:
        stats = self.executor.stats if self.executor else None
        return stalled_tasks(
            self.tasks.list_by_status(*TaskStatus),
            self.clock(),
            stats.last_tick_ms if stats is not None else None,
            self.cfg.drive_tick.stuck_timeout_ms,
            stats.last_busy_ms if stats is not None else None,
        )

    # ---- shutdown ----------------------------------------------------------------------
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


@contextmanager
def _unavailable_is_503() -> Iterator[None]:
    """No bot to serve the request with is the API's BotUnavailable (a 503)."""
    try:
        yield
    except BodyUnavailable as e:
        raise BotUnavailable(str(e)) from None
