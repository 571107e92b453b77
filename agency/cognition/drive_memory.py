"""When a bot's drive tick last fired: the tick's one piece of memory (DriveTickState), kept
across restarts in the agency database (DriveTickMemory)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from agency.db import StoreSource, database_of


@dataclass
class DriveTickState:
    """The one piece of drive-tick memory: when it last fired (None = never)."""

    last_fired_ms: int | None = None
    on_fire: Callable[[int], None] | None = field(default=None, repr=False, compare=False)  # e.g. persist it

    def due(self, now_ms: int, interval_ms: int) -> bool:
        return self.last_fired_ms is None or now_ms - self.last_fired_ms >= interval_ms

    def fired(self, now_ms: int) -> None:
        self.last_fired_ms = now_ms
        if self.on_fire is not None:
            self.on_fire(now_ms)


_SAVE_SET = "ON CONFLICT (bot) DO UPDATE SET last_fired_ms = excluded.last_fired_ms"
_MEMORY_SQL = {  # (read, save) in each dialect
    "sqlite": (
        "SELECT last_fired_ms FROM drive_ticks WHERE bot = ?",
        f"INSERT INTO drive_ticks (bot, last_fired_ms) VALUES (?, ?) {_SAVE_SET}",
    ),
    "postgresql": (
        "SELECT last_fired_ms FROM drive_ticks WHERE bot = %s",
        f"INSERT INTO drive_ticks (bot, last_fired_ms) VALUES (%s, %s) {_SAVE_SET}",
    ),
}


class DriveTickMemory:
    """When a bot's last drive tick fired, kept in the agency database (table drive_ticks,
    one row per bot name), so the interval survives a restart: a daemon started again a
    minute after a tick does not fire at once. A daemon driving several bots keeps one
    memory per bot; the default bot '' holds what the one-bot daemon remembered before
    (agency/db.py migration 9)."""

    def __init__(self, db_path: StoreSource, *, bot: str = "") -> None:
        self._db = database_of(db_path)  # a path: a connection of its own; a database: the shared one
        self._read, self._save_sql = _MEMORY_SQL[self._db.dialect]
        self.bot = bot

    def state(self) -> DriveTickState:
        """The stored state; firing through it writes the new time back."""
        row = self._db.execute(self._read, (self.bot,)).fetchone()
        return DriveTickState(last_fired_ms=None if row is None else int(row["last_fired_ms"]), on_fire=self._save)

    def _save(self, now_ms: int) -> None:
        self._db.execute(self._save_sql, (self.bot, now_ms))

    def close(self) -> None:
        self._db.release()
