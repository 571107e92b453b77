"""What the bot remembers of its world: the places it has found and its shelters (read-only)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from bot.runtime.api.deps import Ctx
from bot.runtime.api.errors import ApiError

router = APIRouter()


@router.get("/api/places")
async def places(ctx: Ctx) -> Any:
    """The places the bot remembers in this world."""
    if ctx.places is None:
        raise ApiError.not_wired("place memory is not wired")
    return ctx.places()


@router.get("/api/shelters")
async def shelters(ctx: Ctx) -> Any:
    if ctx.shelters is None:
        raise ApiError.not_wired("shelter status is not wired")
    items = ctx.shelters()
    return {"count": len(items), "shelters": items}
