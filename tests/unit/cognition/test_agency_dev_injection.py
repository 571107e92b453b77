"""Dev-only convertEligible injection on POST /thoughts (docs/contracts.md DEV-2; its earlier
name 6.1 is in the test names)."""

from __future__ import annotations

import pytest

from agency.cognition.dev_injection import InjectionError, apply_dev_injection
from agency.cognition.grounding import FrameFacts, check_goal
from agency.environment import environment, is_development
from agency.stream.cognitive_stream import CognitiveStream

FACTS = FrameFacts(blocks=frozenset({"oak_log"}))


def ground(goal, thought_id):
    return check_goal(goal, FACTS, scenario_id=thought_id)


def msgs(logs):
    return [m for _, m in logs]


@pytest.fixture
def stream(tmp_path, clock):
    s = CognitiveStream(tmp_path / "agency.db", clock=clock)
    yield s
    s.close()


def test_environment_defaults_to_production(monkeypatch):
    monkeypatch.delenv("MCBOT_ENV", raising=False)
    assert environment({}) == "production" and environment(None) == "production" and environment("") == "production"
    assert environment({"MCBOT_ENV": "Development"}) == "development"
    assert not is_development({}) and is_development({"MCBOT_ENV": "development"})
    assert not is_development("production") and not is_development("staging")
    monkeypatch.setenv("MCBOT_ENV", "development")
    assert is_development()  # no argument: the process environment


def test_6_1_production_ignores_convertEligible(clock, logs, stream):
    body = {"content": "Wood here. [GOAL: collect oak_log 2]", "convertEligible": True}
    t = apply_dev_injection(body, {}, now_ms=clock(), ground=ground)
    assert t.convertEligible is False and t.metadata.grounding is None
    assert "[Cognition] dev injection ignored in production field=convertEligible" in msgs(logs)
    assert stream.publish(t).convertEligible is False and stream.actionable(5).count == 0


def test_6_1_development_honours_convertEligible_and_goal_can_become_actionable(clock, stream, logs):
    body = {"content": "Wood here. [GOAL: collect oak_log 2]", "convertEligible": True}
    t = apply_dev_injection(body, {"MCBOT_ENV": "development"}, now_ms=clock(), ground=ground)
    assert t.convertEligible is True and t.metadata.devInjected is True
    assert t.metadata.goalKey == "collect:oak_log" and t.metadata.grounding["pass"] is True
    assert "[Cognition] dev injection convertEligible=true env=development" in msgs(logs)
    stored = stream.publish(t)
    assert [x.id for x in stream.actionable(5)] == [stored.id] and stored.processed is False


def test_6_1_development_injection_still_hits_the_KA_A8_gate(clock, stream, logs):
    t = apply_dev_injection({"content": "no goal here", "convertEligible": True}, "development", now_ms=clock())
    assert t.convertEligible is True
    stored = stream.publish(t)
    assert stored.convertEligible is False
    assert f"[Cognition] convertEligible=true requires extractedGoal+grounding_pass id={t.id}" in msgs(logs)


@pytest.mark.parametrize("env", [{}, {"MCBOT_ENV": "development"}])
def test_6_1_only_convertEligible_is_injectable(env, clock):
    body = {
        "content": "Just thinking.",
        "id": "thought-forged",
        "processed": True,
        "novelty": "high",
        "goalKey": "craft:diamond_sword",
        "extractedGoal": {"action": "craft", "target": "diamond_sword", "amount": 1},
        "metadata": {"goalKey": "craft:diamond_sword", "grounding": {"pass": True}},
        "convertEligible": False,
    }
    t = apply_dev_injection(body, env, now_ms=clock())
    assert t.id != "thought-forged" and t.processed is False and t.novelty is None
    assert t.metadata.goalKey is None and t.metadata.extractedGoal is None and t.metadata.grounding is None
    assert t.convertEligible is False


@pytest.mark.parametrize(
    "body, reason",
    [
        ([], "JSON object"),
        ({}, "content"),
        ({"content": "  "}, "content"),
        ({"content": 5}, "content"),
        ({"content": "x" * 4001}, "longer"),
        ({"content": "x", "type": 3}, "type"),
        ({"content": "x", "convertEligible": "true"}, "boolean"),
        ({"content": "```\n```"}, "empty once sanitized"),
    ],
)
def test_bad_bodies_raise_with_reason(body, reason, clock):
    with pytest.raises(InjectionError, match=reason):
        apply_dev_injection(body, "development", now_ms=clock())


def test_goal_only_content_gets_a_readable_text(clock):
    t = apply_dev_injection({"content": "[GOAL: collect oak_log 2]"}, "development", now_ms=clock())
    assert t.content == "collect oak_log" and t.metadata.goalKey == "collect:oak_log"
