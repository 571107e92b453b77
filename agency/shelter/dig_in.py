"""dig_in: at night, from inside the hut, a staircase down into the ground under it, the hut's
floor made whole again from below. The bot ends in a pocket under the hut's back wall, closed
on every side, with the wall and the roof over its head (agency.world.underground), and from
there works underground through the night; the hut still verifies (a hole in its floor would be
a leak: agency.shelter.verifier).

The staircase starts on the cell behind the door and heads straight away from it: its first two
steps are under the hut's floor and the third under its back wall, so no step opens the hut to
the outside (the wall stands over it); a hazard stops it rather than turning it toward a side
wall. The floor cells dug, and the one under the back wall, are then filled from below with a
block the staircase dug out (planks, if it dug out none: agency.shelter.backfill). A staircase
that cannot start (a hazard under the hut: node/lib/actions/staircase.js) leaves the bot back
on the floor, the floor filled from above.

climb_back, in the morning: from the pocket, the three fills over the staircase dug out (and
a table or furnace the night's work placed on a step), up into the hut, and its floor filled
again from above (from below, if the climb fails); the bot is then in the hut as after a night
on its floor and leaves by the door. (Nothing else gets it out: the pocket's roof is the hut's
planks, which no walk digs, and a hunt does not dig at all: a bot that stayed down there hungry
could neither hunt nor, under 16 food, get a goal from the drive tick.)
"""

from __future__ import annotations

import math
from typing import Any

from loguru import logger

from agency.blocks import is_solid, is_walkable
from agency.shelter.backfill import fill_open
from agency.shelter.door import DoorwayInput, doorway_cells, interior_cells
from agency.shelter.models import FACING_VECTORS
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED
from agency.tools.spatial import block_pos

STEPS = 3  # two under the floor, the third under the back wall
POCKET_NEAR = 2.0  # within this of the staircase's bottom step, the bot is in its pocket
AWAY = {"north": "south", "south": "north", "east": "west", "west": "east"}


async def dig_in(ctx: ToolContext, p: DoorwayInput) -> dict[str, Any]:
    _, inside = doorway_cells(p.door, p.facing)
    in_the_way = await _in_the_way(ctx, p, inside)
    if in_the_way:
        raise ToolFailure(PRECONDITION_FAILED, f"the staircase's way under the hut is taken: {in_the_way}")
    if block_pos((await ctx.snapshot()).position) != inside:
        await run_action(ctx, "move_to", {"x": inside[0], "y": inside[1], "z": inside[2], "range": 0})
    floor_y = inside[1]
    try:  # straight: a turn under the hut would dig the bottom of a side wall
        down = await run_action(
            ctx,
            "staircase",
            # no torches: the hut's floor over the steps is filled again (a torch in a cell refuses that)
            {"targetY": floor_y - STEPS, "direction": AWAY[p.facing], "straight": True, "light": False},
        )
    except ToolFailure as e:
        await _back_on_the_floor(ctx, p, inside)
        raise ToolFailure(EXECUTION_ERROR, f"no staircase under the hut: {e.message}") from e
    holes = await _fill_floor(ctx, p)
    if holes:
        raise ToolFailure(EXECUTION_ERROR, f"the hut's floor is still open at {holes} (no block to fill it)")
    end = (await ctx.snapshot()).position
    return {"steps": down.get("steps"), "y": math.floor(end.y), "at": list(block_pos(end)), "floorClosed": True}


def pocket_bottom(p: DoorwayInput) -> tuple[int, int, int]:
    """The cell the staircase ends on: under the back wall, STEPS down."""
    _, (x, y, z) = doorway_cells(p.door, p.facing)
    dx, dz = FACING_VECTORS[AWAY[p.facing]]
    return x + STEPS * dx, y - STEPS, z + STEPS * dz


def in_pocket(p: DoorwayInput, position: tuple[float, float, float]) -> bool:
    return math.dist(pocket_bottom(p), position) <= POCKET_NEAR


async def climb_back(ctx: ToolContext, p: DoorwayInput) -> dict[str, Any]:
    here = block_pos((await ctx.snapshot()).position)
    if not in_pocket(p, here):
        raise ToolFailure(PRECONDITION_FAILED, f"not in the pocket under the hut (at {list(here)})")
    _, inside = doorway_cells(p.door, p.facing)
    x, y, z = inside
    way = _way_up(p)
    region = await ctx.region(
        (min(c[0] for c in way), y - STEPS, min(c[2] for c in way)),
        (
            max(c[0] for c in way) - min(c[0] for c in way) + 1,
            STEPS,
            max(c[2] for c in way) - min(c[2] for c in way) + 1,
        ),
    )
    dug = 0
    for cell in way:
        if is_solid(region.block_at(*cell)):
            await run_action(ctx, "dig", {"x": cell[0], "y": cell[1], "z": cell[2]})
            dug += 1
    try:
        await run_action(ctx, "move_to", {"x": x + 0.5, "y": y, "z": z + 0.5, "range": 0})
    except ToolFailure as e:
        await _fill_floor(ctx, p)  # from below again: the hut is not left open
        raise ToolFailure(EXECUTION_ERROR, f"could not climb back into the hut: {e.message}") from e
    holes = await _fill_floor(ctx, p)
    if holes:
        raise ToolFailure(EXECUTION_ERROR, f"back in the hut, its floor still open at {holes} (no block to fill it)")
    return {"from": list(here), "at": list(inside), "dug": dug, "floorClosed": True}


def _way_up(p: DoorwayInput) -> list[tuple[int, int, int]]:
    """The cells the climb from the bottom step into the hut passes through below the floor,
    nearest first: the fills over the staircase (the cell under the back wall and the two floor
    cells) and the steps' own cells, where a table or furnace the night's work placed may stand."""
    _, (x, y, z) = doorway_cells(p.door, p.facing)
    dx, dz = FACING_VECTORS[AWAY[p.facing]]
    cells = []
    for k in range(STEPS, 0, -1):
        for yy in (y - k, y - k + 1, y - k + 2):
            if yy <= y - 1 and (k, yy) != (STEPS, y - STEPS):  # below the floor; not the bot's own cell
                cells.append((x + k * dx, yy, z + k * dz))
    return cells


async def _in_the_way(ctx: ToolContext, p: DoorwayInput, inside: tuple[int, int, int]) -> str | None:
    """A block on the hut's floor where the first two steps clear head room (a bed, a table)."""
    dx, dz = FACING_VECTORS[AWAY[p.facing]]
    x, y, z = inside
    cells = [(x + dx, y, z + dz), (x + dx, y + 1, z + dz), (x + 2 * dx, y, z + 2 * dz)]
    region = await ctx.region(
        (min(c[0] for c in cells), y, min(c[2] for c in cells)), (abs(2 * dx) + 1, 2, abs(2 * dz) + 1)
    )
    taken = [f"{region.block_at(*c)} at {list(c)}" for c in cells if not is_walkable(region.block_at(*c))]
    return ", ".join(taken) or None


async def _fill_floor(ctx: ToolContext, p: DoorwayInput) -> list[list[int]]:
    """Fill the hut's floor cells the staircase dug (one layer under its interior) and the one
    under its back wall (the third step's head room: the footprint's ground layer, which a repair
    of the hut checks for holes); returns the ones still open."""
    _, inside = doorway_cells(p.door, p.facing)
    dx, dz = FACING_VECTORS[AWAY[p.facing]]
    under_wall = (inside[0] + STEPS * dx, inside[1] - 1, inside[2] + STEPS * dz)
    floor = [(x, y - 1, z) for x, y, z in interior_cells(p.door, p.facing)]
    return await fill_open(ctx, [*floor, under_wall], planks=True)


async def _back_on_the_floor(ctx: ToolContext, p: DoorwayInput, inside: tuple[int, int, int]) -> None:
    try:
        if block_pos((await ctx.snapshot()).position) != inside:
            await run_action(ctx, "move_to", {"x": inside[0], "y": inside[1], "z": inside[2], "range": 0})
        await _fill_floor(ctx, p)
    except ToolFailure as e:
        logger.warning("[Shelter] dig in: could not get back onto the hut's floor: {}", e.message)


TOOLS = [
    Tool(
        "dig_in",
        "From inside a shelter at night, dig down under it by a staircase and close its floor behind.",
        DoorwayInput,
        dig_in,
        timeout_s=90,  # three steps and two blocks placed, under the reflex job's 120 s
        queue=BODY_QUEUE,
    ),
    Tool(
        "climb_back",
        "In the morning, from the pocket dug under a shelter: up into the hut, its floor closed behind.",
        DoorwayInput,
        climb_back,
        timeout_s=60,  # three blocks dug, three steps up, three placed
        queue=BODY_QUEUE,
    ),
]
