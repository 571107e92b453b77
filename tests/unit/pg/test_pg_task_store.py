"""What only the PostgreSQL store has: claim leases and their take-over, row locks between
daemons, SKIP LOCKED claims, migrations recorded in schema_version. Time comes from the
frozen clock; a wait on another connection's lock is observed in pg_locks, not slept for."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from agency.pg.database import PgDatabase, schema_version
from agency.pg.migrations import MIGRATIONS
from agency.pg.task_store import DEFAULT_LEASE_MS, LEASE_EXPIRED, SQL_CLAIM_NEXT, PgTaskStore, is_goal_key_conflict
from agency.planning.tasks.models import TaskStatus

S = TaskStatus


@pytest.fixture
def two(pg, clock):
    """Two daemons on one database."""
    a, b = pg.make(clock, daemon_id="daemon-a"), pg.make(clock, daemon_id="daemon-b")
    yield a, b
    a.close()
    b.close()


def _add(store, title="t"):
    return store.add_task({"title": title, "type": "collect"}).id


# -- leases ---------------------------------------------------------------------------


def test_a_claim_is_leased_to_the_claiming_daemon_and_leaving_active_drops_it(two, clock):
    a, b = two
    tid = _add(a)
    assert a.lease_of(tid) is None
    assert b.claim_next().id == tid
    assert b.lease_of(tid) == ("daemon-b", clock() + DEFAULT_LEASE_MS)
    b.set_status(tid, S.paused)
    assert b.lease_of(tid) is None
    a.set_status(tid, S.pending)
    a.set_status(tid, S.active)  # made active by a plain status change: leased to the writer too
    assert a.lease_of(tid) == ("daemon-a", clock() + DEFAULT_LEASE_MS)
    clock.advance(10)
    a.set_progress(tid, 0.5)  # staying active keeps the lease as it was
    assert a.lease_of(tid) == ("daemon-a", clock() - 10 + DEFAULT_LEASE_MS)
    a.set_status(tid, S.completed)
    assert a.lease_of(tid) is None
    b.set_status(tid, S.active)  # re-opened by the verifier on b
    assert b.lease_of(tid)[0] == "daemon-b"


def test_renew_extends_only_this_daemons_leases(two, clock):
    a, b = two
    mine, theirs = _add(a, "mine"), _add(a, "theirs")
    assert a.claim_next().id == mine and b.claim_next().id == theirs
    clock.advance(20_000)
    assert a.renew_leases() == [mine]
    assert a.lease_of(mine) == ("daemon-a", clock() + DEFAULT_LEASE_MS)
    assert b.lease_of(theirs) == ("daemon-b", clock() - 20_000 + DEFAULT_LEASE_MS)  # untouched
    assert a.renew_leases(now=clock() + 5) == [mine] and a.lease_of(mine)[1] == clock() + 5 + DEFAULT_LEASE_MS


def test_a_dead_daemons_tasks_are_taken_over_once_its_lease_expires(two, clock):
    a, b = two
    dead1, dead2, alive = _add(a, "1"), _add(a, "2"), _add(a, "3")
    for store in (a, a, b):
        store.claim_next()
    lease_end = clock() + DEFAULT_LEASE_MS
    clock.advance(DEFAULT_LEASE_MS - 1_000)
    b.renew_leases()  # b is alive; a has stopped renewing
    assert b.take_over_expired() == []  # a's lease has not run out yet
    assert b.take_over_expired(now=lease_end) == []  # the lease holds through its last ms
    clock.advance(2_000)
    taken = b.take_over_expired()
    assert sorted(t.id for t in taken) == sorted([dead1, dead2])
    for tid in (dead1, dead2):
        task = b.get_task(tid)
        assert (task.status, task.metadata.updatedAt, b.lease_of(tid)) == (S.pending, clock(), None)
        last = b.events(tid)[-1]
        assert (last.event, last.status, last.at) == (LEASE_EXPIRED, "pending", clock())
        assert last.data == {"from": "active", "owner": "daemon-a", "leaseUntil": lease_end}
    assert b.get_task(alive).status is S.active and b.lease_of(alive)[0] == "daemon-b"
    assert a.renew_leases() == []  # a, back, learns it holds nothing any more
    assert {b.claim_next().id, b.claim_next().id} == {dead1, dead2}
    assert {b.lease_of(dead1)[0], b.lease_of(dead2)[0]} == {"daemon-b"}


def test_the_database_refuses_an_active_task_without_a_lease(two, pg):
    a, _ = two
    tid = _add(a)
    with pytest.raises(psycopg.errors.CheckViolation):
        pg.raw("UPDATE tasks SET status = 'active' WHERE id = %s", (tid,))
    with pytest.raises(psycopg.errors.CheckViolation):
        pg.raw("UPDATE tasks SET claimed_by = 'x', lease_until = 1 WHERE id = %s", (tid,))


def test_a_store_needs_a_daemon_id_and_a_positive_lease(pg_url):
    with pytest.raises(ValueError):
        PgTaskStore(pg_url, daemon_id="")
    with pytest.raises(ValueError):
        PgTaskStore(pg_url, daemon_id="d", lease_ms=0)


# -- row locks between daemons --------------------------------------------------------------


def _wait_for_a_blocked_backend(pg, deadline_s=10.0):
    """Whether some connection is waiting for a lock, polled until the deadline."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if pg.raw("SELECT COUNT(*) FROM pg_locks WHERE NOT granted")[0][0] > 0:
            return True
        time.sleep(0.01)
    return False


@pytest.mark.timeout(60)
def test_a_write_waits_for_another_daemons_open_write_so_a_tasks_events_commit_in_seq_order(two, pg):
    a, b = two
    tid = _add(a)
    done = []
    with a._db.tx():  # a's write is open (its event is numbered, not yet committed) ...
        first = a.record_event(tid, "step_started")
        writer = threading.Thread(target=lambda: done.append(b.record_event(tid, "step_finished")))
        writer.start()
        assert _wait_for_a_blocked_backend(pg)  # ... so b's write on the same task waits for it
        seen = pg.raw("SELECT event FROM task_events WHERE task_id = %s ORDER BY seq", (tid,))
        assert done == [] and seen == [("created",)]  # another connection sees neither write yet
    writer.join(timeout=10)
    assert not writer.is_alive()
    assert done[0].seq > first.seq
    assert [e.event for e in b.events(tid, after_seq=first.seq - 1)] == ["step_started", "step_finished"]


@pytest.mark.timeout(60)
def test_a_claim_skips_a_task_another_daemon_holds_instead_of_waiting(two, pg, clock):
    a, b = two
    urgent, next_one = _add(a, "urgent"), _add(a, "next")
    a.set_urgencies({urgent: 0.9})
    got = []
    with a._db.tx():
        a.update_task_metadata(urgent, {"tags": ["being edited"]})  # a holds the urgent row
        claimer = threading.Thread(target=lambda: got.append(b.claim_next()))
        claimer.start()
        claimer.join(timeout=10)
        assert not claimer.is_alive()  # it did not wait for a
    assert got[0].id == next_one
    assert b.claim_next().id == urgent


def test_the_claim_query_reads_the_claim_index_without_sorting(pg, clock):
    store = pg.make(clock)
    try:
        with store._db.tx() as conn:
            conn.execute("SET LOCAL enable_seqscan = off")  # a few rows would be scanned, not indexed
            plan = " ".join(r["QUERY PLAN"] for r in conn.execute("EXPLAIN " + SQL_CLAIM_NEXT).fetchall())
        assert "idx_tasks_claim" in plan and "Sort" not in plan
    finally:
        store.close()


def test_a_goal_key_conflict_is_told_apart_from_other_refusals(pg, clock):
    store = pg.make(clock)
    binding = {"goalType": "build", "goalKey": "k"}
    try:
        store.add_task({"title": "x", "type": "build", "metadata": {"goalBinding": binding}})
        with pytest.raises(psycopg.IntegrityError) as dup:
            store.add_task({"title": "x", "type": "build", "metadata": {"goalBinding": binding}})
        with pytest.raises(psycopg.IntegrityError) as incomplete:
            store.add_task({"title": "x", "type": "build", "metadata": {"goalBinding": {"goalType": "build"}}})
        assert is_goal_key_conflict(dup.value) and not is_goal_key_conflict(incomplete.value)
    finally:
        store.close()


# -- the database and its migrations ------------------------------------------------------------


def test_migrations_run_at_open_once_each_and_are_recorded(pg_url):
    with PgDatabase(pg_url) as db:
        assert schema_version(db.conn) == MIGRATIONS[-1][0]
        rows = db.execute("SELECT version, description, applied_at FROM schema_version ORDER BY version").fetchall()
    assert [(r["version"], r["description"]) for r in rows] == [(v, d) for v, d, _sql in MIGRATIONS]
    with PgDatabase(pg_url) as again:  # reopening applies nothing twice
        rows_again = again.execute("SELECT version, applied_at FROM schema_version ORDER BY version").fetchall()
    assert [(r["version"], r["applied_at"]) for r in rows_again] == [(r["version"], r["applied_at"]) for r in rows]


def test_daemons_opening_a_new_database_together_migrate_it_once(pg_url):
    start = threading.Barrier(4)
    opened, failed = [], []

    def open_one():
        start.wait()
        try:
            opened.append(PgDatabase(pg_url))
        except Exception as exc:  # noqa: BLE001 - the assertion below names it
            failed.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    try:
        assert failed == [] and len(opened) == 4
        counted = opened[0].execute("SELECT COUNT(*) AS n FROM schema_version").fetchone()["n"]
        assert counted == len(MIGRATIONS)
    finally:
        for db in opened:
            db.close()


def test_a_shared_database_outlives_its_stores_a_private_one_does_not(pg_url, clock):
    shared = PgDatabase(pg_url)
    try:
        assert PgDatabase.of(shared) is shared
        on_shared = PgTaskStore(shared, daemon_id="d", clock=clock)
        on_shared.close()
        assert not shared.conn.closed
        private = PgTaskStore(pg_url, daemon_id="d", clock=clock)
        private.close()
        assert private._conn.closed
    finally:
        shared.close()
