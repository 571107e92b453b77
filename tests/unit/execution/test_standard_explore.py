"""`explore nearby` and `explore farther` through the shipped standard agent: the task's
target reaches the explore tool as its area, and the home the daemon hooks in (the bot's hut:
agency.places.home) bounds the first only."""

from __future__ import annotations

from dataclasses import replace

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.workflows import SqliteCheckpointStore
from agency.places.home import HOOK as HOME_HOOK
from agency.tools import ToolContext
from tests.unit.conftest import run


def test_the_standard_agent_bounds_an_explore_nearby_by_the_home_and_not_one_farther(
    ctx: ToolContext, store: SqliteCheckpointStore
) -> None:
    homed = replace(ctx, hooks={HOME_HOOK: lambda snap: (0.5, 0.5)})
    rt = AgentRuntime(load_default_registry(), default_tool_registry(), homed, checkpoints=store)
    near = run(rt.run_task(TaskSpec(action="explore", target="nearby", amount=1, id="task-near")))
    assert near.ok and near.agentId == "standard", near.errors
    assert near.outputs["walk"]["home"] == {"x": 0.5, "z": 0.5, "within": 64}
    far = run(rt.run_task(TaskSpec(action="explore", target="farther", amount=2, id="task-far")))
    assert far.ok, far.errors
    assert far.outputs["walk"]["home"] is None
