"""docs/contracts.md LLM-9, LLM-11, LLM-5, LLM-1: always an AgentResult, empty and
reasoning-only responses, invalid tool parameters, synthetic failure report; exit codes derived
from the result."""

from __future__ import annotations

import pytest

from agency.llm.result import AgentResult, exit_code
from agency.llm.settings import LlmSettings
from agency.llm.testing import ScriptedLLM, call, calls, empty, final, reasoning_only, text
from agency.llm.toolbox import ToolCallFailed
from tests.unit.llm.conftest import llm_entries, make_settings, run, spec

NOTICE = "System notice: plain text responses without tool calls are ignored. Use final_report to provide your answer."


def test_tool_crash_never_escapes(llm: ScriptedLLM) -> None:
    def boom(_args):
        raise RuntimeError("tool bug")

    llm.add(call("bot__boom"), final("survived"))
    r = run("x", make_settings(llm), tools=[spec("boom", boom)])
    assert r.success
    assert [m["content"] for m in r.conversation if m["role"] == "tool"] == ["(tool failed: RuntimeError: tool bug)"]


def test_not_configured_returns_result_not_exception() -> None:
    r = run("x", LlmSettings())
    assert isinstance(r, AgentResult) and not r.success and r.error
    assert exit_code(r) == 4


def test_empty_response_is_retried_with_ephemeral_notice(llm: ScriptedLLM) -> None:
    llm.add(empty(), final("ok"))
    r = run("x", make_settings(llm))
    assert r.success
    assert llm.requests[1].messages[-1]["content"] == NOTICE
    assert len(llm_entries(r)) == 2
    assert all(m.get("content") != NOTICE for m in r.conversation)  # not stored
    assert [m["role"] for m in r.conversation] == ["system", "user", "assistant"]  # empty reply not added


def test_empty_responses_count_toward_max_retries(llm: ScriptedLLM) -> None:
    llm.add(empty(times=2), final("turn 2"))
    r = run("x", make_settings(llm, max_retries=2, max_turns=2))
    assert len(llm.requests) == 3 and r.success  # turn 1 used both attempts


def test_plain_text_before_the_final_turn_is_ignored_and_retried(llm: ScriptedLLM) -> None:
    llm.add(text("I think 3"), final("3"))
    r = run("x", make_settings(llm, max_turns=3))
    assert r.success and r.finalReport["content"] == "3"
    assert llm.requests[1].messages[-1]["content"] == NOTICE
    assert "I think 3" not in [m.get("content") for m in r.conversation]


def test_reasoning_only_turn_proceeds_and_reasoning_is_kept(llm: ScriptedLLM) -> None:
    llm.add(reasoning_only("let me think about logs"), final("ok"))
    r = run("x", make_settings(llm))
    assert r.success
    assert len(llm_entries(r)) == 2
    assert r.conversation[2] == {"role": "assistant", "content": "", "reasoning": "let me think about logs"}
    assert llm.requests[1].messages[2]["reasoning_content"] == "let me think about logs"


def test_invalid_tool_parameters_dropped_model_told_valid_run(llm: ScriptedLLM) -> None:
    def strict(args):  # like the bot registry's pydantic validation
        if not isinstance(args.get("count"), int):
            raise ToolCallFailed("VALIDATION_ERROR: count: Input should be a valid integer")
        return "done"

    llm.add(calls(("bot__strict", {"count": "many"}), ("bot__strict", {"count": 2}), ("bot__nope", {})), final("ok"))
    r = run("x", make_settings(llm), tools=[spec("strict", strict)])
    contents = [m["content"] for m in r.conversation if m["role"] == "tool"]
    assert contents[0] == "(tool failed: VALIDATION_ERROR: count: Input should be a valid integer)"
    assert contents[1] == "done"
    assert contents[2].startswith("(tool failed: unknown tool 'bot__nope'")


def test_synthetic_failure_on_max_turns(llm: ScriptedLLM) -> None:
    llm.default = call("bot__look")
    r = run("x", make_settings(llm, max_turns=2), tools=[spec("look")])
    fr = r.finalReport
    assert not r.success
    assert fr["status"] == "failure" and fr["metadata"] == {"reason": "max_turns_exhausted"}
    assert "max turns" in fr["content"] and fr["format"] == "markdown"


@pytest.mark.parametrize(
    "reason,code",
    [
        ("max_turns_exhausted", 1),
        ("fatal_provider_error", 1),
        ("context_window_exceeded", 1),
        ("final_report_schema_invalid", 5),
        ("llm_not_configured", 4),
        ("initialization_failed", 3),
    ],
)
def test_exit_codes_never_zero_on_failure(reason: str, code: int) -> None:
    r = AgentResult(success=False, finalReport={"status": "failure", "metadata": {"reason": reason}}, error="e")
    assert exit_code(r) == code
    assert exit_code(AgentResult(success=True, finalReport={"status": "success"})) == 0
