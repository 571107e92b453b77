"""The TaskStore contract, held by both stores: SqliteTaskStore and PgTaskStore (the `store`
and `backend` fixtures run each test once per backend, on a fresh database)."""

from __future__ import annotations

import itertools
import json

import pytest

from agency.planning.tasks.models import (
    TRANSITIONS,
    IllegalTransitionError,
    InvalidProgressError,
    StaleStatusError,
    TaskNotFoundError,
    TaskOrigin,
    TaskStatus,
)
from tests.unit.pg.task_helpers import PATH_TO, add_pending, draft

S = TaskStatus


# -- add, finalize, get ---------------------------------------------------------------


def test_a_task_added_reads_back_equal_and_pending(store, clock):
    t = store.add_task(
        {
            "title": "Collect oak log",
            "type": "collect",
            "description": "d",
            "priority": 0.7,
            "source": "drive-tick",
            "parameters": {"item": "oak_log", "count": 3},
        }
    )
    got = store.get_task(t.id)
    assert got == t
    assert (got.status, got.progress, got.urgency, got.metadata.createdAt) == (S.pending, 0.0, 0.5, clock())
    assert got.parameters == {"item": "oak_log", "count": 3}
    assert store.get_task("no-such-task") is None


def test_finalize_stamps_origin_once_and_it_survives_patches(store, clock):
    t = store.add_task(draft(), allow_unfinalized=True)
    assert t.metadata.origin is None
    clock.advance(5)
    f = store.finalize_new_task(t.id, TaskOrigin(kind="thought", sourceId="th-1"))
    assert f.metadata.origin == TaskOrigin(kind="thought", sourceId="th-1", stampedAt=clock())
    assert store.finalize_new_task(t.id, TaskOrigin(kind="manual")).metadata.origin.kind == "thought"
    u = store.update_task_metadata(t.id, {"origin": {"kind": "evil"}, "blockedReason": "waiting"})
    assert (u.metadata.origin.kind, u.metadata.blockedReason) == ("thought", "waiting")
    assert store.get_task(t.id).metadata.origin.kind == "thought"
    assert store.add_task(draft(), origin={"kind": "drive-tick"}).metadata.origin.stampedAt == clock()


def test_unknown_task_raises_typed_not_found(store):
    for write in (
        lambda: store.set_status("nope", "active"),
        lambda: store.set_progress("nope", 0.5),
        lambda: store.update_task_metadata("nope", {}),
        lambda: store.finalize_new_task("nope", {"kind": "x"}),
        lambda: store.record_event("nope", "step_started"),
    ):
        with pytest.raises(TaskNotFoundError):
            write()


# -- metadata projection -------------------------------------------------------------------


def test_metadata_is_rebuilt_and_only_allowlisted_keys_survive(store, clock):
    t = store.add_task(
        draft(
            goalKey="collect:oak_log",
            sourceThoughtId="th-1",
            secret="x",
            origin={"kind": "forged"},
            createdAt=1,
            retryCount=9,
            childTaskIds=["x"],
            tags=["a", 3],
            solver={"s": 1},
        )
    )
    for m in (t.metadata, store.get_task(t.id).metadata):
        dumped = m.model_dump(exclude_none=True)
        assert "secret" not in dumped and "origin" not in dumped
        assert (m.goalKey, m.sourceThoughtId) == ("collect:oak_log", "th-1")
        assert (m.createdAt, m.retryCount, m.childTaskIds, m.tags, m.solver, m.category) == (
            clock(),
            0,
            [],
            ["a"],
            {"s": 1},
            "collect",
        )


def test_dev_mode_warns_once_per_dropped_key(store, logs):
    store.add_task(draft(foo=1, bar=2))
    store.add_task(draft(foo=3))
    store.update_task_metadata(store.add_task(draft()).id, {"foo": 4})
    warned = [m for level, m in logs if level == "WARNING"]
    assert sum("'foo'" in m for m in warned) == 1 and sum("'bar'" in m for m in warned) == 1


def test_an_empty_goal_key_never_reaches_the_row(store, backend):
    t = store.add_task(draft(goalKey=""))
    assert t.metadata.goalKey is None
    data, goal_key = backend.raw("SELECT data, goal_key FROM tasks WHERE id = %s", (t.id,))[0]
    assert goal_key is None
    assert "goalKey" not in (json.loads(data) if isinstance(data, str) else data)["metadata"]
    keyed = store.add_task(draft(goalKey="collect:oak_log"))
    assert store.update_task_metadata(keyed.id, {"goalKey": ""}).metadata.goalKey == "collect:oak_log"
    with pytest.raises(backend.integrity_error):  # the last layer: the column's CHECK
        backend.raw("UPDATE tasks SET goal_key = '' WHERE id = %s", (keyed.id,))


def test_a_metadata_patch_cannot_move_created_at_and_drops_unknown_keys(store, clock):
    t = store.add_task(draft())
    clock.advance(10)
    u = store.update_task_metadata(t.id, {"createdAt": 1, "updatedAt": 2, "nope": 3, "nextEligibleAt": 99})
    assert (u.metadata.createdAt, u.metadata.updatedAt, u.metadata.nextEligibleAt) == (
        t.metadata.createdAt,
        clock(),
        99,
    )
    assert store.get_task(t.id) == u


# -- transitions and progress ------------------------------------------------------------------


def test_every_status_change_follows_the_transition_table(store):
    wrong = []
    for frm, to in itertools.product(TaskStatus, TaskStatus):
        t = store.add_task(draft())
        for step in PATH_TO[frm]:
            store.set_status(t.id, step)
        try:
            got = store.set_status(t.id, to).status
            if to not in TRANSITIONS[frm] or got is not to or store.get_task(t.id).status is not to:
                wrong.append(f"{frm.value} -> {to.value} allowed")
        except IllegalTransitionError as err:
            if to in TRANSITIONS[frm] or (err.from_status, err.to_status) != (frm, to):
                wrong.append(f"{frm.value} -> {to.value} refused")
            if store.get_task(t.id).status is not frm:
                wrong.append(f"{frm.value} -> {to.value} refused but the row changed")
    assert wrong == []


@pytest.mark.parametrize("bad", [-0.01, 1.01, float("nan"), True, "0.5"])
def test_progress_must_be_a_number_within_0_and_1(store, bad):
    t = store.add_task(draft())
    store.set_progress(t.id, 0.25)
    with pytest.raises(InvalidProgressError):
        store.set_progress(t.id, bad)
    assert store.get_task(t.id).progress == 0.25
    assert store.set_progress(t.id, 1).progress == 1.0 and store.get_task(t.id).progress == 1.0


# -- events ------------------------------------------------------------------------------


def test_events_follow_every_change_in_order_with_the_status_after_it(store, clock):
    t = store.add_task(draft(goalKey="collect:oak_log"), origin={"kind": "manual"})
    assert store.claim_next().id == t.id
    store.set_progress(t.id, 0.5)
    store.set_progress(t.id, 0.5)  # a repeated report is not news
    store.record_event(t.id, "step_started", {"stepId": "s1"})
    store.set_status(t.id, S.paused, metadata_patch={"blockedReason": "reflex: low health"})
    store.update_task_metadata(t.id, {"blockedReason": "user pause"})  # held anew
    store.update_task_metadata(t.id, {"tags": ["x"]})  # nothing a watcher follows
    store.set_status(t.id, S.pending)
    store.set_status(t.id, S.pending_planning)
    with pytest.raises(IllegalTransitionError):
        store.set_status(t.id, S.completed)  # refused: logs nothing
    events = store.events(t.id)
    assert [(e.event, e.status) for e in events] == [
        ("created", "pending"),
        ("claimed", "active"),
        ("progress", "active"),
        ("step_started", "active"),
        ("held", "paused"),
        ("held", "paused"),
        ("resumed", "pending"),
        ("planning", "pending_planning"),
    ]
    assert events[0].data == {"origin": "manual", "goalKey": "collect:oak_log"}
    assert events[4].data == {"from": "active", "reason": "reflex: low health"}
    assert events[5].data == {"from": "paused", "reason": "user pause"}
    assert events[3].progress == 0.5 and events[3].data == {"stepId": "s1"}
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert [e.seq for e in store.events(t.id, after_seq=seqs[2], limit=2)] == seqs[3:5]
    with pytest.raises(ValueError):
        store.record_event(t.id, "completed")  # status events come only from the writes they describe
    with pytest.raises(ValueError):
        store.events(t.id, limit=0)


def test_a_refused_write_leaves_neither_the_change_nor_its_event(backend, clock):
    def refuse_failed(task):
        if task.status is S.failed:
            raise RuntimeError("invariant: no failures today")

    store = backend.make(clock, dev_mode=True, invariant_check=refuse_failed)
    try:
        t = store.add_task(draft())
        with pytest.raises(RuntimeError):
            store.set_status(t.id, S.failed)
        assert store.get_task(t.id).status is S.pending
        assert [e.event for e in store.events(t.id)] == ["created"]
    finally:
        store.close()


# -- queries ------------------------------------------------------------------------------


def test_find_and_latest_by_goal_key(store, clock):
    a = store.add_task(draft(goalKey="collect:oak_log"))
    clock.advance(1)
    b = store.add_task(draft(goalKey="collect:oak_log"))
    store.add_task(draft(goalKey="craft:crafting_table"))
    clock.advance(1)
    store.set_status(b.id, "active")
    clock.advance(1)
    store.update_task_metadata(a.id, {"tags": ["touched"]})  # a is now the most recently updated
    assert [t.id for t in store.find_by_goal_key("collect:oak_log")] == [a.id, b.id]
    assert [t.id for t in store.find_by_goal_key("collect:oak_log", [S.active])] == [b.id]
    assert [t.id for t in store.find_by_goal_key("collect:oak_log", [S.active, S.pending])] == [a.id, b.id]
    assert [t.id for t in store.latest_by_goal_key("collect:oak_log", 5)] == [a.id, b.id]
    assert [t.id for t in store.latest_by_goal_key("collect:oak_log", 1)] == [a.id]
    assert store.find_by_goal_key("") == [] and store.latest_by_goal_key("", 3) == []
    assert [t.id for t in store.list_by_status(S.active)] == [b.id]
    assert len(store.list_by_status()) == 3


def test_newest_and_counts_by_status(store, clock):
    ids = []
    for _ in range(4):
        ids.append(store.add_task(draft()).id)
        clock.advance(1)
    same_ms = [store.add_task(draft()).id, store.add_task(draft()).id]  # equal created_at: insertion order
    store.set_status(ids[0], S.failed)
    store.set_status(ids[1], S.active)
    assert [t.id for t in store.newest(3)] == [same_ms[1], same_ms[0], ids[3]]
    counts = store.counts_by_status()
    assert counts == {
        "pending": 4,
        "pending_planning": 0,
        "active": 1,
        "completed": 0,
        "failed": 1,
        "paused": 0,
        "unplannable": 0,
    }


# -- urgency and the claim --------------------------------------------------------------------


def test_claim_next_takes_the_most_urgent_pending_task_then_the_oldest(store, clock):
    old_low = add_pending(store, clock, "old low", 0.2)
    mid_a = add_pending(store, clock, "mid a", 0.5)
    urgent = add_pending(store, clock, "urgent", 0.9)
    mid_b = add_pending(store, clock, "mid b", 0.5)
    paused = add_pending(store, clock, "paused", 1.0)
    store.set_status(paused, S.paused)  # only pending tasks are claimed
    order = []
    while (task := store.claim_next()) is not None:
        assert task.status is S.active and store.get_task(task.id).status is S.active
        order.append(task.id)
    assert order == [urgent, mid_a, mid_b, old_low]


def test_urgency_has_one_writer_and_a_ranking_is_not_a_change(store, clock):
    t = store.add_task({"title": "x", "type": "collect", "urgency": 0.9})
    assert t.urgency == 0.5
    clock.advance(5000)
    assert store.set_urgencies({"no-such-task": 0.1, t.id: 0.75}) == [t.id]
    after = store.get_task(t.id)
    assert (after.urgency, after.metadata.updatedAt) == (0.75, t.metadata.updatedAt)
    assert store.set_urgencies({t.id: 0.75}) == []
    store.set_status(t.id, S.failed)
    assert store.set_urgencies({t.id: 0.2}) == [] and store.get_task(t.id).urgency == 0.75
    with pytest.raises(ValueError):
        store.set_urgencies({t.id: 1.5})


def test_claims_from_two_stores_follow_one_order_and_never_take_a_task_twice(store, backend, clock):
    """Two stores on one database stand for two daemons: each claim sees the other's writes."""
    other = backend.make(clock, daemon_id="daemon-b")
    try:
        ids = [add_pending(store, clock, f"t{i}", u) for i, u in enumerate([0.3, 0.8, 0.3, 0.6, 0.8, 0.1])]
        other.set_urgencies({ids[5]: 1.0})
        got = [(store if i % 2 == 0 else other).claim_next() for i in range(7)]
        assert [t.id for t in got[:6]] == [ids[5], ids[1], ids[4], ids[3], ids[0], ids[2]]
        assert got[6] is None
    finally:
        other.close()


def test_the_store_survives_reopening(backend, clock):
    s = backend.make(clock)
    t = s.add_task(draft(goalKey="collect:oak_log"), origin=TaskOrigin(kind="thought"))
    s.set_status(t.id, "active")
    s.set_progress(t.id, 0.25)
    s.close()
    again = backend.make(clock)
    try:
        got = again.get_task(t.id)
        assert (got.status, got.progress, got.metadata.goalKey, got.metadata.origin.kind) == (
            S.active,
            0.25,
            "collect:oak_log",
            "thought",
        )
        assert [e.event for e in again.events(t.id)] == ["created", "claimed", "progress"]
    finally:
        again.close()


def test_a_status_change_from_a_status_read_earlier_is_refused_once_the_task_left_it(store):
    t = store.add_task(draft())
    store.set_status(t.id, S.active)  # claimed between the caller's read (pending) and its write
    with pytest.raises(IllegalTransitionError) as err:
        store.set_status(t.id, S.failed, only_from=S.pending, metadata_patch={"blockedReason": "withdrawn: x"})
    assert isinstance(err.value, StaleStatusError) and "is active, not pending" in str(err.value)
    got = store.get_task(t.id)
    assert (got.status, got.metadata.blockedReason) == (S.active, None)
    u = store.add_task(draft())
    assert store.set_status(u.id, S.failed, only_from=S.pending).status is S.failed
