"""docs/contracts.md THOUGHT-1..3, DEDUP-1..2: novelty markers, convertEligible, content and
situation-signature dedup."""

from __future__ import annotations

from agency.cognition.sanitizer import build_llm_thought
from agency.cognition.situation import SituationGate, situation_signature
from agency.cognition.thought_recorder import ThoughtRecorder
from agency.goal_tag import ExtractedGoal
from agency.thoughts import Thought, ThoughtMetadata, is_convert_eligible, novelty_for

GOAL = ExtractedGoal(action="collect", target="oak_log", amount=8)


def _thought(content: str, now: int, goal: ExtractedGoal | None = None, **kw) -> Thought:
    return Thought(
        content=content,
        timestamp=now,
        novelty="high",
        convertEligible=goal is not None,
        metadata=ThoughtMetadata(extractedGoal=goal),
        **kw,
    )


# -- THOUGHT-1 novelty markers ----------------------------------------------------


def test_novelty_markers_high_medium_low():
    assert novelty_for("llm") == "high"
    assert novelty_for("drive-tick") == "high"
    assert novelty_for("heartbeat") == "medium"
    assert novelty_for("content_dedup") == "low"
    assert novelty_for("signature_dedup") == "low"


# -- THOUGHT-2 convertEligible ------------------------------------------------------


def test_convertEligible_true_for_drive_tick():
    assert is_convert_eligible(novelty="high", drive_tick=True)


def test_convertEligible_true_when_llm_output_has_extracted_goal(clock):
    t = build_llm_thought("Trees!\n[GOAL: get oak_log 8]", now_ms=clock())
    assert t.convertEligible is True
    assert t.metadata.extractedGoal == GOAL
    assert t.metadata.goalKey == "collect:oak_log"
    assert t.metadata.extractedGoalSource == "llm"


def test_convertEligible_true_when_intent_present_and_not_none():
    assert is_convert_eligible(novelty="high", extracted_intent="gather")
    assert not is_convert_eligible(novelty="high", extracted_intent="none")


def test_convertEligible_false_for_plain_thoughts(clock):
    assert build_llm_thought("I look at the sky.", now_ms=clock()).convertEligible is False
    assert build_llm_thought("I rest.\nINTENT: none", now_ms=clock()).convertEligible is False


def test_low_novelty_is_never_convert_eligible():
    assert not is_convert_eligible(novelty="low", drive_tick=True, extracted_goal=GOAL, extracted_intent="gather")


def test_intentParse_inline_noncompliant_does_not_change_downstream_behavior(clock):
    compliant = build_llm_thought("Wood needed.\nINTENT: gather", now_ms=clock())
    inline = build_llm_thought("Wood needed INTENT: gather", now_ms=clock())
    assert (compliant.metadata.intentParse, inline.metadata.intentParse) == ("final_line", "inline_noncompliant")
    assert compliant.convertEligible == inline.convertEligible
    assert compliant.metadata.extractedIntent == inline.metadata.extractedIntent == "gather"


def test_llm_thought_counts_goal_tags_and_intent_extractions(clock, counters):
    build_llm_thought("a [GOAL: get oak_log 8]\nINTENT: gather", now_ms=clock(), counters=counters)
    build_llm_thought("b\nINTENT: none", now_ms=clock(), counters=counters)
    build_llm_thought("c\nINTENT: bogus", now_ms=clock(), counters=counters)
    assert (counters.goalTags, counters.intentExtractions) == (1, 1)


def test_thought_metadata_empty_goal_key_is_absent(clock):
    t = Thought(content="x", timestamp=clock(), metadata=ThoughtMetadata(goalKey=""))
    assert t.metadata.goalKey is None


# -- DEDUP-1 content dedup ------------------------------------------------------------


def test_content_dedup_tags_low_novelty_and_not_convert_eligible(clock, counters):
    rec = ThoughtRecorder(counters, clock)
    rec.record(_thought("I should gather some oak logs now", clock(), GOAL))
    out = rec.record(_thought("I should gather some oak logs now!", clock(), GOAL))
    assert out.content_duplicate
    assert (out.recorded.novelty, out.recorded.convertEligible) == ("low", False)
    assert counters.contentSuppressions == 1


def test_low_novelty_thoughts_are_recorded_never_discarded(clock, counters):
    rec = ThoughtRecorder(counters, clock)
    for _ in range(7):
        rec.record(_thought("the sky is blue today", clock()))
    assert len(rec.history) == 7
    assert counters.lowNoveltyRecorded == 6


def test_task_worthy_low_novelty_thoughts_are_always_broadcast(clock, counters):
    rec = ThoughtRecorder(counters, clock)
    outs = [rec.record(_thought("I need oak logs for tools", clock(), GOAL)) for _ in range(8)]
    assert all(o.broadcast is not None for o in outs)
    assert counters.lowNoveltyBroadcast == 7


def test_non_task_worthy_low_novelty_broadcast_one_in_five(clock, counters):
    rec = ThoughtRecorder(counters, clock)
    rec.record(_thought("the sky is blue today", clock()))
    outs = [rec.record(_thought("the sky is blue today", clock())) for _ in range(10)]
    assert [o.broadcast is not None for o in outs] == [True, False, False, False, False] * 2
    assert counters.lowNoveltyBroadcast == 2


def test_broadcast_copies_of_low_novelty_have_fallback_true(clock, counters):
    rec = ThoughtRecorder(counters, clock)
    first = rec.record(_thought("I need oak logs for tools", clock(), GOAL))
    dup = rec.record(_thought("I need oak logs for tools", clock(), GOAL))
    assert first.broadcast is not None and first.broadcast.metadata.fallback is None
    assert dup.broadcast is not None and dup.broadcast.metadata.fallback is True
    assert dup.recorded.metadata.fallback is None  # history keeps the unflagged thought


def test_drive_tick_thoughts_are_not_content_deduplicated(clock, counters):
    rec = ThoughtRecorder(counters, clock)
    for _ in range(3):
        out = rec.record(_thought("I have no logs", clock(), GOAL, cognitiveSystem="drive-tick"))
    assert (out.recorded.novelty, out.recorded.convertEligible) == ("high", True)
    assert counters.contentSuppressions == 0


def test_content_dedup_window_expires_with_injected_clock(clock, counters):
    rec = ThoughtRecorder(counters, clock, dedup_window_ms=60_000)
    rec.record(_thought("the sky is blue today", clock()))
    clock.advance(60_001)
    out = rec.record(_thought("the sky is blue today", clock()))
    assert out.recorded.novelty == "high"


# -- situation signature dedup ------------------------------------------------------------


def test_situation_signature_dedup_suppresses_same_banded_state(clock, counters, make_snapshot):
    gate = SituationGate(counters, heartbeat_ms=300_000)
    assert gate.check(make_snapshot({"oak_log": 3}, health=20), clock()) == "fresh"
    # health 20 -> 17 stays in the same band, logs 3 -> 5 the same bucket
    assert gate.check(make_snapshot({"oak_log": 5}, health=17), clock()) == "suppressed"
    assert gate.check(make_snapshot({"oak_log": 5}, health=17), clock()) == "suppressed"
    assert counters.signatureSuppressions == 2


def test_situation_signature_changes_when_band_changes(make_snapshot):
    base = situation_signature(make_snapshot(health=16))
    assert situation_signature(make_snapshot(health=15)) != base
    assert situation_signature(make_snapshot(hostiles=1)) != base
    assert situation_signature(make_snapshot(timeOfDay=12_000)) != base


def test_situation_heartbeat_escape_after_interval(clock, counters, make_snapshot):
    gate = SituationGate(counters, heartbeat_ms=300_000)
    snap = make_snapshot()
    gate.check(snap, clock())
    clock.advance(299_999)
    assert gate.check(snap, clock()) == "suppressed"
    clock.advance(1)
    assert gate.check(snap, clock()) == "heartbeat"
    assert novelty_for("heartbeat") == "medium"
