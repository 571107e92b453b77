"""Going into a built shelter for the night and out again in the morning, through its door.

`door` is the lower block of the doorway and `facing` points out of the hut (a
SiteSignature's entrance and facing). The bot walks to the cell in front of the door,
opens it, steps to the cell behind it and closes it; leaving is the same the other way
round. The doorway itself is crossed with the `step` action (a straight walk with the
movement controls): pathfinder plans a door cell as something to stand on, and its own
door handling toggles a door whatever its state, so it shuts open doors.
"""

from __future__ import annotations

from typing import Any, Literal

from loguru import logger

from agency.blocks import is_door
from agency.shelter.blueprint import SIZE
from agency.shelter.earthwork import keep_box
from agency.shelter.models import FACING_VECTORS, SiteSignature
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.results import EXECUTION_ERROR
from agency.tools.spatial import block_pos
from agency.tools.walking import NO_PROGRESS, dig_walk, time_to_dig
from agency.world import Vec3

Cell = tuple[int, int, int]
CROSSING_ATTEMPTS = 2


class DoorwayInput(ToolInput):
    door: tuple[int, int, int]
    facing: Literal["north", "south", "east", "west"]


def doorway_cells(door: Cell, facing: str) -> tuple[Cell, Cell]:
    """(the cell in front of the door outside, the cell behind it inside)."""
    dx, dz = FACING_VECTORS[facing]
    x, y, z = door
    return (x + dx, y, z + dz), (x - dx, y, z - dz)


def _inside_of(door: Cell, facing: str, x: float, y: float, z: float) -> bool:
    """Is a position within the hut's floor (the (SIZE-2)^2 cells behind the door wall)?"""
    dx, dz = FACING_VECTORS[facing]
    half = SIZE // 2
    cx, cz = door[0] - half * dx, door[2] - half * dz  # the middle of the hut
    return abs(int(x // 1) - cx) < half and abs(int(z // 1) - cz) < half and door[1] - 0.5 <= y < door[1] + 1.5


def interior_cells(door: Cell, facing: str) -> list[Cell]:
    """The (SIZE-2)^2 cells of the hut's floor level behind the door wall (what _inside_of counts)."""
    dx, dz = FACING_VECTORS[facing]
    half = SIZE // 2
    cx, cz = door[0] - half * dx, door[2] - half * dz
    return [(cx + i, door[1], cz + k) for i in range(1 - half, half) for k in range(1 - half, half)]


def in_hut(site: SiteSignature, pos: Vec3) -> bool:
    return site.entrance is not None and _inside_of(site.entrance, site.facing, pos.x, pos.y, pos.z)


async def _feet(ctx: ToolContext) -> Cell:
    return block_pos((await ctx.snapshot()).position)


async def _set_door(ctx: ToolContext, door: Cell, open_: bool) -> None:
    out = await run_action(ctx, "activate", {"x": door[0], "y": door[1], "z": door[2], "ensure": {"open": open_}})
    now = str((out.get("properties") or {}).get("open")).lower()
    if not is_door(out.get("block")):
        raise ToolFailure(EXECUTION_ERROR, f"no door at {list(door)} (found {out.get('block')})")
    if now != str(open_).lower():
        raise ToolFailure(
            EXECUTION_ERROR, f"the door at {list(door)} did not {'open' if open_ else 'close'} (open={now})"
        )


async def _step(ctx: ToolContext, cell: Cell) -> None:
    await run_action(ctx, "step", {"x": cell[0], "y": cell[1], "z": cell[2]})
    if (await _feet(ctx))[0::2] != cell[0::2]:
        raise ToolFailure(EXECUTION_ERROR, f"did not reach {list(cell)} (at {list(await _feet(ctx))})")


def hut_origin(door: Cell, facing: str) -> Cell:
    """The basic shelter's origin (min corner at feet level) from its doorway and facing."""
    dx, dz = FACING_VECTORS[facing]
    half = SIZE // 2
    return (door[0] - half - dx * half, door[1], door[2] - half - dz * half)


async def _walk_to(ctx: ToolContext, cell: Cell, facing: str, door: Cell) -> None:
    """To a cell by the doorway; a walk that gets nowhere (the bot in the pit its collect of
    stone left, 40 blocks off) goes again digging through natural ground, never in the hut
    or its ring (earthwork.keep_box)."""
    try:
        await run_action(ctx, "move_to", {"x": cell[0], "y": cell[1], "z": cell[2], "range": 0})
        return
    except ToolFailure as e:
        if NO_PROGRESS not in e.message or not time_to_dig(ctx):
            raise
        logger.info(f"[Shelter] no way to the door at {list(door)} ({e.message}); again, digging through the ground")
    await dig_walk(ctx, cell[0], cell[1], cell[2], 0, keep_out=keep_box(hut_origin(door, facing)))


async def _pass(ctx: ToolContext, door: Cell, start: Cell, end: Cell, facing: str) -> dict[str, Any]:
    if (await _feet(ctx))[0::2] not in (start[0::2], end[0::2]):
        await _walk_to(ctx, start, facing, door)
    for attempt in range(CROSSING_ATTEMPTS):
        if (await _feet(ctx))[0::2] == end[0::2]:
            break
        try:
            await _step(ctx, start)  # the middle of the cell: a straight line through the doorway
            await _set_door(ctx, door, True)
            await _step(ctx, end)
        except ToolFailure as e:
            # seen once in a soak: blocked in a freshly opened doorway, through on the next try
            if e.code != EXECUTION_ERROR or attempt == CROSSING_ATTEMPTS - 1:
                await _close_quietly(ctx, door)
                raise
            logger.info(f"[Shelter] doorway at {list(door)}: {e.message}; trying again")
    await _set_door(ctx, door, False)
    return {"at": list(await _feet(ctx)), "door": list(door), "doorOpen": False}


async def _close_quietly(ctx: ToolContext, door: Cell) -> None:
    """A failed crossing must not leave the shelter's door open."""
    try:
        await _set_door(ctx, door, False)
    except ToolFailure as e:
        logger.warning(f"[Shelter] could not close the door at {list(door)}: {e.message}")


async def _in_hut_now(ctx: ToolContext, p: DoorwayInput) -> bool:
    pos = (await ctx.snapshot()).position
    return _inside_of(p.door, p.facing, pos.x, pos.y, pos.z)


async def enter_shelter(ctx: ToolContext, p: DoorwayInput) -> dict[str, Any]:
    outside, inside = doorway_cells(p.door, p.facing)
    if await _in_hut_now(ctx, p):  # already in (it built the hut around itself, or walked in)
        await _set_door(ctx, p.door, False)
        return {"at": list(await _feet(ctx)), "door": list(p.door), "doorOpen": False}
    return await _pass(ctx, p.door, outside, inside, p.facing)


async def leave_shelter(ctx: ToolContext, p: DoorwayInput) -> dict[str, Any]:
    outside, inside = doorway_cells(p.door, p.facing)
    if not await _in_hut_now(ctx, p):  # not in the hut (respawned elsewhere): nothing to do
        return {"at": list(await _feet(ctx)), "door": list(p.door), "left": False}
    return {**await _pass(ctx, p.door, inside, outside, p.facing), "left": True}


TOOLS = [
    Tool(
        "enter_shelter",
        "Walk into a built shelter through its door and close the door behind.",
        DoorwayInput,
        enter_shelter,
        timeout_s=45,
        queue=BODY_QUEUE,
    ),  # under the reflex job's 60 s
    Tool(
        "leave_shelter",
        "Walk out of a shelter through its door and close the door behind.",
        DoorwayInput,
        leave_shelter,
        timeout_s=30,
        queue=BODY_QUEUE,
    ),
]
