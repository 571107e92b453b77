"""The cognitive stream (what the bot thinks, for a reader to act on and ack), a thought
posted from outside, and the keep-alive poke that makes one."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from bot.runtime.api.deps import Ctx
from bot.runtime.api.errors import ApiError, error_body
from bot.runtime.api.payloads import dump

router = APIRouter()


class AckBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    thoughtIds: list[StrictStr] = Field(min_length=1, max_length=1000)


class ThoughtBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    content: StrictStr = Field(min_length=1, max_length=4000)
    type: StrictStr = "external"
    convertEligible: StrictBool | None = None


def _thoughts(thoughts: list[Any]) -> dict[str, Any]:
    return {"count": len(thoughts), "thoughts": [dump(t) for t in thoughts]}


@router.get("/api/cognitive-stream/actionable")
async def actionable(ctx: Ctx, limit: int = Query(10, ge=1, le=500)) -> dict[str, Any]:
    return _thoughts(ctx.stream.actionable(limit))


@router.get("/api/cognitive-stream/recent")
async def recent(ctx: Ctx, limit: int = Query(20, ge=1, le=500), processed: bool | None = None) -> dict[str, Any]:
    return _thoughts(ctx.stream.recent(limit, processed=processed))


@router.post("/api/cognitive-stream/ack")
async def ack(ctx: Ctx, body: AckBody) -> Any:
    result = ctx.stream.ack(body.thoughtIds, processed_by="api")
    payload = {
        "acked": len(result.acked),
        "requested": len(result.requested),
        "ackedIds": result.acked,
        "alreadyProcessed": result.already_processed,
        "unknown": result.unknown,
    }
    if result.unknown and len(result.unknown) == len(result.requested):  # nothing known: a 404 that says so
        return JSONResponse({**error_body("not_found", "no thought with these ids"), **payload}, status_code=404)
    return payload


@router.post("/thoughts", status_code=201)
async def post_thought(ctx: Ctx, body: ThoughtBody) -> Any:
    try:
        return dump(ctx.inject_thought(body.model_dump(exclude_none=True)))
    except ValueError as e:  # the injection rules refused the body: nothing stored
        raise ApiError.bad_request(str(e)) from e


@router.get("/thoughts")
async def list_thoughts(ctx: Ctx, limit: int = Query(20, ge=1, le=500)) -> dict[str, Any]:
    return _thoughts(ctx.stream.recent(limit))


@router.post("/api/keepalive/poke")
async def poke(ctx: Ctx) -> dict[str, Any]:
    return await ctx.poke_keepalive()
