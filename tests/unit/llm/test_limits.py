"""docs/contracts.md LLM-1..3: maxTurns, maxToolCallsPerTurn, maxRetries and round-robin
targets."""

from __future__ import annotations

from agency.llm.testing import ScriptedLLM, call, calls, fail, final
from tests.unit.llm.conftest import llm_entries, make_settings, run, spec, target, tool_entries


def test_max_turns_never_exceeded_and_last_turn_offers_only_final_report(llm: ScriptedLLM) -> None:
    seen_tools: list[list[str]] = []

    def looping(req):  # keeps calling tools, never reports
        seen_tools.append(req.tool_names)
        return call("bot__look")

    llm.default = looping
    r = run("loop", make_settings(llm, max_turns=3), tools=[spec("look")])
    assert len(llm.requests) == 3
    assert sum(1 for m in r.conversation if m["role"] == "assistant") == 3
    assert seen_tools[0] == ["bot__look", "agent__final_report"]
    assert seen_tools[-1] == ["agent__final_report"]
    assert not r.success
    assert r.finalReport["status"] == "failure"
    assert r.finalReport["metadata"] == {"reason": "max_turns_exhausted"}


def test_retries_do_not_count_as_turns(llm: ScriptedLLM) -> None:
    llm.add(fail(500), call("bot__look"), fail(503), final("ok"))
    r = run("x", make_settings(llm, max_turns=2, max_retries=2), tools=[spec("look")])
    assert r.success
    assert [e["status"] for e in llm_entries(r)] == ["failed", "ok", "failed", "ok"]


def test_max_tool_calls_per_turn_drops_excess_and_tells_the_model(llm: ScriptedLLM) -> None:
    tool = spec("look")
    llm.add(calls(("bot__look", {"n": 1}), ("bot__look", {"n": 2}), ("bot__look", {"n": 3})), final("ok"))
    r = run("x", make_settings(llm, max_tool_calls_per_turn=2), tools=[tool])
    assert [a["n"] for a in tool.seen] == [1, 2]
    assert len(tool_entries(r)) == 2 + 1  # two executions + the final report
    tool_msgs = [m for m in r.conversation if m["role"] == "tool"]
    assert len(tool_msgs) == 3
    assert tool_msgs[2]["content"].startswith("(tool failed: dropped: more than maxToolCallsPerTurn=2")


def test_max_retries_one_means_a_single_attempt_per_turn(llm: ScriptedLLM) -> None:
    llm.add(fail(500), fail(500))
    r = run("x", make_settings(llm, max_turns=2, max_retries=1))
    assert len(llm.requests) == 2  # one attempt per turn, two turns
    assert r.finalReport["metadata"]["reason"] == "max_turns_exhausted"
    assert r.error


def test_max_retries_exhausted_turn_fails_and_session_continues(llm: ScriptedLLM) -> None:
    llm.add(fail(500, times=3), final("second turn"))
    r = run("x", make_settings(llm, max_turns=2, max_retries=3))
    assert len(llm_entries(r)) == 4
    assert r.success and r.finalReport["content"] == "second turn"


def test_attempts_cycle_round_robin_through_targets(llm: ScriptedLLM) -> None:
    llm.add(fail(500, times=4), final("ok"))
    targets = [target(llm, model="a"), target(llm, model="b"), target(llm, model="c")]
    r = run("x", make_settings(llm, targets, max_retries=5))
    assert [e["model"] for e in llm_entries(r)] == ["a", "b", "c", "a", "b"]
    assert [q.model for q in llm.requests] == ["a", "b", "c", "a", "b"]
    assert r.success
