"""The plain executor environment (the fake block world, real executor, store and tools) as
the `env` fixture; a module needing a world of its own (an arena, a night) defines its own."""

from __future__ import annotations

import pytest

from agency.tools.testing import FakeBody, FakeTime
from tests.unit.executor.world import executor_env


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    e = executor_env(tmp_path, ftime, FakeBody(ftime.clock))
    yield e
    e["tasks"].close()
