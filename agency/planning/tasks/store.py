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
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection, Iterable, Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.db import Database, DatabaseSource, SharedDatabase
from agency.environment import is_development
from agency.planning.tasks import rules
from agency.planning.tasks.events import BRIDGE_DOWN, PROGRESS, TaskEvent, status_event
from agency.planning.tasks.models import NewTask, StaleStatusError, Task, TaskNotFoundError, TaskOrigin, TaskStatus
from agency.planning.tasks.poison import POISON_AFTER, bridge_down_update

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


class TaskStoreBase:
    """The protocol once, for every SQL backend: each write is load, rule (rules.py), save and
    log in one transaction. A backend names its SQL in the _SQL_* attributes and supplies the
    primitives below the `backend` line (placeholders, JSON decoding, row locks)."""

    _SQL_LOAD: str  # a read
    _SQL_LOAD_FOR_WRITE: str  # a read-modify-write's read (locks the row where the backend can)
    _SQL_BY_GOAL_KEY: str
    _SQL_LATEST_BY_GOAL_KEY: str
    _SQL_BY_GOAL_KEY_STATUS: str
    _SQL_BY_STATUS: str
    _SQL_NEWEST: str
    _SQL_COUNTS: str
    _SQL_CLAIM_NEXT: str
    _SQL_EVENTS: str
    # the fleet's filters (module docstring), each with the bot as its first parameter(s)
    _SQL_CLAIM_NEXT_FOR_BOT: str
    _SQL_CLAIM_NEXT_FOR_BOT_DOING: str  # parameters: bot, the actions (_actions_param)
    _SQL_LATEST_BY_GOAL_KEY_OPEN_TO: str
    _SQL_BY_STATUS_OF_BOT: str
    _SQL_HELD_BY_STATUS: str
    _SQL_NEWEST_OF_BOT: str

    def __init__(
        self,
        db: SharedDatabase,
        *,
        clock: Clock,
        dev_mode: bool | None,
        strict_finalize: bool | None,
        invariant_check: Callable[[Task], None] | None,
    ) -> None:
        self._db = db  # its release() closes a private connection, leaves a shared one open
        self._conn = db.conn
        self._clock = clock
        self._dev_mode = is_development() if dev_mode is None else dev_mode
        self._strict_finalize = rules.strict_finalize_from_env() if strict_finalize is None else strict_finalize
        self._warned_dropped_keys: set[str] = set()  # once per key per store session
        # Dev mode only: raises on an illegal task state, which rolls the write back
        # (goal binding's field-ownership check is installed here by the daemon/tests).
        self._invariant_check = invariant_check if self._dev_mode else None

    # -- backend ----------------------------------------------------------------

    def _task_of(self, data: Any) -> Task:
        """A task from its row's data column."""
        raise NotImplementedError

    def _json_of(self, data: Any) -> Any:
        """An event row's data column as a value."""
        raise NotImplementedError

    def _insert(self, conn: Any, task: Task) -> None:
        raise NotImplementedError

    def _write(self, conn: Any, task: Task) -> None:
        """Update the task's row (and whatever the backend keeps beside it)."""
        raise NotImplementedError

    def _insert_event(self, conn: Any, ev: TaskEvent) -> int:
        """Insert the event; returns its seq."""
        raise NotImplementedError

    def _load_many(self, conn: Any, task_ids: list[str]) -> dict[str, Task]:
        """The tasks of these ids that exist, for a write."""
        raise NotImplementedError

    @staticmethod
    def _actions_param(actions: list[str]) -> Any:
        """The claim's actions as the backend's SQL parameter."""
        raise NotImplementedError

    def _query_in(self, sql: str, params: list[Any], values: list[str]) -> list[Task]:
        """`sql` (a status IN/ANY query) with `params`, then the list `values`."""
        raise NotImplementedError

    # -- plumbing -------------------------------------------------------------

    def _tx(self) -> AbstractContextManager[Any]:
        return self._db.tx()

    def _warn_dropped(self, key: str) -> None:
        if self._dev_mode and key not in self._warned_dropped_keys:
            self._warned_dropped_keys.add(key)
            logger.warning("[TaskStore] dropped metadata key '{}' (not in PROPAGATED_META_KEYS)", key)

    def _check(self, task: Task) -> None:
        if self._invariant_check is not None:
            self._invariant_check(task)

    def _load(self, conn: Any, task_id: str) -> Task:
        row = conn.execute(self._SQL_LOAD_FOR_WRITE, (task_id,)).fetchone()
        if row is None:
            raise TaskNotFoundError(task_id)
        return self._task_of(row["data"])

    def _save(self, conn: Any, task: Task) -> None:
        self._check(task)
        self._write(conn, task)

    def _append_event(
        self, conn: Any, task: Task, event: str, data: Mapping[str, Any], at: int | None = None
    ) -> TaskEvent:
        """Log one event inside the caller's transaction: the log never disagrees with the row."""
        ev = rules.new_event(task, event, data, self._clock() if at is None else at)
        return ev.model_copy(update={"seq": self._insert_event(conn, ev)})

    def _log_change(self, conn: Any, before: Task | None, after: Task) -> None:
        change = status_event(before, after)
        if change is not None:
            self._append_event(conn, after, *change)

    def _query(self, sql: str, params: Iterable[Any]) -> list[Task]:
        return [self._task_of(r["data"]) for r in self._conn.execute(sql, tuple(params)).fetchall()]

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
        task = rules.new_task(draft, self._clock, origin=origin, on_dropped=self._warn_dropped)
        rules.warn_unfinalized(task, strict=self._strict_finalize, allow_unfinalized=allow_unfinalized)
        self._check(task)
        with self._tx() as conn:
            self._insert(conn, task)
            self._log_change(conn, None, task)
        return task

    def finalize_new_task(self, task_id: str, origin: TaskOrigin | Mapping[str, Any]) -> Task:
        """Stamp origin once. A task that already has one keeps it (immutable)."""
        with self._tx() as conn:
            task = self._load(conn, task_id)
            if task.metadata.origin is not None:
                logger.debug("[TaskStore] task {} already finalized; origin is immutable", task_id)
                return task
            task = rules.finalized(task, origin, self._clock)
            self._save(conn, task)
            return task

    def get_task(self, task_id: str) -> Task | None:
        row = self._conn.execute(self._SQL_LOAD, (task_id,)).fetchone()
        return None if row is None else self._task_of(row["data"])

    def _patch(
        self, task_id: str, patch: Mapping[str, Any], to: TaskStatus | None, only_from: TaskStatus | None = None
    ) -> Task:
        clean = rules.clean_patch(task_id, patch, self._warn_dropped)
        with self._tx() as conn:
            before = self._load(conn, task_id)
            if only_from is not None and to is not None and before.status is not only_from:
                raise StaleStatusError(task_id, only_from, before.status, to)
            if to is None:
                task = rules.patched(before, clean, self._clock)
            else:
                rules.check_transition(before, to)
                task = rules.patched(before, clean, self._clock, status=to)
            self._save(conn, task)
            self._log_change(conn, before, task)  # without a status change, only a new hold reason logs
            return task

    def update_task_metadata(self, task_id: str, patch: Mapping[str, Any]) -> Task:
        return self._patch(task_id, patch, None)

    def set_status(
        self,
        task_id: str,
        status: TaskStatus | str,
        *,
        metadata_patch: Mapping[str, Any] | None = None,
        only_from: TaskStatus | None = None,
    ) -> Task:
        """Change status; metadata_patch (same rules as update_task_metadata) lands in the
        same transaction, so status and the fields mirroring it never disagree on disk.
        only_from: the status the caller read; StaleStatusError when the task has left it
        meanwhile (a bot of another daemon claimed it), checked under the row's lock."""
        return self._patch(task_id, metadata_patch or {}, TaskStatus(status), only_from)

    def set_progress(self, task_id: str, progress: float) -> Task:
        value = rules.checked_progress(task_id, progress)
        with self._tx() as conn:
            before = self._load(conn, task_id)
            task = rules.touched(before, self._clock(), progress=value)
            self._save(conn, task)
            if task.progress != before.progress:  # a repeated report is not news to a watcher
                self._append_event(conn, task, PROGRESS, {"progress": task.progress})
            return task

    def record_bridge_down(self, task_id: str, reason: str, *, poison_after: int = POISON_AFTER) -> Task:
        """The bridge went down while the task's run was in flight: appended to
        metadata.bridgeDowns with a `bridge_down` event; the `poison_after`-th fails the task
        in the same write (poison.py). Otherwise the status is left to the caller's hold."""
        with self._tx() as conn:
            before = self._load(conn, task_id)
            patch, to = bridge_down_update(before, reason, self._clock(), poison_after)
            if to is not None:
                rules.check_transition(before, to)
            task = rules.patched(before, patch, self._clock, **({"status": to} if to is not None else {}))
            self._save(conn, task)
            downs = len(task.metadata.bridgeDowns or [])
            # stamped with the status the run had; a poison failure's own `failed` event follows
            self._append_event(
                conn, before, BRIDGE_DOWN, {"reason": reason, "count": downs, "poisonAfter": poison_after}
            )
            self._log_change(conn, before, task)
            return task

    def latest_by_goal_key(self, goal_key: str, limit: int, *, open_to: str | None = None) -> list[Task]:
        """The goal's `limit` most recently updated tasks, newest first (any status); with
        `open_to`, only tasks open to that bot (bound to it or to none)."""
        if not goal_key:
            return []
        if open_to is None:
            return self._query(self._SQL_LATEST_BY_GOAL_KEY, [goal_key, limit])
        return self._query(self._SQL_LATEST_BY_GOAL_KEY_OPEN_TO, [goal_key, open_to, limit])

    def find_by_goal_key(self, goal_key: str, statuses: Iterable[TaskStatus] | None = None) -> list[Task]:
        if not goal_key:
            return []
        if statuses is None:
            return self._query(self._SQL_BY_GOAL_KEY, [goal_key])
        return self._query_in(self._SQL_BY_GOAL_KEY_STATUS, [goal_key], rules.status_values(statuses))

    def list_by_status(self, *statuses: TaskStatus, bot: str | None = None) -> list[Task]:
        """Tasks in these statuses (any when none), oldest first; with `bot`, only that bot's
        (bound to it or held by it)."""
        values = rules.status_values(statuses) or [s.value for s in TaskStatus]
        if bot is None:
            return self._query_in(self._SQL_BY_STATUS, [], values)
        return self._query_in(self._SQL_BY_STATUS_OF_BOT, [bot, bot], values)

    def held_by(self, bot: str, *statuses: TaskStatus) -> list[Task]:
        """Tasks in these statuses (any when none) that `bot` claimed, oldest first: the
        work an executor resumes as its own."""
        values = rules.status_values(statuses) or [s.value for s in TaskStatus]
        return self._query_in(self._SQL_HELD_BY_STATUS, [bot], values)

    def newest(self, limit: int, *, bot: str | None = None) -> list[Task]:
        """The newest `limit` tasks of any status, newest first (one indexed read: a
        dashboard asks every second, and a long-lived store holds thousands); with `bot`,
        only that bot's (bound to it or held by it)."""
        if bot is None:
            return self._query(self._SQL_NEWEST, (limit,))
        return self._query(self._SQL_NEWEST_OF_BOT, (bot, bot, limit))

    def counts_by_status(self) -> dict[str, int]:
        """Tasks by status, every status named (0 when none)."""
        return rules.all_counts({r["status"]: r["n"] for r in self._conn.execute(self._SQL_COUNTS).fetchall()})

    def claim_next(self, bot: str | None = None, actions: Collection[str] | None = None) -> Task | None:
        """pending -> active for the most urgent pending task (oldest first among equals),
        looked up and changed in one write transaction. None when nothing is free to take.
        With `bot`, only a task bound to that bot or to none, and the claim is that bot's
        (metadata.heldBy); without, any pending task, held by no bot in particular. With
        `actions` too (a bot working as some agent profiles only), only a task of one of
        those actions: another bot takes the rest."""
        with self._tx() as conn:
            if bot is None:
                row = conn.execute(self._SQL_CLAIM_NEXT).fetchone()
            elif actions is None:
                row = conn.execute(self._SQL_CLAIM_NEXT_FOR_BOT, (bot,)).fetchone()
            else:
                wanted = sorted(a.lower() for a in actions)
                row = conn.execute(self._SQL_CLAIM_NEXT_FOR_BOT_DOING, (bot, self._actions_param(wanted))).fetchone()
            if row is None:
                return None
            before = self._task_of(row["data"])
            task = rules.claimed(before, self._clock(), bot)
            self._save(conn, task)
            self._log_change(conn, before, task)
            return task

    def set_urgencies(self, urgencies: Mapping[str, float]) -> list[str]:
        """The priority scorer's write (Task.urgency has no other writer), one transaction
        per evaluation cycle. Only live tasks whose urgency changed are written; updatedAt
        stays: a new ranking is not a change to the task. Returns the ids written."""
        checked = {task_id: rules.checked_urgency(u) for task_id, u in urgencies.items()}
        written = []
        with self._tx() as conn:
            tasks = self._load_many(conn, list(checked))
            for task_id, urgency in checked.items():
                task = tasks.get(task_id)
                if task is not None and rules.needs_urgency(task, urgency):
                    self._save(conn, task.model_copy(update={"urgency": urgency}))
                    written.append(task_id)
        return written

    def record_event(self, task_id: str, event: str, data: Mapping[str, Any] | None = None) -> TaskEvent:
        """Log an event the store does not see itself (the workflow engine's step events),
        stamped with the task's status and progress as they are now. Status and progress
        events come only from the writes they describe, so a watcher never sees a
        'completed' the row does not hold."""
        rules.check_step_event(event)
        with self._tx() as conn:
            return self._append_event(conn, self._load(conn, task_id), event, data or {})

    def events(self, task_id: str, *, after_seq: int = 0, limit: int = 500) -> list[TaskEvent]:
        """A task's events after `after_seq`, oldest first, at most `limit` (a page)."""
        rules.check_page_limit(limit)
        rows = self._conn.execute(self._SQL_EVENTS, (task_id, after_seq, limit)).fetchall()
        return [
            TaskEvent(
                seq=r["seq"],
                taskId=r["task_id"],
                at=r["at"],
                event=r["event"],
                status=r["status"],
                progress=r["progress"],
                data=self._json_of(r["data"]),
            )
            for r in rows
        ]

    def close(self) -> None:
        self._db.release()


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
