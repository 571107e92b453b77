"""Task -> Goal synchronization (docs/contracts.md GOAL-7).

The task is canonical for execution state; a goal's status is a deterministic function of
its bound task's transition, computed by `reduce_goal_status` and written by
`GoalSync.on_task_transition`. Nothing else writes goal status, so the goal side never
keeps competing state. Goals live in the `goals` table of the same database (agency/db.py
migration 3, agency/pg migration 4).
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel

from agency.clock import Clock, system_clock_ms
from agency.db import StoreSource, database_of, json_value
from agency.goals.models import GoalBinding, read_binding
from agency.planning.tasks.models import Task, TaskStatus


class GoalStatus(str, Enum):
    PENDING = "PENDING"
    ACTIVE = "ACTIVE"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    SUSPENDED = "SUSPENDED"


class Goal(BaseModel):
    """Strategic intent. Goal owns type/priority; status is derived from the task."""

    id: str
    type: str
    status: GoalStatus = GoalStatus.PENDING
    priority: float = 0.5
    suspendedReason: str | None = None
    goalInstanceId: str | None = None  # the bound task's instance, once one exists
    updatedAt: int = 0


def reduce_goal_status(
    current: GoalStatus, from_status: TaskStatus | None, to_status: TaskStatus, binding: GoalBinding | None
) -> GoalStatus:
    """The reducer table. Completed counts only with the verifier's stability window met;
    pending_planning and unplannable are solver trouble, so the goal stays ACTIVE."""
    s = TaskStatus
    if to_status is s.paused:
        return GoalStatus.SUSPENDED
    if to_status is s.failed:
        return GoalStatus.FAILED
    if to_status is s.completed:
        verified = (
            binding is not None
            and binding.completion.consecutivePasses >= 2
            and bool(binding.completion.lastResult and binding.completion.lastResult.done)
        )
        return GoalStatus.COMPLETED if verified else current
    if to_status in (s.pending, s.active, s.pending_planning, s.unplannable):
        # paused -> pending is reactivation; completed -> active is a regression re-open.
        return GoalStatus.ACTIVE
    return current


_UPSERT_SET = (
    "ON CONFLICT (id) DO UPDATE SET type = excluded.type, status = excluded.status, "
    "updated_at = excluded.updated_at, data = excluded.data"
)
# (upsert, get) in each dialect
_SQL = {
    "sqlite": (
        f"INSERT INTO goals (id, type, status, updated_at, data) VALUES (?, ?, ?, ?, ?) {_UPSERT_SET}",
        "SELECT data FROM goals WHERE id = ?",
    ),
    "postgresql": (
        f"INSERT INTO goals (id, type, status, updated_at, data) VALUES (%s, %s, %s, %s, %s::jsonb) {_UPSERT_SET}",
        "SELECT data FROM goals WHERE id = %s",
    ),
}


class GoalSync:
    """Goal store + the reducer applied on every task transition of a goal-bound task."""

    def __init__(self, path: StoreSource, *, clock: Clock = system_clock_ms) -> None:
        self._db = database_of(path)  # a path: a connection of its own; a database: the shared one
        self._upsert, self._get = _SQL[self._db.dialect]
        self._clock = clock

    def upsert(self, goal: Goal) -> Goal:
        goal = goal.model_copy(update={"updatedAt": self._clock()})
        self._db.execute(self._upsert, (goal.id, goal.type, goal.status.value, goal.updatedAt, goal.model_dump_json()))
        return goal

    def get(self, goal_id: str) -> Goal | None:
        row = self._db.execute(self._get, (goal_id,)).fetchone()
        return None if row is None else Goal.model_validate(json_value(row["data"]))

    def on_task_transition(self, from_status: TaskStatus | None, task: Task) -> Goal | None:
        """Apply the reducer for task's new status. Tasks without a goalId are skipped; a
        goal seen for the first time is created from the binding."""
        binding = read_binding(task)
        if binding is None or binding.goalId is None:
            return None
        goal = self.get(binding.goalId) or Goal(id=binding.goalId, type=binding.goalType)
        status = reduce_goal_status(goal.status, from_status, task.status, binding)
        reason = binding.hold.reason if status is GoalStatus.SUSPENDED and binding.hold is not None else None
        update = {"status": status, "suspendedReason": reason, "goalInstanceId": binding.goalInstanceId}
        return self.upsert(goal.model_copy(update=update))

    def close(self) -> None:
        self._db.release()
