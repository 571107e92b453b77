"""free_head: the bot's eyes inside a block it suffocates in (the snapshot's `inWall`,
node/lib/in_wall.js: gravel or sand fallen on it, a block placed there) cost it 1 health every
half second until it dies. Each solid block among the cells vanilla checks around the eyes (a
box 0.48 wide: up to four cells by a corner, eye_cells) is dug; then, after FALL_WAIT_S for
gravel over it to land, again while the snapshot still says so (a column falls into the cells
dug), MAX_ROUNDS at most. A 1.18.2 bench bot digging for coal at y 13 suffocated with no reflex
answering."""

from __future__ import annotations

import math
from typing import Any

from agency.blocks import is_solid
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED
from agency.world import Vec3

EYE_HEIGHT = 1.62
HALF_BOX = 0.24  # node/lib/in_wall.js HALF_BOX: 0.8 of a player's width, halved
MAX_ROUNDS = 8  # a column of gravel over the head: each one falls into the cell dug
FALL_WAIT_S = 0.5  # 10 ticks: a block over the one dug starts to fall and lands


def eye_cells(p: Vec3) -> list[tuple[int, int, int]]:
    """The cells of the box around the eyes (node/lib/in_wall.js eyeCells)."""
    y = math.floor(p.y + EYE_HEIGHT)
    xs = range(math.floor(p.x - HALF_BOX), math.floor(p.x + HALF_BOX) + 1)
    zs = range(math.floor(p.z - HALF_BOX), math.floor(p.z + HALF_BOX) + 1)
    return [(x, y, z) for x in xs for z in zs]


class FreeHeadInput(ToolInput):
    pass


async def free_head(ctx: ToolContext, _p: FreeHeadInput) -> dict[str, Any]:
    dug: list[str] = []
    missed: list[str] = []  # digs that failed: the next round reads the cells again
    for _ in range(MAX_ROUNDS):
        snap = await ctx.snapshot()
        if not snap.inWall or snap.health <= 0:
            break
        cells = eye_cells(snap.position)
        lo = tuple(min(c[i] for c in cells) for i in range(3))
        hi = tuple(max(c[i] for c in cells) for i in range(3))
        region = await ctx.region((lo[0], lo[1], lo[2]), (hi[0] - lo[0] + 1, 1, hi[2] - lo[2] + 1))
        for x, y, z in cells:
            if not is_solid(region.block_at(x, y, z)):
                continue
            try:
                out = await run_action(ctx, "dig", {"x": x, "y": y, "z": z})
            except ToolFailure as e:
                # gravel with air under it starts to fall while it is dug, and the next falls into
                # its cell ("Digging aborted"): the next round reads the cells again
                missed.append(f"could not dig the block at the head ({x}, {y}, {z}): {e.message}")
                continue
            dug.append(str(out.get("dug", "?")))
        await ctx.pause(FALL_WAIT_S)
    else:
        last = f"; {missed[-1]}" if missed else ""
        raise ToolFailure(
            EXECUTION_ERROR, f"still in a block after {MAX_ROUNDS} rounds of digging ({', '.join(dug)}){last}"
        )
    if not dug and missed:
        raise ToolFailure(EXECUTION_ERROR, missed[-1])
    if not dug:
        raise ToolFailure(PRECONDITION_FAILED, "the head is in no block")
    return {"dug": dug, "free": True}


TOOLS = [
    Tool(
        "free_head",
        "Dig the blocks around the bot's eyes it suffocates in, again while gravel falls in.",
        FreeHeadInput,
        free_head,
        timeout_s=60,
        queue=BODY_QUEUE,
    ),
]
