"""Read side of the goal_keys table (agency/db.py migration 3, agency/pg migration 2).

The table is written only by triggers on `tasks`, in the same statement as the task write,
and its unique partial index ux_goal_keys_live, (goal_type, key) over live rows only, is what
enforces "at most one non-terminal task per goalType + goalKey, aliases included" across
threads, processes and daemons. This class only reads it, on the database it is given (the
daemon's shared one, SQLite or PostgreSQL) or, given a path, on a connection of its own to
the same WAL file. Keys match exactly (text equality) in both dialects.
"""

from __future__ import annotations

from typing import Any

from agency.db import StoreSource, database_of, refused_by_unique_index
from agency.errors import AgencyError

GOAL_KEY_INDEX = "ux_goal_keys_live"
GOAL_KEY_COLUMNS = "goal_keys.goal_type, goal_keys.key"  # the index's columns, as SQLite names them
# A refused write is caught with agency.db's `except integrity_errors()`: each dialect's
# error class lives with its database, PostgreSQL's in agency.pg (the one place psycopg is
# imported), and joins once that is imported.


class GoalKeyConflictError(AgencyError, RuntimeError):
    """The database refused a write: a live task already holds this goal key."""

    def __init__(self, goal_type: str, key: str) -> None:
        super().__init__(f"a non-terminal {goal_type} task already holds goal key {key}")
        self.goal_type = goal_type
        self.key = key


def is_goal_key_conflict(exc: BaseException) -> bool:
    """Whether the database refused a write because a live task already holds the goal key:
    SQLite names the unique index's columns in its message, PostgreSQL names the index."""
    return refused_by_unique_index(exc, index=GOAL_KEY_INDEX, columns=GOAL_KEY_COLUMNS)


# (live task of a key, task ids by terminal, live keys) in each dialect. Each says "live" as
# its unique index does (SQLite: terminal = 0, a boolean in PostgreSQL), so the index serves
# the lookup; ids sort bytewise in both (PostgreSQL's default collation may not).
_SQL = {
    "sqlite": (
        "SELECT task_id FROM goal_keys WHERE goal_type = ? AND key = ? AND terminal = 0",
        "SELECT DISTINCT task_id FROM goal_keys WHERE goal_type = ? AND terminal = ? ORDER BY task_id",
        "SELECT goal_type, key, task_id FROM goal_keys WHERE terminal = 0",
    ),
    "postgresql": (
        "SELECT task_id FROM goal_keys WHERE goal_type = %s AND key = %s AND terminal = false",
        "SELECT task_id FROM goal_keys WHERE goal_type = %s AND terminal = %s "
        'GROUP BY task_id ORDER BY task_id COLLATE "C"',
        "SELECT goal_type, key, task_id FROM goal_keys WHERE terminal = false",
    ),
}


class GoalKeyIndex:
    def __init__(self, path: StoreSource) -> None:
        self._db = database_of(path)
        self._live, self._by_terminal, self._all_live = _SQL[self._db.dialect]

    def _rows(self, sql: str, params: tuple[object, ...]) -> list[Any]:
        rows: list[Any] = self._db.execute(sql, params).fetchall()
        return rows

    def live_task_id(self, goal_type: str, key: str) -> str | None:
        """The non-terminal task holding key (as its goalKey or an alias), if any."""
        rows = self._rows(self._live, (goal_type, key))
        return rows[0]["task_id"] if rows else None

    def task_ids(self, goal_type: str, *, terminal: bool) -> list[str]:
        rows = self._rows(self._by_terminal, (goal_type, terminal))
        return [r["task_id"] for r in rows]

    def live_key_holders(self) -> dict[tuple[str, str], list[str]]:
        """(goalType, key) -> task ids among non-terminal tasks: the invariant wants len 1."""
        out: dict[tuple[str, str], list[str]] = {}
        for r in self._rows(self._all_live, ()):
            out.setdefault((r["goal_type"], r["key"]), []).append(r["task_id"])
        return out

    def close(self) -> None:
        self._db.release()
