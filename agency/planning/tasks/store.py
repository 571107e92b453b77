"""Task store: the TaskStore protocol and its SQLite implementation (contract 1).

add_task rebuilds metadata from scratch (projection allowlist); origin is stamped once by
finalize_new_task and never patched; goalKey '' never reaches a row (projection, model
validator, and a CHECK constraint); status changes follow TRANSITIONS. The protocol is
small on purpose so a server database can stand in for SQLite later.

Development mode (agency.environment: MCBOT_ENV=development; unset is production) warns
once per dropped metadata key and runs the invariant check on every write.
MCBOT_PLANNING_STRICT_FINALIZE=1, whatever MCBOT_ENV says, warns when a task is stored
without origin and without allow_unfinalized (contract 1.2).
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any, ContextManager, Callable, Iterable, Iterator, Mapping, Protocol

from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.db import Database, DatabaseSource
from agency.environment import is_development
from agency.planning.tasks.events import PROGRESS, STEP_EVENTS, TaskEvent, status_event
from agency.planning.tasks.models import (
    TRANSITIONS,
    IllegalTransitionError,
    InvalidProgressError,
    NewTask,
    Task,
    TaskMetadata,
    TaskNotFoundError,
    TaskOrigin,
    TaskStatus,
)
from agency.planning.tasks.projection import project_incoming_metadata

# Store-owned keys a metadata patch may not touch (origin: contract 1.2).
_PATCH_PROTECTED = ("origin", "createdAt", "updatedAt")

SQL_BY_GOAL_KEY = "SELECT data FROM tasks WHERE goal_key = ? ORDER BY created_at, rowid"
SQL_LATEST_BY_GOAL_KEY = "SELECT data FROM tasks WHERE goal_key = ? ORDER BY updated_at DESC, rowid DESC LIMIT ?"
SQL_BY_GOAL_KEY_STATUS = "SELECT data FROM tasks WHERE goal_key = ? AND status IN ({marks}) ORDER BY created_at, rowid"
SQL_BY_STATUS = "SELECT data FROM tasks WHERE status IN ({marks}) ORDER BY created_at, rowid"
SQL_NEWEST = "SELECT data FROM tasks ORDER BY created_at DESC, rowid DESC LIMIT ?"
SQL_COUNTS = "SELECT status, COUNT(*) AS n FROM tasks GROUP BY status"
# The claim: the most urgent pending task, the oldest among equals (idx_tasks_claim). Run
# inside BEGIN IMMEDIATE with the status change, so two daemons on one file never take the
# same task; a server database would add FOR UPDATE SKIP LOCKED.
SQL_CLAIM_NEXT = "SELECT data FROM tasks WHERE status = 'pending' ORDER BY urgency DESC, created_at, rowid LIMIT 1"
SQL_EVENTS = (
    "SELECT seq, task_id, at, event, status, progress, data FROM task_events "
    "WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?"
)


def _env_strict_finalize() -> bool:
    return os.environ.get("MCBOT_PLANNING_STRICT_FINALIZE") == "1"


class TaskStore(Protocol):
    def add_task(
        self, draft: NewTask | Mapping[str, Any], *, origin: TaskOrigin | None = None, allow_unfinalized: bool = False
    ) -> Task: ...

    def finalize_new_task(self, task_id: str, origin: TaskOrigin) -> Task: ...

    def get_task(self, task_id: str) -> Task | None: ...

    def update_task_metadata(self, task_id: str, patch: Mapping[str, Any]) -> Task: ...

    def set_status(
        self, task_id: str, status: TaskStatus | str, *, metadata_patch: Mapping[str, Any] | None = None
    ) -> Task: ...

    def set_progress(self, task_id: str, progress: float) -> Task: ...

    def find_by_goal_key(self, goal_key: str, statuses: Iterable[TaskStatus] | None = None) -> list[Task]: ...

    def latest_by_goal_key(self, goal_key: str, limit: int) -> list[Task]: ...

    def list_by_status(self, *statuses: TaskStatus) -> list[Task]: ...

    def claim_next(self) -> Task | None: ...

    def set_urgencies(self, urgencies: Mapping[str, float]) -> list[str]: ...

    def record_event(self, task_id: str, event: str, data: Mapping[str, Any] | None = None) -> TaskEvent: ...

    def events(self, task_id: str, *, after_seq: int = 0, limit: int = 500) -> list[TaskEvent]: ...

    def close(self) -> None: ...


class SqliteTaskStore:
    def __init__(
        self,
        path: DatabaseSource,
        *,
        clock: Clock = system_clock_ms,
        dev_mode: bool | None = None,
        strict_finalize: bool | None = None,
        invariant_check: Callable[[Task], None] | None = None,
    ) -> None:
        self._db = Database.of(path)  # a path: a connection of its own; a Database: the shared one
        self._conn = self._db.conn
        self._clock = clock
        self._dev_mode = is_development() if dev_mode is None else dev_mode
        self._strict_finalize = _env_strict_finalize() if strict_finalize is None else strict_finalize
        self._warned_dropped_keys: set[str] = set()  # once per key per store session
        # Dev mode only: raises on an illegal task state, which rolls the write back
        # (goal binding's field-ownership check is installed here by the daemon/tests).
        self._invariant_check = invariant_check if self._dev_mode else None

    # -- plumbing -------------------------------------------------------------

    def _tx(self) -> ContextManager[sqlite3.Connection]:
        return self._db.tx()

    def _warn_dropped(self, key: str) -> None:
        if self._dev_mode and key not in self._warned_dropped_keys:
            self._warned_dropped_keys.add(key)
            logger.warning("[TaskStore] dropped metadata key '{}' (not in PROPAGATED_META_KEYS)", key)

    @staticmethod
    def _row_values(task: Task) -> tuple[Any, ...]:
        m = task.metadata
        data = task.model_dump_json(exclude_none=True)
        return (task.status.value, m.goalKey, task.progress, task.urgency, m.createdAt, m.updatedAt, data)

    def _load(self, conn: sqlite3.Connection, task_id: str) -> Task:
        row = conn.execute("SELECT data FROM tasks WHERE id = ?", (task_id,)).fetchone()
        if row is None:
            raise TaskNotFoundError(task_id)
        return Task.model_validate_json(row["data"])

    def _save(self, conn: sqlite3.Connection, task: Task) -> None:
        if self._invariant_check is not None:
            self._invariant_check(task)
        conn.execute(
            "UPDATE tasks SET status = ?, goal_key = ?, progress = ?, urgency = ?, created_at = ?, updated_at = ?, "
            "data = ? WHERE id = ?",
            (*self._row_values(task), task.id),
        )

    def _append_event(self, conn: sqlite3.Connection, task: Task, event: str, data: Mapping[str, Any]) -> TaskEvent:
        """Log one event inside the caller's transaction: the log never disagrees with the row."""
        ev = TaskEvent(seq=0, taskId=task.id, at=self._clock(), event=event, status=task.status.value,
                       progress=task.progress, data=dict(data))
        cur = conn.execute(
            "INSERT INTO task_events (task_id, at, event, status, progress, data) VALUES (?, ?, ?, ?, ?, ?)",
            (ev.taskId, ev.at, ev.event, ev.status, ev.progress, json.dumps(ev.data)),
        )
        return ev.model_copy(update={"seq": cur.lastrowid})

    def _log_change(self, conn: sqlite3.Connection, before: Task | None, after: Task) -> None:
        change = status_event(before, after)
        if change is not None:
            self._append_event(conn, after, *change)

    def _query(self, sql: str, params: Iterable[Any]) -> list[Task]:
        rows = self._conn.execute(sql, tuple(params)).fetchall()
        return [Task.model_validate_json(r["data"]) for r in rows]

    def _stamp(self, origin: TaskOrigin | Mapping[str, Any]) -> TaskOrigin:
        o = TaskOrigin.model_validate(origin)
        return o if o.stampedAt is not None else o.model_copy(update={"stampedAt": self._clock()})

    # -- the protocol -----------------------------------------------------------

    def add_task(
        self,
        draft: NewTask | Mapping[str, Any],
        *,
        origin: TaskOrigin | Mapping[str, Any] | None = None,
        allow_unfinalized: bool = False,
    ) -> Task:
        """Store a new task. Metadata is rebuilt: caller keys survive only if allowlisted.
        Passing origin finalizes the task in the same transaction."""
        new = NewTask.model_validate(draft)
        incoming = new.metadata
        now = self._clock()
        tags = incoming.get("tags")
        category = incoming.get("category")
        solver = incoming.get("solver")
        metadata = TaskMetadata(
            createdAt=now,
            updatedAt=now,
            retryCount=0,
            maxRetries=3,
            childTaskIds=[],
            tags=[t for t in tags if isinstance(t, str)] if isinstance(tags, list) else [],
            category=category if isinstance(category, str) and category else new.type,
            solver=dict(solver) if isinstance(solver, Mapping) else {},
            **project_incoming_metadata(incoming, on_dropped=self._warn_dropped),
        )
        if origin is not None:
            metadata = metadata.model_copy(update={"origin": self._stamp(origin)})
        task = Task(
            title=new.title,
            type=new.type,
            description=new.description,
            priority=new.priority,
            source=new.source,
            parameters=new.parameters,
            metadata=metadata,
        )
        if self._strict_finalize and task.metadata.origin is None and not allow_unfinalized:
            logger.warning(
                "[TaskStore] strict finalize: task {} stored without origin "
                "(call finalize_new_task or pass allow_unfinalized=True)",
                task.id,
            )
        if self._invariant_check is not None:
            self._invariant_check(task)
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO tasks (status, goal_key, progress, urgency, created_at, updated_at, data, id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*self._row_values(task), task.id),
            )
            self._log_change(conn, None, task)
        return task

    def finalize_new_task(self, task_id: str, origin: TaskOrigin | Mapping[str, Any]) -> Task:
        """Stamp origin once. A task that already has one keeps it (immutable)."""
        with self._tx() as conn:
            task = self._load(conn, task_id)
            if task.metadata.origin is not None:
                logger.debug("[TaskStore] task {} already finalized; origin is immutable", task_id)
                return task
            meta = task.metadata.model_copy(update={"origin": self._stamp(origin), "updatedAt": self._clock()})
            task = task.model_copy(update={"metadata": meta})
            self._save(conn, task)
            return task

    def get_task(self, task_id: str) -> Task | None:
        try:
            return self._load(self._conn, task_id)
        except TaskNotFoundError:
            return None

    def _clean_patch(self, task_id: str, patch: Mapping[str, Any]) -> dict[str, Any]:
        clean = {k: v for k, v in patch.items() if k not in _PATCH_PROTECTED}
        if "origin" in patch:
            logger.debug("[TaskStore] ignored origin in metadata patch for task {}", task_id)
        if "goalKey" in clean and not clean["goalKey"]:
            del clean["goalKey"]  # '' or None never replaces a key
        for key in [k for k in clean if k not in TaskMetadata.model_fields]:
            self._warn_dropped(key)
            del clean[key]
        return clean

    def _patched_metadata(self, task: Task, clean: Mapping[str, Any]) -> TaskMetadata:
        return TaskMetadata.model_validate({**task.metadata.model_dump(), **clean, "updatedAt": self._clock()})

    def update_task_metadata(self, task_id: str, patch: Mapping[str, Any]) -> Task:
        clean = self._clean_patch(task_id, patch)
        with self._tx() as conn:
            before = self._load(conn, task_id)
            task = before.model_copy(update={"metadata": self._patched_metadata(before, clean)})
            self._save(conn, task)
            self._log_change(conn, before, task)  # only a new hold reason on a paused task logs
            return task

    def set_status(
        self, task_id: str, status: TaskStatus | str, *, metadata_patch: Mapping[str, Any] | None = None
    ) -> Task:
        """Change status; metadata_patch (same rules as update_task_metadata) lands in the
        same transaction, so status and the fields mirroring it never disagree on disk."""
        to = TaskStatus(status)
        clean = self._clean_patch(task_id, metadata_patch or {})
        with self._tx() as conn:
            before = self._load(conn, task_id)
            if to not in TRANSITIONS[before.status]:
                raise IllegalTransitionError(task_id, before.status, to)
            task = before.model_copy(update={"status": to, "metadata": self._patched_metadata(before, clean)})
            self._save(conn, task)
            self._log_change(conn, before, task)
            return task

    def set_progress(self, task_id: str, progress: float) -> Task:
        if isinstance(progress, bool) or not isinstance(progress, (int, float)) or not 0 <= progress <= 1:  # NaN fails
            raise InvalidProgressError(task_id, progress)
        with self._tx() as conn:
            before = self._load(conn, task_id)
            meta = before.metadata.model_copy(update={"updatedAt": self._clock()})
            task = before.model_copy(update={"progress": float(progress), "metadata": meta})
            self._save(conn, task)
            if task.progress != before.progress:  # a repeated report is not news to a watcher
                self._append_event(conn, task, PROGRESS, {"progress": task.progress})
            return task

    def latest_by_goal_key(self, goal_key: str, limit: int) -> list[Task]:
        """The goal's `limit` most recently updated tasks, newest first (any status)."""
        return self._query(SQL_LATEST_BY_GOAL_KEY, [goal_key, limit]) if goal_key else []

    def find_by_goal_key(self, goal_key: str, statuses: Iterable[TaskStatus] | None = None) -> list[Task]:
        if not goal_key:
            return []
        if statuses is None:
            return self._query(SQL_BY_GOAL_KEY, [goal_key])
        values = sorted(TaskStatus(s).value for s in statuses)
        sql = SQL_BY_GOAL_KEY_STATUS.format(marks=", ".join("?" * len(values)))
        return self._query(sql, [goal_key, *values])

    def list_by_status(self, *statuses: TaskStatus) -> list[Task]:
        values = sorted(TaskStatus(s).value for s in statuses) or [s.value for s in TaskStatus]
        return self._query(SQL_BY_STATUS.format(marks=", ".join("?" * len(values))), values)

    def newest(self, limit: int) -> list[Task]:
        """The newest `limit` tasks of any status, newest first (one indexed read: a
        dashboard asks every second, and a long-lived store holds thousands)."""
        return self._query(SQL_NEWEST, (limit,))

    def counts_by_status(self) -> dict[str, int]:
        """Tasks by status, every status named (0 when none)."""
        got = {r["status"]: r["n"] for r in self._conn.execute(SQL_COUNTS).fetchall()}
        return {s.value: got.get(s.value, 0) for s in TaskStatus}

    def claim_next(self) -> Task | None:
        """pending -> active for the most urgent pending task (oldest first among equals),
        looked up and changed in one write transaction. None when nothing is pending."""
        with self._tx() as conn:
            row = conn.execute(SQL_CLAIM_NEXT).fetchone()
            if row is None:
                return None
            before = Task.model_validate_json(row["data"])
            meta = before.metadata.model_copy(update={"updatedAt": self._clock()})
            task = before.model_copy(update={"status": TaskStatus.active, "metadata": meta})
            self._save(conn, task)
            self._log_change(conn, before, task)
            return task

    def set_urgencies(self, urgencies: Mapping[str, float]) -> list[str]:
        """The priority scorer's write (Task.urgency has no other writer), one transaction
        per evaluation cycle. Only live tasks whose urgency changed are written; updatedAt
        stays: a new ranking is not a change to the task. Returns the ids written."""
        checked = {task_id: _urgency(u) for task_id, u in urgencies.items()}
        written = []
        with self._tx() as conn:
            for task_id, urgency in checked.items():
                row = conn.execute("SELECT data FROM tasks WHERE id = ?", (task_id,)).fetchone()
                task = None if row is None else Task.model_validate_json(row["data"])
                if task is None or task.status.terminal or task.urgency == urgency:
                    continue
                self._save(conn, task.model_copy(update={"urgency": urgency}))
                written.append(task_id)
        return written

    def record_event(self, task_id: str, event: str, data: Mapping[str, Any] | None = None) -> TaskEvent:
        """Log an event the store does not see itself (the workflow engine's step events),
        stamped with the task's status and progress as they are now. Status and progress
        events come only from the writes they describe, so a watcher never sees a
        'completed' the row does not hold."""
        if event not in STEP_EVENTS:
            raise ValueError(f"record_event takes step events ({', '.join(sorted(STEP_EVENTS))}), not {event!r}")
        with self._tx() as conn:
            return self._append_event(conn, self._load(conn, task_id), event, data or {})

    def events(self, task_id: str, *, after_seq: int = 0, limit: int = 500) -> list[TaskEvent]:
        """A task's events after `after_seq`, oldest first, at most `limit` (a page)."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit!r}")
        rows = self._conn.execute(SQL_EVENTS, (task_id, after_seq, limit)).fetchall()
        return [
            TaskEvent(seq=r["seq"], taskId=r["task_id"], at=r["at"], event=r["event"], status=r["status"],
                      progress=r["progress"], data=json.loads(r["data"]))
            for r in rows
        ]

    def close(self) -> None:
        self._db.release()


def _urgency(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:  # NaN fails
        raise ValueError(f"urgency must be within 0..1, got {value!r}")
    return round(float(value), 4)  # finer differences are noise, not a reason to write
