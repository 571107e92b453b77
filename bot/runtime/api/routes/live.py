"""What the dashboard watches: the live stream (bot/runtime/api/live_stream.py), the log
tail and the 3D view's address."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request

from bot.runtime.api.deps import Ctx
from bot.runtime.api.errors import ApiError
from bot.runtime.api.live_stream import live_stream
from bot.runtime.api.payloads import event_stream
from bot.runtime.api.task_events import MAX_SEQ

router = APIRouter()


@router.get("/api/live")
async def live(ctx: Ctx, request: Request, logAfter: int = Query(0, ge=0, le=MAX_SEQ)) -> Any:
    if ctx.live is None:
        raise ApiError.not_wired("the live view is not wired")
    return event_stream(
        live_stream(ctx.live, stopping=ctx.stopping, disconnected=request.is_disconnected, log_after=logAfter)
    )


@router.get("/api/logs")
async def logs(ctx: Ctx, after: int = Query(0, ge=0, le=MAX_SEQ), limit: int = Query(200, ge=1, le=500)) -> Any:
    if ctx.logs is None:
        raise ApiError.not_wired("the log tail is not wired")
    lines = ctx.logs(after, limit)
    return {"count": len(lines), "lines": lines}


@router.get("/api/viewer")
async def viewer(ctx: Ctx) -> Any:
    if ctx.viewer is None:
        return {"enabled": False, "running": False}
    return await ctx.viewer()
