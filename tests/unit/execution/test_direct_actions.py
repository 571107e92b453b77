"""Direct actions (a user's or MCP client's tool call) on the fake body, the real executor,
task store and tool registry: validation before anything runs, the running task paused with
reason `direct` and given back, one body action at a time, cancel, and a reflex that needs
the body stopping the direct action first."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from agency.execution.direct import DIRECT, DirectActionError, DirectActions
from agency.execution.reflexes import Reflexes
from agency.planning.tasks.models import TaskStatus
from agency.tools.results import CANCELLED
from agency.tools.testing import FakeBody, FakeTime
from agency.world import BodyEvent, EventType
from tests.unit.execution.world import add_task, executor_env


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    e = executor_env(tmp_path, ftime, FakeBody(ftime.clock))
    e["direct"] = DirectActions(e["tools"], e["ctx"], e["ex"], clock=ftime.clock)
    yield e
    e["tasks"].close()


async def _settle(action, ticks: int = 200) -> None:
    for _ in range(ticks):
        if action.status != "running":
            return
        await asyncio.sleep(0)
    raise AssertionError(f"action still {action.status}")


def test_unknown_tools_and_bad_arguments_are_refused_before_anything_runs(env):
    direct = env["direct"]
    with pytest.raises(DirectActionError) as unknown:
        direct.start("teleport", {})
    assert unknown.value.kind == "unknown_tool" and "move_to" in str(unknown.value)
    with pytest.raises(DirectActionError) as bad:
        direct.start("move_to", {"x": "north", "y": 64})
    assert bad.value.kind == "invalid_args"
    assert {f["loc"] for f in bad.value.details} == {"x", "z"}
    with pytest.raises(DirectActionError) as extra:
        direct.start("move_to", {"x": 1, "y": 64, "z": 1, "speed": 3})
    assert extra.value.kind == "invalid_args" and "speed" in str(extra.value)
    assert env["body"].started == [] and direct.recent() == []


def test_the_catalog_gives_each_tool_its_input_schema_and_whether_it_moves_the_body(env):
    tools = {t["name"]: t for t in env["direct"].catalog()}
    assert tools["move_to"]["movesBody"] is True and tools["inventory"]["movesBody"] is False
    assert set(tools["move_to"]["inputSchema"]["required"]) == {"x", "y", "z"}
    assert tools["follow"]["inputSchema"]["properties"]["username"]["type"] == "string"


def test_a_direct_walk_pauses_the_running_task_and_gives_it_back(env):
    async def main():
        ex, tasks, body, direct = env["ex"], env["tasks"], env["body"], env["direct"]
        body.hang.add("collect")  # the task's collect runs until stopped
        task_id = add_task(tasks, "collect", "oak_log", 3)
        await ex.tick()
        assert ex.current is not None and ex.current.task_id == task_id
        action = direct.start("move_to", {"x": 5, "y": 64, "z": 5})
        assert direct.body_busy is action
        await _settle(action)
        assert action.status == "succeeded" and action.paused_task_id == task_id
        assert action.output["target"] == {"x": 5.0, "y": 64.0, "z": 5.0}
        assert (body.position.x, body.position.z) == (5, 5)
        t = tasks.get_task(task_id)
        assert t.status is TaskStatus.pending and t.metadata.blockedReason is None  # given back
        assert direct.body_busy is None
        view = action.view(env["ftime"].clock())
        assert view["status"] == "succeeded" and view["pausedTaskId"] == task_id and view["endedAt"] is not None

    asyncio.run(main())


def test_one_body_action_at_a_time_but_queries_run_beside_it(env):
    async def main():
        body, direct = env["body"], env["direct"]
        body.hang.add("move_to")
        walk = direct.start("move_to", {"x": 9, "y": 64, "z": 9})
        await asyncio.sleep(0)
        with pytest.raises(DirectActionError) as busy:
            direct.start("move_to", {"x": 1, "y": 64, "z": 1})
        assert busy.value.kind == "busy" and walk.action_id in str(busy.value)
        look = direct.start("inventory", {})
        await _settle(look)
        assert look.status == "succeeded" and walk.status == "running"
        direct.cancel(walk.action_id)
        await _settle(walk)
        assert walk.status == "cancelled" and walk.error["code"] == CANCELLED
        assert body.cancelled  # the JS action was cancelled, not left walking
        with pytest.raises(ValueError, match="already cancelled"):
            direct.cancel(walk.action_id)
        with pytest.raises(KeyError):
            direct.cancel("act-nope")

    asyncio.run(main())


def test_a_reflex_holding_refuses_a_body_action_saying_why_and_queries_still_run(env):
    async def main():
        body = env["body"]
        holding = SimpleNamespace(hold_reason="the bot is sheltering for the night (until morning)")
        direct = DirectActions(env["tools"], env["ctx"], env["ex"], clock=env["ftime"].clock)
        direct.defer_to(holding)
        with pytest.raises(DirectActionError, match="sheltering for the night"):
            direct.start("move_to", {"x": 1, "y": 64, "z": 1})
        assert direct.start("inventory", {}).moves_body is False  # a query is not refused
        holding.hold_reason = None
        body.hang.add("move_to")
        walk = direct.start("move_to", {"x": 9, "y": 64, "z": 9})
        await asyncio.sleep(0)
        await direct.yield_body("reflex flee")
        assert walk.status == "cancelled" and "reflex flee" in walk.error["message"]
        assert direct.body_busy is None

    asyncio.run(main())


def test_a_death_stops_the_direct_action_through_the_reflexes_before_they_hold_the_task(env):
    async def main():
        ex, body, direct = env["ex"], env["body"], env["direct"]
        reflexes = Reflexes(env["tools"], env["ctx"], ex, direct=direct, clock=env["ftime"].clock)
        direct.defer_to(reflexes)
        body.hang.add("move_to")
        walk = direct.start("move_to", {"x": 9, "y": 64, "z": 9})
        await asyncio.sleep(0)
        await reflexes.on_events([BodyEvent(type=EventType.death, ts=0, data={"cause": "zombie"})])
        assert walk.status == "cancelled" and "the bot died" in walk.error["message"]
        assert reflexes.hold_reason == "the bot is recovering the items it dropped when it died"

    asyncio.run(main())


def test_a_task_left_paused_by_a_stopped_daemon_s_direct_action_is_given_back_at_the_start(env):
    async def main():
        ex, tasks, body = env["ex"], env["tasks"], env["body"]
        body.hang.add("collect")
        task_id = add_task(tasks, "collect", "oak_log", 3)
        await ex.tick()
        assert await ex.preempt(DIRECT) == task_id  # what a direct action does, and then the daemon died
        assert tasks.get_task(task_id).status is TaskStatus.paused
        fresh = DirectActions(env["tools"], env["ctx"], ex, clock=env["ftime"].clock)
        assert fresh.give_back_orphans() == [task_id]
        assert tasks.get_task(task_id).status is TaskStatus.pending

    asyncio.run(main())


def test_a_failed_tool_is_a_failed_action_with_the_tool_s_code_and_the_task_still_comes_back(env):
    async def main():
        ex, tasks, body, direct = env["ex"], env["tasks"], env["body"], env["direct"]
        body.hang.add("collect")
        task_id = add_task(tasks, "collect", "oak_log", 3)
        await ex.tick()
        body.fail["move_to"] = "no path"
        action = direct.start("move_to", {"x": 5, "y": 64, "z": 5})
        await _settle(action, 2000)
        assert action.status == "failed" and "no path" in action.error["message"]
        assert tasks.get_task(task_id).status is TaskStatus.pending
        assert not [t for t in tasks.list_by_status(TaskStatus.paused) if t.metadata.blockedReason == DIRECT]

    asyncio.run(main())


def test_only_the_newest_records_are_kept(env):
    async def main():
        direct = env["direct"]
        for _ in range(60):
            await _settle(direct.start("inventory", {}))
        assert len(direct.recent(100)) == 50

    asyncio.run(main())


def test_the_newest_tasks_and_the_counts_come_from_one_read_each(env):
    tasks, ftime = env["tasks"], env["ftime"]
    ids = []
    for i in range(5):
        ids.append(add_task(tasks, "collect", f"log_{i}", goal_key=False))
        ftime.clock.advance(1000)
    tasks.set_status(ids[0], TaskStatus.active)
    assert [t.id for t in tasks.newest(3)] == ids[::-1][:3]
    counts = tasks.counts_by_status()
    assert (
        counts["pending"] == 4
        and counts["active"] == 1
        and counts["failed"] == 0
        and set(counts) == {s.value for s in TaskStatus}
    )
