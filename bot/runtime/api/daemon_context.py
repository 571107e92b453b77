"""What the HTTP API reads and calls, gathered from the daemon's agencies (the routes take
it as an ApiContext, bot/runtime/api/context.py). The routes without a bot in their path serve the daemon's
first bot; a fleet's bots are listed at /api/bots and reached by name there, a goal
names its bot in its body, and a task command goes to the bot that holds the task."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from functools import partial
from typing import Any

from agency.cognition.dev_injection import apply_dev_injection
from agency.cognition.grounding import FrameFacts, check_goal
from agency.goals.task_commands import run_task_command
from agency.goals.user_goals import GoalRequest, GoalRequestError
from agency.planning.tasks.models import Task
from agency.world import WorldSnapshot
from bot.runtime.api.context import ApiContext
from bot.runtime.api.errors import BotUnavailable
from bot.runtime.body import MineflayerBody
from bot.runtime.live_state import bot_summary, live_sources
from bot.runtime.metrics import render_metrics

# Grounding with no snapshot yet: nothing is known, so a named item or entity cannot ground.
_EMPTY = WorldSnapshot(
    health=20,
    food=20,
    gameMode="survival",
    dimension="overworld",
    timeOfDay=0,
    isDay=True,
    position={"x": 0, "y": 0, "z": 0},
    hostiles=0,
    ts=0,
)


def api_context(daemon: Any) -> ApiContext:
    """The daemon's API: its first bot's routes, and the fleet's."""
    agencies = daemon.agencies
    first = next(iter(agencies.values()))
    ctx = bot_api_context(first, daemon)
    if len(agencies) > 1:
        ctx.bots = FleetView(agencies)
        ctx.submit_goal = ctx.bots.submit_goal
        ctx.task_command = ctx.bots.task_command
        ctx.waiting = ctx.bots.waiting_now
    return ctx


def bot_api_context(agency: Any, daemon: Any) -> ApiContext:
    """One bot's API (a daemon of one bot, the first bot of a fleet)."""

    async def snapshot() -> WorldSnapshot:
        return await bot_snapshot(agency)

    async def poke() -> dict[str, Any]:
        if agency.body is None or not agency.body.connected:
            return {"status": "unavailable", "detail": "bot is not connected"}
        snap = await asyncio.to_thread(agency.body.snapshot)
        agency.last_snapshot = snap
        outcome = await agency.keepalive.apoke(snap)  # may await the LLM
        return {
            "status": outcome.status,
            "bypass": outcome.bypass,
            "situation": outcome.situation,
            "thoughtId": getattr(outcome.thought, "id", None),
        }

    def inject(body: dict[str, Any]) -> Any:
        snap = agency.last_snapshot

        def ground(goal: Any, thought_id: str) -> Any:
            facts = FrameFacts.from_snapshot(snap if snap is not None else _EMPTY)
            return check_goal(goal, facts, scenario_id=thought_id)

        thought = apply_dev_injection(body, os.environ, now_ms=agency.clock(), ground=ground)
        return agency.stream.publish(thought)

    async def task_command(task_id: str, command: str) -> Any:
        return await run_task_command(agency.tasks, agency.executor, agency.goals, task_id, command)

    return ApiContext(
        stream=agency.stream,
        tasks=agency.tasks,
        counters=agency.counters,
        snapshot=snapshot,
        poke_keepalive=poke,
        health=daemon.health,
        metrics=lambda: render_metrics(daemon, getattr(daemon, "agencies", None) or {agency.name: agency}),
        inject_thought=inject,
        stalled=agency.stalled,
        task_command=task_command,
        submit_goal=agency.submit_goal,
        places=agency.places.view,
        stopping=lambda: daemon.stopping,
        direct=agency.direct,
        blocks_around=agency.blocks_around,
        live=live_sources(agency, daemon),
        logs=lambda after, limit: daemon.log_tail.after(after, limit),
        viewer=daemon.viewer_status,
        shelters=agency.goals.shelter_status,
        bot_name=agency.name,
        bot_summary=lambda: bot_summary(agency),
        chat=lambda: agency.chat,
        waiting=agency.waiting_now,
    )


async def bot_snapshot(agency: Any) -> WorldSnapshot:
    if agency.body is None or not agency.body.connected:
        raise BotUnavailable(f"bot {agency.name} is not connected")
    body = agency.body
    read = partial(body.snapshot, urgent=True) if isinstance(body, MineflayerBody) else body.snapshot  # a user waits
    snap = await asyncio.to_thread(read)
    agency.seen.saw(snap)  # a fresh read is the bot's latest (what its teammates' plans count on)
    return snap


class FleetView:
    """The fleet's routes: its bots by name, goals sent to the bot they name, task commands
    to the bot holding the task."""

    def __init__(self, agencies: dict[str, Any]) -> None:
        self.agencies = agencies
        self._first = next(iter(agencies.values()))
        self._by_lower = {name.lower(): a for name, a in agencies.items()}  # player names ignore case

    def agency(self, name: str) -> Any | None:
        return self._by_lower.get(name.lower())

    def names(self) -> list[str]:
        return list(self.agencies)

    def summary(self) -> list[dict[str, Any]]:
        """Each bot as the perception job last saw it, with its running task (no bridge call)."""
        return [bot_summary(a) for a in self.agencies.values()]

    async def snapshot(self, name: str) -> WorldSnapshot:
        agency = self.agency(name)
        if agency is None:
            raise KeyError(name)
        return await bot_snapshot(agency)

    async def submit_goal(self, request: GoalRequest) -> Any:
        bot = getattr(request, "bot", None)
        if bot is None:
            return await self._first.submit_goal(request)  # open to any bot: checked against the first
        agency = self.agency(bot)
        if agency is None:
            raise GoalRequestError(f"unknown bot {bot!r} (this daemon drives {', '.join(self.agencies)})")
        return await agency.submit_goal(request)

    def waiting_now(self) -> Callable[[Task], str | None]:
        """Why a task waits, asked of the bot it is held by or bound to (else the first)."""
        per_bot: dict[str, Callable[[Task], str | None]] = {}

        def why(task: Task) -> str | None:
            agency = self._holder(task) or self._first
            if agency.name not in per_bot:
                per_bot[agency.name] = agency.waiting_now()
            return per_bot[agency.name](task)

        return why

    async def task_command(self, task_id: str, command: str) -> Any:
        task = self._first.tasks.get_task(task_id)
        agency = self._holder(task) if task is not None else None
        agency = agency or self._first
        return await run_task_command(agency.tasks, agency.executor, agency.goals, task_id, command)

    def _holder(self, task: Task) -> Any | None:
        """The bot working on the task (a fleet's claims name it), else the one it is bound to."""
        name = task.metadata.heldBy or task.metadata.bot
        return self.agency(name) if name else None
