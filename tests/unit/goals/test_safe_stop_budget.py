"""The hold protocol (docs/contracts.md HOLD-1) in the running executor: Executor.preempt
measures the safe stop the workflow really made (the steps in flight when the stop came, which
it lets finish or cuts short; the time on the injected clock) and GoalRunHooks.hold, the
daemon's goal hooks, judges it against the 3-step / 5 s budget. Real store, runtime, workflow
engine and executor; scripted tools that take fake time."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agency.execution.agents import AbilityLibrary, AgentRegistry, AgentRuntime
from agency.execution.executor import Executor
from agency.execution.workflows import SqliteCheckpointStore
from agency.goals import BUILD_SHELTER, GoalLifecycle, assert_task_state, dump_binding, new_binding, read_binding
from agency.goals.run_hooks import GoalRunHooks
from agency.planning.tasks.models import NewTask, TaskStatus
from agency.planning.tasks.store import SqliteTaskStore
from agency.tools import ToolContext
from agency.tools.base import Tool
from agency.tools.registry import ToolRegistry
from agency.tools.testing import FakeBody, FakeTime
from tests.unit.conftest import WorkInput


async def _settle(ctx: ToolContext, p: WorkInput) -> dict[str, Any]:
    """A step that, once started, runs to its end without looking at the stop flag (like a
    placement the server already took), taking `ticks` x 100 ms of the injected clock.
    Nothing moves that clock before a stop; after it, the engine's grace loop does."""
    end = ctx.clock() + p.ticks * 100
    while ctx.clock() < end:
        await asyncio.sleep(0)
    return {"name": p.name}


def _work(sid: str, ticks: int) -> dict[str, Any]:
    return {"id": sid, "tool": "settle", "args": {"name": sid, "ticks": ticks}}


class Env:
    def __init__(self, tmp_path, workflow: dict[str, Any], *, stop_grace_s: float = 5.0) -> None:
        self.ftime = FakeTime()
        db = tmp_path / "h.db"
        self.tasks = SqliteTaskStore(
            db, clock=self.ftime.clock, dev_mode=True, strict_finalize=False, invariant_check=assert_task_state
        )
        self.hooks = GoalRunHooks(
            GoalLifecycle(self.tasks, clock=self.ftime.clock),
            lambda: FakeBody(self.ftime.clock),
            sleep=self.ftime.sleep,
        )
        tools = ToolRegistry()
        tools.register(Tool("settle", "a step that runs to its end", WorkInput, _settle, timeout_s=30))
        agents = AgentRegistry(AbilityLibrary())
        for agent_id, flows in (("standard", {}), ("builder", {"build": workflow})):
            agents.register(
                {
                    "id": agent_id,
                    "displayName": agent_id,
                    "description": agent_id,
                    "exampleTasks": [f"{agent_id} things"],
                    "workflows": flows,
                }
            )
        ctx = ToolContext(
            body=FakeBody(self.ftime.clock), clock=self.ftime.clock, sleep=self.ftime.sleep, poll_interval_s=0.1
        )
        self.checkpoints = SqliteCheckpointStore(db, clock=self.ftime.clock)
        runtime = AgentRuntime(agents, tools, ctx, checkpoints=self.checkpoints, stop_grace_s=stop_grace_s)
        self.ex = Executor(self.tasks, runtime, self.ftime.clock, goals=self.hooks)
        binding = new_binding(BUILD_SHELTER, {"n": 0}, (0, 64, 0), verifier="verify_shelter_v0", goal_id="g0")
        self.task_id = self.tasks.add_task(
            NewTask(
                title="build it",
                type="build",
                parameters={"target": "wall"},
                metadata={"goalBinding": dump_binding(binding)},
            )
        ).id

    def preempt(self, *, started: bool = True):
        """Claim the task, let its run start its steps (started=False: not even that),
        preempt it; the hold."""

        async def go() -> None:
            assert await self.ex.tick() == "claimed"
            for _ in range(20 if started else 0):
                await asyncio.sleep(0)  # the run starts its steps; no time passes
            assert await self.ex.preempt("preempted") == self.task_id

        asyncio.run(go())
        task = self.tasks.get_task(self.task_id)
        assert task.status is TaskStatus.paused
        return read_binding(task).hold

    def close(self) -> None:
        self.checkpoints.close()
        self.tasks.close()


@pytest.mark.parametrize(("in_flight", "verified"), [(3, True), (4, False)])
def test_a_stop_that_finishes_more_than_3_steps_is_over_the_step_budget(tmp_path, in_flight, verified):
    """The stop lands on a checkpoint boundary either way (every step in flight finished);
    it is trusted only if it took at most 3 steps."""
    steps = [_work(f"p{i}", ticks=3) for i in range(in_flight + 1)]
    env = Env(tmp_path, {"steps": steps, "parallel": {"maxConcurrency": in_flight}})
    try:
        hold = env.preempt()  # all `in_flight` steps started, none finished
        assert hold.holdWitness.verified is verified
        assert ("safe_stop_step_budget" in hold.resumeHints) is not verified
        done = env.checkpoints.history(env.checkpoints.latest_run_for_task(env.task_id).runId)
        assert len(done) == in_flight  # they really ran to their end after the stop
    finally:
        env.close()


@pytest.mark.parametrize(("step_s", "verified"), [(4.5, True), (6.0, False)])
def test_a_stop_that_takes_longer_than_5_s_is_over_the_time_budget(tmp_path, step_s, verified):
    """One step in flight, finished within the engine's grace (10 s here, 5 s in the daemon):
    at a checkpoint boundary, but trusted only if the stop took at most 5 s."""
    steps = [_work("long", ticks=round(step_s * 10)), _work("next", ticks=1)]
    env = Env(tmp_path, {"steps": steps}, stop_grace_s=10.0)
    try:
        hold = env.preempt()
        assert hold.holdWitness.verified is verified
        assert ("safe_stop_timeout" in hold.resumeHints) is not verified
    finally:
        env.close()


def test_a_stop_between_steps_uses_no_step_and_is_verified(tmp_path):
    env = Env(tmp_path, {"steps": [_work("a", ticks=0), _work("b", ticks=50)]})
    try:
        hold = env.preempt(started=False)  # claimed, the run not started: it stops before step a
        assert hold.holdWitness.verified is True and "conservative_rescan" not in hold.resumeHints
    finally:
        env.close()
