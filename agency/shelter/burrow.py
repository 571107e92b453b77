"""burrow: a night with no shelter to go to, spent in the ground. A staircase three steps down
from where the bot stands (node/lib/actions/staircase.js checks every block before digging it:
no liquid, no falling block overhead, no hole over a cave; with a liquid on every way, it walls
the liquid off with blocks held: `dam`), then the ground cells it opened
filled from below (agency.shelter.backfill), and the cells beside the bot sealed, so it sits in a closed pocket.
No pickaxe is needed: the first steps are mostly soil, and the staircase refuses a block too
hard for the tools held. In the morning, dig_out walks back up to where the burrow began,
digging through the fill (cobblestone too: the fill is of what the staircase dug out, else of
any other ground or a log held: agency.shelter.backfill)."""

from __future__ import annotations

import math
from typing import Any

from loguru import logger
from pydantic import Field

from agency.blocks import is_solid, natural_ground
from agency.shelter.backfill import FILLERS, fill_open
from agency.shelter.blueprint import SIZE
from agency.shelter.cover import seal
from agency.shelter.earthwork import keep_box
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.results import EXECUTION_ERROR
from agency.tools.spatial import block_pos

STEPS = 3  # the third step puts a block of ground over the bot's head
DIG_OUT_STALL_MS = 20000  # a fill of stone dug by hand gets the walk no closer for a while


class BurrowInput(ToolInput):
    # a hut's site here (its origin: one being built, or the finished hut the bot could not get
    # into): the staircase heads away from its middle, not under its floor
    awayFrom: tuple[int, int, int] | None = None


class DigOutInput(ToolInput):
    start: tuple[int, int, int]  # where the burrow began (burrow's "from")
    # the ground cells the burrow closed (burrow's "closed"), closed again once out: the way
    # up is dug through them, and a site's floor or the bot's own path is left no open hole
    refill: list[tuple[int, int, int]] = Field(default_factory=list, max_length=64)


HEADINGS = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}


def _away(start: tuple[int, int, int], site: tuple[int, int, int]) -> str | None:
    """The heading whose steps pass under the fewest columns of a hut site and its ring
    (earthwork.keep_box), the one ending farthest from the site's middle among those: from
    beside the site, straight away from it; from on it, out by the nearest side. None when no
    heading's steps reach the site: the staircase picks its own way."""
    x0, _, z0, x1, _, z1 = keep_box(site)
    mid = (site[0] + SIZE / 2, site[2] + SIZE / 2)

    def cost(heading: str) -> tuple[int, float]:
        dx, dz = HEADINGS[heading]
        steps = [(start[0] + k * dx, start[2] + k * dz) for k in range(1, STEPS + 1)]
        under = sum(1 for x, z in steps if x0 <= x < x1 and z0 <= z < z1)
        return (under, -math.dist((steps[-1][0] + 0.5, steps[-1][1] + 0.5), mid))

    costs = {heading: cost(heading) for heading in HEADINGS}
    if not any(under for under, _ in costs.values()):
        return None
    return min(HEADINGS, key=costs.__getitem__)


async def burrow(ctx: ToolContext, p: BurrowInput) -> dict[str, Any]:
    start = block_pos((await ctx.snapshot()).position)
    ground_y = start[1] - 1  # the layer the bot stands on: what the staircase opens to the sky
    r = STEPS + 1  # the staircase may turn: its whole reach
    before = await ctx.region((start[0] - r, ground_y, start[2] - r), (2 * r + 1, 1, 2 * r + 1))
    ground = [
        (x, ground_y, z)
        for x in range(start[0] - r, start[0] + r + 1)
        for z in range(start[2] - r, start[2] + r + 1)
        if is_solid(before.block_at(x, ground_y, z))
    ]
    # no torches on the way down: the cells it opens are filled again (a torch in one refuses that);
    # water or lava on every way walled off with blocks held (a 26.1 bench bot at the foot of a
    # flooded ravine, water beside its head on three sides, burrowed nowhere for three nights)
    args: dict[str, Any] = {"targetY": start[1] - STEPS, "light": False, "dam": True}
    if p.awayFrom is not None and (heading := _away(start, p.awayFrom)) is not None:
        args["direction"] = heading
    try:
        out = await run_action(ctx, "staircase", args)
    except ToolFailure as e:
        raise ToolFailure(EXECUTION_ERROR, f"no staircase down from {list(start)}: {e.message}") from e
    after = await ctx.region((start[0] - r, ground_y, start[2] - r), (2 * r + 1, 1, 2 * r + 1))
    opened = [c for c in ground if not is_solid(after.block_at(*c))]  # what the staircase dug
    open_ = await fill_open(ctx, opened, wood=True)
    if open_:
        raise ToolFailure(
            EXECUTION_ERROR, f"the way in is still open at {open_} (no block held to fill it, or to place it against)"
        )
    sealed = await _seal(ctx)
    end = (await ctx.snapshot()).position
    return {
        "from": list(start),
        "at": [end.x, end.y, end.z],
        "y": math.floor(end.y),
        "steps": out.get("steps"),
        "closed": [list(c) for c in opened],
        "sealed": sealed,
    }


async def _seal(ctx: ToolContext) -> list[list[int]]:
    """Every open cell beside the bot's feet and head filled (the staircase's last step behind
    it, a cave the steps passed beside): a 1.18.2 bench bot's burrow let a zombie in, and the
    bot fought its way out into the night and died 14 times. Best effort: what cannot be
    filled is logged. Returns the cells filled."""
    filled, left = await seal(ctx)
    if left:
        logger.info(
            "[Shelter] burrow: {} left open beside the bot (no block held to fill it, or to place it against)", left
        )
    return filled


async def dig_out(ctx: ToolContext, p: DigOutInput) -> dict[str, Any]:
    x, y, z = p.start
    await run_action(
        ctx,
        "move_to",
        {
            "x": x + 0.5,
            "y": y,
            "z": z + 0.5,
            "range": 1,
            "digOnly": sorted(set(natural_ground()) | set(FILLERS)),
            "stallMs": DIG_OUT_STALL_MS,
        },
    )
    left = await fill_open(ctx, p.refill) if p.refill else []
    if left:
        logger.info("[Shelter] up out of the burrow; its way in left open at {} (no block held to fill it)", left)
    end = (await ctx.snapshot()).position
    return {"at": [end.x, end.y, end.z], "refilled": len(p.refill) - len(left)}


TOOLS = [
    Tool(
        "burrow",
        "With no shelter at night: dig a staircase three steps down where the bot stands and close it over.",
        BurrowInput,
        burrow,
        timeout_s=100,  # nine blocks of stone by hand at worst, under the reflex job's 120 s
        queue=BODY_QUEUE,
    ),
    Tool(
        "dig_out",
        "In the morning, from a burrow: back up to where it began, digging through its fill.",
        DigOutInput,
        dig_out,
        timeout_s=60,
        queue=BODY_QUEUE,
    ),
]
