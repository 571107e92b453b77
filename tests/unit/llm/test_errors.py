"""docs/contracts.md LLM-9, LLM-12: fatal errors, rate limits (Retry-After, backoff, cycling,
all-limited wait), network/timeout/model errors, invalid responses, round-robin cycling."""

from __future__ import annotations

import socket

import pytest

from agency.llm.providers.base import classify_status, retry_after_seconds
from agency.llm.result import exit_code
from agency.llm.rotation import TargetRotation
from agency.llm.settings import TargetConfig
from agency.llm.testing import ScriptedLLM, fail, final, hang, malformed
from tests.unit.llm.conftest import Sleeper, llm_entries, make_settings, run, target


@pytest.mark.parametrize(
    "reply",
    [
        fail(401, '{"error": "invalid api key"}'),
        fail(402, '{"error": "payment required"}'),
        fail(429, '{"error": {"code": "insufficient_quota", "message": "You exceeded your current quota"}}'),
    ],
)
def test_auth_and_quota_are_fatal_without_retry(llm: ScriptedLLM, reply, sleeper: Sleeper) -> None:
    llm.add(reply)
    targets = [target(llm, model="a"), target(llm, model="b")]
    r = run("x", make_settings(llm, targets, max_retries=5, max_turns=3), sleep=sleeper)
    assert len(llm.requests) == 1  # no retry, no other target, no further turn
    assert not r.success and r.error and r.finalReport["status"] == "failure"
    assert exit_code(r) == 1
    assert sleeper.calls == []


def test_rate_limit_honours_retry_after(llm: ScriptedLLM, sleeper: Sleeper, clock) -> None:
    llm.add(fail(429, retry_after="7"), final("ok"))
    r = run("x", make_settings(llm), sleep=sleeper, clock=clock)
    assert r.success
    assert sleeper.calls == [7.0]


def test_rate_limit_backoff_doubles_from_one_second(llm: ScriptedLLM, sleeper: Sleeper, clock) -> None:
    llm.add(fail(429, times=3), final("ok"))
    r = run("x", make_settings(llm, max_retries=4), sleep=sleeper, clock=clock)
    assert r.success
    assert sleeper.calls == [1.0, 2.0, 4.0]


def test_backoff_is_capped_at_sixty_seconds(clock) -> None:
    rot = TargetRotation([TargetConfig(provider="openai", model="m")], sleep=None, clock=clock)  # type: ignore[arg-type]  # never sleeps here
    waits = [rot.note_rate_limit(0, None) for _ in range(9)]
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60, 60]


def test_rate_limit_cycles_to_next_target_without_sleeping(llm: ScriptedLLM, sleeper: Sleeper, clock) -> None:
    llm.add(fail(429, retry_after="30"), final("ok"))
    r = run("x", make_settings(llm, [target(llm, model="a"), target(llm, model="b")]), sleep=sleeper, clock=clock)
    assert r.success
    assert [(e["model"], e["status"]) for e in llm_entries(r)] == [("a", "failed"), ("b", "ok")]
    assert sleeper.calls == []


def test_sleeps_only_when_every_target_is_rate_limited(llm: ScriptedLLM, sleeper: Sleeper, clock) -> None:
    llm.add(fail(429, retry_after="3"), fail(429, retry_after="5"), final("ok"))
    targets = [target(llm, model="a"), target(llm, model="b")]
    r = run("x", make_settings(llm, targets, max_retries=3), sleep=sleeper, clock=clock)
    assert r.success
    assert [e["model"] for e in llm_entries(r)] == ["a", "b", "a"]
    assert sleeper.calls == [5.0]  # one wait, the longest pending one


def test_network_error_goes_to_next_target_at_once(llm: ScriptedLLM, sleeper: Sleeper) -> None:
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    llm.add(final("ok"))
    targets = [{"provider": "openai", "model": "dead", "base_url": dead}, target(llm, model="live")]
    r = run("x", make_settings(llm, targets), sleep=sleeper)
    assert r.success
    assert [(e["model"], e["status"]) for e in llm_entries(r)] == [("dead", "failed"), ("live", "ok")]
    assert llm_entries(r)[0]["error"].startswith("network")
    assert sleeper.calls == []


def test_timeout_goes_to_next_target_at_once(llm: ScriptedLLM, sleeper: Sleeper) -> None:
    llm.add(hang(2.0), final("ok"))
    r = run(
        "x",
        make_settings(llm, [target(llm, model="slow"), target(llm, model="fast")], request_timeout_s=0.2),
        sleep=sleeper,
    )
    assert r.success
    assert llm_entries(r)[0]["error"].startswith("timeout")
    assert sleeper.calls == []


@pytest.mark.parametrize("status", [500, 503, 404, 400])
def test_model_errors_go_to_next_target(llm: ScriptedLLM, status: int) -> None:
    llm.add(fail(status), final("ok"))
    r = run("x", make_settings(llm, [target(llm, model="a"), target(llm, model="b")]))
    assert r.success and [e["model"] for e in llm_entries(r)] == ["a", "b"]


def test_invalid_response_triggers_synthetic_retry(llm: ScriptedLLM) -> None:
    llm.add(malformed("<html>oops"), final("ok"))
    r = run("x", make_settings(llm))
    assert r.success
    assert llm_entries(r)[0]["status"] == "failed" and llm_entries(r)[0]["error"].startswith("invalid_response")
    assert "could not be used" in llm.requests[1].messages[-1]["content"]  # the model is told
    assert all("could not be used" not in (m.get("content") or "") for m in r.conversation)  # ephemeral


def test_response_without_choices_is_invalid(llm: ScriptedLLM) -> None:
    llm.add(malformed('{"choices": []}'), final("ok"))
    r = run("x", make_settings(llm))
    assert r.success and llm_entries(r)[0]["error"].startswith("invalid_response")


def test_classification_table() -> None:
    assert classify_status(401, "", {}).kind == "auth"
    assert classify_status(403, "", {}).kind == "auth"
    assert classify_status(402, "", {}).kind == "quota"
    assert classify_status(400, "Your credit balance is too low", {}).kind == "quota"
    assert classify_status(429, "slow down", {"retry-after": "2"}).retry_after_s == 2.0
    assert classify_status(504, "", {}).kind == "timeout"
    assert classify_status(500, "", {}).kind == "model"
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now_s=1445412470.0) == 10.0
    assert retry_after_seconds("soon") is None


ANTHROPIC_OVERFLOW = (
    '{"type": "error", "error": {"type": "invalid_request_error", '
    '"message": "prompt is too long: 215000 tokens > 200000 maximum"}}'
)
OPENAI_OVERFLOW = (
    '{"error": {"message": "This model\'s maximum context length is 8192 tokens. However, your '
    'messages resulted in 9000 tokens.", "type": "invalid_request_error", '
    '"code": "context_length_exceeded"}}'
)


@pytest.mark.parametrize("api,body", [("openai", OPENAI_OVERFLOW), ("anthropic", ANTHROPIC_OVERFLOW)])
def test_provider_context_overflow_is_an_ordinary_provider_error(
    llm: ScriptedLLM, sleeper: Sleeper, api: str, body: str
) -> None:
    """A 400 with the provider's context-length message: not fatal, no backoff, next target."""
    assert classify_status(400, body, {}).kind == "model"
    llm.add(fail(400, body), final("ok"))
    r = run("x", make_settings(llm, [target(llm, api, model="small"), target(llm, api, model="large")]), sleep=sleeper)
    assert r.success
    assert [(e["model"], e["status"]) for e in llm_entries(r)] == [("small", "failed"), ("large", "ok")]
    assert "HTTP 400" in llm_entries(r)[0]["error"]
    assert sleeper.calls == []
