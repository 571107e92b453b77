"""Fixtures shared by the rooms' tests: frozen clock, loguru capture, snapshots, a task store;
fake time and a fake block world with a tool context; a tool registry of scripted tools that log
what they do."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from loguru import logger
from pydantic import Field

from agency.clock import FrozenClock
from agency.cognition.counters import AgencyCounters
from agency.game import mcdata
from agency.planning.tasks.store import SqliteTaskStore
from agency.tools.base import Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.registry import ToolRegistry
from agency.tools.testing import FakeBody, FakeTime
from agency.world import InventoryItem, Vec3, WorldSnapshot


@pytest.fixture(autouse=True)
def _game_version_restored():
    """The game version is the process's (mcdata.use_version: the daemon on connecting, the
    plan CLI, bench_plans): a test that sets one leaves the next planning in it (the lead's
    missing ingredient named slime_ball, not string, after the plan bench's 1.18.2)."""
    before = mcdata.current_version()
    yield
    if mcdata.current_version() != before:
        mcdata.use_version(before)


@pytest.fixture(autouse=True)
def _stdlib_logging_restored():
    """The standard library's root logger as it was: a test running the CLI in-process
    (bot.runtime.logs.setup_logging) routes it into loguru for the rest of the process, and
    the dashboard's log tail then read httpx's request lines (test_dashboard_api after the
    tooling tests)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(1_700_000_000_000)


@pytest.fixture
def counters(clock: FrozenClock) -> AgencyCounters:
    return AgencyCounters(clock)


@pytest.fixture
def logs() -> Any:
    """Loguru records captured through a sink: list of (level name, message)."""
    records: list[tuple[str, str]] = []
    sink_id = logger.add(lambda m: records.append((m.record["level"].name, m.record["message"])), level="DEBUG")
    yield records
    logger.remove(sink_id)


@pytest.fixture
def store(tmp_path: Path, clock: FrozenClock) -> Any:
    s = SqliteTaskStore(tmp_path / "agency.db", clock=clock, dev_mode=True, strict_finalize=False)
    yield s
    s.close()


@pytest.fixture
def make_snapshot() -> Callable[..., WorldSnapshot]:
    def make(inventory: dict[str, int] | None = None, **over: Any) -> WorldSnapshot:
        fields: dict[str, Any] = {
            "health": 20,
            "food": 20,
            "gameMode": "survival",
            "dimension": "overworld",
            "timeOfDay": 1000,
            "isDay": True,
            "position": Vec3(x=0, y=64, z=0),
            "hostiles": 0,
            "ts": 0,
        }
        fields.update(over)
        items = [InventoryItem(name=n, count=c) for n, c in (inventory or {}).items()]
        return WorldSnapshot(inventory=items, **fields)

    return make


@pytest.fixture
def ftime() -> FakeTime:
    return FakeTime()


@pytest.fixture
def body(ftime: FakeTime) -> FakeBody:
    return FakeBody(ftime.clock)


@pytest.fixture
def ctx(body: FakeBody, ftime: FakeTime) -> ToolContext:
    return ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)


class Probe:
    """Scripted tools that record start/end order, concurrency and calls."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.active = 0
        self.peak = 0
        self.fail_once: set[str] = set()
        self.fail_always: set[str] = set()
        self.calls: dict[str, int] = {}


class WorkInput(ToolInput):
    name: str
    ticks: int = Field(default=1, ge=0)
    value: Any = None


def probe_tools(probe: Probe) -> list[Tool]:
    async def work(ctx: ToolContext, p: WorkInput) -> dict[str, Any]:
        probe.calls[p.name] = probe.calls.get(p.name, 0) + 1
        probe.events.append(f"start:{p.name}")
        probe.active += 1
        probe.peak = max(probe.peak, probe.active)
        try:
            for _ in range(p.ticks):
                await ctx.pause(0.1)
            if p.name in probe.fail_always or p.name in probe.fail_once:
                probe.fail_once.discard(p.name)
                raise ToolFailure("BOOM", f"{p.name} failed")
            ctx.memory.setdefault("done", []).append(p.name)
            return {"name": p.name, "value": p.value}
        finally:
            probe.active -= 1
            probe.events.append(f"end:{p.name}")

    async def undo(ctx: ToolContext, p: WorkInput) -> dict[str, Any]:
        probe.events.append(f"undo:{p.name}")
        return {"undone": p.name}

    def compensate(p: WorkInput, out: dict[str, Any]) -> dict[str, Any]:
        return {"tool": "undo", "args": {"name": p.name}}

    return [
        Tool("work", "scripted work", WorkInput, work, timeout_s=30, compensate=compensate),
        Tool("body_work", "scripted work on the body queue", WorkInput, work, timeout_s=30, queue="body"),
        Tool("undo", "scripted compensation", WorkInput, undo, timeout_s=5),
    ]


@pytest.fixture
def probe() -> Probe:
    return Probe()


@pytest.fixture
def tools(probe: Probe) -> ToolRegistry:
    reg = ToolRegistry()
    for t in probe_tools(probe):
        reg.register(t)
    return reg


def run(coro: Any) -> Any:
    return asyncio.run(coro)
