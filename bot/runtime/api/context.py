"""What the API needs from the daemon (ApiContext), and the bot a route addresses (Bot).

The daemon builds the context (bot/runtime/api/daemon_context.py); the routes reach it and
the bot through FastAPI dependencies (bot/runtime/api/deps.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from loguru import logger

from bot.runtime.api.errors import ApiError
from bot.runtime.api.live_stream import LiveSources


@dataclass
class ApiContext:
    """What the API needs from the daemon: stores and a few callables, no daemon internals."""

    stream: Any  # agency.stream.cognitive_stream.CognitiveStream
    tasks: Any  # agency.planning.tasks.store.SqliteTaskStore
    counters: Any  # agency.cognition.counters.AgencyCounters
    snapshot: Callable[[], Awaitable[Any]]  # latest WorldSnapshot (raises when not connected)
    poke_keepalive: Callable[[], Awaitable[dict[str, Any]]]
    health: Callable[[], dict[str, Any]]
    metrics: Callable[[], str]
    inject_thought: Callable[[dict[str, Any]], Any]  # POST /thoughts (dev injection rules inside)
    stalled: Callable[[], list[dict[str, Any]]] | None = None  # tasks with their stall class
    task_command: Callable[[str, str], Awaitable[Any]] | None = None  # pause/resume/cancel
    submit_goal: Callable[[Any], Awaitable[Any]] | None = None  # POST /api/goals: a user_goals.GoalDecision
    places: Callable[[], dict[str, Any]] | None = None  # GET /api/places: agency.places.memory.PlaceMemory.view
    stopping: Callable[[], bool] = lambda: False  # the daemon is stopping: event streams end
    direct: Any = None  # agency.execution.direct.DirectActions (None until the bot is attached)
    blocks_around: Callable[[int], Awaitable[dict[str, Any]]] | None = None  # GET /api/bot/blocks
    live: LiveSources | None = None  # GET /api/live
    logs: Callable[[int, int], list[dict[str, Any]]] | None = None  # GET /api/logs: lines after seq, limit
    viewer: Callable[[], Awaitable[dict[str, Any]]] | None = None  # GET /api/viewer: the 3D view's address
    shelters: Callable[[], list[dict[str, Any]]] | None = None  # GET /api/shelters
    bots: Any = None  # bot.runtime.api.daemon_context.FleetView of a fleet; None = one bot (GET /api/bots lists it)
    bot_name: str = "mcbot"  # the one bot's name (or the fleet's first)
    bot_summary: Callable[[], dict[str, Any]] | None = None  # GET /api/bots of a one-bot daemon
    chat: Callable[[], Any] | None = None  # agency.chat.handler.ChatHandler (None from it: chat is off)
    # why a task waits (agency.planning.waiting): the bots' state read once per call, for a list
    waiting: Callable[[], Callable[[Any], str | None]] | None = None

    def tasks_json(self, tasks: list[Any]) -> list[dict[str, Any]]:
        """Tasks as the API shows them: each with `waiting`, why it waits, when it does."""
        why = self.waiting() if self.waiting is not None else (lambda _t: None)
        out = []
        for task in tasks:
            row: dict[str, Any] = task.model_dump(mode="json", exclude_none=True)
            reason = why(task)
            if reason:
                row["waiting"] = reason
            out.append(row)
        return out

    def task_json(self, task: Any) -> dict[str, Any]:
        return self.tasks_json([task])[0]

    def bot_names(self) -> list[str]:
        return self.bots.names() if self.bots is not None else [self.bot_name]

    def bot_named(self, name: str) -> str | None:
        """The bot's name as configured (player names ignore case), None for no such bot."""
        return next((n for n in self.bot_names() if n.lower() == name.lower()), None)

    def known_bot(self, name: str) -> str:
        """The bot's name as configured; ApiError 404 naming the bots there are."""
        found = self.bot_named(name)
        if found is None:
            raise ApiError.not_found(f"no bot {name!r} (this daemon drives {', '.join(self.bot_names())})")
        return found

    def direct_of(self, name: str) -> Any:
        """The named bot's direct actions (a name bot_named found)."""
        return self.bots.agency(name).direct if self.bots is not None else self.direct

    def blocks_of(self, name: str) -> Callable[[int], Awaitable[dict[str, Any]]] | None:
        return self.bots.agency(name).blocks_around if self.bots is not None else self.blocks_around

    def chat_of(self, name: str) -> Any:
        """The named bot's chat handler (None: chat is off)."""
        if self.bots is not None:
            return self.bots.agency(name).chat
        return self.chat() if self.chat is not None else None

    async def snapshot_of(self, name: str) -> Any:
        return await (self.bots.snapshot(name) if self.bots is not None else self.snapshot())


class Bot:
    """The bot a route addresses: the daemon's first on the plain paths (/api/actions,
    /api/bot/blocks), the one named on a fleet's (/api/bots/{name}/actions). A bot's routes
    are written once against this and serve both.

    The name is checked when the route first reads it, after FastAPI has checked the
    request's own parameters: a bad body is a 400 whichever bot it names."""

    def __init__(self, ctx: ApiContext, asked: str | None) -> None:
        self.ctx = ctx
        self.asked = asked  # the name in the path; None on the plain paths

    @cached_property
    def name(self) -> str:
        return self.ctx.bot_name if self.asked is None else self.ctx.known_bot(self.asked)

    @property
    def direct(self) -> Any:
        """Its direct actions; ApiError 503 while it is not attached."""
        direct = self.ctx.direct if self.asked is None else self.ctx.direct_of(self.name)
        if direct is None:
            raise ApiError.unavailable("bot is not attached yet")
        return direct

    @property
    def blocks_around(self) -> Callable[[int], Awaitable[dict[str, Any]]] | None:
        return self.ctx.blocks_around if self.asked is None else self.ctx.blocks_of(self.name)

    @property
    def chat(self) -> Any:
        """Its chat handler; ApiError 409 when chat is off for it."""
        handler = self.ctx.chat_of(self.name)
        if handler is None:
            raise ApiError(409, f"chat is off for {self.name} ([chat] enabled = false)", "chat_off")
        return handler

    @property
    def snapshot(self) -> Callable[[], Awaitable[Any]]:
        """Its snapshot's read (the name checked now, before any read can fail)."""
        if self.asked is None:
            return self.ctx.snapshot
        name = self.name
        return lambda: self.ctx.snapshot_of(name)

    def logging_as(self) -> contextlib.AbstractContextManager[Any]:
        """A fleet's direct action names its bot in the lines it logs, as the bot's jobs do
        (bot/runtime/logs.py): its task starts inside this context."""
        return logger.contextualize(bot=self.name) if self.ctx.bots is not None else contextlib.nullcontext()
