"""Task lifecycle events: what a watcher of one task sees, in order.

The store appends an event in the same transaction as the change it describes (so the log
never disagrees with the task row), numbered by one global `seq`. Status changes map to
an event kind here, in status_event, and nowhere else. Step events come from the workflow
engine through record_step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel, Field

from agency.planning.tasks.models import Task, TaskStatus

CREATED = "created"
CLAIMED = "claimed"  # pending|pending_planning -> active
HELD = "held"  # active|pending|pending_planning -> paused
RESUMED = "resumed"  # paused|unplannable -> pending
REQUEUED = "requeued"  # active -> pending|pending_planning; pending_planning -> pending
PLANNING = "planning"  # pending -> pending_planning
COMPLETED = "completed"
FAILED = "failed"
UNPLANNABLE = "unplannable"
REOPENED = "reopened"  # completed -> active (goal binding's verifier)
PROGRESS = "progress"
BRIDGE_DOWN = "bridge_down"  # the bridge went down during the task's run (poison.py); no status change of its own
STEP_STARTED = "step_started"
STEP_FINISHED = "step_finished"
STEP_FAILED = "step_failed"
REPLANNED = "replanned"  # a failed step's task planned afresh from what the bot holds (agency/execution/replans.py)

STATUS_EVENTS = frozenset(
    {CREATED, CLAIMED, HELD, RESUMED, REQUEUED, PLANNING, COMPLETED, FAILED, UNPLANNABLE, REOPENED}
)
STEP_EVENTS = frozenset({STEP_STARTED, STEP_FINISHED, STEP_FAILED})
RUN_EVENTS = STEP_EVENTS | {REPLANNED}  # what the running side records itself (record_event)
EVENT_KINDS = STATUS_EVENTS | RUN_EVENTS | {PROGRESS, BRIDGE_DOWN}
TERMINAL_EVENTS = frozenset({COMPLETED, FAILED})

S = TaskStatus


class TaskEvent(BaseModel):
    seq: int  # global and increasing: a watcher resumes with after_seq
    taskId: str
    at: int  # ms, the store's clock
    event: str
    status: str  # the task's status right after the event
    progress: float  # the task's progress right after the event
    data: dict[str, Any] = Field(default_factory=dict)


def _reason(*candidates: Any) -> dict[str, Any]:
    reason = next((c for c in candidates if isinstance(c, str) and c), None)
    return {"reason": reason} if reason else {}


def status_event(before: Task | None, after: Task) -> tuple[str, dict[str, Any]] | None:
    """The event a write from `before` (None: the task is new) to `after` makes, or None
    when nothing a watcher follows changed. Every legal transition maps to a kind; a paused
    task whose hold reason changes (a user's pause over a reflex's hold) is `held` again."""
    meta = after.metadata
    if before is None:
        return CREATED, {"origin": meta.origin.kind if meta.origin else None, "goalKey": meta.goalKey}
    frm, to = before.status, after.status
    if frm == to:
        reason = after.metadata.blockedReason
        if to == S.paused and reason and reason != before.metadata.blockedReason:
            return HELD, {"from": frm.value, "reason": reason}  # held anew (e.g. a user's pause)
        return None
    data: dict[str, Any] = {"from": frm.value}
    if to == S.completed:
        return COMPLETED, data
    if to == S.failed:
        return FAILED, {**data, **_reason(meta.solver.get("failureReason"), meta.blockedReason)}
    if to == S.unplannable:
        return UNPLANNABLE, {**data, **_reason(meta.blockedReason)}
    if to == S.paused:
        return HELD, {**data, **_reason(meta.blockedReason)}
    if to == S.active:
        return (REOPENED if frm == S.completed else CLAIMED), data
    if to == S.pending:
        return (RESUMED if frm in (S.paused, S.unplannable) else REQUEUED), data
    # pending_planning: planning when it leaves the queue, a requeue when work gave it back
    return (PLANNING if frm == S.pending else REQUEUED), data


CANCELLED_REASON = "cancelled by the user"


def cancelled_patch(task: Task) -> dict[str, Any]:
    """The metadata patch for a user's cancel (set_status(failed, metadata_patch=...)), so
    its `failed` event says why. solver is merged, not replaced: a patch swaps the whole dict."""
    return {"solver": {**task.metadata.solver, "failureReason": CANCELLED_REASON}}


class StepEventLike(Protocol):
    """The workflow engine's StepEvent, by shape: tasks sit below workflows and import
    nothing from them. Read-only, as a frozen dataclass's fields are."""

    @property
    def kind(self) -> str: ...

    @property
    def run_id(self) -> str: ...

    @property
    def task_id(self) -> str: ...

    @property
    def step_id(self) -> str: ...

    @property
    def index(self) -> int: ...

    @property
    def total(self) -> int: ...

    @property
    def error_code(self) -> str | None: ...

    @property
    def error_message(self) -> str | None: ...


class _RecordsEvents(Protocol):
    def record_event(self, task_id: str, event: str, data: dict[str, Any] | None = None) -> TaskEvent: ...


def step_event_data(e: StepEventLike) -> dict[str, Any]:
    data: dict[str, Any] = {"runId": e.run_id, "stepId": e.step_id, "index": e.index, "total": e.total}
    if e.error_code is not None or e.error_message is not None:
        data["error"] = {"code": e.error_code, "message": e.error_message}
    return data


def record_step(store: _RecordsEvents) -> Callable[[StepEventLike], None]:
    """The engine's on_step observer that writes each step event to the task's log."""

    def observe(e: StepEventLike) -> None:
        store.record_event(e.task_id, e.kind, step_event_data(e))

    return observe
