"""The bots this daemon drives, and what one bot's body reads: its snapshot, the blocks
around it, and the plan an `obtain ITEM N` would become from what it holds; and its chat,
to talk to it from the dashboard and see what it hears and says. BOT_ROUTES
serve the first bot at /api/bot/... and each bot of a fleet at /api/bots/{name}/...
(bot/runtime/api/app.py includes them at both)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from agency.chat.lines import MAX_LINE
from agency.execution.agents.obtain import Unobtainable
from agency.goals.obtain_plan import plan_obtain, plan_tree
from bot.runtime.api.deps import Ctx, TheBot
from bot.runtime.api.errors import ApiError
from bot.runtime.api.payloads import json_of

router = APIRouter()
BOT_ROUTES = APIRouter()


@router.get("/api/bots")
async def bots(ctx: Ctx) -> Any:
    items = ctx.bots.summary() if ctx.bots is not None else [ctx.bot_summary()] if ctx.bot_summary else []
    return {"count": len(items), "bots": items}


@BOT_ROUTES.get("/snapshot")
async def snapshot(bot: TheBot) -> Any:
    read = bot.snapshot
    try:
        snap = await read()
    except Exception as e:  # not connected, bridge down: say so
        raise ApiError.unavailable(str(e)) from e
    return json_of(snap)


@BOT_ROUTES.get("/blocks")
async def blocks(bot: TheBot, radius: int = Query(8, ge=1, le=16)) -> Any:
    read = bot.blocks_around
    if read is None:
        raise ApiError.not_wired("block reads are not wired")
    try:
        return await read(radius)
    except Exception as e:  # not connected, bridge down: say so (a JS stack's first line)
        raise ApiError.unavailable((str(e) or type(e).__name__).splitlines()[0]) from e


@BOT_ROUTES.get("/plan")
async def plan(
    bot: TheBot,
    item: str = Query(min_length=1, max_length=64, pattern=r"^[a-z0-9_:]+$"),
    amount: int = Query(1, ge=1, le=2304),
) -> Any:
    """The plan `obtain ITEM N` becomes from the bot's inventory now, as steps and as a tree
    of what each serves (agency.goals.obtain_plan); 422 with the reason when there is none.
    Nothing is stored."""
    try:
        snap = await bot.snapshot()
    except Exception as e:  # not connected, bridge down: say so
        raise ApiError.unavailable(str(e)) from e
    got = plan_obtain(item.removeprefix("minecraft:"), amount, snap.held())
    if isinstance(got, Unobtainable):
        raise ApiError(422, got.reason, "unobtainable")
    return {
        "item": item,
        "amount": amount,
        "goal": got.goal.model_dump(),
        "steps": [
            {"id": s.id, "tool": s.tool or s.kind, "description": s.description, "serves": s.serves} for s in got.steps
        ],
        "tree": plan_tree(got.steps),
    }


class ChatLine(BaseModel):
    """A line to the bot from the dashboard: what a commander would say after `mcbot`."""

    model_config = ConfigDict(extra="forbid")

    text: StrictStr = Field(min_length=1, max_length=MAX_LINE)


@BOT_ROUTES.post("/chat")
async def chat_to(bot: TheBot, body: ChatLine) -> Any:
    """The line as a commander's (the loopback user's), answered here rather than in the game's
    chat (agency.chat.handler.ChatHandler.ask); 409 when chat is off for the bot."""
    replies = await bot.chat.ask(body.text)
    return {"bot": bot.name, "replies": replies}


@BOT_ROUTES.get("/chat")
async def chat_heard(bot: TheBot, after: int = Query(0, ge=0)) -> Any:
    """The lines the bot heard and said after `after` (a line's seq), oldest first."""
    return {"bot": bot.name, "lines": bot.chat.lines_after(after)}
