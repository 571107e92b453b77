"""docs/contracts.md LLM-13 (accounting) and LLM-14 (conversation)."""

from __future__ import annotations

from agency.llm.testing import ScriptedLLM, call, calls, fail, final
from tests.unit.llm.conftest import llm_entries, make_settings, run, spec, target, tool_entries

LLM_FIELDS = {"type", "provider", "model", "status", "latency", "tokens", "timestamp"}
TOOL_FIELDS = {"type", "mcpServer", "command", "status", "latency", "timestamp", "charactersIn", "charactersOut"}


def test_one_llm_entry_per_attempt_with_every_field(llm: ScriptedLLM, clock) -> None:
    llm.add(fail(500), call("bot__look", usage=(120, 30)), final("ok"))
    r = run(
        "x",
        make_settings(llm, [target(llm, model="a"), target(llm, model="b")]),
        tools=[spec("look")],
        clock=clock,
        agent_id="main",
        txn_id="t1",
    )
    entries = llm_entries(r)
    assert len(entries) == 3
    for e in entries:
        assert set(e) >= LLM_FIELDS
        assert set(e["tokens"]) >= {"inputTokens", "outputTokens", "cachedTokens", "totalTokens"}
        assert isinstance(e["latency"], int) and e["timestamp"] == clock.now_ms
        assert e["agentId"] == "main" and e["txnId"] == "t1"
    failed, ok = entries[0], entries[1]
    assert failed["status"] == "failed" and failed["error"]
    assert ok["status"] == "ok" and ok["tokens"] == {
        "inputTokens": 120,
        "outputTokens": 30,
        "cachedTokens": 0,
        "totalTokens": 150,
    }
    assert ok["stopReason"] == "tool_calls" and ok["actualModel"] == "b"
    # provider fallback observable: a failed entry followed by a different model
    assert [e["model"] for e in entries] == ["a", "b", "a"]


def test_one_tool_entry_per_execution_success_or_failure(llm: ScriptedLLM) -> None:
    def boom(_a):
        raise ValueError("bad block")

    llm.add(calls(("bot__look", {"r": 16}), ("bot__boom", {})), final("ok"))
    r = run("x", make_settings(llm), tools=[spec("look", output="12345"), spec("boom", boom)])
    look, boom_e, fin = tool_entries(r)
    for e in (look, boom_e, fin):
        assert set(e) >= TOOL_FIELDS
    assert look == {
        **look,
        "mcpServer": "bot",
        "command": "bot__look",
        "status": "ok",
        "charactersIn": 9,
        "charactersOut": 5,
        "source": "native",
    }
    assert boom_e["status"] == "failed" and "bad block" in boom_e["error"]
    assert fin["mcpServer"] == "agent" and fin["command"] == "agent__final_report"
    stamps = [e["timestamp"] for e in r.accounting]
    assert stamps == sorted(stamps)


def test_conversation_order_and_tool_call_ids(llm: ScriptedLLM) -> None:
    def boom(_a):
        raise ValueError("nope")

    llm.add(calls(("bot__look", {}), ("bot__boom", {})), call("bot__look"), final("done"))
    r = run("x", make_settings(llm), system_prompt="SYS", tools=[spec("look"), spec("boom", boom)])
    roles = [m["role"] for m in r.conversation]
    assert roles == ["system", "user", "assistant", "tool", "tool", "assistant", "tool", "assistant"]
    assert r.conversation[0]["content"].startswith("SYS") and r.conversation[1]["content"] == "x"
    first = r.conversation[2]
    assert [m["toolCallId"] for m in r.conversation[3:5]] == [c["id"] for c in first["toolCalls"]]
    assert r.conversation[4]["content"] == "(tool failed: ValueError: nope)"
    assert r.conversation[-1]["toolCalls"][0]["name"] == "agent__final_report"
