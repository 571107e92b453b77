"""The goal evaluation cycle as the daemon runs it: every executor job tick
(Agency.job_executor) runs the activation reactor once before anything is claimed, so the
periodic backstop reviews held goals every 60th executor tick. Frozen clock; the
executor's body is the fake block world."""

from __future__ import annotations

import asyncio

import pytest

from agency.clock import FrozenClock
from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_tick import evaluate_drive_tick
from agency.goals.backoff import MINUTE_MS
from agency.planning.converter import convert_thought
from agency.planning.tasks.models import NewTask, TaskStatus
from agency.tools.testing import FakeBody
from agency.world import WorldSnapshot
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency


def _snap(time_of_day: int = 6000) -> WorldSnapshot:
    return WorldSnapshot(
        health=20,
        food=20,
        gameMode="survival",
        dimension="overworld",
        timeOfDay=time_of_day,
        isDay=time_of_day < 13000,
        position={"x": 10, "y": 64, "z": 10},
        hostiles=0,
        ts=1,
        inventory=[{"name": "oak_log", "count": 1}],
    )


@pytest.fixture
def agency(tmp_path, monkeypatch):
    monkeypatch.setenv("MCBOT_ENV", "development")  # docs/contracts.md FIELDS-2's check is on
    clock = FrozenClock()
    a = Agency(McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "a.db")}}), clock=clock)
    body = FakeBody(clock)
    body.connected = False  # the executor ticks but claims nothing: only the cycle's own work shows
    a.attach_body(body)
    a.last_snapshot = _snap()
    yield a
    a.close()


def _shelter_task(agency: Agency) -> str:
    fired = evaluate_drive_tick(_snap(11500), agency.clock(), DriveTickState(), [], shelter_nearby=False)
    out = convert_thought(fired.thought, agency.tasks, agency.clock(), router=agency.goals.router)
    assert out.status == "converted"
    return out.task_id


def _executor_ticks(agency: Agency, n: int) -> None:
    async def go() -> None:
        for _ in range(n):
            await agency.job_executor()

    asyncio.run(go())


def test_a_held_goal_with_no_event_is_reviewed_on_the_60th_executor_tick(agency):
    task_id = _shelter_task(agency)
    agency.goals.lifecycle.hold(task_id, "preempted")
    agency.clock.advance(5 * MINUTE_MS)  # nextReviewAt has passed; no event will wake it
    _executor_ticks(agency, 59)
    assert agency.tasks.get_task(task_id).status is TaskStatus.paused
    assert not [e for e in agency.goals.events if e["event"] == "goal_reactivated"]
    _executor_ticks(agency, 1)
    assert agency.tasks.get_task(task_id).status is TaskStatus.pending
    assert [e["taskId"] for e in agency.goals.events if e["event"] == "goal_reactivated"] == [task_id]


def test_at_dusk_the_executor_job_claims_the_shelter_goal_before_older_work(agency):
    older = agency.tasks.add_task(
        NewTask(title="collect oak_log 8", type="collect", parameters={"target": "oak_log", "amount": 8})
    ).id
    agency.clock.advance(60_000)
    goal = _shelter_task(agency)
    agency.body.connected = True
    agency.last_snapshot = _snap(11_500)  # dusk; no verified shelter anywhere

    async def one_tick() -> str | None:
        await agency.job_executor()
        run = agency.executor.current
        if run is None:
            return None
        run.handle.stop("test over")
        await run.handle.result()
        return run.task_id

    assert asyncio.run(one_tick()) == goal
    assert agency.tasks.get_task(goal).urgency > agency.tasks.get_task(older).urgency
    assert agency.tasks.get_task(older).status is TaskStatus.pending
