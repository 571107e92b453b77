"""Field ownership (docs/contracts.md FIELDS-1, FIELDS-2): the metadata patches that keep
mirrored fields in step, and the check that the illegal state combinations never reach the
store.

Owners: goalBinding.hold.reason -> mirrored in metadata.blockedReason;
goalBinding.hold.nextReviewAt -> mirrored in metadata.nextEligibleAt; Task.status ->
goalBinding.hold exists iff status is paused. Every goal-side status change goes through a
patch built here and is written with the status in one store transaction.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from agency.errors import AgencyError
from agency.goals.identity import is_anchored_key
from agency.goals.models import HOLD_MANUAL_PAUSE, GoalBinding, Hold, dump_binding, read_binding
from agency.planning.tasks.models import Task, TaskStatus


class IllegalGoalStateError(AgencyError, AssertionError):
    """A task state FIELDS-2 declares impossible. Subclasses AssertionError: it is a bug, not a
    condition to handle."""

    def __init__(self, task_id: str, violations: list[str]) -> None:
        super().__init__(f"task {task_id}: illegal goal state: {', '.join(violations)}")
        self.task_id = task_id
        self.violations = violations


def hold_patch(binding: GoalBinding, hold: Hold) -> dict[str, Any]:
    """On hold: blockedReason = hold.reason, nextEligibleAt = hold.nextReviewAt."""
    held = binding.model_copy(update={"hold": hold})
    return {"goalBinding": dump_binding(held), "blockedReason": hold.reason, "nextEligibleAt": hold.nextReviewAt}


def release_patch(binding: GoalBinding) -> dict[str, Any]:
    """On resume: clear hold, blockedReason and nextEligibleAt together; keep the witness
    so the resume planner can still see an unverified hold."""
    witness = binding.hold.holdWitness if binding.hold is not None else None
    released = binding.model_copy(update={"hold": None, "lastHoldWitness": witness or binding.lastHoldWitness})
    return {"goalBinding": dump_binding(released), "blockedReason": None, "nextEligibleAt": None}


def binding_patch(binding: GoalBinding) -> dict[str, Any]:
    return {"goalBinding": dump_binding(binding)}


def check_task_state(task: Task) -> list[str]:
    """Names of every FIELDS-2 violation in task (empty = legal). Tasks without a binding pass."""
    try:
        binding = read_binding(task)
    except ValidationError:
        return ["invalid_binding"]
    if binding is None:
        return []
    out: list[str] = []
    hold, meta, status = binding.hold, task.metadata, task.status
    if status is TaskStatus.paused and hold is None:
        out.append("paused_without_hold")
    if status is TaskStatus.active and hold is not None:
        out.append("active_with_hold")
    elif hold is not None and status is not TaskStatus.paused:
        out.append("hold_without_paused")
    if hold is not None and hold.reason == HOLD_MANUAL_PAUSE and meta.blockedReason != HOLD_MANUAL_PAUSE:
        out.append("manual_pause_blocked_reason_mismatch")
    elif hold is not None and meta.blockedReason != hold.reason:
        out.append("blocked_reason_mismatch")
    if hold is not None and meta.nextEligibleAt != hold.nextReviewAt:
        out.append("next_eligible_mismatch")
    if binding.completion.consecutivePasses >= 2 and status is not TaskStatus.completed:
        out.append("verified_but_not_completed")
    anchored = binding.anchors.siteSignature is not None or is_anchored_key(binding.goalKey)
    if anchored and (not binding.goalKeyAliases or binding.goalKey in binding.goalKeyAliases):
        out.append("anchored_without_alias")
    return out


def assert_task_state(task: Task) -> None:
    """The store's dev-mode invariant hook (SqliteTaskStore(invariant_check=...))."""
    violations = check_task_state(task)
    if violations:
        raise IllegalGoalStateError(task.id, violations)
