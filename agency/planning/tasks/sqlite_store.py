"""SqliteTaskStore: the TaskStore protocol on SQLite, the embedded default (one file,
agency.db). Only the SQL text and the row primitives are its own; the rest is TaskStoreBase."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from agency.clock import Clock, system_clock_ms
from agency.db import Database, DatabaseSource
from agency.planning.tasks.events import TaskEvent
from agency.planning.tasks.models import Task
from agency.planning.tasks.store_base import TaskStoreBase

SQL_LOAD = "SELECT data FROM tasks WHERE id = ?"
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
# The fleet's filters read the task's JSON (no column of their own): a task open to a bot is
# bound to it or to no bot; a bot's tasks are those bound to it or held by it.
_BOT = "json_extract(data, '$.metadata.bot')"
_HELD_BY = "json_extract(data, '$.metadata.heldBy')"
SQL_CLAIM_NEXT_FOR_BOT = (
    f"SELECT data FROM tasks WHERE status = 'pending' AND ({_BOT} IS NULL OR {_BOT} = ?) "
    "ORDER BY urgency DESC, created_at, rowid LIMIT 1"
)
# A bot working as some agent profiles only (a fleet's builder): the actions it can carry out, as a JSON array.
SQL_CLAIM_NEXT_FOR_BOT_DOING = (
    f"SELECT data FROM tasks WHERE status = 'pending' AND ({_BOT} IS NULL OR {_BOT} = ?) "
    "AND lower(json_extract(data, '$.type')) IN (SELECT value FROM json_each(?)) "
    "ORDER BY urgency DESC, created_at, rowid LIMIT 1"
)
SQL_LATEST_BY_GOAL_KEY_OPEN_TO = (
    f"SELECT data FROM tasks WHERE goal_key = ? AND ({_BOT} IS NULL OR {_BOT} = ?) "
    "ORDER BY updated_at DESC, rowid DESC LIMIT ?"
)
SQL_BY_STATUS_OF_BOT = (
    f"SELECT data FROM tasks WHERE ({_BOT} = ? OR {_HELD_BY} = ?) AND status IN ({{marks}}) ORDER BY created_at, rowid"
)
SQL_HELD_BY_STATUS = f"SELECT data FROM tasks WHERE {_HELD_BY} = ? AND status IN ({{marks}}) ORDER BY created_at, rowid"
SQL_NEWEST_OF_BOT = (
    f"SELECT data FROM tasks WHERE {_BOT} = ? OR {_HELD_BY} = ? ORDER BY created_at DESC, rowid DESC LIMIT ?"
)


class SqliteTaskStore(TaskStoreBase):
    """The embedded default: one file, BEGIN IMMEDIATE write transactions (agency.db)."""

    _SQL_LOAD = _SQL_LOAD_FOR_WRITE = SQL_LOAD  # BEGIN IMMEDIATE already holds the file's write lock
    _SQL_BY_GOAL_KEY = SQL_BY_GOAL_KEY
    _SQL_LATEST_BY_GOAL_KEY = SQL_LATEST_BY_GOAL_KEY
    _SQL_BY_GOAL_KEY_STATUS = SQL_BY_GOAL_KEY_STATUS
    _SQL_BY_STATUS = SQL_BY_STATUS
    _SQL_NEWEST = SQL_NEWEST
    _SQL_COUNTS = SQL_COUNTS
    _SQL_CLAIM_NEXT = SQL_CLAIM_NEXT
    _SQL_EVENTS = SQL_EVENTS
    _SQL_CLAIM_NEXT_FOR_BOT = SQL_CLAIM_NEXT_FOR_BOT
    _SQL_CLAIM_NEXT_FOR_BOT_DOING = SQL_CLAIM_NEXT_FOR_BOT_DOING
    _SQL_LATEST_BY_GOAL_KEY_OPEN_TO = SQL_LATEST_BY_GOAL_KEY_OPEN_TO
    _SQL_BY_STATUS_OF_BOT = SQL_BY_STATUS_OF_BOT
    _SQL_HELD_BY_STATUS = SQL_HELD_BY_STATUS
    _SQL_NEWEST_OF_BOT = SQL_NEWEST_OF_BOT

    @staticmethod
    def _actions_param(actions: list[str]) -> Any:
        return json.dumps(actions)  # json_each(?) reads it

    def __init__(
        self,
        path: DatabaseSource,
        *,
        clock: Clock = system_clock_ms,
        dev_mode: bool | None = None,
        strict_finalize: bool | None = None,
        invariant_check: Callable[[Task], None] | None = None,
    ) -> None:
        # a path: a connection of its own; a Database: the shared one
        super().__init__(
            Database.of(path),
            clock=clock,
            dev_mode=dev_mode,
            strict_finalize=strict_finalize,
            invariant_check=invariant_check,
        )

    def _task_of(self, data: Any) -> Task:
        return Task.model_validate_json(data)

    def _json_of(self, data: Any) -> Any:
        return json.loads(data)

    @staticmethod
    def _row_values(task: Task) -> tuple[Any, ...]:
        m = task.metadata
        data = task.model_dump_json(exclude_none=True)
        return (task.status.value, m.goalKey, task.progress, task.urgency, m.createdAt, m.updatedAt, data, task.id)

    def _insert(self, conn: sqlite3.Connection, task: Task) -> None:
        conn.execute(
            "INSERT INTO tasks (status, goal_key, progress, urgency, created_at, updated_at, data, id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            self._row_values(task),
        )

    def _write(self, conn: sqlite3.Connection, task: Task) -> None:
        conn.execute(
            "UPDATE tasks SET status = ?, goal_key = ?, progress = ?, urgency = ?, created_at = ?, updated_at = ?, "
            "data = ? WHERE id = ?",
            self._row_values(task),
        )

    def _insert_event(self, conn: sqlite3.Connection, ev: TaskEvent) -> int:
        cur = conn.execute(
            "INSERT INTO task_events (task_id, at, event, status, progress, data) VALUES (?, ?, ?, ?, ?, ?)",
            (ev.taskId, ev.at, ev.event, ev.status, ev.progress, json.dumps(ev.data)),
        )
        assert cur.lastrowid is not None  # an INSERT sets it
        return cur.lastrowid

    def _load_many(self, conn: sqlite3.Connection, task_ids: list[str]) -> dict[str, Task]:
        rows = {task_id: conn.execute(SQL_LOAD, (task_id,)).fetchone() for task_id in task_ids}
        return {task_id: self._task_of(r["data"]) for task_id, r in rows.items() if r is not None}

    def _query_in(self, sql: str, params: list[Any], values: list[str]) -> list[Task]:
        return self._query(sql.format(marks=", ".join("?" * len(values))), [*params, *values])
