"""How the daemon is doing: /healthz (200 when all is up, 503 with the same report when
not), Prometheus metrics and the agency's counters."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, PlainTextResponse

from bot.runtime.api.deps import Ctx

router = APIRouter()


@router.get("/healthz")
async def healthz(ctx: Ctx) -> JSONResponse:
    h = ctx.health()
    return JSONResponse(h, status_code=200 if h.get("ok") else 503)


@router.get("/metrics")
async def metrics(ctx: Ctx) -> PlainTextResponse:
    return PlainTextResponse(ctx.metrics(), media_type="text/plain; version=0.0.4")


@router.get("/api/agency/counters")
async def counters(ctx: Ctx) -> dict[str, Any]:
    return ctx.counters.snapshot()
