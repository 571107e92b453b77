"""docs/contracts.md LLM-7 (provider configuration): targets, sampling on every request with
per-provider and per-model overrides, reasoning toggles; the three wire protocols."""

from __future__ import annotations

import pytest

from agency.llm.testing import Received, ScriptedLLM, call, final, reasoning_only
from tests.unit.llm.conftest import make_settings, run, spec, target


def _expect(temperature: float, top_p: float):
    def check(req: Received) -> None:
        assert req.temperature == temperature, f"temperature {req.temperature}"
        assert req.top_p == top_p, f"top_p {req.top_p}"

    return check


@pytest.mark.parametrize("api", ["openai", "ollama", "anthropic"])
def test_sampling_reaches_provider_on_every_request(llm: ScriptedLLM, api: str) -> None:
    check = _expect(0.5, 0.8)
    llm.add(call("bot__look", expect=check), final("ok", expect=check))
    r = run("x", make_settings(llm, [target(llm, api)], temperature=0.5, top_p=0.8), tools=[spec("look")])
    assert r.success, r.error
    assert len(llm.requests) == 2 and all(q.api == api for q in llm.requests)
    assert [e["provider"] for e in r.accounting if e["type"] == "llm"] == [api, api]


def test_max_output_tokens_and_repeat_penalty_sent(llm: ScriptedLLM) -> None:
    llm.add(final("ok"), final("ok"))
    run("x", make_settings(llm, [target(llm, "ollama")], max_output_tokens=321, repeat_penalty=1.1))
    run("x", make_settings(llm, [target(llm, "openai")], max_output_tokens=321, repeat_penalty=1.1))
    ollama, openai = llm.requests
    assert ollama.body["options"]["num_predict"] == 321 and ollama.body["options"]["repeat_penalty"] == 1.1
    assert openai.body["max_tokens"] == 321 and openai.body["repetition_penalty"] == 1.1


def test_provider_and_model_overrides_layer_over_session_defaults(llm: ScriptedLLM) -> None:
    llm.add(final("ok", times=3))
    targets = [
        target(llm, "ollama", model="plain"),
        target(llm, "ollama", model="tuned", overrides={"temperature": 0.9}),
        target(llm, "openai", model="default"),
    ]
    settings = make_settings(
        llm, targets, temperature=0.1, top_p=0.5, provider_overrides={"ollama": {"temperature": 0.3}}
    )
    for t in settings.targets:
        run("x", settings.model_copy(update={"targets": [t]}))
    assert [(q.model, q.temperature, q.top_p) for q in llm.requests] == [
        ("plain", 0.3, 0.5),
        ("tuned", 0.9, 0.5),
        ("default", 0.1, 0.5),
    ]


def test_reasoning_settings_are_passed(llm: ScriptedLLM) -> None:
    llm.add(final("ok", times=3))
    run("x", make_settings(llm, [target(llm, "openai")], reasoning_effort="high"))
    run("x", make_settings(llm, [target(llm, "ollama")], reasoning_effort="low"))
    run("x", make_settings(llm, [target(llm, "anthropic")], thinking_budget_tokens=2048))
    openai, ollama, anthropic = llm.requests
    assert openai.body["reasoning_effort"] == "high"
    assert ollama.body["think"] == "low"
    assert anthropic.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_anthropic_wire_format(llm: ScriptedLLM) -> None:
    llm.add(call("bot__look", {"r": 1}), final("ok"))
    r = run("x", make_settings(llm, [target(llm, "anthropic", api_key="k-123")]), tools=[spec("look")])
    assert r.success
    second = llm.requests[1]
    assert second.headers["x-api-key"] == "k-123" and "anthropic-version" in second.headers
    assert second.body["system"].startswith("You are mcbot")
    tool_result = second.body["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result" and tool_result["content"] == "ok"
    assert second.body["tools"][0]["input_schema"] == {"type": "object", "properties": {}}


def test_openai_auth_header_only_when_key_set(llm: ScriptedLLM) -> None:
    llm.add(final("ok", times=2))
    run("x", make_settings(llm, [target(llm, api_key="sk-1")]))
    run("x", make_settings(llm, [target(llm)]))
    assert llm.requests[0].headers["authorization"] == "Bearer sk-1"
    assert "authorization" not in llm.requests[1].headers


def test_ollama_reasoning_only_then_tools(llm: ScriptedLLM) -> None:
    llm.add(reasoning_only("hmm"), call("bot__look"), final("ok"))
    r = run("x", make_settings(llm, [target(llm, "ollama")]), tools=[spec("look")])
    assert r.success
    assert llm.requests[1].body["messages"][2] == {"role": "assistant", "content": "", "thinking": "hmm"}
