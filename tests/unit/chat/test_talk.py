"""Plain words through the model (agency.chat.talk): a commander's line that is no command goes
to the model with the bot's frame and the player's words; the answer is said, a goal in it
goes to the intake only when it grounds against the frame and routes; an answer that repeats
the player is not said; budgets stop the calls; without a model the commands are listed. The
model is the scripted OpenAI-compatible server on loopback (agency.llm.testing)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from agency.chat.handler import HELP, NOT_UNDERSTOOD, ChatHandler, said_line
from agency.chat.talk import CHAT_SYSTEM_PROMPT, ChatTalk
from agency.cognition.counters import AgencyCounters
from agency.cognition.grounding import FrameFacts
from agency.cognition.llm_thoughts import LlmThoughtGenerator
from agency.cognition.situation_frame import build_frame
from agency.goals.user_goals import GoalDecision
from agency.llm.settings import LlmSettings
from agency.llm.testing import Received, ScriptedLLM, fail, text
from agency.world import WorldSnapshot
from tests.unit.eval.test_llm_thoughts import snap

BOT = "Helper"


def _snap() -> WorldSnapshot:
    return snap(inventory={"stick": 2})


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    server = ScriptedLLM().start()
    yield server
    server.stop()
    assert not server.errors, server.errors


class Talk:
    def __init__(self, llm: ScriptedLLM, clock, *, budgets: dict | None = None) -> None:
        settings = LlmSettings.model_validate(
            {
                "targets": [{"provider": "openai", "model": "scripted-1", "base_url": llm.url()}],
                "request_timeout_s": 5,
                "budgets": budgets or {},
            }
        )
        self.counters = AgencyCounters(clock)
        self.said: list[str] = []
        self.submitted: list[str] = []

        async def frame():  # a tree in sight (the blocks the daemon reads around the bot)
            return build_frame(_snap(), "balanced", world=FrameFacts.from_snapshot(_snap(), blocks=["oak_log"]))

        async def say(line: str) -> bool:
            self.said.append(line)
            return True

        async def submit(request):
            self.submitted.append(request.text)
            goal = request.goal()
            return GoalDecision("created", goal, f"{goal.action}:{goal.target}", "r", "task-0000abcd1234")

        talk = ChatTalk(
            LlmThoughtGenerator(settings, clock=clock, system_prompt=CHAT_SYSTEM_PROMPT),
            frame,
            is_routable=lambda g: g.action in ("collect", "craft"),
            counters=self.counters,
            clock=clock,
        )
        self.chat = ChatHandler(
            BOT,
            commanders=["alice"],
            say=say,
            submit=submit,
            snapshot=lambda: asyncio.sleep(0, _snap()),
            status=lambda: "idle",
            direct=lambda: None,
            clock=clock,
            talk=talk,
        )

    def hear(self, line: str) -> list[str]:
        before = len(self.said)

        async def go():
            await self.chat.hear("Alice", line)
            await self.chat.settle()  # the model answers in the background

        asyncio.run(go())
        return self.said[before:]


def test_a_sentence_goes_to_the_model_with_the_frame_and_its_goal_through_the_intake(llm, clock):
    seen: list[Received] = []

    def answer(req: Received):
        seen.append(req)
        return text("Sure, I can see a tree right here. [GOAL: collect oak_log 4]\nINTENT: wood")

    llm.default = answer
    t = Talk(llm, clock)
    said = t.hear("mcbot could you get me some wood?")
    assert said == ["Alice, Sure, I can see a tree right here.", "Alice, OK: collect oak_log 4 (task abcd1234)."]
    assert t.submitted == ["collect oak_log 4"]  # plain words go to the model, not the goal grammar
    user = seen[0].messages[-1]["content"]
    assert "stick" in user and 'Alice says to you in chat: "could you get me some wood"' in user
    assert seen[0].messages[0]["content"] == CHAT_SYSTEM_PROMPT
    assert t.counters.get("llmCalls") == 1 and t.counters.get("goalTags") == 1


def test_a_goal_the_frame_does_not_ground_is_said_but_never_submitted(llm, clock):
    llm.default = lambda req: text("Diamonds coming up! [GOAL: collect diamond 3]")
    t = Talk(llm, clock)
    assert t.hear("mcbot get me diamonds please") == ["Alice, Diamonds coming up!"]
    assert t.submitted == []  # no task from the model's claim


def test_no_goal_tag_is_said_a_second_one_or_one_cut_off_included(llm, clock):
    """The thought keeps a second tag as written (TAG-2); a player is never shown one (the
    real model of test_local_model wrote `[GOAL: 1 player nearby]` after a first tag)."""
    llm.default = lambda req: text(
        "I can help. [GOAL: collect oak_log 4] Add a tag: [GOAL: 1 player nearby] Or [GO\u00a7rAL: x] "
        "[GO\U0001f600AL: y] Done. [GOAL: coll"
    )
    t = Talk(llm, clock)
    said = t.hear("mcbot how are you?")
    assert said[0] == "Alice, I can help. Add a tag: Or Done.", said
    assert t.submitted == ["collect oak_log 4"]  # the first tag's goal, once


def test_a_goal_in_the_grammar_still_goes_straight_to_the_intake(llm, clock):
    t = Talk(llm, clock)
    assert t.hear("mcbot collect oak_log 8") == ["Alice, OK: collect oak_log 8 (task abcd1234)."]
    assert t.submitted == ["collect oak_log 8"] and llm.requests == []


def test_an_answer_that_repeats_the_player_is_not_said(llm, clock):
    llm.default = lambda req: text("You said: tell everyone the server is closing now")
    t = Talk(llm, clock)
    assert t.hear("mcbot tell everyone the server is closing now") == ["Alice, I heard you."]


def test_a_failing_model_and_an_exhausted_budget_get_a_short_line(llm, clock):
    llm.default = lambda req: fail(500, "boom")
    t = Talk(llm, clock)
    assert t.hear("mcbot how are you today") == [
        "Alice, I have no answer to that right now; say mcbot help for my commands."
    ]
    llm.default = lambda req: text("Fine, thanks.")
    capped = Talk(llm, clock, budgets={"calls_per_hour": 1})
    assert capped.hear("mcbot how are you today") == ["Alice, Fine, thanks."]
    assert capped.hear("mcbot and now") == [
        "Alice, I have done enough thinking for now; commands still work (say mcbot help)."
    ]
    assert len(llm.requests) == 2  # the failed call and the one the budget allowed


def test_without_a_model_the_bot_says_which_commands_it_understands(clock):
    said: list[str] = []

    async def say(line: str) -> bool:
        said.append(line)
        return True

    async def submit(request):
        return request.goal()  # raises: no goal in plain words

    chat = ChatHandler(
        BOT,
        commanders=["alice"],
        say=say,
        submit=submit,
        snapshot=lambda: asyncio.sleep(0, None),
        status=lambda: "idle",
        direct=lambda: None,
        clock=clock,
    )
    asyncio.run(chat.hear("Alice", "mcbot could you get me some wood?"))
    assert said == [f"Alice, {NOT_UNDERSTOOD}"] and HELP in said[0] and len(said[0]) <= 256


def test_the_model_answers_in_the_background_one_sentence_at_a_time(llm, clock):
    t = Talk(llm, clock)
    llm.default = lambda req: text("Fine, thanks.")

    async def go():
        await t.chat.hear("Alice", "mcbot how are you")  # returns at once: the model is asked in the background
        assert t.said == []
        await t.chat.hear("Alice", "mcbot and you")
        assert t.said == ["Alice, I am still answering the last thing I was asked; one at a time."]
        await t.chat.settle()

    asyncio.run(go())
    assert t.said[-1] == "Alice, Fine, thanks." and len(llm.requests) == 1


def test_a_line_said_is_one_chat_message_whatever_the_model_wrote():
    line = said_line("Alice", "\U0001f600" * 300 + " /op Eve")
    assert line == "Alice,  /op Eve"  # one message, starting with the player's name
    long = said_line("Alice", "x" * 400)
    assert len(long) == 256 and long.startswith("Alice, x")
