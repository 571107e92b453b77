"""Helpers shared by the SQLite store's own tests (tests/unit/planning/test_agency_task_store.py)
and the contract both stores hold (test_task_store_contract.py), so the two never drift."""

from __future__ import annotations

from typing import Any

from agency.planning.tasks.models import TaskStatus

S = TaskStatus
# The statuses a new (pending) task passes through to reach each status.
PATH_TO = {
    S.pending: [],
    S.pending_planning: [S.pending_planning],
    S.active: [S.active],
    S.completed: [S.active, S.completed],
    S.failed: [S.failed],
    S.paused: [S.paused],
    S.unplannable: [S.unplannable],
}


def draft(**meta: Any) -> dict[str, Any]:
    return {"title": "Collect oak log", "type": "collect", "metadata": meta}


def add_pending(store: Any, clock: Any, title: str, urgency: float | None = None) -> str:
    """A pending task created now; then the clock moves on, so creation order is age order."""
    t = store.add_task({"title": title, "type": "collect"})
    if urgency is not None:
        store.set_urgencies({t.id: urgency})
    clock.advance(1000)
    return t.id
