"""A user's goal whose run takes the bridge down twice, on the daemon's own jobs (the body
job that preempts and rebuilds, the executor job) with the live bot's BridgeWatch over a
fake bridge: the task is failed as poison, and the user reads why in `mcbot task follow`
and `mcbot tasks`, through the real HTTP handlers. A goal-bound task is held through the
hold protocol the first time and failed the same way the second, its goal with it."""

from __future__ import annotations

import asyncio
import io

import pytest

from agency.goals.models import read_binding
from agency.goals.sync import GoalStatus
from agency.planning.tasks.models import TaskStatus
from bot.cli import goal as goal_cli
from tests.unit.execution.test_poison_tasks import POISON, WEDGED, BridgeBody
from tests.unit.runtime.api.test_goals_api import agency_over
from tests.unit.runtime.test_daemon_body_gate import _shelter_task, _snap


@pytest.fixture
def world(tmp_path, monkeypatch):
    agency, body, client = agency_over(tmp_path, monkeypatch, BridgeBody)
    yield agency, body, client
    agency.close()


def _run_daemon_jobs(agency, body, task_id) -> None:
    """The body and executor jobs in turn; every run of the task wedges the bridge."""

    async def go() -> None:
        for _ in range(400):
            await agency.job_executor()
            await agency.job_body()
            task = agency.tasks.get_task(task_id)
            if task.status.terminal:
                return
            if task.status is TaskStatus.paused:
                body.lose_on_kind = "collect"  # the resumed run does the same thing again
            await asyncio.sleep(0)
        raise AssertionError("the task never ended")

    body.lose_on_kind = "collect"
    asyncio.run(go())


def test_a_goal_that_wedges_the_bridge_twice_is_failed_and_the_user_sees_why(world):
    agency, body, c = world
    task_id = c.post("/api/goals", json={"text": "collect oak_log 2"}).json()["id"]
    _run_daemon_jobs(agency, body, task_id)
    task = agency.tasks.get_task(task_id)
    assert task.status is TaskStatus.failed and task.metadata.solver["failureReason"] == POISON

    api = goal_cli.Api("http://testserver", None)
    api.client = c  # the CLI's HTTP client against the real handlers
    out = io.StringIO()
    assert goal_cli._follow_existing(api, task_id, out) == goal_cli.EXIT_REFUSED
    lines = out.getvalue().splitlines()
    assert sum(f"bridge down 1/2 ({WEDGED})" in line for line in lines) == 1
    assert sum(f"bridge down 2/2 ({WEDGED})" in line for line in lines) == 1
    assert lines[-1].split()[1] == "failed" and f"failed ({POISON})" in lines[-1]

    listed = c.get("/api/tasks", params={"limit": 10}).json()["tasks"]
    assert [len(t["metadata"]["bridgeDowns"]) for t in listed if t["id"] == task_id] == [2]
    table = goal_cli.render_tasks(listed)
    row = next(line for line in table.splitlines() if line.startswith(task_id))
    assert row.split()[1] == "failed" and row.endswith(POISON)


def test_a_goal_bound_task_goes_the_same_way_through_the_hold_protocol(world):
    agency, body, _c = world
    agency.last_snapshot = _snap()
    task_id = _shelter_task(agency)

    async def lose_the_bridge_under_the_plan() -> TaskStatus:
        body.lose_on_kind = "collect"  # node wedges in the build's first gathering (a bot with
        # nothing running on node then, planning or polling, would only be held)
        for _ in range(50):
            await agency.job_executor()
            status = agency.tasks.get_task(task_id).status
            if status in (TaskStatus.paused, TaskStatus.failed):
                await agency.job_body()  # a fresh bridge, the bot back
                return status
            await asyncio.sleep(0)
        raise AssertionError("the run was neither held nor failed")

    assert asyncio.run(lose_the_bridge_under_the_plan()) is TaskStatus.paused
    held = agency.tasks.get_task(task_id)
    assert read_binding(held).hold.reason == "disconnected" and len(held.metadata.bridgeDowns) == 1
    assert asyncio.run(lose_the_bridge_under_the_plan()) is TaskStatus.failed
    task = agency.tasks.get_task(task_id)
    assert task.metadata.solver["failureReason"] == POISON and read_binding(task).hold is None
    assert agency.goals.sync.get(read_binding(task).goalId).status is GoalStatus.FAILED
