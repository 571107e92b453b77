"""What the executor hands around about one run: the run in flight, how a stopped run came
to rest, the goal side's hooks, the executor's counters, and how a run's end is read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from agency.execution.agents.follow_up_runs import parse_then
from agency.execution.agents.runtime import RunHandle, TaskSpec
from agency.execution.workflows.models import StopReport, WorkflowRunResult
from agency.planning.converter import DRIVE_TICK
from agency.planning.tasks.models import Task
from agency.tools.results import BODY_LOST, WAITS_FOR_MORNING, WAITS_FOR_SURFACE

DISCONNECTED = "disconnected"  # the hold reason of work the body's loss interrupted


@dataclass(frozen=True)
class SafeStop:
    """How a preempted run came to rest, as measured here: the goal hold protocol (E)
    judges it against its 3-step / 5 s budget."""

    report: StopReport | None  # where the workflow stopped; None: it did not end within the wait
    steps_used: int  # steps in flight when the stop came (each finished or was cut short)
    elapsed_ms: int  # from the stop signal to the run's end, on the injected clock
    timed_out: bool  # the run had not ended when the wait gave up


class GoalHooks(Protocol):
    """Goal-bound tasks (metadata.goalBinding) change status through the goal lifecycle,
    never by a plain set_status: completion needs the verifier, a pause needs a hold."""

    def owns(self, task: Task) -> bool: ...

    async def complete(self, task: Task, result: WorkflowRunResult) -> str: ...

    def hold(self, task: Task, reason: str, stop: SafeStop) -> Task: ...

    def release(self, task: Task) -> Task: ...

    def before_start(self, task: Task) -> bool: ...


@dataclass
class Running:
    task_id: str
    handle: RunHandle
    started_ms: int
    agent_id: str
    bridge_mark: int = 0  # where the bridge stood when the run started (BridgeWatch.mark)
    goal: tuple[str, str] = ("", "")  # the task's action and target, read without the store


@dataclass
class ExecutorStats:
    claimed: int = 0
    completed: int = 0
    failed: int = 0
    unplannable: int = 0
    paused: int = 0
    resumed: int = 0
    last_tick_ms: int | None = None
    last_busy_ms: int | None = None  # last tick with a run in flight: pending tasks were queued until then
    events: list[dict[str, Any]] = field(default_factory=list)  # recent lifecycle events


def stop_report(run: Running) -> StopReport | None:
    """Where the stopped workflow ended (None if it did not end within the budget)."""
    t = run.handle.task
    if not t.done() or t.cancelled() or t.exception() is not None:
        return None
    return t.result().stop


def completed_run(run: Running) -> WorkflowRunResult | None:
    """The run's result if it ended completed (a stop that came during a drive tick's
    follow-ups, or just as the goal's last step ended), else None."""
    t = run.handle.task
    if not t.done() or t.cancelled() or t.exception() is not None:
        return None
    result = t.result()
    return result if result.status == "completed" else None


def run_waits_for_morning(result: WorkflowRunResult) -> bool:
    return result.status == "failed" and any(e.code == WAITS_FOR_MORNING for e in result.errors)


def run_waits_for_surface(result: WorkflowRunResult) -> str | None:
    """Why the run waits for the bot to be up on the surface (WAITS_FOR_SURFACE), or None."""
    if result.status != "failed":
        return None
    return next((e.message for e in result.errors if e.code == WAITS_FOR_SURFACE), None)


def body_lost(result: WorkflowRunResult, body_ready: bool) -> bool:
    """Did the run end because the body went away? A tool met a lost body (BODY_LOST), or
    the run failed while the body is not connected (whatever error the loss surfaced as)."""
    if result.status != "failed":
        return False
    return not body_ready or any(e.code == BODY_LOST for e in result.errors)


def task_goal(task: Task) -> tuple[str, str]:
    spec = task_spec(task)
    return (spec.action, spec.target)


def task_spec(task: Task) -> TaskSpec:
    params = task.parameters or {}
    return TaskSpec(
        action=task.type,
        target=str(params.get("target", "")),
        amount=int(params.get("amount") or 1),
        id=task.id,
        to=str(params.get("to") or ""),
        then=parse_then(params.get("then")),
        drive=task.source == DRIVE_TICK,
    )
