"""Cognitive stream: docs/contracts.md STREAM-1..4, the KEEPALIVE-8 publish gate, ack semantics
(STREAM-6, STREAM-7), durability."""

from __future__ import annotations

import sqlite3

import pytest

from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_tick import evaluate_drive_tick
from agency.db import MIGRATIONS, open_database, schema_version
from agency.goal_tag import ExtractedGoal
from agency.stream.cognitive_stream import CognitiveStream
from agency.thoughts import Thought, ThoughtMetadata

GOAL = ExtractedGoal(action="collect", target="oak_log", amount=8)
PASS = {"pass": True, "reason": None, "detail": "oak_log in frame"}


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "agency.db"


@pytest.fixture
def stream(db_path, clock):
    s = CognitiveStream(db_path, clock=clock)
    yield s
    s.close()


def percept(now, content="2 cows nearby.", **kw):
    return Thought(type="environmental_awareness", content=content, timestamp=now, convertEligible=False, **kw)


def actionable_thought(now, content="I need wood.", **meta):
    return Thought(
        content=content,
        timestamp=now,
        novelty="high",
        convertEligible=True,
        metadata=ThoughtMetadata(extractedGoal=GOAL, grounding=PASS, **meta),
    )


def msgs(logs):
    return [m for _, m in logs]


# -- STREAM-1 -----------------------------------------------------------------


def test_SC_B1_actionable_on_percept_only_stream_returns_zero(stream, clock, logs):
    for i in range(5):
        stream.publish(percept(clock(), f"{i} cows nearby."))
    feed = stream.actionable(10)
    assert feed.count == 0 and feed.thoughts == []
    assert "[CognitiveStream] /actionable: returned=0 opt_in_only=true" in msgs(logs)
    assert "[CognitiveStream] /actionable: returned=0 queue_size=5 filtered_out=5" in msgs(logs)


def test_SC_B1_actionable_returns_only_convert_eligible_true_oldest_first(stream, clock, logs):
    a = stream.publish(actionable_thought(clock(), "first"))
    stream.publish(percept(clock()))
    stream.publish(Thought(content="no flag", timestamp=clock()))  # convertEligible None
    b = stream.publish(actionable_thought(clock(), "second"))
    feed = stream.actionable(10)
    assert [t.id for t in feed] == [a.id, b.id]
    assert all(t.convertEligible is True and t.processed is False for t in feed)
    assert "[CognitiveStream] /actionable: returned=2 opt_in_only=true" in msgs(logs)
    assert "[CognitiveStream] /actionable: returned=2 queue_size=4 filtered_out=2" in msgs(logs)


def test_actionable_limit_is_respected_and_validated(stream, clock):
    for i in range(5):
        stream.publish(actionable_thought(clock(), f"t{i}"))
    assert stream.actionable(3).count == 3
    assert stream.actionable(0).count == 0
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ValueError):
            stream.actionable(bad)


# -- STREAM-3 -----------------------------------------------------------------


def test_SC_B3_every_publish_starts_unprocessed_and_logs(stream, clock, logs):
    forged = actionable_thought(clock()).model_copy(update={"processed": True})
    stored = stream.publish(forged)
    assert stored.processed is False and stored.processedBy is None and stored.processedAt is None
    assert stream.get(stored.id).processed is False
    stream.publish({"content": "from a dict", "timestamp": clock(), "processed": True, "processedBy": "me"})
    assert msgs(logs).count("[Cognition] thought_published processed=false") == 2
    assert stream.count(processed=True) == 0


def test_SC_B3_only_ack_sets_processed_with_processed_by_and_at(stream, clock):
    t = stream.publish(actionable_thought(clock()))
    clock.advance(5_000)
    stream.ack([t.id], "planning")
    got = stream.get(t.id)
    assert (got.processed, got.processedBy, got.processedAt) == (True, "planning", clock())


def test_republishing_an_acked_id_never_resets_processed(stream, clock):
    t = stream.publish(actionable_thought(clock()))
    stream.ack([t.id])
    again = stream.publish(t.model_copy(update={"processed": False}))
    assert again.processed is True and stream.count() == 1


# -- KEEPALIVE-8 gate ---------------------------------------------------------------


@pytest.mark.parametrize(
    "meta, why",
    [
        ({}, "missing_extractedGoal"),
        ({"extractedGoal": GOAL}, "grounding_not_passed"),
        ({"extractedGoal": GOAL, "grounding": {"pass": False, "reason": "missing_item"}}, "grounding_not_passed"),
        ({"extractedGoal": GOAL, "grounding": {"pass": "true"}}, "grounding_not_passed"),
        ({"grounding": PASS}, "missing_extractedGoal"),
    ],
)
def test_KA_A8_convert_eligible_without_goal_and_grounding_is_refused(stream, clock, logs, meta, why):
    t = Thought(content="x", timestamp=clock(), convertEligible=True, metadata=ThoughtMetadata(**meta))
    stored = stream.publish(t)
    assert f"[Cognition] convertEligible=true requires extractedGoal+grounding_pass id={t.id}" in msgs(logs)
    # Refused = stored, but never actionable.
    assert stored.convertEligible is False
    assert stored.metadata.convertEligibleRefused == why
    assert stream.get(t.id).convertEligible is False
    assert stream.actionable(10).count == 0


def test_KA_A8_goal_plus_passing_grounding_is_accepted(stream, clock, logs):
    stored = stream.publish(actionable_thought(clock()))
    assert stored.convertEligible is True
    assert not any("requires extractedGoal" in m for m in msgs(logs))


def test_drive_tick_thoughts_carry_passing_grounding_and_are_actionable(stream, clock, make_snapshot):
    r = evaluate_drive_tick(make_snapshot(), clock(), DriveTickState(), [])
    assert r.thought.metadata.grounding["pass"] is True
    # computed by agency.cognition.grounding, see test_agency_drive_tick
    assert r.thought.metadata.grounding["reason"] is None
    stored = stream.publish(r.thought)
    assert stored.convertEligible is True
    assert [t.id for t in stream.actionable(5)] == [stored.id]


# -- ack semantics (STREAM-2, STREAM-7) ---------------------------------------------


def test_ack_reports_acked_unknown_and_already_processed(stream, clock, logs):
    a = stream.publish(actionable_thought(clock(), "a"))
    b = stream.publish(actionable_thought(clock(), "b"))
    r = stream.ack([a.id, b.id, a.id, "nope"], "planning")
    assert r.requested == [a.id, b.id, "nope"] and r.acked == [a.id, b.id] and r.unknown == ["nope"]
    assert "[CognitiveStream] Acked 2/3 thoughts" in msgs(logs)
    r2 = stream.ack([a.id])
    assert r2.acked == [] and r2.already_processed == [a.id]
    assert "[CognitiveStream] Acked 0/1 thoughts" in msgs(logs)


def test_MV_E3_fetch_ack_fetch_acked_never_reappear(stream, clock):
    for i in range(4):
        stream.publish(actionable_thought(clock(), f"t{i}"))
    first = stream.actionable(2)
    r = stream.ack([t.id for t in first])
    assert len(r.acked) == first.count == 2
    second = stream.actionable(10)
    assert {t.id for t in second}.isdisjoint({t.id for t in first}) and second.count == 2


def test_ack_requires_a_processor_name(stream):
    with pytest.raises(ValueError):
        stream.ack([], "")


# -- recent ------------------------------------------------------------------------


def test_recent_filters_by_processed_newest_first(stream, clock):
    ids = []
    for i in range(4):
        clock.advance(1)
        ids.append(stream.publish(percept(clock(), f"p{i}")).id)
    stream.ack([ids[0], ids[2]])
    assert [t.id for t in stream.recent(10)] == ids[::-1]
    assert [t.id for t in stream.recent(10, processed=True)] == [ids[2], ids[0]]
    assert [t.id for t in stream.recent(10, processed=False)] == [ids[3], ids[1]]
    assert all(t.processed is False for t in stream.recent(10, processed=False))  # STREAM-6
    assert len(stream.recent(2)) == 2
    assert stream.count() == 4 and stream.count(processed=True) == 2 and stream.count(processed=False) == 2


# -- STREAM-4 ----------------------------------------------------------------------


def test_SC_B4_flood_of_10000_percepts_stays_under_cap(db_path, clock, logs):
    s = CognitiveStream(db_path, clock=clock, max_thoughts=500)
    keep = s.publish(actionable_thought(clock(), "keep me"))
    for i in range(10_000):
        clock.advance(60)  # 10 minutes of percepts
        s.publish(percept(clock(), f"percept {i}"))
        if i % 997 == 0:
            assert s.count() <= 500
    assert s.count() <= 500
    prunes = [m for m in msgs(logs) if m.startswith("[CognitiveStream] prune ")]
    assert prunes and prunes[0] == "[CognitiveStream] prune before=501 after=450 dropped=51"
    assert s.get(keep.id) is not None  # old non-actionable went first
    assert [t.id for t in s.actionable(5)] == [keep.id]
    s.close()


def test_SC_B4_prune_drops_acked_and_percepts_before_actionable(db_path, clock, logs):
    s = CognitiveStream(db_path, clock=clock, max_thoughts=10)
    acts = [s.publish(actionable_thought(clock(), f"a{i}")).id for i in range(3)]
    s.ack([acts[0]])
    for i in range(6):
        s.publish(percept(clock(), f"p{i}"))
    r = s.prune(target=4)
    assert "[CognitiveStream] prune before=9 after=4 dropped=5" in msgs(logs)
    assert (r.dropped_non_actionable, r.dropped_actionable) == (5, 0)
    assert {t.id for t in s.actionable(10)} == set(acts[1:])
    s.close()


def test_SC_B4_hard_cap_drops_oldest_actionable_when_nothing_else_is_left(db_path, clock, logs):
    s = CognitiveStream(db_path, clock=clock, max_thoughts=5)
    ids = [s.publish(actionable_thought(clock(), f"a{i}")).id for i in range(6)]
    assert s.count() <= 5
    assert s.get(ids[0]) is None and s.get(ids[-1]) is not None
    assert "[CognitiveStream] prune before=6 after=4 dropped=2" in msgs(logs)
    assert any(m.startswith("[CognitiveStream] hard cap dropped") for m in msgs(logs))
    s.close()


def test_prune_below_target_drops_nothing_and_logs_nothing(stream, clock, logs):
    stream.publish(percept(clock()))
    assert stream.prune().dropped == 0
    assert not any("prune before" in m for m in msgs(logs))


# -- durability -----------------------------------------------------------------------


def test_stream_survives_reopening_the_db_file(db_path, clock):
    s = CognitiveStream(db_path, clock=clock)
    a = s.publish(actionable_thought(clock(), "survive"))
    b = s.publish(actionable_thought(clock(), "acked"))
    p = s.publish(percept(clock()))
    s.ack([b.id], "planning")
    s.close()
    s2 = CognitiveStream(db_path, clock=clock)
    assert [t.id for t in s2.actionable(10)] == [a.id]
    got = s2.get(b.id)
    assert got.processed and got.processedBy == "planning"
    assert s2.get(p.id).type == "environmental_awareness"
    assert s2.get(a.id).metadata.extractedGoal == GOAL
    s2.close()


def test_thoughts_migration_is_appended_and_enforces_processed_stamp(db_path):
    conn = open_database(db_path)
    assert schema_version(conn) == MIGRATIONS[-1][0] >= 2
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO thoughts (id, ts, processed, data) VALUES ('x', 0, 1, '{}')")
    conn.close()
