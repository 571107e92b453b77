"""What the routes share, as FastAPI dependencies: the daemon's context and the bot a
route addresses."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from bot.runtime.api.context import ApiContext, Bot

FLEET_PREFIX = "/api/bots/{name}"  # a bot's routes under its name; the same routes serve the first bot without it


# Both are async though they never wait: FastAPI runs a plain function's dependency on a
# worker thread, a thread hop on every request.
async def context(request: Request) -> ApiContext:
    ctx: ApiContext = request.app.state.ctx
    return ctx


Ctx = Annotated[ApiContext, Depends(context)]


async def addressed_bot(request: Request, ctx: Ctx) -> Bot:
    """The bot named in the path (FLEET_PREFIX), else the daemon's first."""
    return Bot(ctx, request.path_params.get("name"))


TheBot = Annotated[Bot, Depends(addressed_bot)]
