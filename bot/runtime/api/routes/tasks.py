"""Tasks: the list and one task, a command on one (pause, resume, cancel), and its
lifecycle as server-sent events (bot/runtime/api/task_events.py)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request, Response

from agency.planning.tasks.models import TaskStatus
from bot.runtime.api.deps import Ctx
from bot.runtime.api.errors import ApiError
from bot.runtime.api.payloads import dump, event_stream
from bot.runtime.api.task_events import MAX_SEQ, nothing_left, resume_after, task_event_stream

router = APIRouter()

COMMANDS = ("pause", "resume", "cancel")


def _statuses(status: str | None) -> list[TaskStatus]:
    if status is None:
        return list(TaskStatus)
    try:
        return [TaskStatus(s) for s in status.split(",")]
    except ValueError:
        raise ApiError.bad_request(f"unknown status in {status!r}") from None


def _known_task(ctx: Any, task_id: str) -> Any:
    task = ctx.tasks.get_task(task_id)
    if task is None:
        raise ApiError.not_found(f"no task {task_id}")
    return task


@router.get("/api/tasks")
async def tasks(
    ctx: Ctx,
    status: str | None = None,
    stalled: bool = False,
    limit: int = Query(100, ge=1, le=1000),
    order: Literal["asc", "desc"] = "asc",
    bot: str | None = Query(None, min_length=1, max_length=16),
) -> Any:
    if stalled:
        if ctx.stalled is None:
            raise ApiError.not_wired("stall classification not wired")
        items = ctx.stalled()
        return {"count": len(items), "tasks": items[:limit]}
    wanted = _statuses(status)
    found = ctx.tasks.list_by_status(*wanted, bot=ctx.known_bot(bot)) if bot else ctx.tasks.list_by_status(*wanted)
    found = sorted(found, key=lambda t: t.metadata.createdAt, reverse=order == "desc")[:limit]
    return {"count": len(found), "tasks": ctx.tasks_json(found)}


@router.get("/api/tasks/{task_id}")
async def task(ctx: Ctx, task_id: str) -> Any:
    return ctx.task_json(_known_task(ctx, task_id))


@router.post("/api/tasks/{task_id}/{command}")
async def task_command(ctx: Ctx, task_id: str, command: str) -> Any:
    if command not in COMMANDS or ctx.task_command is None:
        raise ApiError.not_found(f"no command {command!r}")
    _known_task(ctx, task_id)
    try:
        return dump(await ctx.task_command(task_id, command))
    except ValueError as e:
        raise ApiError.conflict(str(e)) from e


@router.get("/api/tasks/{task_id}/events")
async def task_events(ctx: Ctx, task_id: str, request: Request, after: int = Query(0, ge=0, le=MAX_SEQ)) -> Any:
    _known_task(ctx, task_id)
    try:
        after_seq = resume_after(request.headers.get("last-event-id"), after)
    except ValueError as e:
        raise ApiError.bad_request(str(e)) from e
    if nothing_left(ctx.tasks, task_id, after_seq):
        return Response(status_code=204)
    return event_stream(
        task_event_stream(ctx.tasks, task_id, after_seq, stopping=ctx.stopping, disconnected=request.is_disconnected)
    )
