"""PgTaskStore: the TaskStore protocol (agency/planning/tasks/store.py) on PostgreSQL, for
several daemons sharing one database.

Same semantics as SqliteTaskStore: metadata rebuilt by the projection allowlist, origin
stamped once, the transition table, events written in the transaction of the change they
describe, progress and urgency rules. What several daemons add:
- every read-modify-write locks its task row (FOR UPDATE), so two daemons never lose each
  other's change, and a task's events commit in seq order;
- claim_next takes the most urgent pending task with FOR UPDATE SKIP LOCKED (two claimers
  never wait on or take the same row) and leases it to this daemon for `lease_ms`;
- renew_leases extends this daemon's leases; take_over_expired gives a dead daemon's
  active tasks back to pending once their lease ran out (event `lease_expired`).
Any write that makes a task active leases it to the writer; leaving active drops the lease.
The lease is the daemon's; metadata.heldBy, the bot's claim within it, follows the rule in
agency/planning/tasks/store.py (a take-over puts the task back in the queue: held by none).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import psycopg

from agency.clock import Clock, system_clock_ms
from agency.pg.database import Connection, PgDatabase, PgSource
from agency.planning.tasks import Task, TaskStatus, rules
from agency.planning.tasks.events import TaskEvent
from agency.planning.tasks.store import TaskStoreBase

DEFAULT_LEASE_MS = 30_000
LEASE_EXPIRED = "lease_expired"  # active -> pending: the owner's lease ran out (data names the owner)
GOAL_KEY_INDEX = "ux_goal_keys_live"

SQL_INSERT = (
    "INSERT INTO tasks (status, goal_key, progress, urgency, created_at, updated_at, data, id) "
    "VALUES (%(status)s, %(goal_key)s, %(progress)s, %(urgency)s, %(created_at)s, %(updated_at)s, "
    "%(data)s::jsonb, %(id)s)"
)
# The lease follows the status: taken by this daemon when the task becomes active, kept while
# it stays active (status on the right is the row's old one), dropped when it leaves.
SQL_SAVE = (
    "UPDATE tasks SET status = %(status)s, goal_key = %(goal_key)s, progress = %(progress)s, urgency = %(urgency)s, "
    "created_at = %(created_at)s, updated_at = %(updated_at)s, data = %(data)s::jsonb, "
    "claimed_by = CASE WHEN %(status)s <> 'active' THEN NULL WHEN status = 'active' THEN claimed_by "
    "ELSE %(owner)s END, "
    "lease_until = CASE WHEN %(status)s <> 'active' THEN NULL WHEN status = 'active' THEN lease_until "
    "ELSE %(lease_until)s END "
    "WHERE id = %(id)s"
)
# The most urgent pending task, the oldest among equals (idx_tasks_claim); a row another
# daemon is claiming or changing right now is skipped, not waited for.
SQL_CLAIM_NEXT = (
    "SELECT data FROM tasks WHERE status = 'pending' ORDER BY urgency DESC, created_at, seq "
    "LIMIT 1 FOR UPDATE SKIP LOCKED"
)
# The fleet's filters (agency/planning/tasks/store.py): read from the task's JSON, no column of their own.
_BOT = "(data->'metadata'->>'bot')"
_HELD_BY = "(data->'metadata'->>'heldBy')"
SQL_CLAIM_NEXT_FOR_BOT = (
    f"SELECT data FROM tasks WHERE status = 'pending' AND ({_BOT} IS NULL OR {_BOT} = %s) "
    "ORDER BY urgency DESC, created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED"
)
SQL_CLAIM_NEXT_FOR_BOT_DOING = (
    f"SELECT data FROM tasks WHERE status = 'pending' AND ({_BOT} IS NULL OR {_BOT} = %s) "
    "AND lower(data->>'type') = ANY(%s) ORDER BY urgency DESC, created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED"
)
# Rows are locked in id order wherever a transaction locks several, so two daemons never deadlock.
SQL_FOR_URGENCY = "SELECT data FROM tasks WHERE id = ANY(%s) ORDER BY id FOR UPDATE"
SQL_RENEW = (
    "UPDATE tasks SET lease_until = %s WHERE id IN ("
    "SELECT id FROM tasks WHERE status = 'active' AND claimed_by = %s ORDER BY id FOR UPDATE) RETURNING id"
)
SQL_EXPIRED = (
    "SELECT data, claimed_by, lease_until FROM tasks WHERE status = 'active' AND lease_until < %s "
    "ORDER BY id FOR UPDATE SKIP LOCKED"
)
SQL_APPEND_EVENT = (
    "INSERT INTO task_events (task_id, at, event, status, progress, data) "
    "VALUES (%s, %s, %s, %s, %s, %s::jsonb) RETURNING seq"
)


def is_goal_key_conflict(exc: BaseException) -> bool:
    """Whether the database refused a write because a live task already holds the goal key."""
    return isinstance(exc, psycopg.errors.UniqueViolation) and exc.diag.constraint_name == GOAL_KEY_INDEX


class PgTaskStore(TaskStoreBase):
    """The protocol's rules and writes are TaskStoreBase's; this adds row locks, the claim's
    SKIP LOCKED and leases (module docstring): claim_next and any other write that makes a
    task active lease it to this daemon until now + lease_ms (SQL_SAVE)."""

    # What TaskStoreBase runs, in PostgreSQL's dialect (seq breaks ties as rowid does in SQLite).
    _SQL_LOAD = "SELECT data FROM tasks WHERE id = %s"
    _SQL_LOAD_FOR_WRITE = _SQL_LOAD + " FOR UPDATE"  # locked until the transaction ends
    _SQL_BY_GOAL_KEY = "SELECT data FROM tasks WHERE goal_key = %s ORDER BY created_at, seq"
    _SQL_LATEST_BY_GOAL_KEY = "SELECT data FROM tasks WHERE goal_key = %s ORDER BY updated_at DESC, seq DESC LIMIT %s"
    _SQL_BY_GOAL_KEY_STATUS = "SELECT data FROM tasks WHERE goal_key = %s AND status = ANY(%s) ORDER BY created_at, seq"
    _SQL_BY_STATUS = "SELECT data FROM tasks WHERE status = ANY(%s) ORDER BY created_at, seq"
    _SQL_NEWEST = "SELECT data FROM tasks ORDER BY created_at DESC, seq DESC LIMIT %s"
    _SQL_COUNTS = "SELECT status, COUNT(*) AS n FROM tasks GROUP BY status"
    _SQL_CLAIM_NEXT = SQL_CLAIM_NEXT
    _SQL_EVENTS = (
        "SELECT seq, task_id, at, event, status, progress, data FROM task_events "
        "WHERE task_id = %s AND seq > %s ORDER BY seq LIMIT %s"
    )
    _SQL_CLAIM_NEXT_FOR_BOT = SQL_CLAIM_NEXT_FOR_BOT
    _SQL_CLAIM_NEXT_FOR_BOT_DOING = SQL_CLAIM_NEXT_FOR_BOT_DOING
    _SQL_LATEST_BY_GOAL_KEY_OPEN_TO = (
        f"SELECT data FROM tasks WHERE goal_key = %s AND ({_BOT} IS NULL OR {_BOT} = %s) "
        "ORDER BY updated_at DESC, seq DESC LIMIT %s"
    )
    _SQL_BY_STATUS_OF_BOT = (
        f"SELECT data FROM tasks WHERE ({_BOT} = %s OR {_HELD_BY} = %s) AND status = ANY(%s) ORDER BY created_at, seq"
    )
    _SQL_HELD_BY_STATUS = f"SELECT data FROM tasks WHERE {_HELD_BY} = %s AND status = ANY(%s) ORDER BY created_at, seq"
    _SQL_NEWEST_OF_BOT = (
        f"SELECT data FROM tasks WHERE {_BOT} = %s OR {_HELD_BY} = %s ORDER BY created_at DESC, seq DESC LIMIT %s"
    )

    @staticmethod
    def _actions_param(actions: list[str]) -> Any:
        return actions  # = ANY(%s): a text array

    def __init__(
        self,
        source: PgSource,
        *,
        daemon_id: str,
        clock: Clock = system_clock_ms,
        lease_ms: int = DEFAULT_LEASE_MS,
        dev_mode: bool | None = None,
        strict_finalize: bool | None = None,
        invariant_check: Callable[[Task], None] | None = None,
    ) -> None:
        if not daemon_id:
            raise ValueError("daemon_id names this daemon in its claims; it cannot be empty")
        if lease_ms <= 0:
            raise ValueError(f"lease_ms must be positive, got {lease_ms!r}")
        # a URL: a connection of its own; a PgDatabase: the shared one
        super().__init__(
            PgDatabase.of(source),
            clock=clock,
            dev_mode=dev_mode,
            strict_finalize=strict_finalize,
            invariant_check=invariant_check,
        )
        self.daemon_id = daemon_id
        self.lease_ms = lease_ms

    # -- backend ----------------------------------------------------------------

    def _task_of(self, data: Any) -> Task:
        return Task.model_validate(data)  # jsonb arrives decoded

    def _json_of(self, data: Any) -> Any:
        return data

    def _row(self, task: Task) -> dict[str, Any]:
        m = task.metadata
        return {
            "id": task.id,
            "status": task.status.value,
            "goal_key": m.goalKey,
            "progress": task.progress,
            "urgency": task.urgency,
            "created_at": m.createdAt,
            "updated_at": m.updatedAt,
            "data": task.model_dump_json(exclude_none=True),
        }

    def _insert(self, conn: Connection, task: Task) -> None:
        conn.execute(SQL_INSERT, self._row(task))

    def _write(self, conn: Connection, task: Task) -> None:
        lease = {"owner": self.daemon_id, "lease_until": self._clock() + self.lease_ms}
        conn.execute(SQL_SAVE, {**self._row(task), **lease})

    def _insert_event(self, conn: Connection, ev: TaskEvent) -> int:
        row = conn.execute(
            SQL_APPEND_EVENT, (ev.taskId, ev.at, ev.event, ev.status, ev.progress, json.dumps(ev.data))
        ).fetchone()
        assert row is not None  # the INSERT returns the seq
        return int(row["seq"])

    def _load_many(self, conn: Connection, task_ids: list[str]) -> dict[str, Task]:
        rows = conn.execute(SQL_FOR_URGENCY, (task_ids,)).fetchall()
        return {t.id: t for t in (self._task_of(r["data"]) for r in rows)}

    def _query_in(self, sql: str, params: list[Any], values: list[str]) -> list[Task]:
        return self._query(sql, [*params, values])  # one array parameter: status = ANY(%s)

    # -- leases ---------------------------------------------------------------------

    def renew_leases(self, now: int | None = None) -> list[str]:
        """Extend this daemon's leases to now + lease_ms; returns the ids still held, sorted.
        A task the daemon was working on and that is missing here was taken over."""
        now = self._clock() if now is None else now
        with self._tx() as conn:
            rows = conn.execute(SQL_RENEW, (now + self.lease_ms, self.daemon_id)).fetchall()
        return sorted(r["id"] for r in rows)

    def take_over_expired(self, now: int | None = None) -> list[Task]:
        """Give every active task whose lease ran out before `now` back to pending (its
        daemon died or stalled), each with a `lease_expired` event naming the old owner."""
        now = self._clock() if now is None else now
        taken = []
        with self._tx() as conn:
            for row in conn.execute(SQL_EXPIRED, (now,)).fetchall():
                before = self._task_of(row["data"])
                task = rules.touched(before, now, status=TaskStatus.pending)
                self._save(conn, task)
                self._append_event(
                    conn,
                    task,
                    LEASE_EXPIRED,
                    {"from": before.status.value, "owner": row["claimed_by"], "leaseUntil": row["lease_until"]},
                    at=now,
                )
                taken.append(task)
        return taken

    def lease_of(self, task_id: str) -> tuple[str, int] | None:
        """(owner, lease_until) of an active task, None for any other (or no) task."""
        row = self._conn.execute("SELECT claimed_by, lease_until FROM tasks WHERE id = %s", (task_id,)).fetchone()
        return None if row is None or row["claimed_by"] is None else (row["claimed_by"], row["lease_until"])
