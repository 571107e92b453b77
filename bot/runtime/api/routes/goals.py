"""A user's goal: POST /api/goals makes it a task, or says why not (agency.goals.user_goals).
A goal the request cannot name is a GoalRequestError and a bot not connected a
BotUnavailable: bot/runtime/api/errors.py answers both."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from agency.goals.user_goals import GoalRequest
from bot.runtime.api.deps import Ctx
from bot.runtime.api.errors import ApiError
from bot.runtime.api.payloads import dump

router = APIRouter()

# A refused user goal: the status code by verdict (agency.goals.user_goals.Verdict).
GOAL_REFUSED = {
    "duplicate": 409,
    "already_satisfied": 409,
    "not_routable": 422,
    "not_grounded": 422,
    "unobtainable": 422,  # not in the overworld (a blaze rod), or no such item
    "internal_error": 500,
}


@router.post("/api/goals", status_code=201)
async def post_goal(ctx: Ctx, body: GoalRequest) -> Any:
    if ctx.submit_goal is None:
        raise ApiError.not_wired("goals are not wired")
    decision = await ctx.submit_goal(body)
    task = ctx.tasks.get_task(decision.task_id) if decision.task_id else None
    if decision.created:
        return ctx.task_json(task)
    fields: dict[str, Any] = {"goalKey": decision.goal_key, "goal": decision.goal.model_dump()}
    if task is not None:
        fields["task"] = dump(task)
    raise ApiError(GOAL_REFUSED[decision.verdict], decision.reason, decision.verdict, **fields)
