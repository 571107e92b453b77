"""docs/contracts.md LLM-4, LLM-5, LLM-8: toolResponseMaxBytes, toolTimeout, argument parsing
and repair, queues."""

from __future__ import annotations

import asyncio

import pytest

from agency.llm.args import parse_arguments
from agency.llm.errors import LlmConfigError
from agency.llm.settings import LlmSettings
from agency.llm.testing import ScriptedLLM, call, calls, final
from agency.llm.toolbox import ToolBox
from agency.llm.truncate import truncate_response
from tests.unit.llm.conftest import make_settings, run, spec, tool_entries


def _tool_msgs(r):
    return [m for m in r.conversation if m["role"] == "tool"]


def test_oversized_tool_response_is_truncated_with_exact_notice(llm: ScriptedLLM) -> None:
    big = "é" * 6000  # 12000 bytes of two-byte characters: the cut must stay valid UTF-8
    llm.add(call("bot__big"), final("ok"))
    r = run("x", make_settings(llm, tool_response_max_bytes=1025), tools=[spec("big", output=big)])
    content = _tool_msgs(r)[0]["content"]
    assert content.startswith("[TRUNCATED] Original size 12000 bytes; truncated to 1025 bytes.")
    assert len(content.encode("utf-8")) <= 1025
    content.encode("utf-8").decode("utf-8")  # valid UTF-8
    assert tool_entries(r)[0].get("truncated") is True
    # ... and the model saw the truncated text, not the original
    assert "[TRUNCATED]" in llm.requests[1].text


@pytest.mark.parametrize("limit", [256, 300, 1000, 4097])
def test_truncation_total_never_exceeds_limit(limit: int) -> None:
    text, cut = truncate_response("a€" * 5000, limit)
    assert cut and len(text.encode("utf-8")) <= limit
    assert text.startswith(f"[TRUNCATED] Original size 20000 bytes; truncated to {limit} bytes.")


def test_small_response_is_untouched() -> None:
    assert truncate_response("short", 256) == ("short", False)


def test_tool_timeout_fails_the_tool_with_timeout_message(llm: ScriptedLLM) -> None:
    async def slow(_args):
        await asyncio.sleep(5)
        return "never"

    llm.add(call("bot__slow"), final("ok"))
    r = run("x", make_settings(llm, tool_timeout_ms=50), tools=[spec("slow", slow)])
    assert _tool_msgs(r)[0]["content"] == "(tool failed: timeout)"
    entry = tool_entries(r)[0]
    assert entry["status"] == "failed" and entry["error"] == "timeout"


def test_arguments_repaired_when_json_is_broken(llm: ScriptedLLM) -> None:
    tool = spec("look")
    llm.add(call("bot__look", '{"radius": 5, "block": "oak_log"'), final("ok"))
    r = run("x", make_settings(llm), tools=[tool])
    assert tool.seen == [{"radius": 5, "block": "oak_log"}]
    assert tool_entries(r)[0]["status"] == "ok"


def test_unparseable_call_dropped_while_valid_sibling_runs(llm: ScriptedLLM) -> None:
    good, bad = spec("good"), spec("bad")
    llm.add(calls(("bot__bad", "%%% not json"), ("bot__good", {"x": 1})), final("ok"))
    r = run("x", make_settings(llm), tools=[good, bad])
    assert good.seen == [{"x": 1}] and bad.seen == []
    msgs = _tool_msgs(r)
    assert msgs[0]["content"].startswith("(tool failed: invalid arguments")
    assert msgs[1]["content"] == "ok"
    assert [e["command"] for e in tool_entries(r)] == ["bot__good", "agent__final_report"]


@pytest.mark.parametrize(
    "raw,expected",
    [
        ('{"a": 1}', {"a": 1}),
        ("", {}),
        ('"{\\"a\\": 2}"', {"a": 2}),
        ("{'a': 3}", {"a": 3}),
        ('{"a": [1, 2', {"a": [1, 2]}),
    ],
)
def test_parse_arguments_pipeline(raw: str, expected: dict) -> None:
    assert parse_arguments(raw).value == expected


@pytest.mark.parametrize("raw", ["%%%", "[1, 2]", "just words"])
def test_parse_arguments_rejects(raw: str) -> None:
    parsed = parse_arguments(raw)
    assert not parsed.ok and parsed.error


def _concurrency_probe():
    state = {"now": 0, "max": 0}

    async def fn(_args):
        state["now"] += 1
        state["max"] = max(state["max"], state["now"])
        await asyncio.sleep(0.02)
        state["now"] -= 1
        return "ok"

    return state, fn


@pytest.mark.parametrize("concurrent,expected_max", [(1, 1), (3, 3)])
def test_queue_concurrency_limit(llm: ScriptedLLM, concurrent: int, expected_max: int) -> None:
    state, fn = _concurrency_probe()
    llm.add(calls(*[("bot__work", {"i": i}) for i in range(3)]), final("ok"))
    settings = make_settings(llm, queues={"slow": {"concurrent": concurrent}})
    r = run("x", settings, tools=[spec("work", fn, queue="slow")])
    assert r.success
    assert state["max"] == expected_max


def test_queue_depth_is_tracked() -> None:
    _state, fn = _concurrency_probe()
    box = ToolBox([spec("work", fn, queue="q")], {"q": 1, "default": 1})

    async def go() -> None:
        await asyncio.gather(*(box.execute("bot__work", {}) for _ in range(3)))

    asyncio.run(go())
    assert box.queue_stats()["q"]["maxWaiting"] == 2 and box.queue_stats()["q"]["inFlight"] == 0


def test_default_queue_added_when_missing() -> None:
    assert LlmSettings(queues={"web": {"concurrent": 2}}).effective_queues() == {"web": 2, "default": 1}


def test_binding_to_missing_queue_fails_at_startup() -> None:
    with pytest.raises(LlmConfigError, match="nope"):
        ToolBox([spec("t", queue="nope")], {"default": 1})
    with pytest.raises(LlmConfigError, match=r"mcp_servers.files.queue"):
        LlmSettings(mcp_servers={"files": {"command": "x", "queue": "missing"}}).validate_bindings()
    with pytest.raises(LlmConfigError, match="bot_queue"):
        LlmSettings(bot_queue="body").validate_bindings()
