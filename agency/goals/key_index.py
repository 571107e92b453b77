"""Read side of the goal_keys table (migration 3).

The table is written only by triggers on `tasks`, in the same statement as the task write,
and its unique partial index (goal_type, key) WHERE terminal = 0 is what enforces "at most
one non-terminal task per goalType + goalKey, aliases included" across threads and
processes. This class only reads it, on the Database it is given (the daemon's shared one)
or, given a path, on a connection of its own to the same WAL file.
"""

from __future__ import annotations

import sqlite3

from agency.db import Database, DatabaseSource
from agency.errors import AgencyError


class GoalKeyConflictError(AgencyError, RuntimeError):
    """The database refused a write: a live task already holds this goal key."""

    def __init__(self, goal_type: str, key: str) -> None:
        super().__init__(f"a non-terminal {goal_type} task already holds goal key {key}")
        self.goal_type = goal_type
        self.key = key


def is_goal_key_conflict(exc: sqlite3.IntegrityError) -> bool:
    return "goal_keys.goal_type, goal_keys.key" in str(exc)


class GoalKeyIndex:
    def __init__(self, path: DatabaseSource) -> None:
        self._db = Database.of(path)

    def _rows(self, sql: str, params: tuple[object, ...]) -> list[sqlite3.Row]:
        return self._db.execute(sql, params).fetchall()

    def live_task_id(self, goal_type: str, key: str) -> str | None:
        """The non-terminal task holding key (as its goalKey or an alias), if any."""
        rows = self._rows(
            "SELECT task_id FROM goal_keys WHERE goal_type = ? AND key = ? AND terminal = 0", (goal_type, key)
        )
        return rows[0]["task_id"] if rows else None

    def task_ids(self, goal_type: str, *, terminal: bool) -> list[str]:
        rows = self._rows(
            "SELECT DISTINCT task_id FROM goal_keys WHERE goal_type = ? AND terminal = ? ORDER BY task_id",
            (goal_type, int(terminal)),
        )
        return [r["task_id"] for r in rows]

    def live_key_holders(self) -> dict[tuple[str, str], list[str]]:
        """(goalType, key) -> task ids among non-terminal tasks: the invariant wants len 1."""
        out: dict[tuple[str, str], list[str]] = {}
        for r in self._rows("SELECT goal_type, key, task_id FROM goal_keys WHERE terminal = 0", ()):
            out.setdefault((r["goal_type"], r["key"]), []).append(r["task_id"])
        return out

    def close(self) -> None:
        self._db.release()
