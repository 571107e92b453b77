"""Plain words through the model: a commander's line that is no command ("could you get me
some wood?") goes to the model with the bot's situation frame, and the model's answer is
said in chat. A goal in the answer becomes a task only the way any model thought's does: the
`[GOAL: ...]` tag extracted by the sanitizer, grounded against the frame and routable
(agency.cognition.eligibility), and then through the goal intake like the player's own goal
(its stricter grounding, routing and one-live-task rule). The player's words are the model's
input only: an answer that repeats them is not said.

Every call goes through the thought generator's budget and circuit breaker and is counted in
llmCalls; without a model configured there is no ChatTalk and the bot answers with the
commands it understands.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from loguru import logger

from agency.chat.lines import clean, in_one_message
from agency.clock import Clock
from agency.cognition.counters import AgencyCounters
from agency.cognition.eligibility import Routable, decide
from agency.cognition.grounding import FrameFacts
from agency.cognition.llm_thoughts import LlmThoughtGenerator, build_thought_generator
from agency.cognition.sanitizer import build_llm_thought
from agency.cognition.situation_frame import SituationFrame, build_frame
from agency.goal_tag import ExtractedGoal, without_goal_tags
from agency.llm.budgets import AutonomyBudget
from agency.world import BlockRegion, WorldSnapshot

# Format and manners only: like the thought prompt (AUTONOMY-1) it names no activity.
CHAT_SYSTEM_PROMPT = (
    "You are a Minecraft bot talking with a player in the game's chat.\n"
    "Answer the player in one or two short sentences, in plain words.\n"
    "Use only the facts you are given: do not invent items, creatures or places they do not mention.\n"
    "Only if you decide to do what the player asks, add one tag in the form "
    "[GOAL: <action> <target> <amount>]."
)
ANSWER_CHARS = 200  # of the model's answer said in chat (the line adds the player's name)
ANSWER_TOKENS = 96  # one or two sentences: a chat answer comes quickly
ECHO_CHARS = 12  # a run of the player's words this long in the answer: not said


@dataclass(frozen=True)
class TalkAnswer:
    said: str  # what to say in chat (the bot's words)
    goal: ExtractedGoal | None  # a goal that passed extraction, grounding and routing (a refused one is logged)


def _echoes(answer: str, heard: str) -> bool:
    """Does the answer carry a run of ECHO_CHARS or more of the player's words?"""
    a, h = " ".join(answer.lower().split()), " ".join(heard.lower().split())
    return len(h) >= ECHO_CHARS and any(h[i : i + ECHO_CHARS] in a for i in range(len(h) - ECHO_CHARS + 1))


class ChatTalk:
    def __init__(
        self,
        generator: LlmThoughtGenerator,
        frame: Callable[[], Awaitable[SituationFrame | None]],
        *,
        is_routable: Routable,
        counters: AgencyCounters | None,
        clock: Clock,
    ) -> None:
        self.generator, self.frame, self.is_routable = generator, frame, is_routable
        self.counters, self.clock = counters, clock

    async def answer(self, player: str, sentence: str) -> TalkAnswer:
        frame = await self.frame()
        if frame is None:
            return TalkAnswer("I cannot see where I am right now; ask me again in a moment.", None)
        gen = await self.generator.acomplete(
            frame, note=f'{player} says to you in chat: "{sentence}"', counters=self.counters
        )
        if gen.status == "budget_exceeded":
            return TalkAnswer("I have done enough thinking for now; commands still work (say mcbot help).", None)
        if gen.status != "ok" or gen.text is None:
            logger.info("[Chat] the model gave no answer to {} ({}: {})", player, gen.status, gen.error or "-")
            return TalkAnswer("I have no answer to that right now; say mcbot help for my commands.", None)
        thought = build_llm_thought(
            gen.text, now_ms=self.clock(), counters=self.counters, thought_type="chat", cognitive_system="chat"
        )
        # tags cut from the text as it will be said (a code or a character dropped after the cut
        # could join a tag split by a formatting code), then its spaces closed up again
        said = clean(without_goal_tags(in_one_message(clean(thought.content))))[:ANSWER_CHARS].strip()
        if not said or _echoes(said, sentence):
            said = "I heard you."
        goal = thought.metadata.extractedGoal
        if goal is None:
            return TalkAnswer(said, None)
        decision = decide(thought, frame.world, is_routable=self.is_routable)
        logger.info(
            "[Chat] the model's answer to {} carries [GOAL: {} {} {}]: {}",
            player,
            goal.action,
            goal.target,
            goal.amount,
            decision.reason,
        )
        return TalkAnswer(said, goal if decision.eligible else None)


def chat_frame(snap: WorldSnapshot, region: BlockRegion | None, profile: str) -> SituationFrame:
    """The frame a chat line is answered with: keep-alive's profile, grounded against the
    blocks in sight as well (so "get me some wood" grounds on a tree the bot sees)."""
    return build_frame(snap, profile, world=FrameFacts.from_snapshot(snap, region=region))


def build_chat_talk(
    llm_config: Any,
    frame: Callable[[], Awaitable[SituationFrame | None]],
    *,
    is_routable: Routable,
    counters: AgencyCounters | None,
    clock: Clock,
    budget: AutonomyBudget | None = None,
) -> ChatTalk | None:
    """From the `[llm]` section: None without [[llm.targets]] (the bot lists its commands).
    `budget`: keep-alive's, so the caps and the breaker count the bot's every call."""
    generator = build_thought_generator(
        llm_config, clock, system_prompt=CHAT_SYSTEM_PROMPT, max_output_tokens=ANSWER_TOKENS, budget=budget
    )
    if generator is None:
        return None
    return ChatTalk(generator, frame, is_routable=is_routable, counters=counters, clock=clock)
