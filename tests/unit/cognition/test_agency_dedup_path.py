"""The daemon's keep-alive path with dedup wired (docs/contracts.md DEDUP-1, DEDUP-2, COUNTER-1):
build_keepalive, the
function bot/runtime/wiring.py calls, with the real LLM thought generator talking to a scripted
provider on loopback, and a frozen clock.

A repeated banded situation suppresses the LLM call and records a low-novelty fallback
thought; a heartbeat lets a call through after heartbeat_ms; a reply like a recent thought
is demoted (novelty low, not convertible); low-novelty plain thoughts reach the stream one
in five, flagged metadata.fallback, and the held-back copies never do."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from agency.cognition.keepalive import KeepAliveConfig, build_keepalive, memory_slice
from agency.cognition.llm_thoughts import build_thought_generator
from agency.llm.testing import ScriptedLLM, text
from agency.perception.stimuli import Perception, Stimulus
from agency.stream.cognitive_stream import CognitiveStream
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency

REPLY = "Two cows graze nearby and the sky is clear.\nINTENT: none"
SAID = "Two cows graze nearby and the sky is clear."
MIN = 60_000


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    server = ScriptedLLM(default=text(REPLY)).start()
    yield server
    server.stop()


@pytest.fixture
def stream(tmp_path, clock):
    s = CognitiveStream(tmp_path / "agency.db", clock=clock)
    yield s
    s.close()


@pytest.fixture
def keepalive(llm, stream, clock, counters):
    generator = build_thought_generator(
        {"targets": [{"provider": "openai", "model": "m", "base_url": llm.url()}], "request_timeout_s": 5}, clock
    )
    return build_keepalive(
        stream=stream,
        perception=Perception(clock, publish=stream.publish),
        clock=clock,
        generator=generator,
        config=KeepAliveConfig(min_interval_ms=2 * MIN, heartbeat_ms=5 * MIN),
        counters=counters,
    )


def keepalive_thoughts(stream):
    return sorted((t for t in stream.recent(1000) if t.cognitiveSystem == "keepalive"), key=lambda t: t.timestamp)


def test_repeated_situation_is_suppressed_demoted_and_broadcast_one_in_five(
    keepalive, llm, stream, clock, counters, make_snapshot
):
    calm = make_snapshot({"oak_log": 3})
    situations = []
    for _ in range(7):  # an introspection every 2 minutes for 12 minutes, nothing changing
        situations.append(keepalive.tick(calm).situation)
        clock.advance(2 * MIN)
    assert situations == ["fresh", "suppressed", "suppressed", "heartbeat", "suppressed", "suppressed", "heartbeat"]
    assert len(llm.requests) == 3  # suppressed cycles never reach the model
    assert counters.snapshot() | {"startedAtMs": 0} == {
        "llmCalls": 3,
        "goalTags": 0,
        "driveTicks": 0,
        "signatureSuppressions": 4,
        "contentSuppressions": 2,
        "intentExtractions": 0,
        "lowNoveltyRecorded": 6,
        "lowNoveltyBroadcast": 2,
        "startedAtMs": 0,
    }

    first, fallback, demoted = keepalive_thoughts(stream)  # the four held-back copies are absent
    assert (first.content, first.novelty, first.convertEligible, first.metadata.fallback) == (SAID, "high", False, None)
    # 1st low-novelty plain thought: the signature-dedup fallback of t=2 min, broadcast
    assert (fallback.novelty, fallback.convertEligible, fallback.metadata.fallback) == ("low", False, True)
    assert fallback.timestamp == first.timestamp + 2 * MIN and "signature-dedup" in fallback.tags
    assert fallback.content.startswith("Nothing new since my last thought: health 20/20; food 20/20")
    # 6th: the heartbeat reply of t=12 min, like the first one, demoted by content dedup
    assert (demoted.content, demoted.novelty, demoted.convertEligible, demoted.metadata.fallback) == (
        SAID,
        "low",
        False,
        True,
    )
    assert demoted.timestamp == first.timestamp + 12 * MIN
    assert stream.actionable(10).count == 0


def test_changed_band_or_stimulus_calls_the_model_fresh(keepalive, llm, clock, counters, make_snapshot):
    calm = make_snapshot({"oak_log": 3})
    keepalive.tick(calm)
    clock.advance(2 * MIN)
    assert keepalive.tick(make_snapshot({"oak_log": 3}, health=10)).situation == "fresh"  # health band changed
    clock.advance(1_000)  # inside the cooldown: only a stimulus gets through, and it counts as news
    out = keepalive.tick(
        make_snapshot({"oak_log": 3}, health=10), [Stimulus("novel_entity", clock(), {"names": ["fox"]})]
    )
    assert (out.bypass, out.situation) == ("novel_entity", "fresh")
    assert len(llm.requests) == 3 and counters.signatureSuppressions == 0


def test_held_back_fallback_reports_held_and_publishes_nothing(keepalive, stream, clock, make_snapshot):
    calm = make_snapshot()
    outcomes = []
    for _ in range(3):
        outcomes.append(keepalive.poke(calm))
        clock.advance(1_000)
    assert [(o.status, o.situation) for o in outcomes] == [
        ("published", "fresh"),
        ("published", "suppressed"),
        ("held", "suppressed"),
    ]
    held = outcomes[2].thought
    assert held.novelty == "low" and held.metadata.fallback is None  # the local copy, not the broadcast one
    assert stream.get(held.id) is None


def test_fallback_is_factual_and_stays_out_of_the_memory_slice(keepalive, stream, clock, make_snapshot):
    calm = make_snapshot({"oak_log": 3})
    keepalive.poke(calm)
    clock.advance(1_000)
    fallback = keepalive.poke(calm).thought
    for word in ("explore", "gather", "craft", "collect", "mine", "build", "should", "goal"):
        assert not re.search(rf"\b{word}\b", fallback.content, re.IGNORECASE), word
    assert memory_slice(stream.recent(50), 5) == [SAID]  # a repeat adds nothing to remember


def test_daemon_wiring_runs_keepalive_with_gate_and_recorder(tmp_path, llm, make_snapshot):
    cfg = McbotConfig.model_validate(
        {
            "storage": {"db_path": str(tmp_path / "a.db")},
            "keepalive": {"heartbeat_ms": 600_000},
            "llm": {"targets": [{"provider": "openai", "model": "m", "base_url": llm.url()}]},
        }
    )
    agency = Agency(cfg)
    try:
        calm = make_snapshot()
        assert [agency.keepalive.poke(calm).situation for _ in range(2)] == ["fresh", "suppressed"]
        assert (agency.counters.signatureSuppressions, agency.counters.lowNoveltyRecorded) == (1, 1)
        assert agency.keepalive._gate._heartbeat_ms == 600_000  # the configured heartbeat (a private field)
    finally:
        agency.close()
