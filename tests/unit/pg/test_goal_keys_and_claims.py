"""What must hold across daemons, held by the database itself in both stores: one live task
per goal key (aliases included), whoever writes the row; and claims from separate processes
that never take a task twice."""

from __future__ import annotations

import multiprocessing

import pytest

from agency.planning.tasks.models import TaskStatus
from tests.unit.pg import claim_worker

S = TaskStatus
BINDING = {"goalType": "build", "goalKey": "build:shelter@1", "goalKeyAliases": ["shelter:home"]}


def _bound(binding=None, **extra):
    return {"title": "Build a shelter", "type": "build", "metadata": {"goalBinding": binding or BINDING, **extra}}


def _task_json(task_id, binding, status="pending"):
    return {
        "id": task_id,
        "title": "raw",
        "type": "build",
        "status": status,
        "metadata": {"createdAt": 0, "updatedAt": 0, "goalBinding": binding},
    }


def _live_rows(backend):
    return backend.raw("SELECT COUNT(*) FROM goal_keys WHERE terminal = %s", (False,))[0][0]


def test_a_second_live_task_for_a_goal_key_is_refused_by_the_database(store, backend):
    first = store.add_task(_bound())
    with pytest.raises(backend.integrity_error):
        store.add_task(_bound())
    with pytest.raises(backend.integrity_error):  # through an alias
        store.add_task(_bound({"goalType": "build", "goalKey": "other", "goalKeyAliases": ["build:shelter@1"]}))
    with pytest.raises(backend.integrity_error):  # around the store: raw SQL on a connection of its own
        backend.insert_raw_task("raw-1", _task_json("raw-1", {"goalType": "build", "goalKey": "shelter:home"}))
    assert [t.id for t in store.list_by_status()] == [first.id]
    assert store.add_task(_bound({"goalType": "mine", "goalKey": "build:shelter@1"})).id  # another goal type
    store.set_status(first.id, S.active)
    store.set_status(first.id, S.completed)  # terminal: the key is free again
    second = store.add_task(_bound())
    with pytest.raises(backend.integrity_error):  # re-opening the first would make two live holders
        store.set_status(first.id, S.active)
    assert store.get_task(first.id).status is S.completed
    holder = "SELECT task_id FROM goal_keys WHERE goal_type = 'build' AND key = %s AND terminal = %s"
    assert backend.raw(holder, ("build:shelter@1", False)) == [(second.id,)]


def test_goal_keys_rows_mirror_the_binding_and_its_aliases(store, backend):
    t = store.add_task(_bound({"goalType": "build", "goalKey": "k1", "goalKeyAliases": ["k2", "k1", None]}))
    rows = backend.raw("SELECT key, is_alias, terminal FROM goal_keys WHERE task_id = %s ORDER BY key", (t.id,))
    assert [(k, bool(a), bool(term)) for k, a, term in rows] == [("k1", False, False), ("k2", True, False)]
    store.set_status(t.id, S.failed)
    rows = backend.raw("SELECT terminal FROM goal_keys WHERE task_id = %s", (t.id,))
    assert [bool(r[0]) for r in rows] == [True, True]
    backend.raw("DELETE FROM tasks WHERE id = %s", (t.id,))
    assert backend.raw("SELECT COUNT(*) FROM goal_keys WHERE task_id = %s", (t.id,))[0][0] == 0


def test_an_archived_binding_frees_its_keys(store, backend):
    t = store.add_task(_bound())
    store.update_task_metadata(t.id, {"goalBinding": {**BINDING, "archivedWorld": "world-1"}})
    assert _live_rows(backend) == 0
    assert store.add_task(_bound()).metadata.goalBinding == BINDING


def test_a_binding_without_goal_type_or_key_is_refused(store, backend):
    with pytest.raises(backend.integrity_error):
        backend.insert_raw_task("raw-2", _task_json("raw-2", {"goalType": "build"}))
    with pytest.raises(backend.integrity_error):
        store.add_task(_bound({"goalKey": "k"}))
    assert store.list_by_status() == []


@pytest.mark.timeout(120)
def test_claims_across_processes_take_each_task_exactly_once(backend, clock):
    s = backend.make(clock)
    ids = set()
    for i in range(40):
        t = s.add_task({"title": f"t{i}", "type": "collect"})
        s.set_urgencies({t.id: (i % 5) / 4})
        ids.add(t.id)
        clock.advance(1000)
    s.close()
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    daemons = [f"daemon-{n}" for n in range(3)]
    procs = [
        ctx.Process(target=claim_worker.claim_all, args=(backend.name, backend.location, d, results)) for d in daemons
    ]
    for p in procs:
        p.start()
    claimed = dict(results.get(timeout=90) for _ in procs)
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    every = [tid for batch in claimed.values() for tid, _urgency in batch]
    assert sorted(every) == sorted(ids)  # each task exactly once, none lost
    for batch in claimed.values():  # and each daemon took its share most urgent first
        urgencies = [u for _tid, u in batch]
        assert urgencies == sorted(urgencies, reverse=True)
    if backend.name == "postgresql":  # each claim is leased to the daemon that made it
        owners = dict(backend.raw("SELECT id, claimed_by FROM tasks"))
        assert {tid: owners[tid] for tid in every} == {tid: d for d, b in claimed.items() for tid, _u in b}
