"""One daemon of the cross-process claim race (spawned by test_agency_task_store): open the
shared SQLite file and claim until nothing is pending; report (task id, urgency) in order."""

from __future__ import annotations

from typing import Any

from agency.clock import FrozenClock
from agency.planning.tasks.store import SqliteTaskStore


def claim_all(db_path: str, results: Any) -> None:
    store = SqliteTaskStore(db_path, clock=FrozenClock(), dev_mode=False)
    try:
        got = []
        while (task := store.claim_next()) is not None:
            got.append((task.id, task.urgency))
        results.put(got)
    finally:
        store.close()
