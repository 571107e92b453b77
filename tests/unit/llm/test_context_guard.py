"""docs/contracts.md LLM-10, context management: counters, projection, per-target limit, turn and tool
preflight, overflow stub, no new tools after a drop, forced final turn, post-shrink."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from loguru import logger

from agency.llm.context_guard import ContextGuard
from agency.llm.messages import TokenUsage
from agency.llm.settings import LlmSettings, TargetConfig
from agency.llm.testing import ScriptedLLM, call, calls, fail, final
from tests.unit.llm.conftest import llm_entries, make_settings, run, spec, target, tool_entries

STUB = "(tool failed: context window budget exceeded)"
OPENAI_OVERFLOW = (
    '{"error": {"message": "This model\'s maximum context length is 1500 tokens. However, your messages '
    'resulted in 2100 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}}'
)
SMALL = {"context_window": 2000, "context_window_buffer_tokens": 100, "max_output_tokens": 400}  # limit 1500


@contextmanager
def capture_warnings() -> Iterator[list[str]]:
    seen: list[str] = []
    sink = logger.add(lambda m: seen.append(m.record["message"]), level="WARNING")
    try:
        yield seen
    finally:
        logger.remove(sink)


def _assert_never_over_limit(r) -> None:
    for e in llm_entries(r):
        assert e["expectedTokens"] == e["ctxTokens"] + e["newTokens"] + e["schemaTokens"]
        assert e["expectedTokens"] <= e["limitTokens"]


def test_limit_formula_and_per_target_override() -> None:
    s = LlmSettings(**SMALL)
    assert s.context_limit_for(TargetConfig(provider="openai", model="m")) == 2000 - 100 - 400
    small = TargetConfig(provider="openai", model="s", overrides={"context_window": 1000, "max_output_tokens": 100})
    assert s.context_limit_for(small) == 1000 - 100 - 100


def test_guard_counters_and_projection() -> None:
    g = ContextGuard()
    assert g.ctx == 0  # turn 1: nothing committed yet
    g.add_pending(100)
    g.new = 50
    g.schema = 30
    d = g.turn_preflight(limit=1000, ephemeral=20)
    assert (g.pending, g.new) == (150, 0)  # new flushed into pending before projecting
    assert d.projected == 0 + 150 + 30 + 20 and d.ok
    g.commit(TokenUsage.of(400, 60, 40), estimate=1)
    assert (g.ctx, g.pending, g.new) == (500, 0, 0)  # input + output + cached
    assert g.tool_preflight(400, limit=1000).ok and g.new == 400
    d = g.tool_preflight(200, limit=1000)
    assert not d.ok and d.projected == 500 + 400 + 30 + 200 and g.pending == 400


def test_first_request_ctx_zero_then_provider_reported(llm: ScriptedLLM) -> None:
    llm.add(call("bot__look", usage=(700, 50)), final("ok"))
    r = run("x", make_settings(llm), tools=[spec("look")])
    first, second = llm_entries(r)
    assert first["ctxTokens"] == 0
    assert second["ctxTokens"] == 750
    _assert_never_over_limit(r)


def test_tool_overflow_drops_output_with_stub_and_forces_final(llm: ScriptedLLM) -> None:
    big, other = spec("big", output="x" * 8000), spec("other")
    llm.add(call("bot__big"), call("bot__other", expect=lambda q: None), final("from what I had"))
    r = run("x", make_settings(llm, max_turns=5, tool_response_max_bytes=20000, **SMALL), tools=[big, other])
    tool_msgs = [m for m in r.conversation if m["role"] == "tool"]
    assert tool_msgs[0]["content"] == STUB
    dropped = tool_entries(r)[0]
    assert dropped["originalTokens"] == 2000 and dropped["replacementTokens"] == len(STUB) // 4 + 1
    # forced final: the next request offers only the final report; no new tool runs
    assert llm.requests[1].tool_names == ["agent__final_report"]
    assert other.seen == []
    assert tool_msgs[1]["content"].startswith("(tool failed: no new tools")
    assert r.success and r.finalReport["content"] == "from what I had"
    _assert_never_over_limit(r)


def test_in_flight_siblings_may_finish_after_a_drop(llm: ScriptedLLM) -> None:
    big, small = spec("big", output="y" * 8000), spec("small", output="fine")
    llm.add(calls(("bot__big", {}), ("bot__small", {})), final("ok"))
    r = run("x", make_settings(llm, tool_response_max_bytes=20000, **SMALL), tools=[big, small])
    contents = [m["content"] for m in r.conversation if m["role"] == "tool"]
    assert contents == [STUB, "fine"]


def test_turn_preflight_forces_final_turn_with_reduced_schema(llm: ScriptedLLM) -> None:
    huge = spec("huge", params={"type": "object", "description": "z" * 6000, "properties": {}})
    llm.add(final("ok"))
    r = run("x", make_settings(llm, **SMALL), tools=[huge])
    assert llm.requests[0].tool_names == ["agent__final_report"]
    e = llm_entries(r)[0]
    assert e["schemaTokens"] < 200  # recomputed for agent__final_report alone
    assert r.success
    _assert_never_over_limit(r)


def test_provider_reported_ctx_drives_the_guard(llm: ScriptedLLM) -> None:
    look = spec("look", params={"type": "object", "description": "d" * 600, "properties": {}})
    llm.add(call("bot__look", usage=(1150, 100)), final("ok"))
    r = run("x", make_settings(llm, **SMALL), tools=[look])
    assert llm_entries(r)[1]["ctxTokens"] == 1250
    assert llm.requests[1].tool_names == ["agent__final_report"]  # 1250 + new + full schema > 1500
    _assert_never_over_limit(r)


def test_small_reported_ctx_keeps_all_tools(llm: ScriptedLLM) -> None:
    look = spec("look", params={"type": "object", "description": "d" * 600, "properties": {}})
    llm.add(call("bot__look", usage=(300, 10)), final("ok"))
    run("x", make_settings(llm, **SMALL), tools=[look])
    assert llm.requests[1].tool_names == ["bot__look", "agent__final_report"]


def test_post_shrink_overflow_proceeds_best_effort_with_warning(llm: ScriptedLLM) -> None:
    """Guard fired, tools shrunk to the final report, still over: the request goes out anyway
    (best effort) and the post-shrink warning is logged; the session is not failed unsent."""
    llm.add(final("short answer"))
    with capture_warnings() as warnings:
        r = run("p" * 8000, make_settings(llm, **SMALL), tools=[spec("look")])
    assert len(llm.requests) == 1
    assert llm.requests[0].tool_names == ["agent__final_report"]  # shrunk first
    e = llm_entries(r)[0]
    assert e["expectedTokens"] > e["limitTokens"]
    assert any("over limit after shrinking" in w for w in warnings)
    assert r.success and r.finalReport["content"] == "short answer"


def test_best_effort_overflow_rejected_by_provider_ends_in_a_result(llm: ScriptedLLM) -> None:
    """The provider's own overflow error on a best-effort request is an ordinary provider error:
    retried on the next target, turns go on, and the session still returns its result."""
    llm.add(fail(400, OPENAI_OVERFLOW, times=4))
    r = run(
        "p" * 8000,
        make_settings(llm, [target(llm, model="a"), target(llm, model="b")], max_turns=2, max_retries=2, **SMALL),
    )
    assert [(e["model"], e["status"]) for e in llm_entries(r)] == [("a", "failed"), ("b", "failed")] * 2
    assert not r.success and r.finalReport["status"] == "failure"
    assert r.reason == "max_turns_exhausted"
    assert "maximum context length" in r.error


def test_per_target_limit_is_used_for_each_attempt(llm: ScriptedLLM) -> None:
    llm.add(fail(500), final("ok"))
    tight = target(llm, model="tight", overrides={"context_window": 700, "max_output_tokens": 100})
    r = run(
        "x",
        make_settings(llm, [target(llm, model="roomy"), tight], **SMALL),
        tools=[spec("t", params={"type": "object", "description": "d" * 1400, "properties": {}})],
    )
    assert [e["limitTokens"] for e in llm_entries(r)] == [1500, 500]
    assert llm.requests[0].tool_names == ["bot__t", "agent__final_report"]
    assert llm.requests[1].tool_names == ["agent__final_report"]
    _assert_never_over_limit(r)
