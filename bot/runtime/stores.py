"""The daemon's database and task store, shared by every bot it drives: the SQLite file of
`storage.db_path`, or the PostgreSQL database of `storage.url` that several daemons share
(migrated at open). Each bot's agency opens its other stores on the same database."""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loguru import logger

from agency.clock import Clock
from agency.db import Database
from agency.goals import assert_task_state
from agency.planning.tasks.store import SqliteTaskStore, TaskStoreBase
from bot.config.loader import McbotConfig


def daemon_name(cfg: McbotConfig) -> str:
    """This daemon's name in task leases: storage.daemon_id, or host/first bot (stable
    across restarts, so a daemon started again resumes the tasks it still holds)."""
    return cfg.storage.daemon_id or f"{socket.gethostname()}/{cfg.bot_entries()[0].username}"


@dataclass
class SharedStores:
    db: Any  # agency.db.Database or agency.pg.PgDatabase
    tasks: TaskStoreBase
    daemon_id: str
    postgres: bool
    world_id: Any = None  # agency.goals.world_identity.WorldIdentity of the world the bots are in (first attach)
    # Each bot's routable actions and whether it is connected, registered by its agency: who
    # in this daemon can deliver now.
    bot_actions: dict[str, frozenset[str]] = field(default_factory=dict)
    bot_up: dict[str, Callable[[], bool]] = field(default_factory=dict)
    # What each bot of this daemon held at its last look (WorldSnapshot.held): who to ask first.
    bot_held: dict[str, Callable[[], dict[str, int]]] = field(default_factory=dict)

    def held_by(self, name: str) -> dict[str, int]:
        held = self.bot_held.get(name)
        return held() if held is not None else {}

    def bots_that_can(self, action: str) -> list[str]:
        return [
            name
            for name, actions in self.bot_actions.items()
            if action in actions and self.bot_up.get(name, lambda: False)()
        ]

    @classmethod
    def open(cls, cfg: McbotConfig, clock: Clock) -> SharedStores:
        daemon_id = daemon_name(cfg)
        # Field ownership (docs/contracts.md FIELDS-2) asserted on every write in development
        # (MCBOT_ENV=development; unset is production).
        if not cfg.storage.postgres:
            db = Database(cfg.storage.db_path)
            return cls(db, SqliteTaskStore(db, clock=clock, invariant_check=assert_task_state), daemon_id, False)
        from agency.pg.database import PgDatabase  # noqa: PLC0415 - psycopg only for a PostgreSQL store
        from agency.pg.task_store import PgTaskStore  # noqa: PLC0415 - as the line above

        pg = PgDatabase(cfg.storage.url)
        tasks = PgTaskStore(
            pg,
            daemon_id=daemon_id,
            clock=clock,
            lease_ms=int(cfg.storage.lease_s * 1000),
            invariant_check=assert_task_state,
        )
        logger.info(
            "task store: PostgreSQL {} as daemon {} (leases {} s)",
            _safe(cfg.storage.url),
            daemon_id,
            cfg.storage.lease_s,
        )
        return cls(pg, tasks, daemon_id, True)

    def close(self) -> None:
        self.tasks.close()
        self.db.close()


def _safe(url: str) -> str:
    """The URL without its password, for the log."""
    head, sep, tail = url.partition("@")
    if not sep:
        return url
    scheme, _, creds = head.partition("://")
    return f"{scheme}://{creds.split(':', 1)[0]}@{tail}"
