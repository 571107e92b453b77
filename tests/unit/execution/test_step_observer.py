"""The workflow engine's on_step observer: step_started / step_finished / step_failed for
task runs, in order with their indices; never for delegated child runs; an observer that
raises never breaks the run; and through record_step the events land in the task's log."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from agency.execution.agents import AbilityLibrary, AgentRegistry, AgentRuntime, TaskSpec
from agency.execution.workflows import SqliteCheckpointStore, WorkflowDef
from agency.execution.workflows.engine import StepEvent, WorkflowEngine
from agency.execution.workflows.steps import StepExecutor
from agency.planning.tasks.events import record_step
from agency.planning.tasks.store import SqliteTaskStore
from agency.tools.base import ToolContext
from agency.tools.registry import ToolRegistry
from agency.tools.testing import FakeTime
from tests.unit.conftest import Probe, run


def wf(steps: list[dict[str, Any]], parallel: dict[str, Any] | None = None) -> WorkflowDef:
    return WorkflowDef.model_validate({"id": "observed", "steps": steps, "parallel": parallel})


def work(sid: str, ticks: int = 1) -> dict[str, Any]:
    return {"id": sid, "tool": "work", "args": {"name": sid, "ticks": ticks}}


def engine(tools: ToolRegistry, ctx: ToolContext, seen: list[StepEvent], checkpoints: Any = None) -> WorkflowEngine:
    return WorkflowEngine(StepExecutor(tools, ctx), checkpoints, on_step=seen.append)


def brief(events: list[StepEvent]) -> list[tuple[str, str, int]]:
    return [(e.kind, e.step_id, e.index) for e in events]


def test_sequential_steps_report_start_and_end_in_order(tools: ToolRegistry, ctx: ToolContext, probe: Probe) -> None:
    probe.fail_always.add("c")
    seen: list[StepEvent] = []
    res = run(
        engine(tools, ctx, seen).run(
            wf([work("a"), work("b"), work("c")]), run_id="r1", agent_id="standard", task_id="task-1"
        )
    )
    assert res.status == "failed"
    assert brief(seen) == [
        ("step_started", "a", 0),
        ("step_finished", "a", 0),
        ("step_started", "b", 1),
        ("step_finished", "b", 1),
        ("step_started", "c", 2),
        ("step_failed", "c", 2),
    ]
    assert {(e.run_id, e.task_id, e.total) for e in seen} == {("r1", "task-1", 3)}
    assert (seen[-1].error_code, seen[-1].error_message) == ("BOOM", "c failed")
    assert seen[1].error_code is None and seen[1].error_message is None


def test_a_run_without_a_task_id_reports_nothing(tools: ToolRegistry, ctx: ToolContext) -> None:
    seen: list[StepEvent] = []
    res = run(engine(tools, ctx, seen).run(wf([work("a")]), run_id="child", agent_id="standard"))
    assert res.ok and seen == []


def test_a_resumed_run_reports_only_the_steps_it_runs(
    tools: ToolRegistry, ctx: ToolContext, probe: Probe, store: SqliteCheckpointStore
) -> None:
    flow = wf([work("s1"), work("s2"), work("s3")])
    probe.fail_once.add("s2")
    first: list[StepEvent] = []
    run(engine(tools, ctx, first, store).run(flow, run_id="t-9", agent_id="standard", task_id="t-9"))
    again: list[StepEvent] = []
    res = run(engine(tools, ctx, again, store).run(flow, run_id="t-9", agent_id="standard", task_id="t-9"))
    assert res.ok and res.resumedFrom == 0
    assert brief(first)[-1] == ("step_failed", "s2", 1)
    assert brief(again) == [
        ("step_started", "s2", 1),
        ("step_finished", "s2", 1),
        ("step_started", "s3", 2),
        ("step_finished", "s3", 2),
    ]  # s1 restored: no event


def test_fail_fast_reports_the_failure_and_the_cancelled_sibling(
    tools: ToolRegistry, ctx: ToolContext, probe: Probe
) -> None:
    probe.fail_always.add("bad")
    seen: list[StepEvent] = []
    flow = wf([work("slow", ticks=20), work("bad", ticks=1), work("after")], parallel={"maxConcurrency": 2})
    res = run(engine(tools, ctx, seen).run(flow, run_id="r", agent_id="standard", task_id="task-2"))
    assert res.status == "failed"
    assert brief(seen)[:2] == [("step_started", "slow", 0), ("step_started", "bad", 1)]
    ends = {(e.kind, e.step_id, e.error_code) for e in seen[2:]}
    assert ends == {("step_failed", "bad", "BOOM"), ("step_failed", "slow", "CANCELLED")}
    assert "after" not in {e.step_id for e in seen}  # never started: no event


def test_an_observer_that_raises_never_breaks_the_run(
    tools: ToolRegistry, ctx: ToolContext, probe: Probe, logs: list[tuple[str, str]]
) -> None:
    calls: list[str] = []

    def broken(e: StepEvent) -> None:
        calls.append(e.kind)
        raise RuntimeError("log is down")

    eng = WorkflowEngine(StepExecutor(tools, ctx), on_step=broken)
    res = run(eng.run(wf([work("a"), work("b")]), run_id="r-broken", agent_id="standard", task_id="task-3"))
    assert res.ok and probe.calls == {"a": 1, "b": 1}
    assert calls == ["step_started", "step_finished", "step_started", "step_finished"]  # still asked each time
    warnings = [m for level, m in logs if level == "WARNING" and "step observer" in m]
    assert len(warnings) == 1 and "r-broken" in warnings[0] and "log is down" in warnings[0]


def test_the_runtime_reports_task_steps_into_the_store_and_skips_delegated_ones(
    tools: ToolRegistry, ctx: ToolContext, ftime: FakeTime, tmp_path: Any
) -> None:
    reg = AgentRegistry(AbilityLibrary())
    reg.register(
        {
            "id": "standard",
            "displayName": "standard",
            "description": "test agent",
            "exampleTasks": ["explore things"],
            "workflows": {"explore": {"steps": [work("noop")]}},
        }
    )
    reg.register(
        {
            "id": "boss",
            "displayName": "boss",
            "description": "test agent",
            "exampleTasks": ["relay things"],
            "workflows": {
                "relay": {
                    "steps": [
                        work("prep"),
                        {"id": "pass-on", "kind": "delegate", "agent": "helper", "task": {"action": "relay"}},
                    ]
                }
            },
        }
    )
    reg.register(
        {
            "id": "helper",
            "displayName": "helper",
            "description": "test agent",
            "exampleTasks": ["relay things"],
            "workflows": {"relay": {"steps": [work("leaf")]}},
        }
    )
    tasks = SqliteTaskStore(tmp_path / "tasks.db", clock=ftime.clock, dev_mode=False)
    try:
        t = tasks.add_task({"title": "relay", "type": "relay"})
        rt = AgentRuntime(reg, tools, ctx, on_step=record_step(tasks))
        res = run(rt.run_task(TaskSpec(action="relay", id=t.id), agent_id="boss"))
        assert res.ok, res.errors
        evs = tasks.events(t.id)
        assert [(e.event, e.data.get("stepId"), e.data.get("index")) for e in evs] == [
            ("created", None, None),
            ("step_started", "prep", 0),
            ("step_finished", "prep", 0),
            ("step_started", "pass-on", 1),
            ("step_finished", "pass-on", 1),  # the helper's "leaf" is not here
        ]
        assert all(e.data["runId"] == t.id and e.data["total"] == 2 for e in evs[1:])
    finally:
        tasks.close()


def test_a_run_cancelled_with_a_step_in_flight_closes_that_step(tools: ToolRegistry, ctx: ToolContext) -> None:
    seen: list[StepEvent] = []

    async def go() -> None:
        task = asyncio.ensure_future(
            engine(tools, ctx, seen).run(
                wf([work("long", ticks=1000)]), run_id="r", agent_id="standard", task_id="task-3"
            )
        )
        while not seen:  # the step has started
            await asyncio.sleep(0)
        task.cancel()  # e.g. a shutdown whose safe stop ran out of time
        with contextlib.suppress(asyncio.CancelledError):
            await task

    run(go())
    assert [(e.kind, e.step_id, e.error_code) for e in seen] == [
        ("step_started", "long", None),
        ("step_failed", "long", "CANCELLED"),
    ]
