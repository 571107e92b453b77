"""Shared fixtures for agency unit tests: frozen clock, loguru capture, snapshots, store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from loguru import logger

from agency.clock import FrozenClock
from agency.cognition.counters import AgencyCounters
from agency.planning.tasks.store import SqliteTaskStore
from agency.world import InventoryItem, Vec3, WorldSnapshot


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
        fields: dict[str, Any] = dict(
            health=20, food=20, gameMode="survival", dimension="overworld", timeOfDay=1000, isDay=True,
            position=Vec3(x=0, y=64, z=0), hostiles=0, ts=0,
        )
        fields.update(over)
        items = [InventoryItem(name=n, count=c) for n, c in (inventory or {}).items()]
        return WorldSnapshot(inventory=items, **fields)

    return make
