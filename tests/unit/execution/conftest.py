"""Fixtures for agent, workflow and executor tests: a checkpoint store, engines over the scripted
tools, and the plain executor environment (the fake block world, real executor, store and tools)
as the `env` fixture; a module needing a world of its own (an arena, a night) defines its own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agency.execution.workflows.checkpoints import SqliteCheckpointStore
from agency.execution.workflows.engine import WorkflowEngine
from agency.execution.workflows.steps import StepExecutor
from agency.tools.base import ToolContext
from agency.tools.registry import ToolRegistry
from agency.tools.testing import FakeBody, FakeTime
from tests.unit.execution.world import executor_env


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "agency.db"


@pytest.fixture
def store(db_path: Path, ftime: FakeTime) -> Any:
    s = SqliteCheckpointStore(db_path, clock=ftime.clock)
    yield s
    s.close()


@pytest.fixture
def make_engine(tools: ToolRegistry, ctx: ToolContext) -> Callable[..., WorkflowEngine]:
    def make(store: Any = None, **kw: Any) -> WorkflowEngine:
        return WorkflowEngine(StepExecutor(tools, ctx, **kw), store)

    return make


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    e = executor_env(tmp_path, ftime, FakeBody(ftime.clock))
    yield e
    e["tasks"].close()
