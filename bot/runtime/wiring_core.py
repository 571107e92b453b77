"""What every part of Agency (bot/runtime/wiring.py) stands on: one bot's stores and loops
(perception, thoughts, keep-alive, goals, planning, the drive tick's memory, places, tools
and agents, deliveries, goal intake), built when the agency is, before the world and the
bridge start; and GoalWiring, the goal runtime on the configured store file."""

from __future__ import annotations

import asyncio
from typing import Any

from agency.chat.handler import ChatHandler
from agency.clock import Clock, system_clock_ms
from agency.cognition.counters import AgencyCounters
from agency.cognition.drive_job import DriveJob
from agency.cognition.drive_memory import DriveTickMemory
from agency.cognition.eligibility import routable_by
from agency.cognition.keepalive import build_keepalive
from agency.cognition.llm_thoughts import build_thought_generator
from agency.execution.agents import bot_agents
from agency.execution.body_holder import BodyHolder
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.direct import DirectActions
from agency.execution.executor import Executor
from agency.execution.reflexes import Reflexes
from agency.execution.workflows import SqliteCheckpointStore
from agency.goals.intake import GoalIntake
from agency.goals.runtime import GoalRuntime
from agency.goals.world_identity import WorldEntry
from agency.perception.body_gate import BodyGate
from agency.perception.last_seen import LastSeen
from agency.perception.stimuli import Perception, Stimulus
from agency.places.memory import PlaceMemory
from agency.places.store import PlaceStore
from agency.planning.consumer import IdleReporter, PlanningConsumer
from agency.planning.delivery import DELIVER, DeliveryBoard
from agency.planning.tasks.store import TaskStore
from agency.stream.cognitive_stream import CognitiveStream
from agency.tools import ToolContext
from agency.world import BodyEvent, WorldSnapshot
from bot.config.loader import BotEntry, McbotConfig
from bot.runtime.reflex_watch import ReflexWatch
from bot.runtime.stores import SharedStores


class GoalWiring(GoalRuntime):
    """The goal runtime on the configured store file."""

    def __init__(self, cfg: McbotConfig, tasks: TaskStore, clock: Clock, db: Any = None, **kwargs: Any) -> None:
        super().__init__(db if db is not None else cfg.storage.db_path, tasks, clock, **kwargs)


class AgencyCore:
    """One bot's stores and loops, built in __init__ (see Agency); what acts on the body is
    only declared here, and built by attach_body (wiring_body.py)."""

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

    @property
    def _connected(self) -> bool:
        return self.body is not None and self.body.connected

    def close(self) -> None:
        self.drive_memory.close()
        self.places.store.close()
        self.checkpoints.close()
        self.goals.close()
        self.stream.close()
        if self._owns_stores:  # a fleet's daemon closes the shared ones after every bot
            self.shared.close()
