"""A user's goal (POST /api/goals, `mcbot goal`): the one supported way to tell the bot
what to do.

It is held to the same rules as every goal: parsed by the goal-tag grammar (so the same
allowlist and synonyms apply), routable to an agent that can carry it out, doable from
the current frame (agency.cognition.grounding.check_doable_goal, the drive tick's strict check), and
turned into a task by the same converter (idempotency by goal key) and goal resolver
(build goals) as a thought's goal, with origin `user`. Nothing is stored for a refused goal.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from loguru import logger
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_validator

from agency.cognition.grounding import FrameFacts, GroundingResult, check_doable_goal
from agency.errors import InvalidInputError
from agency.execution.agents.obtain import OBTAIN_WORDS
from agency.goal_tag import MAX_GOAL_AMOUNT, MAX_GOAL_INNER, ExtractedGoal, canonical_goal_key, parse_goal_text
from agency.planning.converter import GoalRouter, convert_thought
from agency.planning.tasks.idempotency import STUCK_PENDING_TIMEOUT_MS
from agency.planning.tasks.store import TaskStore
from agency.thoughts import Thought, ThoughtMetadata

Verdict = Literal[
    "created", "duplicate", "already_satisfied", "not_routable", "not_grounded", "unobtainable", "internal_error"
]


BY_TAG = "by:"  # a user goal's thought tag naming who asked; the task's origin carries it (TaskOrigin.by)


class GoalRequestError(InvalidInputError):
    """The request does not name a goal; str() is the reason for a 400."""


class GoalRequest(BaseModel):
    """Either `text` ("collect oak_log 8", the goal-tag grammar) or `action` + `target`
    (+ `amount`); `priority` 0..1 is the task's strategic priority; `bot` binds the task to
    that bot (absent: any bot may take it; whether the bot exists is the caller's check)."""

    model_config = ConfigDict(extra="forbid")

    text: StrictStr | None = Field(default=None, min_length=1, max_length=MAX_GOAL_INNER)
    action: StrictStr | None = Field(default=None, max_length=32, pattern=r"^[A-Za-z]+$")
    target: StrictStr | None = Field(default=None, max_length=64, pattern=r"^[A-Za-z0-9_:-]+$")  # one id, no spaces
    amount: StrictInt | None = Field(default=None, ge=1, le=MAX_GOAL_AMOUNT)
    priority: float = Field(default=0.5, ge=0, le=1, strict=True)
    bot: StrictStr | None = Field(default=None, min_length=1, max_length=64)
    by: StrictStr | None = Field(default=None, max_length=40, pattern=r"^[A-Za-z0-9_:-]+$")  # who asks

    @model_validator(mode="after")
    def _one_form(self) -> GoalRequest:
        structured = (self.action, self.target, self.amount)
        if self.text is not None and any(v is not None for v in structured):
            raise ValueError("give either text or action/target/amount, not both")
        if self.text is None and (self.action is None or self.target is None):
            raise ValueError('give text (e.g. "collect oak_log 8") or both action and target')
        return self

    def obtains(self) -> bool:
        """Does the goal say `obtain` (or `get`, `acquire`): the item, by whatever way gets it
        (agency.execution.agents.obtain)?"""
        word = self.text.split()[0] if self.text else self.action
        return (word or "").lower() in OBTAIN_WORDS

    def goal(self) -> ExtractedGoal:
        """The goal named, through the goal-tag grammar; GoalRequestError says why not."""
        text = self.text if self.text is not None else f"{self.action} {self.target} {self.amount or 1}"
        parsed = parse_goal_text(text)
        if isinstance(parsed, ExtractedGoal):
            return parsed
        raise GoalRequestError(_WHY[parsed].format(text=text))


_WHY = {
    "unknown_action": "{text!r}: the action is not one the bot knows (collect, craft, build, explore, ...)",
    "no_target": '{text!r}: no target (e.g. "collect oak_log 8")',
    "malformed": "{text!r}: not a goal (action, target, optional amount 1..10000; ids of a-z, 0-9, _)",
    "empty_inner": "{text!r}: empty goal",
}


@dataclass(frozen=True)
class GoalDecision:
    verdict: Verdict
    goal: ExtractedGoal
    goal_key: str
    request_id: str
    task_id: str | None = None  # the new task, or the live one that blocks this goal
    reason: str = ""

    @property
    def created(self) -> bool:
        return self.verdict == "created"


def refused(goal: ExtractedGoal, verdict: Verdict, reason: str) -> GoalDecision:
    """A goal refused before anything was read or stored (logged like every refusal)."""
    goal_key = canonical_goal_key(goal.action, goal.target) or f"{goal.action}:{goal.target}"
    logger.info("[UserGoal] refused goalKey={} verdict={} reason={}", goal_key, verdict, reason)
    return GoalDecision(verdict, goal, goal_key, f"user-goal-{uuid.uuid4()}", None, reason)


def submit_user_goal(
    goal: ExtractedGoal,
    *,
    store: TaskStore,
    now_ms: int,
    facts: FrameFacts,
    is_routable: Callable[[ExtractedGoal], bool],
    router: GoalRouter | None = None,
    priority: float = 0.5,
    stuck_timeout_ms: int = STUCK_PENDING_TIMEOUT_MS,
    bot: str | None = None,
    planned: bool = False,
    by: str | None = None,
) -> GoalDecision:
    """bot: the bot the task is bound to (GoalRequest.bot); None, open to any. planned: the
    goal's plan gets its materials itself (an obtain's craft, agency.execution.agents.obtain), so what
    is in sight does not decide it."""
    request_id = f"user-goal-{uuid.uuid4()}"
    goal_key = canonical_goal_key(goal.action, goal.target) or f"{goal.action}:{goal.target}"

    def decided(verdict: Verdict, reason: str = "", task_id: str | None = None) -> GoalDecision:
        if verdict == "created":
            logger.info("[UserGoal] created task={} goalKey={} amount={}", task_id, goal_key, goal.amount)
        else:
            logger.info("[UserGoal] refused goalKey={} verdict={} reason={}", goal_key, verdict, reason)
        return GoalDecision(verdict, goal, goal_key, request_id, task_id, reason)

    if not is_routable(goal):
        return decided("not_routable", f"no agent carries out '{goal.action}' goals")
    grounding = (
        GroundingResult(True, detail=f"obtain: the plan gets {goal.target}'s materials itself")
        if planned
        else check_doable_goal(goal, facts, scenario_id=request_id)
    )
    if not grounding.passed:
        return decided("not_grounded", f"{grounding.reason}: {grounding.detail}")
    thought = Thought(  # never published: the converter's input, so the same rules apply
        id=request_id,
        type="user",
        content=f"{goal.action} {goal.target} {goal.amount}",
        timestamp=now_ms,
        convertEligible=True,
        cognitiveSystem="user",
        tags=["user", *([f"{BY_TAG}{by}"] if by else [])],
        metadata=ThoughtMetadata(
            extractedGoal=goal, extractedGoalSource="user", goalKey=goal_key, grounding=grounding.as_record(), bot=bot
        ),
    )
    out = convert_thought(thought, store, now_ms, stuck_timeout_ms=stuck_timeout_ms, router=router, priority=priority)
    if out.status == "converted":
        return decided("created", task_id=out.task_id)
    if out.reason == "duplicate_goal":
        return decided("duplicate", f"the same goal is already live as task {out.task_id}", out.task_id)
    if out.reason == "already_satisfied":
        return decided("already_satisfied", f"already done here: task {out.task_id} (verified)", out.task_id)
    return decided("internal_error", out.error or f"not converted: {out.reason}")  # a fault of ours, not the goal's
