"""What acts on one bot's body, built once by Agency.attach_body when the bot has connected:
the tool context, the executor, direct actions, reflexes, chat, the drive job and the threat
watch; the world the store's memories are of, entered first; the chat lines said on a task's
events; and the safe stop of in-flight work before the body goes away."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from loguru import logger

from agency.chat.gate import ReplyGate
from agency.chat.handler import ChatHandler
from agency.chat.status import status_line
from agency.chat.talk import build_chat_talk, chat_frame
from agency.cognition.drive_job import DriveJob
from agency.cognition.drive_reads import DriveReads
from agency.cognition.drive_tick import sight_box
from agency.cognition.eligibility import routable_by
from agency.cognition.night_work import held_task_works_underground, night_work_due
from agency.execution.agents import AgentRuntime
from agency.execution.body_holder import BodyHolder
from agency.execution.direct import DirectActions
from agency.execution.executor import Executor
from agency.execution.reflexes import Reflexes
from agency.goals.plan_facts import PlanFacts
from agency.goals.world_identity import enter_world
from agency.perception.reads import snapshot_or_none
from agency.places.home import HOOK as HOME_HOOK
from agency.places.memory import HOOK as PLACES_HOOK
from agency.planning.delivery import DELIVERY_HOOK
from agency.planning.tasks.events import record_step
from agency.tools import ToolContext
from agency.tools.mining import STAIRCASES_HOOK
from agency.world import BodyError, ConnectedBody, WorldSnapshot, is_remote
from bot.runtime.bridge_downs import bridge_downs
from bot.runtime.reflex_watch import ReflexWatch, WatchesThreats
from bot.runtime.wiring_core import AgencyCore
from bot.runtime.world_id import world_identity


class AgencyBody(AgencyCore):
    """attach_body and what it hands to the parts it builds."""

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
                HOME_HOOK: self.goals.home,
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
            night_task=held_task_works_underground,
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
        if self.cfg.drive_tick.enabled:  # a tick's work done with nothing after it: the next tick's goals at once
            executor.follow_ups.next_goals = self.drive.goals_now
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

    async def on_shutdown(self) -> None:
        """In-flight work reaches a safe stop before the body goes away; the task stays
        active and resumes from its checkpoint on the next start."""
        if self.direct is not None:
            await self.direct.shutdown()
        if self.executor is not None:
            await self.executor.shutdown()
