"""The bots this daemon drives, and what one bot's body reads: its snapshot and the blocks
around it. BOT_ROUTES serve the first bot at /api/bot/... and each bot of a fleet at
/api/bots/{name}/... (bot/runtime/api/app.py includes them at both)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query

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
