"""fill_bucket: fill empty buckets with water, lava or milk (one JS `fill_bucket` action a
bucket: node/lib/actions/fill_bucket.js). For a fluid the bot walks to within reach of the
nearest cell of it in sight and the action takes a source block in view (a flowing cell is
none: the next cell is tried); for milk it walks up to the nearest cow. With none in sight it
explores (water, a cow), or digs down to where lava lies (agency.game.ores) and tunnels along
that level through new rock (agency.tools.mining.tunnel_for).
`count` is the total of filled buckets wanted: re-running the step is a no-op."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field

from agency.game.fills import EMPTY, FILLED_FROM, MILKED
from agency.game.ores import ore_level
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.crafting import held
from agency.tools.mining import SAFE_FLOOR_Y, SeekOreInput, seek_ore, tunnel_for
from agency.tools.movement import ExploreInput, explore
from agency.tools.queries import FindBlocksInput, find_blocks_now
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.walking import walk

REACH = 3.0  # the walk's range: the action reaches 4.5 blocks from the eyes
MAX_TRIES = 6  # fluid cells (or cows) tried in all
LOOKS_DEFAULT = 2  # explores for water or a cow
# Lava: a staircase down to its level, then level tunnels through new rock (at its level a
# second staircase digs no deeper: the Voyager lava bucket task failed looking twice from one spot).
LOOKS = {"lava": 4}
FILLED = {fluid: item for item, fluid in FILLED_FROM.items()}


class FillBucketInput(ToolInput):
    fluid: Literal["water", "lava", "milk"]
    count: int = Field(default=1, ge=1, le=16, description="filled buckets to hold in all")
    explore_attempts: int | None = Field(
        default=None, ge=0, le=8, description="looks further when none is in sight (default: 2; lava 4)"
    )


async def _targets(ctx: ToolContext, fluid: str) -> list[tuple[float, float, float]]:
    """Where to walk for the fluid: its cells in sight, or the cows; the nearest first."""
    if fluid == "milk":
        snap = await ctx.snapshot()
        cows = sorted((e for e in snap.entities if e.name in MILKED), key=lambda e: e.distance)
        return [(e.position.x, e.position.y, e.position.z) for e in cows]
    hits = (await find_blocks_now(ctx, FindBlocksInput(block=fluid, radius=32, count=32)))["blocks"]
    return [(h["x"] + 0.5, h["y"] + 1, h["z"] + 0.5) for h in hits]


async def fill_bucket(ctx: ToolContext, p: FillBucketInput) -> dict[str, Any]:
    filled = FILLED[p.fluid]
    failed: list[tuple[float, float, float]] = []  # where a fill came to nothing: not tried again
    tries, explored, last = 0, 0, None
    attempts = p.explore_attempts if p.explore_attempts is not None else LOOKS.get(p.fluid, LOOKS_DEFAULT)
    while (await held(ctx)).get(filled, 0) < p.count:
        ctx.check()
        if (await held(ctx)).get(EMPTY, 0) < 1:
            raise ToolFailure(PRECONDITION_FAILED, f"no empty bucket to fill with {p.fluid}")
        if len(failed) >= MAX_TRIES:
            raise ToolFailure(PRECONDITION_FAILED, f"no {p.fluid} could be taken ({len(failed)} tried; last: {last})")
        fresh = [t for t in await _targets(ctx, p.fluid) if all(math.dist(t, u) > 2 for u in failed)]
        if not fresh:
            if explored >= attempts:
                where = "cow" if p.fluid == "milk" else f"{p.fluid} source"
                raise ToolFailure(PRECONDITION_FAILED, f"no {where} in sight (explored {explored} times)")
            explored += 1
            if p.fluid == "lava":  # it lies deep: down to it, then along its level through new rock
                here = math.floor((await ctx.snapshot()).position.y)
                level = max(ore_level("lava") or SAFE_FLOOR_Y, SAFE_FLOOR_Y)
                if here > level:
                    await seek_ore(ctx, SeekOreInput(block="lava"))
                else:
                    await tunnel_for(ctx, "lava")
            else:
                await explore(ctx, ExploreInput(legs=2, leg_distance=24))
            continue
        target = fresh[0]
        tries += 1
        try:
            await walk(ctx, *target, REACH)
            await run_action(ctx, "fill_bucket", {"fluid": p.fluid})
        except ToolFailure as e:  # a flowing cell, a cow that walked off: the next one
            if e.code == PRECONDITION_FAILED and "bucket" in e.message:
                raise
            failed.append(target)
            last = e.message
    return {"fluid": p.fluid, "filled": filled, "have": (await held(ctx)).get(filled, 0), "tried": tries}


TOOLS = [
    Tool(
        "fill_bucket",
        "Fill empty buckets with water, lava (dug down for) or milk (from a cow) until `count` are held.",
        FillBucketInput,
        fill_bucket,
        timeout_s=600,
        queue=BODY_QUEUE,
    ),
]
