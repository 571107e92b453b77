"""TaskStoreReads: the protocol's reads, each one query outside any write transaction."""

from __future__ import annotations

from collections.abc import Iterable

from agency.planning.tasks import rules
from agency.planning.tasks.events import TaskEvent
from agency.planning.tasks.models import Task, TaskStatus
from agency.planning.tasks.store_core import TaskStoreCore


class TaskStoreReads(TaskStoreCore):
    def get_task(self, task_id: str) -> Task | None:
        row = self._conn.execute(self._SQL_LOAD, (task_id,)).fetchone()
        return None if row is None else self._task_of(row["data"])

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
