"""Several bots on one task store, held by both stores (SQLite and PostgreSQL): tasks bound to a
bot (metadata.bot) or open to any, claimed atomically by one bot (metadata.heldBy), and the
holder cleared when the task goes back to the queue (agency/planning/tasks/store.py)."""

from __future__ import annotations

import threading

import pytest

from agency.planning.tasks.models import TaskStatus

S = TaskStatus


def _add(store, clock, title, bot=None, urgency=None, goal_key=None):
    """A pending task, bound to `bot` (None: open); then the clock moves on (age order)."""
    meta = {k: v for k, v in (("bot", bot), ("goalKey", goal_key)) if v is not None}
    t = store.add_task({"title": title, "type": "collect", "metadata": meta})
    if urgency is not None:
        store.set_urgencies({t.id: urgency})
    clock.advance(1000)
    return t.id


# -- the claim -----------------------------------------------------------------------------


def test_a_bot_claims_its_own_and_open_tasks_never_another_bots(store, clock):
    for_b = _add(store, clock, "b's", bot="B", urgency=0.9)  # the most urgent, but not A's to take
    for_a = _add(store, clock, "a's", bot="A", urgency=0.5)
    open_one = _add(store, clock, "open", urgency=0.7)
    got = []
    while (task := store.claim_next(bot="A")) is not None:
        got.append((task.id, task.metadata.heldBy, task.metadata.bot))
    assert got == [(open_one, "A", None), (for_a, "A", "A")]  # the binding stays the user's
    assert store.get_task(for_b).status is S.pending
    claimed = store.claim_next(bot="B")
    assert (claimed.id, claimed.metadata.heldBy) == (for_b, "B")
    assert store.get_task(for_b).metadata.heldBy == "B"  # stored, not only returned


def test_a_bot_working_as_some_agents_claims_only_their_actions_and_leaves_the_rest(store, clock):
    build = store.add_task({"title": "a shelter", "type": "Build", "metadata": {}}).id
    clock.advance(1000)
    collect = _add(store, clock, "logs")
    got = store.claim_next(bot="builder", actions={"build", "place"})
    assert got.id == build  # the action matched whatever its case
    assert store.claim_next(bot="builder", actions={"build", "place"}) is None  # the collect is not its to take
    assert store.get_task(collect).status is S.pending
    assert store.claim_next(bot="gatherer", actions={"collect"}).id == collect


def test_an_open_task_goes_to_whichever_bot_claims_first(store, clock):
    t = _add(store, clock, "open")
    assert store.claim_next(bot="B").id == t
    assert store.claim_next(bot="A") is None
    assert store.get_task(t).metadata.heldBy == "B"


def test_a_claim_with_no_bot_is_todays_claim_any_pending_task_held_by_none(store, clock):
    bound = _add(store, clock, "bound", bot="B", urgency=0.9)
    open_one = _add(store, clock, "open", urgency=0.5)
    first, second = store.claim_next(), store.claim_next()
    assert [first.id, second.id] == [bound, open_one]  # the existing order, bindings ignored
    assert (first.metadata.heldBy, second.metadata.heldBy) == (None, None)
    assert store.claim_next() is None


def test_the_claim_is_one_claimed_event_like_any_claim(store, clock):
    t = _add(store, clock, "t", bot="A")
    store.claim_next(bot="A")
    assert [(e.event, e.status) for e in store.events(t)] == [("created", "pending"), ("claimed", "active")]


@pytest.mark.timeout(60)
def test_bots_claiming_at_once_on_their_own_connections_never_take_one_task_twice(backend, clock):
    seed = backend.make(clock)
    ids = {_add(seed, clock, f"t{i}", bot=("A" if i % 3 == 0 else None)) for i in range(30)}
    seed.close()
    start = threading.Barrier(3)
    claimed: dict[str, list[str]] = {}

    def claimer(bot: str, daemon_id: str) -> None:
        store = backend.make(clock, daemon_id=daemon_id)  # a connection of its own, in its thread
        try:
            start.wait(timeout=10)
            got = claimed.setdefault(bot, [])
            while (task := store.claim_next(bot=bot)) is not None:
                got.append(task.id)
        finally:
            store.close()

    threads = [threading.Thread(target=claimer, args=(b, f"daemon-{b}")) for b in ("A", "B", "C")]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=30)
        assert not th.is_alive()
    every = [tid for got in claimed.values() for tid in got]
    assert sorted(every) == sorted(ids)  # each task exactly once, none left
    check = backend.make(clock)
    try:
        for bot, got in claimed.items():
            assert all(check.get_task(tid).metadata.heldBy == bot for tid in got)
            assert bot == "A" or all(check.get_task(tid).metadata.bot is None for tid in got)
    finally:
        check.close()


# -- who holds it -------------------------------------------------------------------------------


def test_held_by_is_the_stores_a_caller_can_neither_add_nor_patch_it(store, clock):
    t = store.add_task({"title": "t", "type": "collect", "metadata": {"bot": "A", "heldBy": "A"}})
    assert (t.metadata.bot, t.metadata.heldBy) == ("A", None)
    assert store.get_task(t.id).metadata.heldBy is None
    store.claim_next(bot="A")
    forged = store.update_task_metadata(t.id, {"heldBy": "B", "blockedReason": "x"})
    assert (forged.metadata.heldBy, forged.metadata.blockedReason) == ("A", "x")
    assert store.set_status(t.id, S.paused, metadata_patch={"heldBy": None}).metadata.heldBy == "A"


def test_an_empty_bot_name_binds_to_no_bot(store, clock):
    t = _add(store, clock, "t", bot="")
    assert store.get_task(t).metadata.bot is None
    assert store.claim_next(bot="A").id == t


@pytest.mark.parametrize("back", [S.pending, S.pending_planning])
def test_the_holder_is_cleared_when_the_task_goes_back_to_the_queue(store, clock, back):
    t = _add(store, clock, "t", bot="A")
    store.claim_next(bot="A")
    requeued = store.set_status(t, back)
    assert (requeued.metadata.heldBy, requeued.metadata.bot) == (None, "A")
    assert store.get_task(t).metadata.heldBy is None


def test_the_holder_stays_through_a_pause_until_the_resume(store, clock):
    t = _add(store, clock, "t")
    store.claim_next(bot="A")
    assert store.set_status(t, S.paused, metadata_patch={"blockedReason": "disconnected"}).metadata.heldBy == "A"
    assert store.get_task(t).metadata.heldBy == "A"
    assert store.set_status(t, S.pending).metadata.heldBy is None  # resumed: anyone's again
    assert store.claim_next(bot="B").metadata.heldBy == "B"


def test_a_finished_or_reopened_task_keeps_the_bot_that_ran_it(store, clock):
    done, gave_up = _add(store, clock, "done"), _add(store, clock, "gave up")
    for _ in range(2):
        store.claim_next(bot="A")
    assert store.set_status(done, S.completed).metadata.heldBy == "A"
    assert store.set_status(gave_up, S.unplannable).metadata.heldBy == "A"
    assert store.set_status(done, S.active).metadata.heldBy == "A"  # the verifier re-opens it: still A's
    assert store.set_status(gave_up, S.pending).metadata.heldBy is None


# -- listing by bot -------------------------------------------------------------------------------


def test_lists_by_bot_hold_the_tasks_bound_to_or_held_by_it(store, clock):
    bound_a = _add(store, clock, "bound to A", bot="A")
    open_held_a = _add(store, clock, "open, A's claim", urgency=0.9)
    open_free = _add(store, clock, "open, free")
    bound_b = _add(store, clock, "bound to B", bot="B")
    assert store.claim_next(bot="A").id == open_held_a
    assert [t.id for t in store.list_by_status(S.pending, S.active, bot="A")] == [bound_a, open_held_a]
    assert [t.id for t in store.list_by_status(S.active, bot="A")] == [open_held_a]
    assert [t.id for t in store.list_by_status(bot="B")] == [bound_b]
    assert [t.id for t in store.list_by_status(bot="C")] == []
    assert [t.id for t in store.list_by_status()] == [bound_a, open_held_a, open_free, bound_b]  # unfiltered
    assert [t.id for t in store.newest(5, bot="A")] == [open_held_a, bound_a]
    assert [t.id for t in store.newest(1, bot="A")] == [open_held_a]
    assert [t.id for t in store.newest(2)] == [bound_b, open_free]


def test_held_by_lists_only_what_the_bot_claimed(store, clock):
    bound_a = _add(store, clock, "bound to A, not claimed", bot="A")
    mine = _add(store, clock, "A's claim", urgency=0.9)
    theirs = _add(store, clock, "B's claim", urgency=0.8)
    assert store.claim_next(bot="A").id == mine and store.claim_next(bot="B").id == theirs
    store.set_status(theirs, S.paused)
    assert [t.id for t in store.held_by("A", S.active)] == [mine]
    assert [t.id for t in store.held_by("B", S.active)] == []
    assert [t.id for t in store.held_by("B", S.paused)] == [theirs]
    assert [t.id for t in store.held_by("A")] == [mine]  # any status; bound_a is bound, not held
    assert store.get_task(bound_a).metadata.heldBy is None


def test_latest_by_goal_key_open_to_a_bot_leaves_out_other_bots_tasks(store, clock):
    key = "collect:oak_log"
    open_one = _add(store, clock, "open", goal_key=key)
    for_b = _add(store, clock, "B's", bot="B", goal_key=key)
    for_a = _add(store, clock, "A's", bot="A", goal_key=key)
    assert [t.id for t in store.latest_by_goal_key(key, 5, open_to="A")] == [for_a, open_one]
    assert [t.id for t in store.latest_by_goal_key(key, 1, open_to="B")] == [for_b]  # the limit after the filter
    assert [t.id for t in store.latest_by_goal_key(key, 5)] == [for_a, for_b, open_one]


# -- PostgreSQL: leases and row locks ----------------------------------------------------------


def test_a_lease_take_over_puts_the_task_back_in_the_queue_held_by_none(pg, clock):
    dead, alive = pg.make(clock, daemon_id="daemon-a"), pg.make(clock, daemon_id="daemon-b")
    try:
        t = _add(dead, clock, "t", bot="A")
        assert dead.claim_next(bot="A").metadata.heldBy == "A"
        clock.advance(dead.lease_ms + 1)
        [taken] = alive.take_over_expired()
        assert (taken.id, taken.status, taken.metadata.heldBy, taken.metadata.bot) == (t, S.pending, None, "A")
        assert alive.get_task(t).metadata.heldBy is None
        assert alive.claim_next(bot="B") is None  # still bound to A
        assert alive.claim_next(bot="A").metadata.heldBy == "A"
    finally:
        dead.close()
        alive.close()


@pytest.mark.timeout(60)
def test_a_bots_claim_skips_a_row_another_daemon_holds_instead_of_waiting(pg, clock):
    a, b = pg.make(clock, daemon_id="daemon-a"), pg.make(clock, daemon_id="daemon-b")
    try:
        urgent, next_one = _add(a, clock, "urgent", urgency=0.9), _add(a, clock, "next", bot="B")
        got = []
        with a._db.tx():
            a.update_task_metadata(urgent, {"tags": ["being edited"]})  # a holds the urgent row
            claimer = threading.Thread(target=lambda: got.append(b.claim_next(bot="B")))
            claimer.start()
            claimer.join(timeout=10)
            assert not claimer.is_alive()  # it did not wait for a
        assert got[0].id == next_one
        assert b.claim_next(bot="B").id == urgent
    finally:
        a.close()
        b.close()
