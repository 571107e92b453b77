"""The tools a client may call on a bot, and direct actions: one tool call on the bot (the
dashboard, MCP clients), started, polled and cancelled. BOT_ROUTES serve the first bot at
/api/actions... and each bot of a fleet at /api/bots/{name}/actions... A refusal before
anything runs is a DirectActionError, which bot/runtime/api/errors.py answers."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from bot.runtime.api.deps import TheBot
from bot.runtime.api.errors import ApiError

router = APIRouter()
BOT_ROUTES = APIRouter()


class ActionBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tool: StrictStr = Field(min_length=1, max_length=64)
    args: dict[str, Any] = Field(default_factory=dict)
    timeoutS: float | None = Field(default=None, gt=0, le=900)


@router.get("/api/tools")
async def tools(bot: TheBot) -> Any:
    items = bot.direct.catalog()
    return {"count": len(items), "tools": items}


@BOT_ROUTES.post("/actions", status_code=202)
async def start_action(bot: TheBot, body: ActionBody) -> Any:
    with bot.logging_as():
        direct = bot.direct
        return direct.start(body.tool, body.args, body.timeoutS).view(direct.clock())


@BOT_ROUTES.get("/actions")
async def actions(bot: TheBot, limit: int = Query(20, ge=1, le=50)) -> Any:
    direct = bot.direct
    items = [a.view(direct.clock()) for a in direct.recent(limit)]
    return {"count": len(items), "actions": items}


@BOT_ROUTES.get("/actions/{action_id}")
async def action(bot: TheBot, action_id: str) -> Any:
    direct = bot.direct
    found = direct.get(action_id)
    if found is None:
        raise ApiError.not_found(f"no action {action_id}")
    return found.view(direct.clock())


@BOT_ROUTES.post("/actions/{action_id}/cancel")
async def cancel_action(bot: TheBot, action_id: str) -> Any:
    with bot.logging_as():
        direct = bot.direct
        try:
            found = direct.cancel(action_id)
        except KeyError:
            raise ApiError.not_found(f"no action {action_id}") from None
        except ValueError as e:
            raise ApiError.conflict(str(e)) from e
        return found.view(direct.clock())
