"""Task model, metadata allowlist and the status transition table (docs/contracts.md
TASK-1..5).

Task JSON is camelCase (served and stored as is). TaskMetadata forbids unknown keys: it is
the Python stand-in for the TypeScript `keyof Task['metadata']` type, and the module-level
check below plays the part of `satisfies`, failing at import if an allowlisted key is
missing from the model.
"""

from __future__ import annotations

import math
import uuid
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agency.errors import AgencyError
from agency.goal_tag import ExtractedGoal


class TaskStatus(str, Enum):
    pending = "pending"
    pending_planning = "pending_planning"
    active = "active"
    completed = "completed"
    failed = "failed"
    paused = "paused"
    unplannable = "unplannable"

    @property
    def terminal(self) -> bool:
        return self in (TaskStatus.completed, TaskStatus.failed)


S = TaskStatus
# Every legal status change. Anything else raises IllegalTransitionError.
TRANSITIONS: dict[TaskStatus, frozenset[TaskStatus]] = {
    S.pending: frozenset({S.pending_planning, S.active, S.paused, S.failed, S.unplannable, S.completed}),
    S.pending_planning: frozenset({S.pending, S.active, S.paused, S.failed, S.unplannable}),
    # active -> unplannable: a claimed task no agent can carry out (claims are atomic, the
    # routing check comes after).
    S.active: frozenset({S.completed, S.failed, S.paused, S.pending, S.pending_planning, S.unplannable}),
    S.paused: frozenset({S.pending, S.failed}),  # resume / cancel
    S.unplannable: frozenset({S.pending, S.failed}),  # a plan route appeared / give up
    # Goal binding's verifier re-opens a completed task whose result regressed.
    S.completed: frozenset({S.active}),
    S.failed: frozenset(),
}


class TaskStoreError(AgencyError):
    """Base for task store errors."""


class TaskNotFoundError(TaskStoreError, KeyError):
    def __init__(self, task_id: str) -> None:
        super().__init__(task_id)
        self.task_id = task_id

    def __str__(self) -> str:
        return f"no task with id {self.task_id!r}"


class IllegalTransitionError(TaskStoreError):
    def __init__(self, task_id: str, from_status: TaskStatus, to_status: TaskStatus) -> None:
        super().__init__(f"task {task_id}: illegal status transition {from_status.value} -> {to_status.value}")
        self.task_id = task_id
        self.from_status = from_status
        self.to_status = to_status


class StaleStatusError(IllegalTransitionError):
    """A status change conditional on the status the caller read, which the task has left."""

    def __init__(self, task_id: str, expected: TaskStatus, found: TaskStatus, to_status: TaskStatus) -> None:
        TaskStoreError.__init__(
            self, f"task {task_id}: is {found.value}, not {expected.value} as read: not moved to {to_status.value}"
        )
        self.task_id, self.from_status, self.to_status, self.expected = task_id, found, to_status, expected


class InvalidProgressError(TaskStoreError, ValueError):
    def __init__(self, task_id: str, progress: float) -> None:
        super().__init__(f"task {task_id}: progress must be within 0..1, got {progress!r}")
        self.task_id = task_id
        self.progress = progress


class TaskOrigin(BaseModel):
    """Who created a task. Stamped once by finalize_new_task, immutable afterwards."""

    model_config = ConfigDict(frozen=True)

    kind: str  # 'drive-tick', 'thought', 'goal', 'manual', 'system'
    sourceId: str | None = None  # e.g. the thought id
    parentTaskId: str | None = None
    stampedAt: int | None = None  # filled by the store
    by: str | None = None  # who asked, for a user's goal: "chat:Steve", "dashboard" (GoalRequest.by)


def _no_empty_key(v: Any) -> Any:
    return v or None


class BridgeDown(BaseModel):
    """One time the bridge went down (its node process died, or was killed as wedged) while
    the task's run was in flight. Written by record_bridge_down only (agency/planning/tasks/poison.py)."""

    model_config = ConfigDict(frozen=True)

    at: int  # ms, the store's clock
    reason: str  # the bridge's word: 'node process exited (code -9)', 'wedged: ...'


class TaskMetadata(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # rebuilt by add_task
    createdAt: int
    updatedAt: int
    retryCount: int = Field(default=0, ge=0)
    maxRetries: int = Field(default=3, ge=0)
    childTaskIds: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    category: str = ""
    solver: dict[str, Any] = Field(default_factory=dict)
    # propagated from the caller when allowlisted
    goalKey: str | None = None
    sourceThoughtId: str | None = None
    extractedGoal: ExtractedGoal | None = None
    extractedGoalSource: str | None = None
    convertEligible: bool | None = None
    parentTaskId: str | None = None
    blockedReason: str | None = None
    nextEligibleAt: int | None = None
    goalBinding: dict[str, Any] | None = None
    build: dict[str, Any] | None = None
    bot: str | None = None  # the bot the task is bound to; None: any bot may take it
    # stamped by finalize_new_task only
    origin: TaskOrigin | None = None
    # stamped by claim_next only: the bot working on it (rule in agency/planning/tasks/store.py)
    heldBy: str | None = None
    # appended by record_bridge_down only: counts toward failing a poison task (poison.py)
    bridgeDowns: list[BridgeDown] | None = None

    @field_validator("goalKey", "bot", mode="before")
    @classmethod
    def _empty_key_is_absent(cls, v: Any) -> Any:
        return _no_empty_key(v)  # TASK-3; a bot named '' is no bot


PROPAGATED_META_KEYS: tuple[str, ...] = (
    "goalKey",
    "sourceThoughtId",
    "extractedGoal",
    "extractedGoalSource",
    "convertEligible",
    "parentTaskId",
    "blockedReason",
    "nextEligibleAt",
    "goalBinding",
    "build",
    "bot",
)
REBUILT_META_KEYS: tuple[str, ...] = (
    "createdAt",
    "updatedAt",
    "retryCount",
    "maxRetries",
    "childTaskIds",
    "tags",
    "category",
    "solver",
)

_missing = (set(PROPAGATED_META_KEYS) | set(REBUILT_META_KEYS)) - set(TaskMetadata.model_fields)
if _missing:  # the `satisfies keyof` check: an allowlisted key must exist on the model
    raise TypeError(f"PROPAGATED/REBUILT_META_KEYS name fields TaskMetadata lacks: {sorted(_missing)}")


def _unit_interval(v: float) -> float:
    if isinstance(v, (int, float)) and not math.isnan(v) and 0 <= v <= 1:
        return v
    raise ValueError(f"must be within 0..1, got {v!r}")


class NewTask(BaseModel):
    """What a caller hands to add_task. metadata is raw: add_task projects it."""

    title: str = Field(min_length=1)
    type: str = Field(min_length=1)  # the action: collect, craft, build, ...
    description: str = ""
    priority: float = 0.5
    source: str = "manual"
    parameters: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    # No urgency here: Task.urgency has one writer, the priority scorer (store.set_urgencies).

    @field_validator("priority")
    @classmethod
    def _check_unit(cls, v: float) -> float:
        return _unit_interval(v)


class Task(BaseModel):
    id: str = Field(default_factory=lambda: f"task-{uuid.uuid4()}")
    title: str
    type: str
    description: str = ""
    status: TaskStatus = TaskStatus.pending
    progress: float = 0.0
    priority: float = 0.5
    urgency: float = 0.5  # set by the priority scorer each evaluation cycle; claims go by it, then age
    source: str = "manual"
    parameters: dict[str, Any] = Field(default_factory=dict)
    metadata: TaskMetadata

    @field_validator("progress", "priority", "urgency")
    @classmethod
    def _check_unit(cls, v: float) -> float:
        return _unit_interval(v)
