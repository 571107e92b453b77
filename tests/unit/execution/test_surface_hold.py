"""A drive tick's craft or smelt whose plan hunts, claimed underground, is held for the surface
instead of failed: paused `surface`, its goal held back from the drive tick and no twin made
meanwhile, and given back by the executor on its first tick with the bot up on the surface.
Over the fake block world (no node)."""

from __future__ import annotations

import asyncio

import pytest
from loguru import logger

from agency.execution.agents.task_spec import FollowUpSpec
from agency.planning.tasks.idempotency import SURFACE_MAX_HOLD_MS, WAITING_FOR_SURFACE, find_blocking_task
from agency.planning.tasks.models import TaskStatus
from agency.planning.tasks.retry_backoff import held_back
from agency.tools.testing import FakeTime, Mob
from tests.unit.execution.world import add_task, executor_env
from tests.unit.tools.test_hunting import HuntBody


class MineBody(HuntBody):
    """Deep in a mine (six blocks over the head) until `up` is set; by day unless `dusk`."""

    up = False
    dusk = False

    def snapshot(self):
        snap = super().snapshot()
        if self.dusk:
            snap = snap.model_copy(update={"timeOfDay": 12_000})
        return snap if self.up else snap.model_copy(update={"cover": 6})


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    body = MineBody(ftime.clock, {"furnace": 1, "coal": 4, "crafting_table": 1})
    body.mobs.append(Mob("pig", hostile=False, x=4.5, z=0.5))
    e = executor_env(tmp_path, ftime, body)
    yield e
    e["tasks"].close()


def _ticks(ex, ftime, n):
    async def go():
        outs = []
        for _ in range(n):
            outs.append(await ex.tick())
            await ftime.sleep(0.1)
        return outs

    return asyncio.run(go())


def test_a_smelt_whose_plan_hunts_claimed_underground_waits_for_the_surface_then_goes_on(env):
    tasks, ex, ftime, body = env["tasks"], env["ex"], env["ftime"], env["body"]
    tid = add_task(tasks, "smelt", "cooked_porkchop")  # a drive tick's: the raw meat eaten meanwhile
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    try:
        outs = _ticks(ex, ftime, 20)
        assert f"paused:{WAITING_FOR_SURFACE}" in outs and "replanned" not in outs  # neither failed nor replanned
        task = tasks.get_task(tid)
        assert task.status is TaskStatus.paused and task.metadata.blockedReason == WAITING_FOR_SURFACE
        assert any(f"task={tid} waits for the surface (its plan hunts (pig)" in line for line in lines)
        assert find_blocking_task(tasks, "smelt:cooked_porkchop", ftime.clock()).id == tid  # in flight: no twin
        held = held_back(tasks, "smelt:cooked_porkchop", ftime.clock())
        assert held is not None and held.reason == "it waits for the surface"  # the tick asks for another goal
        assert set(_ticks(ex, ftime, 10)) == {"idle"}  # still down there: still held
        assert tasks.get_task(tid).status is TaskStatus.paused
        assert [m.name for m in body.mobs] == ["pig"]  # nothing hunted from down there

        body.up = body.dusk = True
        _ticks(ex, ftime, 3)
        assert tasks.get_task(tid).status is TaskStatus.paused  # up at dusk: the hunt would wait for the morning
        body.dusk = False
        _ticks(ex, ftime, 1)
        assert tasks.get_task(tid).status is not TaskStatus.paused  # given back, and claimed
        assert "[Executor] up on the surface: 1 task(s) held for it given back" in lines
        assert held_back(tasks, "smelt:cooked_porkchop", ftime.clock()) is None
    finally:
        logger.remove(sink)


def test_a_task_held_for_the_surface_longer_than_its_longest_hold_is_given_back_anyway(env):
    tasks, ex, ftime = env["tasks"], env["ex"], env["ftime"]
    tid = add_task(tasks, "smelt", "cooked_porkchop")
    assert f"paused:{WAITING_FOR_SURFACE}" in _ticks(ex, ftime, 20)
    ftime.clock.advance(SURFACE_MAX_HOLD_MS)  # a bot that stays down in its mines
    assert find_blocking_task(tasks, "smelt:cooked_porkchop", ftime.clock()) is None  # no longer in flight
    assert held_back(tasks, "smelt:cooked_porkchop", ftime.clock()) is None
    outs = _ticks(ex, ftime, 20)
    assert tasks.get_task(tid).status is TaskStatus.paused  # claimed again down there, held again
    assert outs.count(f"paused:{WAITING_FOR_SURFACE}") == 1 and "claimed" in outs


def test_a_task_held_for_the_surface_asks_the_next_ticks_goals_now_and_its_own_wait(env):
    """A 1.18.2 bench bot at ba1afe9 stood 60 s underground after its smelt of pork was held,
    until the tick asked for its next goal."""
    tasks, ex, ftime, body = env["tasks"], env["ex"], env["ftime"], env["body"]
    body.inventory.update({"oak_planks": 8})
    asked: list[int] = []

    async def next_goals():
        asked.append(ftime.clock())
        first = len(asked) == 1
        return (FollowUpSpec("craft", "stick", 4, 4) if first else FollowUpSpec("craft", "wooden_sword", 1, 1),)

    ex.follow_ups.next_goals = next_goals
    tid = add_task(tasks, "smelt", "cooked_porkchop")
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    try:
        outs = _ticks(ex, ftime, 20)
    finally:
        logger.remove(sink)
    assert f"paused:{WAITING_FOR_SURFACE}" in outs and len(asked) == 1
    assert any(f"task={tid} held: its follow-ups queued as task=" in line for line in lines)
    assert body.inventory["stick"] >= 4  # the next goal done down there meanwhile
    assert tasks.get_task(tid).status is TaskStatus.paused  # its own hunt still waits for the surface
    body.dusk = True
    ex.follow_ups._asked_ms = None
    beef = add_task(tasks, "smelt", "cooked_beef")
    lines.clear()
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    try:
        _ticks(ex, ftime, 20)
    finally:
        logger.remove(sink)
    assert tasks.get_task(beef).metadata.blockedReason == WAITING_FOR_SURFACE
    # deep in the mine at dusk the night's work is asked at once (a completion's too), not at daylight
    assert len(asked) == 2 and tasks.get_task(beef).status is TaskStatus.paused
    assert any("held under cover at night: the next tick's goals, asked now: craft:wooden_sword" in x for x in lines)
    assert body.inventory["wooden_sword"] == 1  # done down there in the night
