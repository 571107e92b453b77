"""One daemon of the cross-process claim race (spawned by test_claims_across_processes): open
the shared database, claim until nothing is pending, report (task id, urgency) in order."""

from __future__ import annotations

from typing import Any

from agency.clock import FrozenClock


def claim_all(backend: str, location: str, daemon_id: str, results: Any) -> None:
    if backend == "postgresql":
        from agency.pg.task_store import PgTaskStore  # noqa: PLC0415 - psycopg only for the PostgreSQL race

        store: Any = PgTaskStore(location, daemon_id=daemon_id, clock=FrozenClock(), dev_mode=False)
    else:
        from agency.planning.tasks.store import SqliteTaskStore  # noqa: PLC0415 - imported in its branch, like the PostgreSQL store

        store = SqliteTaskStore(location, clock=FrozenClock(), dev_mode=False)
    try:
        got = []
        while (task := store.claim_next()) is not None:
            got.append((task.id, task.urgency))
        results.put((daemon_id, got))
    finally:
        store.close()
