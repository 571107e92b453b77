"""Task store: the TaskStore protocol, its backend-neutral body and the SQLite implementation
(docs/contracts.md TASK-1..5).

add_task rebuilds metadata from scratch (projection allowlist); origin is stamped once by
finalize_new_task and never patched; goalKey '' never reaches a row (projection, model
validator, and a CHECK constraint); status changes follow TRANSITIONS. The rules themselves
are in rules.py; TaskStoreBase applies them over a few SQL primitives, so SqliteTaskStore
and agency.pg's PgTaskStore differ only in SQL and locking.

Development mode (agency.environment: MCBOT_ENV=development; unset is production) warns
once per dropped metadata key and runs the invariant check on every write.
MCBOT_PLANNING_STRICT_FINALIZE=1, whatever MCBOT_ENV says, warns when a task is stored
without origin and without allow_unfinalized (TASK-2).

Several bots share one store. metadata.bot binds a task to a bot (the caller's, propagated;
None: any bot may take it); metadata.heldBy names the bot working on it, and only the store
writes it (add_task and metadata patches cannot): claim_next(bot) takes a task bound to that
bot or to none and stamps heldBy = bot. heldBy is cleared whenever the task goes back to the
queue (pending or pending_planning: a resume, a retry, a requeue, a lease take-over) and
kept otherwise, so a paused, finished or re-opened task still names the bot that ran it and
an interrupted active task is resumed by that bot alone. claim_next() with no bot is the
one-bot daemon's claim: any pending task, held by no bot in particular.

Here: the protocol, and the store's public names. The body is TaskStoreBase (store_base.py,
over store_core.py, store_reads.py and store_writes.py); the SQLite backend is sqlite_store.py.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any, Protocol

from agency.planning.tasks.events import TaskEvent
from agency.planning.tasks.models import NewTask, Task, TaskNotFoundError, TaskOrigin, TaskStatus
from agency.planning.tasks.poison import POISON_AFTER
from agency.planning.tasks.sqlite_store import SqliteTaskStore
from agency.planning.tasks.store_base import TaskStoreBase

__all__ = ["SqliteTaskStore", "TaskStore", "TaskStoreBase", "existing_task"]


class TaskStore(Protocol):
    def add_task(
        self, draft: NewTask | Mapping[str, Any], *, origin: TaskOrigin | None = None, allow_unfinalized: bool = False
    ) -> Task: ...

    def finalize_new_task(self, task_id: str, origin: TaskOrigin) -> Task: ...

    def get_task(self, task_id: str) -> Task | None: ...

    def update_task_metadata(self, task_id: str, patch: Mapping[str, Any]) -> Task: ...

    def set_status(
        self,
        task_id: str,
        status: TaskStatus | str,
        *,
        metadata_patch: Mapping[str, Any] | None = None,
        only_from: TaskStatus | None = None,
    ) -> Task: ...

    def set_progress(self, task_id: str, progress: float) -> Task: ...

    def record_bridge_down(self, task_id: str, reason: str, *, poison_after: int = POISON_AFTER) -> Task: ...

    def find_by_goal_key(self, goal_key: str, statuses: Iterable[TaskStatus] | None = None) -> list[Task]: ...

    def latest_by_goal_key(self, goal_key: str, limit: int, *, open_to: str | None = None) -> list[Task]: ...

    def list_by_status(self, *statuses: TaskStatus, bot: str | None = None) -> list[Task]: ...

    def held_by(self, bot: str, *statuses: TaskStatus) -> list[Task]: ...

    def newest(self, limit: int, *, bot: str | None = None) -> list[Task]: ...

    def claim_next(self, bot: str | None = None, actions: Collection[str] | None = None) -> Task | None: ...

    def set_urgencies(self, urgencies: Mapping[str, float]) -> list[str]: ...

    def record_event(self, task_id: str, event: str, data: Mapping[str, Any] | None = None) -> TaskEvent: ...

    def events(self, task_id: str, *, after_seq: int = 0, limit: int = 500) -> list[TaskEvent]: ...

    def close(self) -> None: ...


def existing_task(tasks: TaskStore, task_id: str) -> Task:
    """The task a caller knows is there (it read or wrote it): TaskNotFoundError if it is not."""
    task = tasks.get_task(task_id)
    if task is None:
        raise TaskNotFoundError(task_id)
    return task
