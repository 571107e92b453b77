"""What a tool is, and what it gets when it runs.

A Tool binds a name to a pydantic input model, an async run function, a timeout and a
queue. Tools see the world only through `ToolContext.body` (the Body protocol), read it
through `ToolContext.snapshot`/`region`/`io` (off the event loop for a live body) and wait
only through `ToolContext.sleep`/`clock`, so tests drive them with a frozen clock.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

from agency.clock import Clock, system_clock_ms
from agency.errors import AgencyError
from agency.world import BlockRegion, Body, WorldSnapshot

AsyncSleep = Callable[[float], Awaitable[None]]
T = TypeVar("T")

# Tools that move the body share this queue with a limit of 1: it can only walk one way.
BODY_QUEUE = "body"


class ToolInput(BaseModel):
    """Base for tool input models: unknown arguments are errors, inputs never change."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolFailure(AgencyError):
    """Raised by tool code for an expected failure; the registry turns it into a result."""

    def __init__(self, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


class ToolTimeout(AgencyError):
    """The call's deadline passed (measured on the injected clock)."""


class ToolCancelled(AgencyError):
    """A stop was requested while the tool ran; the body action was cancelled."""


class StopFlag:
    """Set once to ask running tools and workflows to stop; checked at poll points.
    Set it from the event loop's thread (loop.call_soon_threadsafe from elsewhere)."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self._events: list[asyncio.Event] = []

    def set(self, reason: str = "stop requested") -> None:
        if self.reason is None:
            self.reason = reason
        for ev in self._events:
            ev.set()

    def is_set(self) -> bool:
        return self.reason is not None

    async def wait(self) -> None:
        if self.is_set():
            return
        ev = asyncio.Event()
        self._events.append(ev)
        try:
            await ev.wait()
        finally:
            self._events.remove(ev)


@dataclass
class ToolContext:
    body: Body
    clock: Clock = system_clock_ms
    sleep: AsyncSleep = asyncio.sleep
    poll_interval_s: float = 0.2
    stop: StopFlag = field(default_factory=StopFlag)
    # Workflow memory shared across calls (e.g. chunks already explored); checkpointed.
    memory: dict[str, Any] = field(default_factory=dict)
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    deadline_ms: int | None = None
    # Services a tool may use when present (e.g. "shelter": the goal store's side of a
    # build). Not checkpointed; tools must work without them.
    hooks: Mapping[str, Any] = field(default_factory=dict)
    # Body calls in a worker thread (ctx.io): a live bridge's reply may be slow, and the loop
    # is shared by every bot of the daemon, its API and its scheduler. Off for in-process fakes.
    offload: bool = False

    def for_call(self, timeout_s: float) -> ToolContext:
        return replace(self, deadline_ms=self.clock() + int(timeout_s * 1000))

    def within_ms(self, ms: int) -> ToolContext:
        """This context with its deadline at most `ms` from now (a step bounded inside what
        the call itself has left)."""
        deadline = self.clock() + ms
        return replace(self, deadline_ms=deadline if self.deadline_ms is None else min(self.deadline_ms, deadline))

    def remaining_ms(self) -> int | None:
        return None if self.deadline_ms is None else self.deadline_ms - self.clock()

    def check(self) -> None:
        """Raise if the call must end now: a stop was requested or the deadline passed."""
        if self.stop.is_set():
            raise ToolCancelled(self.stop.reason)
        if self.deadline_ms is not None and self.clock() >= self.deadline_ms:
            raise ToolTimeout(f"deadline passed ({self.clock() - self.deadline_ms} ms late)")

    async def io(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """A blocking body call: off the loop when `offload` is on (never a store's: the
        database connection belongs to the loop's thread)."""
        if self.offload:
            return await asyncio.to_thread(fn, *args, **kwargs)
        return fn(*args, **kwargs)

    async def snapshot(self) -> WorldSnapshot:
        """The body's snapshot, read now (off the loop for a live body: a fleet's tools
        reading on the loop held every other bot's jobs and the API for the call)."""
        return await self.io(self.body.snapshot)

    async def region(self, origin: tuple[int, int, int], size: tuple[int, int, int]) -> BlockRegion:
        return await self.io(self.body.region, origin, size)

    async def pause(self, seconds: float | None = None) -> None:
        await self.sleep(self.poll_interval_s if seconds is None else seconds)
        self.check()


RunFn = Callable[[ToolContext, Any], Awaitable[Mapping[str, Any] | None]]
# Given the validated input and the output of a successful call, the call that undoes it.
CompensateFn = Callable[[Any, Mapping[str, Any]], "dict[str, Any] | None"]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_model: type[ToolInput]
    run: RunFn
    timeout_s: float = 30.0
    queue: str | None = None  # None: a pure query that may run in parallel with anything
    compensate: CompensateFn | None = None
    enabled: bool = True
