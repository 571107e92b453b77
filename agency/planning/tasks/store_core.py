"""TaskStoreCore: what every part of TaskStoreBase stands on. The SQL a backend names, the
primitives it supplies (placeholders, JSON decoding, row locks) and the plumbing over them
(transactions, the dev-mode checks, loading, saving and logging a task)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from typing import Any

from loguru import logger

from agency.clock import Clock
from agency.db import SharedDatabase
from agency.environment import is_development
from agency.planning.tasks import rules
from agency.planning.tasks.events import TaskEvent, status_event
from agency.planning.tasks.models import Task, TaskNotFoundError


class TaskStoreCore:
    """A backend names its SQL in the _SQL_* attributes and supplies the primitives below
    the `backend` line."""

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
    # the fleet's filters (store.py's docstring), each with the bot as its first parameter(s)
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

    def close(self) -> None:
        self._db.release()
