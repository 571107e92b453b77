"""Tasks: model, metadata projection, goal-key idempotency and the durable store."""

from agency.planning.tasks.idempotency import STUCK_PENDING_TIMEOUT_MS, find_blocking_task
from agency.planning.tasks.models import (
    PROPAGATED_META_KEYS,
    REBUILT_META_KEYS,
    TRANSITIONS,
    IllegalTransitionError,
    InvalidProgressError,
    NewTask,
    Task,
    TaskMetadata,
    TaskNotFoundError,
    TaskOrigin,
    TaskStatus,
    TaskStoreError,
)
from agency.planning.tasks.store import SqliteTaskStore, TaskStore

__all__ = [
    "PROPAGATED_META_KEYS",
    "REBUILT_META_KEYS",
    "STUCK_PENDING_TIMEOUT_MS",
    "TRANSITIONS",
    "IllegalTransitionError",
    "InvalidProgressError",
    "NewTask",
    "SqliteTaskStore",
    "Task",
    "TaskMetadata",
    "TaskNotFoundError",
    "TaskOrigin",
    "TaskStatus",
    "TaskStore",
    "TaskStoreError",
    "find_blocking_task",
]
