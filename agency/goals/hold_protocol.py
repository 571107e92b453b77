"""Hold protocol (docs/contracts.md HOLD-1, HOLD-2): preempt a building task within 3 steps
/ 5 s, always leave a hold witness, and plan a conservative resume when the witness is
unverified.

The running daemon's stop is the executor's (Executor.preempt stops the workflow, waits up
to 5 s and measures what the stop cost: steps in flight, time on the injected clock); its
goal hooks hand that to hold_after_stop. preempt() does the same around a SafeStopper.
An overrun of either budget, an exception or a stop away from a checkpoint is unverified.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agency.goals.lifecycle import GoalLifecycle
from agency.goals.models import HOLD_PREEMPTED, GoalBinding, HoldWitness
from agency.planning.tasks.models import Task

MAX_SAFE_STOP_STEPS = 3
SAFE_STOP_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class SafeStopResult:
    at_checkpoint: bool  # stopped on a checkpoint boundary (checkpoint written)
    last_step_id: str | None
    module_cursor: int | None
    completed: bool  # the stop finished inside its budget; False = timed out
    steps_used: int = 0
    checkpoint: dict[str, Any] | None = None


class SafeStopper(Protocol):
    def safe_stop(
        self, max_steps: int = MAX_SAFE_STOP_STEPS, timeout_s: float = SAFE_STOP_TIMEOUT_S
    ) -> SafeStopResult: ...


@dataclass
class HoldOutcome:
    task: Task
    witness: HoldWitness
    elapsed_ms: int
    stop: SafeStopResult | None  # None: the safe stop raised


def preempt(
    lifecycle: GoalLifecycle,
    task_id: str,
    stopper: SafeStopper,
    *,
    reason: str = HOLD_PREEMPTED,
) -> HoldOutcome:
    """Signal + safe stop, timed on the lifecycle's clock, then hold_after_stop."""
    started = lifecycle.clock()
    try:
        stop: SafeStopResult | None = stopper.safe_stop(max_steps=MAX_SAFE_STOP_STEPS, timeout_s=SAFE_STOP_TIMEOUT_S)
    except Exception:  # noqa: BLE001 - an emergency hold must still be written
        stop = None
    return hold_after_stop(lifecycle, task_id, stop, lifecycle.clock() - started, reason=reason)


def hold_after_stop(
    lifecycle: GoalLifecycle,
    task_id: str,
    stop: SafeStopResult | None,
    elapsed_ms: int,
    *,
    reason: str = HOLD_PREEMPTED,
) -> HoldOutcome:
    """Judge a safe stop that already happened (None: it failed) against the budget, then
    hold (active -> paused, Goal -> SUSPENDED via the reducer). The witness is verified only
    for a stop on a checkpoint boundary within 3 steps and 5 s; the minimum witness
    {lastStepId, moduleCursor, verified} is written whatever happened."""
    task, _binding = lifecycle.load(task_id)
    in_time = stop is not None and stop.completed and elapsed_ms <= SAFE_STOP_TIMEOUT_S * 1000
    in_steps = stop is not None and stop.steps_used <= MAX_SAFE_STOP_STEPS
    verified = bool(in_time and in_steps and stop is not None and stop.at_checkpoint)
    build = task.metadata.build or {}
    cursor = stop.module_cursor if stop is not None and stop.module_cursor is not None else build.get("moduleCursor")
    witness = HoldWitness(
        lastStepId=stop.last_step_id if stop is not None else build.get("lastStepId"),
        moduleCursor=cursor,
        verified=verified,
    )
    if verified:
        hints = [f"resume_from_module:{cursor}" if cursor is not None else "resume_from_checkpoint"]
    else:
        hints = ["conservative_rescan"] + ([f"verify_module:{cursor - 1}"] if cursor else [])
        if stop is None:
            hints.append("safe_stop_failed")
        else:
            hints += ([] if in_time else ["safe_stop_timeout"]) + ([] if in_steps else ["safe_stop_step_budget"])
    held = lifecycle.hold(task_id, reason, resume_hints=hints, witness=witness)
    return HoldOutcome(task=held, witness=witness, elapsed_ms=elapsed_ms, stop=stop)


@dataclass(frozen=True)
class ResumePlan:
    conservative: bool  # unverified hold: rescan module witnesses, trust nothing in flight
    start_module: int  # where building continues if every check below passes
    verify_first: list[int] = field(default_factory=list)  # modules to re-verify before continuing


def plan_resume(binding: GoalBinding, *, module_cursor: int | None = None) -> ResumePlan:
    """From the hold witness (or the one kept after resume). A verified witness resumes at
    its cursor; an unverified one must re-verify module N-1 before continuing at N."""
    witness = binding.hold.holdWitness if binding.hold is not None else binding.lastHoldWitness
    cursor = witness.moduleCursor if witness is not None and witness.moduleCursor is not None else module_cursor or 0
    if witness is None or witness.verified:
        return ResumePlan(conservative=False, start_module=cursor)
    return ResumePlan(conservative=True, start_module=cursor, verify_first=[cursor - 1] if cursor > 0 else [])


def resume_module(plan: ResumePlan, verify_module: Callable[[int], bool]) -> int:
    """Run the plan's checks: the first module that fails is where building restarts
    (repair); all passing -> plan.start_module."""
    for module in plan.verify_first:
        if not verify_module(module):
            return module
    return plan.start_module
