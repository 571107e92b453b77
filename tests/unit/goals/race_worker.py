"""One process of the cross-process resolve race (spawned by test_resolver): open the
shared SQLite file, wait at the barrier between lookup and insert, resolve, report."""

from __future__ import annotations

from typing import Any

from agency.clock import FrozenClock
from agency.goals import GoalKeyIndex, VerificationResult, resolve_or_create_build_goal
from agency.planning.tasks.store import SqliteTaskStore

from .conftest import shelter_intent


def race(db_path: str, barrier: Any, results: Any) -> None:
    store = SqliteTaskStore(db_path, clock=FrozenClock(), dev_mode=False)
    index = GoalKeyIndex(db_path)
    try:

        def meet(attempt: int) -> None:
            if attempt == 0:  # both processes have looked and found nothing: now both insert
                barrier.wait(timeout=30)

        res = resolve_or_create_build_goal(
            store,
            index,
            shelter_intent((3.0, 64.0, 3.0)),
            verify=lambda _t, _b: VerificationResult(done=False),
            on_before_create=meet,
        )
        results.put((res.outcome.value, res.task.id))
    finally:
        index.close()
        store.close()
