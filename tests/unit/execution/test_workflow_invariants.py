"""Workflow engine invariants (docs/contracts.md): order (WORKFLOW-1), checkpoints
(CHECKPOINT-1, CHECKPOINT-2) and parallel execution (PARALLEL-1..3), observed through
scripted tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agency.execution.workflows import (
    WORKFLOW_CYCLE,
    Checkpoint,
    CheckpointInvalid,
    SqliteCheckpointStore,
    WorkflowDef,
    WorkflowEngine,
)
from tests.unit.conftest import Probe, run


def wf(steps: list[dict[str, Any]], parallel: dict[str, Any] | None = None, wid: str = "test-flow") -> WorkflowDef:
    return WorkflowDef.model_validate({"id": wid, "steps": steps, "parallel": parallel})


def work(sid: str, ticks: int = 1, deps: list[str] | None = None, **args: Any) -> dict[str, Any]:
    return {"id": sid, "tool": "work", "args": {"name": sid, "ticks": ticks, **args}, "dependsOn": deps or []}


def test_INV_AGT_003_steps_run_in_array_order_one_at_a_time(
    make_engine: Callable[..., WorkflowEngine], probe: Probe
) -> None:
    # ids deliberately not alphabetical, no dependencies declared, slow first step
    flow = wf([work("zeta", ticks=5), work("alpha", ticks=0), work("mid", ticks=2), work("beta")])
    res = run(make_engine().run(flow, run_id="r1", agent_id="standard"))
    assert res.ok
    assert [e for e in probe.events if e.startswith("start")] == [
        "start:zeta",
        "start:alpha",
        "start:mid",
        "start:beta",
    ]
    assert probe.events == [
        "start:zeta",
        "end:zeta",
        "start:alpha",
        "end:alpha",
        "start:mid",
        "end:mid",
        "start:beta",
        "end:beta",
    ]
    assert probe.peak == 1
    assert [s.stepId for s in res.steps] == ["zeta", "alpha", "mid", "beta"]


def test_INV_CP_001_checkpoint_holds_everything_to_resume(
    make_engine: Callable[..., WorkflowEngine], store: SqliteCheckpointStore, probe: Probe
) -> None:
    flow = wf([work("one", value=1), work("two", value="${steps.one.value}"), work("three")])
    probe.fail_always.add("three")
    res = run(
        make_engine(store).run(
            flow, run_id="r-cp", agent_id="crafter", task={"action": "craft", "target": "x", "amount": 2}
        )
    )
    assert res.status == "failed"
    history = store.history("r-cp")
    # after each successful step only: the failed third step left no checkpoint
    assert [(c.stepIndex, c.completedStepId) for c in history] == [(0, "one"), (1, "two")]
    last = history[-1]
    assert last.stepOutputs == {"one": {"name": "one", "value": 1}, "two": {"name": "two", "value": 1}}
    assert last.context["task"] == {"action": "craft", "target": "x", "amount": 2}
    assert last.context["agentId"] == "crafter"
    assert last.memorySnapshot == {"done": ["one", "two"]}
    assert history[0].memorySnapshot == {"done": ["one"]}  # a snapshot, not a live reference
    # validated before save: a checkpoint naming the wrong step is refused
    bad = last.model_copy(update={"stepIndex": 0})
    with pytest.raises(CheckpointInvalid):
        store.save(bad, flow)
    with pytest.raises(ValueError):
        Checkpoint(
            runId="r",
            workflowId="w",
            stepIndex=0,
            completedStepId="one",
            stepOutputs={},
            context={},
            memorySnapshot={},
            createdAt=0,
        )
    assert len(store.history("r-cp")) == 2


def test_INV_CP_002_resume_starts_after_checkpoint(
    make_engine: Callable[..., WorkflowEngine], db_path: Any, ftime: Any, probe: Probe
) -> None:
    flow = wf([work("s1", value=41), work("s2"), work("s3"), work("s4", value="${steps.s1.value}"), work("s5")])
    probe.fail_once.add("s4")
    first_store = SqliteCheckpointStore(db_path, clock=ftime.clock)
    first = run(make_engine(first_store).run(flow, run_id="task-7", agent_id="standard", task_id="task-7"))
    first_store.close()
    assert first.status == "failed" and probe.calls == {"s1": 1, "s2": 1, "s3": 1, "s4": 1}

    # a fresh store on the same file stands for a new process
    second_store = SqliteCheckpointStore(db_path, clock=ftime.clock)
    assert second_store.latest_run_for_task("task-7").workflow == flow
    second = run(make_engine(second_store).run(flow, run_id="task-7", agent_id="standard", task_id="task-7"))
    assert second.ok and second.resumedFrom == 2
    assert probe.calls == {"s1": 1, "s2": 1, "s3": 1, "s4": 2, "s5": 1}  # s1..s3 never re-run
    assert [(s.stepId, s.status) for s in second.steps][:3] == [
        ("s1", "restored"),
        ("s2", "restored"),
        ("s3", "restored"),
    ]
    assert second.outputs["s4"]["value"] == 41  # dependency on a restored output satisfied
    assert second.outputs["s1"] == {"name": "s1", "value": 41}
    assert second_store.get_run("task-7").status == "completed"
    second_store.close()


def test_INV_PE_001_parallel_steps_respect_max_concurrency(
    make_engine: Callable[..., WorkflowEngine], probe: Probe
) -> None:
    flow = wf([work(f"p{i}", ticks=3) for i in range(6)], parallel={"maxConcurrency": 2})
    res = run(make_engine().run(flow, run_id="r", agent_id="standard"))
    assert res.ok and len(res.outputs) == 6
    assert probe.peak == 2  # really parallel, and never more than the limit
    wide = wf([work(f"w{i}", ticks=3) for i in range(6)], parallel={"maxConcurrency": 4})
    probe.peak = 0
    assert run(make_engine().run(wide, run_id="r2", agent_id="standard")).ok
    assert probe.peak == 4


def test_INV_PE_002_dependencies_wait_and_cycles_are_rejected(
    make_engine: Callable[..., WorkflowEngine], probe: Probe
) -> None:
    flow = wf(
        [
            work("slow", ticks=50),
            work("fast", ticks=1),
            work("after-fast", ticks=1, deps=["fast"]),
            work("join", deps=["slow", "after-fast"], value="${steps.after-fast.name}"),
        ],
        parallel={"maxConcurrency": 3},
    )
    res = run(make_engine().run(flow, run_id="r", agent_id="standard"))
    assert res.ok
    ev = probe.events
    assert ev.index("start:after-fast") > ev.index("end:fast")
    assert ev.index("start:after-fast") < ev.index("end:slow")  # a real DAG: not level by level
    assert ev.index("start:join") > max(ev.index("end:slow"), ev.index("end:after-fast"))
    assert res.outputs["join"]["value"] == "after-fast"

    probe.events.clear()
    cyclic = wf(
        [work("a", deps=["c"]), work("b", deps=["a"]), work("c", deps=["b"]), work("free")],
        parallel={"maxConcurrency": 2},
    )
    bad = run(make_engine().run(cyclic, run_id="r3", agent_id="standard"))
    assert bad.status == "failed" and bad.errors[0].code == WORKFLOW_CYCLE
    assert "a -> c -> b -> a" in bad.errors[0].message  # read: a waits for c, which waits for b...
    assert probe.events == []  # nothing ran, not even the independent step


def test_INV_PE_003_failure_strategies(make_engine: Callable[..., WorkflowEngine], probe: Probe) -> None:
    # failFast: the failure stops the running sibling and nothing new starts
    probe.fail_always.add("bad")
    ff = wf(
        [work("bad", ticks=1), work("long", ticks=20), work("later", deps=["bad"]), work("queued")],
        parallel={"maxConcurrency": 2, "strategy": "failFast"},
    )
    res = run(make_engine().run(ff, run_id="ff", agent_id="standard"))
    assert res.status == "failed"
    status = {s.stepId: s.status for s in res.steps}
    assert status["bad"] == "failed" and status["long"] == "cancelled"
    assert "later" not in probe.calls and "queued" not in probe.calls

    # continueOnError: independent work finishes, dependents of the failure never run
    probe.events.clear()
    probe.calls.clear()
    ce = wf(
        [
            work("bad"),
            work("ok1", ticks=3),
            work("child", deps=["bad"]),
            work("grandchild", deps=["child"]),
            work("ok2", deps=["ok1"]),
        ],
        parallel={"maxConcurrency": 2, "strategy": "continueOnError"},
    )
    res = run(make_engine().run(ce, run_id="ce", agent_id="standard"))
    status = {s.stepId: s.status for s in res.steps}
    assert res.status == "failed" and [e.code for e in res.errors] == ["BOOM"]
    assert status == {
        "bad": "failed",
        "ok1": "completed",
        "child": "skipped",
        "grandchild": "skipped",
        "ok2": "completed",
    }
    assert "child" not in probe.calls and "grandchild" not in probe.calls

    # rollback: completed steps compensated in reverse completion order
    probe.events.clear()
    rb = wf(
        [work("first"), work("second", deps=["first"]), work("third", deps=["second"]), work("bad", deps=["third"])],
        parallel={"maxConcurrency": 2, "strategy": "rollback"},
    )
    res = run(make_engine().run(rb, run_id="rb", agent_id="standard"))
    assert res.status == "failed"
    assert res.compensated == ["third", "second", "first"]
    assert [e for e in probe.events if e.startswith("undo")] == ["undo:third", "undo:second", "undo:first"]
