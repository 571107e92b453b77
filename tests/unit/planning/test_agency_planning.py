"""Planning consumer (docs/contracts.md STREAM-2: ack every evaluated thought) and the idle
reporter (KEEPALIVE-3)."""

from __future__ import annotations

import pytest

import agency.planning.consumer as planning
from agency.goal_tag import ExtractedGoal
from agency.planning.consumer import IdleReporter, PlanningConsumer
from agency.planning.tasks.models import TaskStatus
from agency.stream.cognitive_stream import CognitiveStream
from agency.thoughts import Thought, ThoughtMetadata

PASS = {"pass": True, "reason": None, "detail": ""}


@pytest.fixture
def stream(tmp_path, clock):
    s = CognitiveStream(tmp_path / "agency.db", clock=clock)
    yield s
    s.close()


def goal_thought(now, action="collect", target="oak_log", **meta):
    goal = ExtractedGoal(action=action, target=target, amount=4)
    return Thought(
        content=f"{action} {target}",
        timestamp=now,
        novelty="high",
        convertEligible=True,
        metadata=ThoughtMetadata(extractedGoal=goal, grounding=PASS, **meta),
    )


def msgs(logs):
    return [m for _, m in logs]


def test_SC_B2_planning_acks_converted_skipped_and_errored(stream, store, clock, logs):
    a = stream.publish(goal_thought(clock()))  # converted
    b = stream.publish(goal_thought(clock()))  # duplicate goal -> skipped
    c = stream.publish(goal_thought(clock(), target="stone", goalKey="mine:stone"))  # converted
    consumer = PlanningConsumer(stream, store, clock)
    r = consumer.poll_once()
    assert r.fetched == 3 and len(r.ack.acked) == 3
    assert (r.batch.count("converted"), r.batch.count("skipped"), r.batch.count("error")) == (2, 1, 0)
    assert "[Thought-to-task] ack batch size=3 fetched=3 converted=2 skipped=1 errors=0" in msgs(logs)
    assert "[CognitiveStream] Acked 3/3 thoughts" in msgs(logs)
    i_batch = msgs(logs).index("[Thought-to-task] ack batch size=3 fetched=3 converted=2 skipped=1 errors=0")
    assert msgs(logs).index("[CognitiveStream] Acked 3/3 thoughts") > i_batch  # batch line, then ack line
    for t in (a, b, c):
        assert stream.get(t.id).processedBy == "planning"
    assert stream.actionable(10).count == 0
    assert len(store.list_by_status()) == 2


def test_SC_B2_converter_crash_still_acks_everything_fetched(stream, store, clock, logs, monkeypatch):
    for _ in range(2):
        stream.publish(goal_thought(clock()))

    def boom(*a, **k):
        raise RuntimeError("converter exploded")

    monkeypatch.setattr(planning, "convert_thoughts", boom)
    r = PlanningConsumer(stream, store, clock).poll_once()
    assert r.batch.count("error") == 2
    assert "[Thought-to-task] ack batch size=2 fetched=2 converted=0 skipped=0 errors=2" in msgs(logs)
    assert "[CognitiveStream] Acked 2/2 thoughts" in msgs(logs)
    assert stream.actionable(10).count == 0


def test_SC_B2_fetched_equals_acked_across_cycles_and_acked_never_reappear(stream, store, clock, logs):
    for i in range(7):
        stream.publish(goal_thought(clock(), target=f"item_{i}"))
    consumer = PlanningConsumer(stream, store, clock, batch_limit=3)
    seen: set[str] = set()
    fetched = []
    for _ in range(4):
        r = consumer.poll_once()
        fetched.append(r.fetched)
        if r.ack:
            assert len(r.ack.acked) == r.fetched
            assert seen.isdisjoint(r.ack.acked)
            seen.update(r.ack.acked)
    assert fetched == [3, 3, 1, 0]
    assert len(seen) == 7


def test_empty_poll_logs_no_ack_batch(stream, store, clock, logs):
    r = PlanningConsumer(stream, store, clock).poll_once()
    assert r.fetched == 0 and r.ack is None
    assert not any(m.startswith("[Thought-to-task] ack batch") for m in msgs(logs))


IDLE = "[Planning] [AUTONOMOUS EXECUTOR] Idle detected: no_tasks (active=0, eligible=0)"


def test_KA_A3_idle_detected_when_no_active_and_no_eligible_tasks(store, clock, logs):
    idle = IdleReporter(store, clock, repeat_ms=60_000)
    assert idle.check() is True
    assert msgs(logs) == [IDLE]
    clock.advance(59_999)
    assert idle.check() is True and msgs(logs).count(IDLE) == 1  # rate-limited while idle
    clock.advance(1)
    assert idle.check() is True and msgs(logs).count(IDLE) == 2


def test_KA_A3_not_idle_with_pending_or_active_task(store, clock, logs):
    idle = IdleReporter(store, clock)
    t = store.add_task({"title": "Logs", "type": "collect"}, allow_unfinalized=True)
    assert idle.check() is False
    store.set_status(t.id, TaskStatus.active)
    assert idle.check() is False
    store.set_status(t.id, TaskStatus.completed)
    assert idle.check() is True
    assert msgs(logs).count(IDLE) == 1
