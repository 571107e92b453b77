"""Surface work met under cover at night (no log at the bot's level) holds its task for the
morning instead of failing it: paused `morning`, the goal held back from the drive tick while it
waits, and given back by the reflexes once the day is back. Over the fake block world (no node)."""

from __future__ import annotations

import asyncio

import pytest
from loguru import logger

from agency.execution.reflexes import ReflexConfig, Reflexes
from agency.planning.tasks.idempotency import MORNING_MAX_HOLD_MS, WAITING_FOR_MORNING, find_blocking_task
from agency.planning.tasks.models import TaskStatus
from agency.planning.tasks.retry_backoff import held_back
from agency.tools.testing import GROUND_Y, FakeBody, FakeTime
from tests.unit.execution.world import add_task, executor_env


class NightBody(FakeBody):
    """Dug in under the hut (a block over the head) until `day` is set."""

    day = False

    def snapshot(self):
        snap = super().snapshot()
        if self.day:
            return snap.model_copy(update={"timeOfDay": 2_000, "isDay": True})
        return snap.model_copy(update={"timeOfDay": 15_000, "isDay": False, "cover": 4})


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    body = NightBody(ftime.clock, polls_to_finish=2)
    for y in range(GROUND_Y + 3, GROUND_Y + 7):  # a tree on the surface, above the bot's level
        body.blocks[(5, y, 0)] = "oak_log"
    e = executor_env(tmp_path, ftime, body)
    yield e
    e["tasks"].close()


def _until(ex, ftime, done, max_ticks=3000):
    async def go():
        for _ in range(max_ticks):
            out = await ex.tick()
            if done(out):
                return out
            await ftime.sleep(0.1)
        raise AssertionError("no outcome")

    return asyncio.run(go())


def test_a_collect_of_logs_under_cover_at_night_waits_for_the_morning_and_resumes_then(env):
    tasks, ex, ftime, body = env["tasks"], env["ex"], env["ftime"], env["body"]
    tid = add_task(tasks, "collect", "oak_log", 2)
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    try:
        out = _until(ex, ftime, lambda o: o.startswith(("paused", "finished", "replanned")))
        assert out == f"paused:{WAITING_FOR_MORNING}"  # neither failed nor planned again in the dark
        task = tasks.get_task(tid)
        assert task.status is TaskStatus.paused and task.metadata.blockedReason == WAITING_FOR_MORNING
        assert ex.waiting_for_morning
        assert any(f"task={tid} waits for the morning (" in line for line in lines)
        held = held_back(tasks, "collect:oak_log", ftime.clock())
        assert held is not None and held.reason == "it waits for the morning"  # the night asks for another goal
        assert find_blocking_task(tasks, "collect:oak_log", ftime.clock()).id == tid  # in flight: no twin

        reflexes = Reflexes(env["tools"], env["ctx"], ex, ReflexConfig(), clock=ftime.clock)
        asyncio.run(reflexes.tick(body.snapshot()))
        assert tasks.get_task(tid).status is TaskStatus.paused  # still night: still held
        body.day = True
        asyncio.run(reflexes.tick(body.snapshot()))
        assert tasks.get_task(tid).status is TaskStatus.pending and not ex.waiting_for_morning
        assert "[Reflex] morning: the surface work held for the day is given back" in lines
        assert held_back(tasks, "collect:oak_log", ftime.clock()) is None
        assert _until(ex, ftime, lambda o: o.startswith("finished")) == "finished:completed"
    finally:
        logger.remove(sink)
    assert body.inventory.get("oak_log") == 2


def test_with_no_reflexes_to_see_the_morning_the_executor_gives_the_task_back_itself(env):
    tasks, ex, ftime = env["tasks"], env["ex"], env["ftime"]
    tid = add_task(tasks, "collect", "oak_log", 2)
    assert _until(ex, ftime, lambda o: o.startswith(("paused", "finished"))) == f"paused:{WAITING_FOR_MORNING}"
    asyncio.run(ex.tick())
    assert tasks.get_task(tid).status is TaskStatus.paused
    ftime.clock.advance(MORNING_MAX_HOLD_MS)
    assert held_back(tasks, "collect:oak_log", ftime.clock()) is None  # no longer held back, nor in flight
    assert find_blocking_task(tasks, "collect:oak_log", ftime.clock()) is None
    asyncio.run(ex.tick())  # gives it back, and claims it
    assert tasks.get_task(tid).status is not TaskStatus.paused and not ex.waiting_for_morning
