"""The cognitive stream on both databases (docs/contracts.md STREAM-1..4, the
KEEPALIVE-8 gate, ack, durability), and
what PostgreSQL adds: several daemons on one database, each seeing only its own thoughts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from agency.stream.cognitive_stream import CognitiveStream
from agency.thoughts import Thought, ThoughtMetadata
from tests.unit.pg.dialects import DIALECTS, Databases
from tests.unit.stream.test_agency_stream import GOAL, actionable_thought, msgs, percept


@pytest.fixture(params=DIALECTS)
def dbs(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Databases]:
    with Databases.for_test(request, tmp_path) as d:
        yield d


@pytest.fixture
def stream(dbs: Databases, clock: Any) -> Iterator[CognitiveStream]:
    s = CognitiveStream(dbs.open(), clock=clock, daemon_id="daemon-a")
    yield s
    s.close()


def test_actionable_returns_unprocessed_convert_eligible_thoughts_oldest_first(stream, clock, logs):
    a = stream.publish(actionable_thought(clock(), "first"))
    stream.publish(percept(clock()))
    stream.publish(Thought(content="no flag", timestamp=clock()))
    b = stream.publish(actionable_thought(clock(), "second"))
    feed = stream.actionable(10)
    assert [t.id for t in feed] == [a.id, b.id]
    assert all(t.convertEligible is True and t.processed is False for t in feed)
    assert (feed.queue_size, feed.filtered_out) == (4, 2)
    assert "[CognitiveStream] /actionable: returned=2 queue_size=4 filtered_out=2" in msgs(logs)
    assert stream.actionable(1).count == 1
    assert feed.thoughts[0].metadata.extractedGoal == GOAL  # the JSON document reads back whole


def test_only_ack_sets_processed_once_and_reports_what_it_did(stream, clock):
    forged = actionable_thought(clock(), "a").model_copy(update={"processed": True})
    a = stream.publish(forged)
    b = stream.publish(actionable_thought(clock(), "b"))
    assert a.processed is False and stream.count(processed=True) == 0
    clock.advance(5_000)
    r = stream.ack([a.id, b.id, a.id, "nope"], "planning")
    assert (r.requested, r.acked, r.unknown) == ([a.id, b.id, "nope"], [a.id, b.id], ["nope"])
    got = stream.get(a.id)
    assert (got.processed, got.processedBy, got.processedAt) == (True, "planning", clock())
    clock.advance(1)
    again = stream.ack([a.id], "someone-else")
    assert again.acked == [] and again.already_processed == [a.id]
    assert stream.get(a.id).processedBy == "planning"
    assert stream.publish(a.model_copy(update={"processed": False})).processed is True  # a retried publish
    assert stream.count() == 2 and stream.actionable(10).count == 0


def test_convert_eligible_without_passing_grounding_is_stored_but_never_actionable(stream, clock):
    t = Thought(content="x", timestamp=clock(), convertEligible=True, metadata=ThoughtMetadata(extractedGoal=GOAL))
    stored = stream.publish(t)
    assert stored.convertEligible is False
    assert stream.get(t.id).metadata.convertEligibleRefused == "grounding_not_passed"
    assert stream.actionable(10).count == 0


def test_recent_and_count_filter_by_processed_newest_first(stream, clock):
    ids = []
    for i in range(4):
        clock.advance(1)
        ids.append(stream.publish(percept(clock(), f"p{i}")).id)
    stream.ack([ids[0], ids[2]])
    assert [t.id for t in stream.recent(10)] == ids[::-1]
    assert [t.id for t in stream.recent(10, processed=True)] == [ids[2], ids[0]]
    assert [t.id for t in stream.recent(10, processed=False)] == [ids[3], ids[1]]
    assert (stream.count(), stream.count(processed=True), stream.count(processed=False)) == (4, 2, 2)


def test_prune_drops_non_actionable_first_and_actionable_only_at_the_hard_cap(dbs, clock, logs):
    s = CognitiveStream(dbs.open(), clock=clock, max_thoughts=10)
    acts = [s.publish(actionable_thought(clock(), f"a{i}")).id for i in range(3)]
    s.ack([acts[0]])
    for i in range(6):
        s.publish(percept(clock(), f"p{i}"))
    r = s.prune(target=4)
    assert (r.before, r.after, r.dropped_non_actionable, r.dropped_actionable) == (9, 4, 5, 0)
    assert {t.id for t in s.actionable(10)} == set(acts[1:])
    capped = CognitiveStream(dbs.open(), clock=clock, max_thoughts=5)  # the same daemon, a smaller cap
    capped.prune(target=0)
    ids = [capped.publish(actionable_thought(clock(), f"c{i}")).id for i in range(6)]
    assert capped.count() == 4 and capped.get(ids[0]) is None and capped.get(ids[-1]) is not None
    assert "[CognitiveStream] prune before=6 after=4 dropped=2" in msgs(logs)


def test_thoughts_survive_a_new_connection(dbs, clock):
    s = CognitiveStream(dbs.open(), clock=clock, daemon_id="daemon-a")
    a = s.publish(actionable_thought(clock(), "survive"))
    b = s.publish(actionable_thought(clock(), "acked"))
    s.ack([b.id], "planning")
    restarted = CognitiveStream(dbs.open(), clock=clock, daemon_id="daemon-a")
    assert [t.id for t in restarted.actionable(10)] == [a.id]
    assert restarted.get(b.id).processedBy == "planning"
    assert restarted.get(a.id).metadata.extractedGoal == GOAL


# -- PostgreSQL: several daemons, one database ----------------------------------------------


@pytest.fixture
def two_daemons(pg_url: str, clock: Any) -> Iterator[tuple[CognitiveStream, CognitiveStream]]:
    with Databases("postgresql", pg_url) as dbs:
        a = CognitiveStream(dbs.open(), clock=clock, daemon_id="daemon-a", max_thoughts=5)
        b = CognitiveStream(dbs.open(), clock=clock, daemon_id="daemon-b", max_thoughts=5)
        yield a, b


def test_two_daemons_on_one_database_see_only_their_own_thoughts(two_daemons, clock):
    a, b = two_daemons
    mine = a.publish(actionable_thought(clock(), "a's"))
    theirs = b.publish(actionable_thought(clock(), "b's"))
    b.publish(percept(clock()))
    assert [t.id for t in a.actionable(10)] == [mine.id]  # b's planning never sees it, a's never sees b's
    assert [t.id for t in b.actionable(10)] == [theirs.id]
    assert a.get(theirs.id) is None and a.count() == 1 and b.count() == 2
    assert [t.id for t in a.recent(10)] == [mine.id]
    assert a.ack([theirs.id]).unknown == [theirs.id]  # a cannot ack b's thought
    assert b.get(theirs.id).processed is False
    same_id = b.publish(mine.model_copy(update={"content": "b's own, same id"}))  # ids are per daemon
    assert same_id.content == "b's own, same id" and a.get(mine.id).content == "a's"
    assert b.ack([theirs.id, mine.id]).acked == [theirs.id, mine.id]
    assert a.get(mine.id).processed is False


def test_a_daemons_cap_and_prune_count_only_its_own_thoughts(two_daemons, clock):
    a, b = two_daemons
    kept = [b.publish(percept(clock(), f"b{i}")).id for i in range(4)]
    for i in range(12):
        a.publish(percept(clock(), f"a{i}"))
    assert a.count() <= 5 and a.prune(target=0).after == 0
    assert [t.id for t in b.recent(10)] == kept[::-1]  # untouched by a's cap and a's prune
    assert a.checkpoint_wal() is True  # the server keeps its own WAL: nothing to do


def test_the_processed_stamp_is_a_constraint_of_the_table(pg_url):
    with Databases("postgresql", pg_url) as dbs, pytest.raises(psycopg.errors.CheckViolation):
        dbs.open().execute("INSERT INTO thoughts (daemon_id, id, ts, processed, data) VALUES ('d', 'x', 0, true, '{}')")
