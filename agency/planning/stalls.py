"""The stall taxonomy of docs/contracts.md SOAK-2: why a non-terminal task is not moving."""

from __future__ import annotations

from typing import Any

from agency.planning.tasks.idempotency import STUCK_PENDING_TIMEOUT_MS, waits_its_turn
from agency.planning.tasks.models import Task, TaskStatus

EXECUTOR_STALE_MS = 60_000  # an executor that has not ticked for this long is unavailable

STALL_CLASSES = (
    "unplannable",
    "blocked_reason",
    "executor_unavailable",
    "goalKey_missing",
    "convertEligible_gate",
    "stuck_pending",
)


def classify_stall(
    task: Task,
    now_ms: int,
    executor_last_tick_ms: int | None,
    stuck_timeout_ms: int = STUCK_PENDING_TIMEOUT_MS,
    executor_busy_ms: int | None = None,
) -> str | None:
    """The stall class of a task, or None when it is terminal or moving normally.

    `stuck_pending` is "the executor sees the task but does not claim it": a task queued
    while the executor carries out another one (the bot has one body) is waiting its turn,
    so its clock starts when the executor was last busy (`executor_busy_ms`), not at
    creation. A long shelter build does not make the tasks behind it stalls, nor a task that
    gave way to work queued after it (GAVE_WAY: given back once that is done)."""
    if task.status.terminal or waits_its_turn(task):
        return None
    if task.status is TaskStatus.unplannable:
        return "unplannable"
    if task.metadata.blockedReason:
        return "blocked_reason"
    waiting = task.status in (TaskStatus.pending, TaskStatus.pending_planning)
    if waiting and (executor_last_tick_ms is None or now_ms - executor_last_tick_ms > EXECUTOR_STALE_MS):
        return "executor_unavailable"
    if not task.metadata.goalKey and task.source in ("autonomous", "drive-tick", "thought"):
        return "goalKey_missing"
    if task.metadata.convertEligible is False:
        return "convertEligible_gate"
    queued_since = max(task.metadata.createdAt, executor_busy_ms or 0)
    if waiting and task.progress == 0 and now_ms - queued_since >= stuck_timeout_ms:
        return "stuck_pending"
    return None


def stalled_tasks(
    tasks: list[Task],
    now_ms: int,
    executor_last_tick_ms: int | None,
    stuck_timeout_ms: int = STUCK_PENDING_TIMEOUT_MS,
    executor_busy_ms: int | None = None,
) -> list[dict[str, Any]]:
    out = []
    for t in tasks:
        cls = classify_stall(t, now_ms, executor_last_tick_ms, stuck_timeout_ms, executor_busy_ms)
        if cls is not None:
            out.append({"stallClass": cls, **t.model_dump(mode="json", exclude_none=True)})
    return out
