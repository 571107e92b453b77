"""Poison tasks in the task store, held by both stores (SQLite and PostgreSQL, the `store`
and `backend` fixtures): each bridge down during a run is recorded on the task with an
event, the second fails it with the reason in the same write, and a reopened store (a
restart) hands it to no claim or resume."""

from __future__ import annotations

from agency.planning.tasks.models import TaskStatus
from agency.planning.tasks.poison import POISON_AFTER, poison_reason
from tests.unit.pg.task_helpers import draft

S = TaskStatus
WEDGED = "wedged: no heartbeat for 6 s"
DIED = "node process exited (code -9)"


def _active(store) -> str:
    t = store.add_task(draft(goalKey="collect:oak_log"))
    store.set_status(t.id, S.active)
    return t.id


def test_a_bridge_down_is_recorded_with_an_event_and_leaves_the_hold_to_the_caller(store, clock):
    tid = _active(store)
    clock.advance(5)
    t = store.record_bridge_down(tid, DIED)
    assert t.status is S.active and store.get_task(tid) == t
    assert [(d.at, d.reason) for d in t.metadata.bridgeDowns] == [(clock(), DIED)]
    last = store.events(tid)[-1]
    assert (last.event, last.status, last.data) == (
        "bridge_down",
        "active",
        {"reason": DIED, "count": 1, "poisonAfter": POISON_AFTER},
    )
    held = store.set_status(tid, S.paused, metadata_patch={"blockedReason": "disconnected"})
    assert held.metadata.bridgeDowns == t.metadata.bridgeDowns  # a hold, a resume and a claim keep the record
    store.set_status(tid, S.pending, metadata_patch={"blockedReason": None})
    assert len(store.claim_next().metadata.bridgeDowns) == 1


def test_the_second_bridge_down_fails_the_task_with_the_reason_and_a_restart_never_resumes_it(store, backend, clock):
    tid = _active(store)
    store.record_bridge_down(tid, DIED)
    clock.advance(60_000)
    t = store.record_bridge_down(tid, WEDGED)
    reason = "poison: its run brought the bridge down twice (last: wedged: no heartbeat for 6 s)"
    assert poison_reason(2, WEDGED) == reason
    assert t.status is S.failed and t.metadata.solver["failureReason"] == reason
    assert [d.reason for d in t.metadata.bridgeDowns] == [DIED, WEDGED] and t.metadata.blockedReason is None
    kinds = [(e.event, e.status, e.data.get("reason")) for e in store.events(tid)][-2:]
    assert kinds == [("bridge_down", "active", WEDGED), ("failed", "failed", reason)]
    store.close()

    reopened = backend.make(clock)  # the next daemon start
    try:
        again = reopened.get_task(tid)
        assert again.status is S.failed and again.metadata.solver["failureReason"] == reason
        assert len(again.metadata.bridgeDowns) == 2
        assert reopened.claim_next() is None
        assert reopened.list_by_status(S.active, S.paused, S.pending, S.pending_planning) == []
    finally:
        reopened.close()


def test_the_record_is_the_stores_alone(store):
    t = store.add_task(draft(bridgeDowns=[{"at": 1, "reason": "forged"}]))
    assert t.metadata.bridgeDowns is None and store.get_task(t.id).metadata.bridgeDowns is None
    store.set_status(t.id, S.active)
    store.record_bridge_down(t.id, DIED)
    patched = store.update_task_metadata(t.id, {"bridgeDowns": [], "blockedReason": "x"})
    assert len(patched.metadata.bridgeDowns) == 1 and patched.metadata.blockedReason == "x"


def test_a_task_without_a_bridge_down_carries_no_record(store):
    t = store.add_task(draft())
    assert "bridgeDowns" not in t.model_dump(exclude_none=True)["metadata"]
