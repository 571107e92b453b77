"""Delegation limits (docs/contracts.md DELEGATE-1, DELEGATE-2), safe stop, and prompt steps
without an LLM."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from loguru import logger

from agency.execution.agents import AbilityLibrary, AgentRegistry, AgentRuntime, TaskSpec
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.workflows import (
    CIRCULAR_DELEGATION,
    DELEGATION_DEPTH_EXCEEDED,
    NO_PROMPT_RUNNER,
    DelegationChain,
    SqliteCheckpointStore,
    WorkflowDef,
)
from agency.tools.base import StopFlag, Tool, ToolContext, ToolInput
from agency.tools.registry import ToolRegistry
from agency.tools.testing import FakeBody
from tests.unit.conftest import Probe, run


def profile(agent_id: str, steps: list[dict[str, Any]], action: str = "relay", **extra: Any) -> dict[str, Any]:
    base = {
        "id": agent_id,
        "displayName": agent_id,
        "description": "test agent",
        "exampleTasks": [f"{action} things"],
        "workflows": {action: {"steps": steps}},
    }
    base.update(extra)
    return base


def delegate_to(target: str) -> dict[str, Any]:
    return {
        "id": "pass-on",
        "kind": "delegate",
        "agent": target,
        "task": {"action": "relay", "target": "${task.target}"},
    }


def chain_registry(ids: list[str], *, loop_back_to: str | None = None) -> AgentRegistry:
    reg = AgentRegistry(AbilityLibrary())
    reg.register(profile("standard", [{"id": "noop", "tool": "work", "args": {"name": "standard"}}], action="explore"))
    for i, aid in enumerate(ids):
        if i + 1 < len(ids):
            steps = [delegate_to(ids[i + 1])]
        elif loop_back_to:
            steps = [delegate_to(loop_back_to)]
        else:
            steps = [{"id": "leaf", "tool": "work", "args": {"name": aid, "value": "${task.target}"}}]
        reg.register(profile(aid, steps))
    return reg


def test_INV_DT_001_delegation_blocked_beyond_max_depth(tools: ToolRegistry, ctx: ToolContext, probe: Probe) -> None:
    chain = DelegationChain(("a", "b", "c", "d", "e", "f"))
    assert chain.depth == 5 and chain.max_depth == 5 and chain.can_delegate() is False
    assert DelegationChain(("a", "b")).can_delegate() is True

    ok_ids = [f"agent-{i}" for i in range(6)]  # 5 delegations: depth 5 is allowed
    rt = AgentRuntime(chain_registry(ok_ids), tools, ctx)
    res = run(rt.run_task(TaskSpec(action="relay", target="gold"), agent_id="agent-0"))
    assert res.ok, res.errors
    assert probe.calls == {"agent-5": 1}

    too_deep = [f"agent-{i}" for i in range(7)]  # the 6th delegation is refused
    probe.calls.clear()
    rt = AgentRuntime(chain_registry(too_deep), tools, ctx)
    res = run(rt.run_task(TaskSpec(action="relay", target="gold"), agent_id="agent-0"))  # returns, never raises
    assert res.status == "failed"
    assert res.errors[0].code == DELEGATION_DEPTH_EXCEEDED
    assert "maxDepth 5" in res.errors[0].message and "agent-6" in res.errors[0].message
    assert probe.calls == {}  # the leaf never ran


@pytest.mark.parametrize("length", [1, 2, 3, 5])
def test_INV_DT_002_circular_delegation_detected_at_any_depth(
    tools: ToolRegistry, ctx: ToolContext, probe: Probe, length: int
) -> None:
    ids = [f"loop-{i}" for i in range(length)]
    rt = AgentRuntime(chain_registry(ids, loop_back_to=ids[0]), tools, ctx)
    res = run(rt.run_task(TaskSpec(action="relay", target="x"), agent_id=ids[0]))
    assert res.status == "failed"
    assert res.errors[0].code == CIRCULAR_DELEGATION
    assert " -> ".join([*ids, ids[0]]) in res.errors[0].message
    assert DelegationChain(tuple(ids)).is_in_chain(ids[-1])
    assert DelegationChain(tuple(ids)).check(ids[0]).code == CIRCULAR_DELEGATION
    # a mid-chain ancestor is refused too, not only the root
    if length >= 3:
        assert DelegationChain(tuple(ids)).check(ids[1]).code == CIRCULAR_DELEGATION


def test_stop_cancels_current_tool_and_reports_position(
    tools: ToolRegistry, ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    real = default_tool_registry()
    body.hang.add("move_to")
    reg = AgentRegistry(AbilityLibrary())
    reg.register(
        profile(
            "standard",
            [
                {"id": "hello", "tool": "chat", "args": {"message": "on my way"}},
                {"id": "look", "tool": "inventory"},
                {"id": "walk", "tool": "move_to", "args": {"x": 9, "y": 64, "z": 9}},
                {"id": "bye", "tool": "chat", "args": {"message": "arrived"}},
            ],
            action="go",
        )
    )
    rt = AgentRuntime(reg, real, ctx, checkpoints=store, stop_grace_s=2)

    async def go() -> Any:
        handle = rt.start_task(TaskSpec(action="go", id="t-stop"))
        while not body.started:
            await asyncio.sleep(0)
        handle.stop("hold requested")
        return await handle.result()

    res = run(go())
    assert res.status == "stopped"
    assert res.stop.stepIndex == 1 and res.stop.lastStepId == "look"
    assert res.stop.atCheckpointBoundary is False and res.stop.interruptedStepId == "walk"
    assert res.stop.reason == "hold requested"
    assert body.cancelled == ["a1"] and body.said == ["on my way"]
    assert store.get_run("t-stop").status == "stopped"

    # a stop between steps ends at a checkpoint boundary; the resume redoes only 'walk'
    body.hang.clear()
    flag = StopFlag()
    res2 = run(rt.run_task(TaskSpec(action="go", id="t-stop"), stop=flag))
    assert res2.ok and res2.resumedFrom == 1 and body.said == ["on my way", "arrived"]
    flag2 = StopFlag()
    flag2.set("before anything")
    res3 = run(rt.run_task(TaskSpec(action="go", id="t-other"), stop=flag2))
    assert res3.status == "stopped" and res3.stop.atCheckpointBoundary is True and res3.stop.stepIndex == -1


def test_stop_grace_cancels_a_tool_that_ignores_the_flag(tools: ToolRegistry, ctx: ToolContext, probe: Probe) -> None:
    class Nothing(ToolInput):
        pass

    forever = asyncio.Event

    async def stubborn(_ctx: ToolContext, _p: Nothing) -> dict[str, Any]:
        probe.events.append("stubborn")
        await forever().wait()  # never checks ctx.stop
        return {}

    tools.register(Tool("stubborn", "ignores stop", Nothing, stubborn, timeout_s=3600))
    reg = AgentRegistry(AbilityLibrary())
    reg.register(profile("standard", [{"id": "s", "tool": "stubborn"}], action="hang"))
    rt = AgentRuntime(reg, tools, ctx, stop_grace_s=1)

    async def go() -> Any:
        handle = rt.start_task(TaskSpec(action="hang"))
        while not probe.events:
            await asyncio.sleep(0)
        handle.stop()
        return await handle.result()

    res = run(go())
    assert res.status == "stopped" and res.stop.interruptedStepId == "s"


def test_prompt_step_without_runner_fails_clearly(tools: ToolRegistry, ctx: ToolContext) -> None:
    reg = AgentRegistry(AbilityLibrary())
    reg.register(profile("standard", [{"id": "think", "kind": "prompt", "prompt": "what next?"}], action="think"))
    res = run(AgentRuntime(reg, tools, ctx).run_task(TaskSpec(action="think")))
    assert res.status == "failed" and res.errors[0].code == NO_PROMPT_RUNNER
    assert "no PromptRunner is configured" in res.errors[0].message


def test_workflow_with_unknown_tool_fails_gracefully(make_engine: Any) -> None:
    flow = WorkflowDef.model_validate({"id": "w", "steps": [{"id": "x", "tool": "levitate"}]})
    res = run(make_engine().run(flow, run_id="r", agent_id="standard"))
    assert res.status == "failed" and res.errors[0].code == "TOOL_NOT_FOUND" and "levitate" in res.errors[0].message


def test_a_resumed_child_that_no_longer_fits_the_world_is_planned_afresh(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    """A pause cut the child's placing of its table after the table went down, before the
    step's checkpoint: the resumed child finds no table to place. It is planned once more
    (it makes another and places that), and the parent's task goes on instead of failing."""
    body.inventory["oak_planks"] = 8
    body.hang.add("place")
    reg = AgentRegistry(AbilityLibrary())
    reg.register(profile("standard", [{"id": "look", "tool": "inventory"}], action="explore"))
    get_table = {"id": "get-table", "kind": "delegate", "agent": "maker", "task": {"action": "make"}}
    reg.register(profile("boss", [get_table]))
    make = [
        {"id": "craft", "tool": "craft", "args": {"item": "crafting_table"}},
        {"id": "put", "tool": "place_block", "args": {"block": "crafting_table"}},
    ]
    reg.register(profile("maker", make, action="make"))
    rt = AgentRuntime(reg, default_tool_registry(), ctx, checkpoints=store, stop_grace_s=2)

    async def pause_mid_place() -> Any:
        handle = rt.start_task(TaskSpec(action="relay", id="t-table"), agent_id="boss")
        while not any(kind == "place" for kind, _ in body.started):
            await asyncio.sleep(0)
        handle.stop("manual_pause")
        return await handle.result()

    assert run(pause_mid_place()).status == "stopped"
    body.hang.clear()
    body.inventory["crafting_table"] -= 1  # it went down as the pause cut the step
    body.blocks[(5, 64, 5)] = "crafting_table"
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="WARNING")
    try:
        res = run(rt.run_task(TaskSpec(action="relay", id="t-table")))
    finally:
        logger.remove(sink)
    assert res.ok, res.errors
    assert res.resumedFrom is None  # the parent had no step done: only the child resumed
    tables = [pos for pos, name in body.blocks.items() if name == "crafting_table"]
    assert len(tables) == 2 and body.inventory["oak_planks"] == 0  # a second table made and placed
    assert any("resumed child run=t-table/get-table no longer fits the world" in line for line in lines), lines
