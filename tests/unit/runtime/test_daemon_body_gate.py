"""Nothing runs blind, and a lost body holds work instead of failing it, on the exact jobs
the daemon schedules (bot.runtime.wiring.Agency.job_*), over the fake block world with a frozen
clock; the drive-tick interval read back from a real SQLite file after a restart."""

from __future__ import annotations

import asyncio

import pytest
from loguru import logger

from agency.clock import FrozenClock
from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_tick import DRIVE_TICK_INTERVAL_MS, evaluate_drive_tick
from agency.execution.executor import DISCONNECTED
from agency.goals.models import read_binding
from agency.planning.converter import convert_thought
from agency.planning.tasks.models import NewTask, TaskStatus
from agency.tools.testing import FakeBody, FakeTime
from agency.world import BodyLost, WorldSnapshot
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency
from tests.unit.execution.test_body_lost import LosingBody


def _snap(time_of_day: int = 1000, **kw) -> WorldSnapshot:
    return WorldSnapshot(
        health=20,
        food=20,
        gameMode="survival",
        dimension="overworld",
        timeOfDay=time_of_day,
        isDay=time_of_day < 13000,
        position={"x": 0, "y": 64, "z": 0},
        hostiles=0,
        ts=1,
        **kw,
    )


def _agency(db, clock) -> tuple[Agency, LosingBody]:
    a = Agency(McbotConfig.model_validate({"storage": {"db_path": str(db)}}), clock=clock)
    body = LosingBody(clock)
    a.attach_body(body)
    return a, body


@pytest.fixture
def daemon(tmp_path, monkeypatch):
    monkeypatch.setenv("MCBOT_ENV", "development")  # docs/contracts.md FIELDS-2's check is on
    a, body = _agency(tmp_path / "a.db", FrozenClock())
    a.last_snapshot = _snap()
    yield a, body
    a.close()


@pytest.fixture
def lines():
    out: list[str] = []
    sink = logger.add(lambda m: out.append(m.record["message"]), level="INFO")
    yield out
    logger.remove(sink)


def _run(*jobs, times: int = 1) -> None:
    async def go() -> None:
        for _ in range(times):
            for job in jobs:
                await job()

    asyncio.run(go())


def test_while_the_bot_is_not_connected_no_job_acts_and_each_says_so_once(daemon, lines):
    agency, body = daemon
    body.add_tree(4, 4)
    pending = agency.tasks.add_task(
        NewTask(title="collect oak_log 2", type="collect", parameters={"target": "oak_log", "amount": 2})
    ).id
    body.connected = False
    jobs = (agency.job_drive_tick, agency.job_planning, agency.job_executor, agency.job_reflexes)
    _run(*jobs, times=5)
    assert agency.stream.recent(5) == []  # no drive tick fired
    assert agency.tasks.get_task(pending).status is TaskStatus.pending  # nothing claimed
    assert body.started == []
    waiting = [m for m in lines if "waiting: the bot is not connected" in m]
    assert sorted(waiting) == sorted(
        f"[{j}] waiting: the bot is not connected" for j in ("DriveTick", "Planning", "Executor", "Reflexes")
    )

    body.connected = True
    _run(*jobs)
    going_on = [m for m in lines if "going on: the bot is connected again" in m]
    assert len(going_on) == 4
    assert [t.metadata.goalKey for t in agency.stream.recent(5)] == ["collect:log"]  # the drive tick fired
    assert agency.tasks.get_task(pending).status is TaskStatus.active  # and the executor claimed


def test_planning_claims_no_thought_while_the_bot_is_not_connected(daemon):
    agency, body = daemon
    body.add_tree(4, 4)
    _run(agency.job_drive_tick)  # an actionable thought in the stream
    body.connected = False
    _run(agency.job_planning, times=3)
    assert agency.tasks.list_by_status(*TaskStatus) == []
    body.connected = True
    _run(agency.job_planning)
    assert [t.metadata.goalKey for t in agency.tasks.list_by_status(*TaskStatus)] == ["collect:log"]


def test_the_drive_tick_interval_survives_a_daemon_restart(tmp_path):
    clock = FrozenClock()
    db = tmp_path / "restart.db"
    first, body = _agency(db, clock)
    body.add_tree(4, 4)
    first.last_snapshot = _snap()
    _run(first.job_drive_tick)
    assert len(first.stream.recent(5)) == 1
    first.close()

    clock.advance(60_000)  # restarted a minute later: the interval (3 min) has not elapsed
    second, body = _agency(db, clock)
    try:
        body.add_tree(4, 4)
        second.last_snapshot = _snap()
        assert second.drive_state.last_fired_ms == clock() - 60_000
        _run(second.job_drive_tick)
        assert len(second.stream.recent(5)) == 1  # still only the first one
        clock.advance(DRIVE_TICK_INTERVAL_MS - 60_000)
        _run(second.job_drive_tick)
        assert len(second.stream.recent(5)) == 2
    finally:
        second.close()


def _shelter_task(agency: Agency) -> str:
    logs = _snap(11500, inventory=[{"name": "oak_log", "count": 1}])
    fired = evaluate_drive_tick(logs, agency.clock(), DriveTickState(), [], shelter_nearby=False)
    out = convert_thought(fired.thought, agency.tasks, agency.clock(), router=agency.goals.router)
    assert out.status == "converted"
    return out.task_id


def test_a_goal_bound_task_whose_body_is_lost_is_held_through_the_hold_protocol_and_resumed(daemon):
    agency, body = daemon
    task_id = _shelter_task(agency)
    body.lost = True  # the bridge died; the daemon has not noticed yet

    async def go() -> None:
        await agency.job_executor()  # claims; planning the build meets the lost body
        while agency.executor.current is not None:
            await agency.job_executor()
            await asyncio.sleep(0)

    asyncio.run(go())
    task = agency.tasks.get_task(task_id)
    binding = read_binding(task)
    assert task.status is TaskStatus.paused and task.metadata.blockedReason == DISCONNECTED
    assert binding.hold.reason == DISCONNECTED and binding.hold.holdWitness.verified is False
    assert "conservative_rescan" in binding.hold.resumeHints

    body.connected = False
    _run(agency.job_executor, times=3)
    assert agency.tasks.get_task(task_id).status is TaskStatus.paused  # not released while the bot is away
    body.back()

    async def resume() -> None:
        await agency.job_executor()
        run = agency.executor.current
        assert run is not None and run.task_id == task_id
        run.handle.stop("test over")
        await run.handle.result()

    asyncio.run(resume())
    task = agency.tasks.get_task(task_id)
    assert task.status is TaskStatus.active and read_binding(task).hold is None


def test_a_body_lost_under_the_snapshot_read_is_no_job_error(tmp_path):
    """The world or bridge can die between the connected check and the read."""
    body = FakeBody(FakeTime().clock)
    body.connected = True
    agency = Agency(McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "a.db")}}), clock=body.clock)
    agency.attach_body(body)
    try:

        def lost():
            raise BodyLost("bridge dead: node process exited (code -9)")

        body.snapshot = lost
        asyncio.run(agency.job_perception())
        asyncio.run(agency.job_reflexes())
        assert agency.last_snapshot is None
    finally:
        agency.close()
