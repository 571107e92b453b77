"""A drive tick's follow-ups in the runtime (AgentRuntime.run_task over the fake block world):
done after the task's own goal, each for what is still short of its total; one that fails,
or a stop, ends them and the task's goal stands done; a task resumed after its goal's run
completed goes on with them without making its goal again."""

from __future__ import annotations

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.agents.follow_up_runs import parse_then
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.workflows import SqliteCheckpointStore
from agency.tools import ToolContext
from agency.tools.base import StopFlag
from agency.tools.testing import FakeBody
from tests.unit.conftest import run


def _runtime(ctx: ToolContext, store: SqliteCheckpointStore) -> AgentRuntime:
    return AgentRuntime(load_default_registry(), default_tool_registry(), ctx, checkpoints=store)


def test_the_follow_ups_are_made_after_the_goal_each_up_to_its_total(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 2})
    task = TaskSpec(
        action="craft", target="wooden_pickaxe", id="t1", then=(("craft", "stick", 6), ("craft", "wooden_sword", 1))
    )
    res = run(_runtime(ctx, store).run_task(task))
    assert res.ok, res.errors
    assert body.inventory["wooden_pickaxe"] == 1 and body.inventory["wooden_sword"] == 1
    assert body.inventory["stick"] >= 6 - 1  # the sticks' total held, then the sword took one


def test_a_follow_up_already_held_is_passed_over_and_one_that_fails_ends_them(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 6, "crafting_table": 1, "stick": 2, "torch": 16})
    task = TaskSpec(
        action="craft",
        target="wooden_pickaxe",
        id="t2",
        then=(("craft", "torch", 16), ("craft", "iron_sword", 1), ("craft", "wooden_sword", 1)),
    )
    res = run(_runtime(ctx, store).run_task(task))
    assert res.ok and res.status == "completed"  # the task's goal is done, whatever its follow-ups did
    assert body.inventory["wooden_pickaxe"] == 1 and body.inventory["torch"] == 16
    assert not body.inventory.get("iron_sword") and not body.inventory.get("wooden_sword")  # no iron: the rest wait


def test_a_stop_before_the_follow_ups_leaves_them_and_the_goal_done(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    rt = _runtime(ctx, store)
    stop = StopFlag()
    first = run(rt.run_task(TaskSpec(action="craft", target="wooden_pickaxe", id="t3"), stop=stop))
    assert first.ok
    stop.set("a hostile near")
    res = run(
        rt.run_task(
            TaskSpec(action="craft", target="wooden_pickaxe", id="t3", then=(("craft", "wooden_sword", 1),)), stop=stop
        )
    )
    assert res.ok  # resumed after its goal's run completed: not made again, the stop ends the follow-ups
    assert body.inventory["wooden_pickaxe"] == 1 and not body.inventory.get("wooden_sword")


def test_resumed_after_its_goal_ran_a_task_goes_on_with_its_follow_ups_without_making_its_goal_again(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    rt = _runtime(ctx, store)
    assert run(rt.run_task(TaskSpec(action="craft", target="wooden_pickaxe", id="t4"))).ok
    res = run(
        rt.run_task(TaskSpec(action="craft", target="wooden_pickaxe", id="t4", then=(("craft", "wooden_sword", 1),)))
    )
    assert res.ok
    assert body.inventory["wooden_pickaxe"] == 1 and body.inventory["wooden_sword"] == 1


def test_a_then_parameter_that_is_no_follow_up_is_left_out():
    raw = [
        {"action": "craft", "target": "torch", "total": 16},
        {"action": "hunt", "target": "sheep", "total": 1},
        {"action": "craft", "target": "", "total": 1},
        {"action": "craft", "target": "stick", "total": "4"},
        "craft torch",
    ]
    assert parse_then(raw) == (("craft", "torch", 16),)
    assert parse_then(None) == () and parse_then({"action": "craft"}) == ()


def test_follow_ups_give_way_to_work_waiting_in_the_queue(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    queue: list[str] = []
    task = TaskSpec(
        action="craft", target="wooden_pickaxe", id="t5", then=(("craft", "stick", 6), ("craft", "wooden_sword", 1))
    )

    def waiting() -> bool:
        if body.inventory.get("stick", 0) >= 6:
            queue.append("build basic_shelter")  # the next tick's shelter, queued while the sticks were made
        return bool(queue)

    assert run(_runtime(ctx, store).run_task(task, waiting=waiting)).ok
    assert body.inventory["stick"] >= 6 and not body.inventory.get("wooden_sword")
