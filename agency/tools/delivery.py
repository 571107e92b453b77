"""Bots of a fleet handing each other materials: `give` (walk up to a player and toss the
items), and a builder's side of a delivery: `request_delivery` posts an open `deliver` task
to the store, `await_delivery` waits until the inventory holds what was asked for. Without
a delivery board (one bot) or a helper to ask, both are quick no-ops: the workflow's own
craft step after them gets the materials instead."""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field

from agency.planning.delivery import DELIVERY_HOOK, DeliveryBoard
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolInput

CHECK_EVERY_S = 1.0  # inventory and store reads while waiting


class GiveInput(ToolInput):
    player: str = Field(min_length=1, max_length=64, description="the player to hand the items to")
    item: str = Field(min_length=1)
    count: int = Field(default=1, ge=1, le=2304)


class RequestInput(ToolInput):
    taskId: str | None = Field(default=None, description="the task the materials are for")
    item: str = Field(min_length=1)
    count: int = Field(ge=1, le=2304, description="how many to ask for")


class AwaitInput(ToolInput):
    item: str = Field(min_length=1)
    total: int = Field(ge=1, le=2304, description="done once the inventory holds this many")
    deliveryTaskId: str | None = Field(default=None, description="request_delivery's task (none: nothing to wait for)")
    claimS: float = Field(default=60, gt=0, le=600, description="withdraw the request when no bot took it by then")
    waitS: float = Field(default=540, gt=0, le=3600, description="stop waiting after this long")


def _board(ctx: ToolContext) -> DeliveryBoard | None:
    """The store is the daemon loop's: the board is called on it, never in a worker thread."""
    return ctx.hooks.get(DELIVERY_HOOK)


async def _held(ctx: ToolContext, item: str) -> int:
    snap = await ctx.io(ctx.body.snapshot)
    return snap.count_of(item)


async def give(ctx: ToolContext, p: GiveInput) -> dict[str, Any]:
    return await run_action(ctx, "give", {"player": p.player, "item": p.item, "count": p.count})


async def request_delivery(ctx: ToolContext, p: RequestInput) -> dict[str, Any]:
    board = _board(ctx)
    helpers = board.helpers() if board is not None else []
    if board is None or not helpers or not p.taskId:
        return {"requested": False, "deliveryTaskId": None, "why": "no other bot to ask"}
    pos = (await ctx.io(ctx.body.snapshot)).position
    task_id = board.request(p.taskId, p.item, p.count, near=[math.floor(pos.x), math.floor(pos.y), math.floor(pos.z)])
    return {"requested": True, "deliveryTaskId": task_id, "helpers": helpers}


async def await_delivery(ctx: ToolContext, p: AwaitInput) -> dict[str, Any]:
    """Wait on the inventory; give up (the next step makes the rest) when the request was
    never taken, its task ended without the items, or waitS passed."""
    board = _board(ctx)
    held = await _held(ctx, p.item)
    if held >= p.total or board is None or not p.deliveryTaskId:
        return {"delivered": held >= p.total, "held": held, "why": "" if held >= p.total else "nothing asked for"}
    started = ctx.clock()
    ended_at: int | None = None
    why = ""
    while True:
        held = await _held(ctx, p.item)
        if held >= p.total:
            return {"delivered": True, "held": held, "waitedS": round((ctx.clock() - started) / 1000, 1)}
        waited_s = (ctx.clock() - started) / 1000
        state = board.state(p.deliveryTaskId)
        if state.over:
            ended_at = ended_at if ended_at is not None else ctx.clock()
            if ctx.clock() - ended_at >= 5000:  # items tossed at the end are picked up within seconds
                why = f"the delivery ended {state.status} with {held} of {p.total} held"
                break
        elif not state.claimed and waited_s >= p.claimS:
            if board.withdraw(p.deliveryTaskId, f"no bot took it in {p.claimS:g} s"):
                why = f"no bot took the delivery in {p.claimS:g} s"
                break
        elif waited_s >= p.waitS:
            board.withdraw(p.deliveryTaskId, f"not delivered in {p.waitS:g} s")
            why = f"not delivered in {p.waitS:g} s"
            break
        await ctx.pause(CHECK_EVERY_S)
    return {"delivered": False, "held": held, "why": why}


TOOLS = [
    Tool(
        "give",
        "Walk up to a player and hand them items (tossed within their reach).",
        GiveInput,
        give,
        timeout_s=130,
        queue=BODY_QUEUE,
    ),
    Tool(
        "request_delivery",
        "Ask the fleet's other bots for items: an open deliver task in the store.",
        RequestInput,
        request_delivery,
        timeout_s=15,
    ),
    Tool(
        "await_delivery",
        "Wait until the inventory holds the items asked for, or the request lapses.",
        AwaitInput,
        await_delivery,
        timeout_s=3700,
    ),
]
