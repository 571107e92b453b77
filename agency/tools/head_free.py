"""free_head: the bot's eyes inside a block it suffocates in (the snapshot's `inWall`,
node/lib/in_wall.js: gravel or sand fallen on it, a block placed there) cost it 1 health every
half second until it dies; the block is dug, and again while the snapshot still says so (a
column of gravel falls into the cell dug), MAX_DIGS at most. A 1.18.2 bench bot digging for coal
at y 13 suffocated with no reflex answering, a task's walk going on around it."""

from __future__ import annotations

import math
from typing import Any

from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED

EYE_HEIGHT = 1.62
MAX_DIGS = 8  # a column of gravel over the head: each one falls into the cell dug


class FreeHeadInput(ToolInput):
    pass


async def free_head(ctx: ToolContext, _p: FreeHeadInput) -> dict[str, Any]:
    dug: list[str] = []
    for _ in range(MAX_DIGS):
        snap = await ctx.snapshot()
        if not snap.inWall:
            if not dug:
                raise ToolFailure(PRECONDITION_FAILED, "the head is in no block")
            return {"dug": dug, "free": True}
        p = snap.position
        x, y, z = math.floor(p.x), math.floor(p.y + EYE_HEIGHT), math.floor(p.z)
        try:
            out = await run_action(ctx, "dig", {"x": x, "y": y, "z": z})
        except ToolFailure as e:
            raise ToolFailure(
                EXECUTION_ERROR, f"could not dig the block at the head ({x}, {y}, {z}): {e.message}"
            ) from e
        dug.append(str(out.get("dug", "?")))
    raise ToolFailure(EXECUTION_ERROR, f"still in a block after {MAX_DIGS} digs ({', '.join(dug)})")


TOOLS = [
    Tool(
        "free_head",
        "Dig the block the bot's head is inside (it suffocates there), again while one falls in.",
        FreeHeadInput,
        free_head,
        timeout_s=60,
        queue=BODY_QUEUE,
    ),
]
