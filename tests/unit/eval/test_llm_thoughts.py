"""The LLM thought generator: prompt without goal suggestions
(docs/contracts.md AUTONOMY-1), budgets, target
fallback, and keep-alive end to end over loopback (a goal naming an absent item is never
convertEligible)."""

from __future__ import annotations

import asyncio
import re

import pytest

from agency.clock import FrozenClock
from agency.cognition.counters import AgencyCounters
from agency.cognition.keepalive import KeepAlive
from agency.cognition.llm_thoughts import (
    THOUGHT_SYSTEM_PROMPT,
    LlmThoughtGenerator,
    build_thought_generator,
    render_prompt,
)
from agency.cognition.situation_frame import PROFILES, build_frame
from agency.llm.testing import fail, text
from agency.perception.stimuli import Perception
from agency.stream.cognitive_stream import CognitiveStream
from agency.world import InventoryItem, Vec3, WorldSnapshot
from bot.config.llm import LlmSection
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency
from tests.unit.eval.conftest import llm_section, settings

ACTION_VERBS = (
    "explore",
    "gather",
    "craft",
    "collect",
    "mine",
    "build",
    "hunt",
    "attack",
    "flee",
    "navigate",
    "chop",
    "harvest",
    "eat",
    "sleep",
    "smelt",
)
ADVICE = ("you should", "should", "consider", "try to", "suggest", "recommend", "you could", "maybe you")


def snap(**kw):
    inv = kw.pop("inventory", {})
    base = {
        "health": 20,
        "food": 20,
        "gameMode": "survival",
        "dimension": "overworld",
        "timeOfDay": 1000,
        "isDay": True,
        "position": Vec3(x=0, y=64, z=0),
        "hostiles": 0,
        "ts": 0,
    }
    return WorldSnapshot(inventory=[InventoryItem(name=n, count=c) for n, c in inv.items()], **(base | kw))


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_prompt_states_facts_and_format_but_never_suggests_a_goal(profile):
    frame = build_frame(snap(inventory={"oak_log": 2}), profile, memories=["It was calm."])
    prompt = (THOUGHT_SYSTEM_PROMPT + "\n" + render_prompt(frame)).lower()
    for word in ACTION_VERBS:
        assert not re.search(rf"\b{word}\b", prompt), word
    for phrase in ADVICE:
        assert phrase not in prompt, phrase
    assert frame.text in render_prompt(frame)
    assert "[goal: <action> <target> <amount>]" in prompt and "intent:" in prompt
    assert "doing nothing is a complete answer" in prompt  # AUTONOMY-2 said outright


def test_one_call_counts_llm_calls_and_returns_raw_text(llm):
    llm.default = lambda req: text("I feel fine.\nINTENT: none")
    counters = AgencyCounters()
    gen = LlmThoughtGenerator(settings(llm), counters=counters)
    assert gen.generate(build_frame(snap(), "balanced")) == "I feel fine.\nINTENT: none"
    assert counters.llmCalls == 1 and len(llm.requests) == 1
    req = llm.requests[0]
    assert [m["role"] for m in req.messages] == ["system", "user"] and not req.tool_names
    assert req.body["max_tokens"] <= 512


def test_budget_cap_means_no_call_and_none(llm, logs):
    llm.default = lambda req: text("Fine.\nINTENT: none")
    counters = AgencyCounters()
    gen = LlmThoughtGenerator(settings(llm, budgets={"calls_per_hour": 1}), counters=counters)
    frame = build_frame(snap(), "minimal")
    assert gen.generate(frame) == "Fine.\nINTENT: none"
    assert gen.generate(frame) is None
    assert len(llm.requests) == 1 and counters.llmCalls == 1  # the refused call is not an LLM call
    assert any(m.startswith("[KeepAlive] llm_skipped reason=budget limit=calls_per_hour") for m in logs)
    assert gen.complete(frame).status == "budget_exceeded"


def test_circuit_breaker_opens_after_failures(llm, logs):
    llm.default = lambda req: fail(500)
    clock = FrozenClock()
    gen = LlmThoughtGenerator(settings(llm, budgets={"breaker_failures": 1, "breaker_cooldown_s": 60}), clock=clock)
    frame = build_frame(snap(), "minimal")
    assert gen.complete(frame).status == "error"
    assert gen.complete(frame).status == "budget_exceeded" and len(llm.requests) == 1
    clock.advance(61_000)
    assert gen.complete(frame).status == "error" and len(llm.requests) == 2


def test_falls_back_to_next_target_and_speaks_ollama(llm):
    llm.default = lambda req: fail(503) if req.api == "openai" else text("From ollama.\nINTENT: none")
    section = llm_section(
        llm,
        targets=[
            {"provider": "openai", "model": "a", "base_url": llm.url()},
            {"provider": "ollama", "model": "b", "base_url": llm.url("ollama")},
        ],
    )
    gen = build_thought_generator(section)
    g = gen.complete(build_frame(snap(), "balanced"))
    assert g.status == "ok" and g.target == "ollama/b" and g.text.startswith("From ollama.")
    assert [a["ok"] for a in g.attempts] == [False, True]


def test_complete_works_from_inside_a_running_loop(llm):
    llm.default = lambda req: text("Inside a loop.\nINTENT: none")
    gen = LlmThoughtGenerator(settings(llm))

    async def caller():
        return gen.generate(build_frame(snap(), "minimal"))

    assert asyncio.run(caller()).startswith("Inside a loop.")


def test_no_targets_no_generator():
    assert build_thought_generator(LlmSection()) is None


@pytest.fixture
def stream(tmp_path):
    s = CognitiveStream(tmp_path / "agency.db", clock=FrozenClock())
    yield s
    s.close()


def _keepalive(llm, stream, counters):
    clock = FrozenClock()
    return KeepAlive(
        stream=stream,
        perception=Perception(clock),
        clock=clock,
        generator=build_thought_generator(llm_section(llm), clock),
        counters=counters,
    )


def test_keepalive_end_to_end_goal_naming_absent_item_is_never_convert_eligible(llm, stream, logs):
    llm.default = lambda req: text("I will collect the diamonds here. [GOAL: collect diamond 3]\nINTENT: mine")
    counters = AgencyCounters()
    outcome = _keepalive(llm, stream, counters).poke(snap(inventory={"oak_log": 1}))
    assert outcome.status == "published"
    t = outcome.thought
    assert t.metadata.extractedGoal.target == "diamond" and t.convertEligible is False
    assert t.metadata.grounding["pass"] is False and t.metadata.grounding["reason"] == "missing_item"
    assert stream.actionable(10).count == 0
    assert f"[Cognition] keepalive_thought published id={t.id} convertEligible=false processed=false" in logs
    assert counters.llmCalls == 1 and counters.goalTags == 1  # KeepAlive counts the call, once


def test_keepalive_end_to_end_grounded_goal_becomes_actionable(llm, stream):
    llm.default = lambda req: text("Two logs in my pack. [GOAL: craft oak_planks 4]\nINTENT: craft")
    outcome = _keepalive(llm, stream, AgencyCounters()).poke(snap(inventory={"oak_log": 2}))
    assert outcome.thought.convertEligible is True
    assert [x.id for x in stream.actionable(10)] == [outcome.thought.id]


def test_daemon_wiring_uses_the_generator_only_with_targets(llm, tmp_path):
    for llm_cfg, expected in (({}, type(None)), (llm_section(llm).model_dump(), LlmThoughtGenerator)):
        cfg = McbotConfig.model_validate(
            {"storage": {"db_path": str(tmp_path / f"{expected.__name__}.db")}, "llm": llm_cfg}
        )
        agency = Agency(cfg)
        try:
            assert isinstance(agency.keepalive._generator, expected)
        finally:
            agency.close()
