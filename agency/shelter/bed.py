"""A bed in the shelter, and sleeping in it.

`bed_spot` says where a basic shelter's bed goes: two interior cells along a wall, as far
from the door as the torch and the verifier's probes allow, never the cell behind the door,
so the way in stays free and the bot has room to stand up. A bed's foot goes where it is
placed and its head one block further the way the placer looks (vanilla BedBlock), so it is
placed from a cell in line with the bed: the ring outside the wall for the builder, an
interior cell for a bot already inside.

`shelter_bed` only looks for one (the reflexes ask at dusk, to dig in early when there is none).
`sleep_in_shelter` finds a whole bed inside the hut (one region read of the interior), or
puts a held one there first, remembers it in places memory and lies down in it with the JS
`sleep` action; `wake` gets up. Vanilla lets a player sleep only between 12542 and 23459 ticks (or in a thunderstorm,
which the embedded world has not) and with no monster within 8 blocks; the server's answer
comes back in the failure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from loguru import logger

from agency.blocks import is_replaceable
from agency.names import canonical
from agency.places.memory import HOOK as PLACES_HOOK
from agency.shelter.blueprint import SIZE, basic_shelter
from agency.shelter.door import DoorwayInput, hut_origin
from agency.shelter.models import FACING_VECTORS, Facing, Pos
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED

SLEEP_FROM, SLEEP_UNTIL = 12_542, 23_459  # vanilla's night for beds (mineflayer checks the same)
MONSTER_RANGE = 8.0  # vanilla refuses sleep with a monster this close (horizontally)
BED = "white_bed"  # the bed the crafter makes (wool from sheep is white)


def is_bed(name: str | None) -> bool:
    if name is None:
        return False
    n = canonical(name)
    return n == "bed" or n.endswith("_bed")


def sleep_time(time_of_day: int) -> bool:
    return SLEEP_FROM <= time_of_day % 24_000 <= SLEEP_UNTIL


def interior_cells(door: Pos, facing: str) -> list[Pos]:
    """The (SIZE-2)^2 floor cells of the hut whose doorway is `door`."""
    dx, dz = FACING_VECTORS[facing]
    half = SIZE // 2
    cx, cz = door[0] - half * dx, door[2] - half * dz
    return [(cx + ix, door[1], cz + iz) for iz in range(1 - half, half) for ix in range(1 - half, half)]


@dataclass(frozen=True)
class BedSpot:
    foot: Pos
    head: Pos  # foot + the way the placer looks
    inside: Pos  # where to stand in the hut to place it (in line, behind the foot)
    outside: Pos  # the same from the ring outside the wall (the builder never walls itself in)


def bed_spot(origin: Pos, facing: str, keep_free: Iterable[Pos] = (), torch: Pos | None = None) -> BedSpot:
    """Where a basic shelter at origin/facing gets its bed: foot and head on two interior
    cells outside `keep_free` (the verifier's probes) and the torch's, never the cell behind
    the door; an interior cell behind the foot (not the torch's) to stand on; as far from the
    door as possible."""
    x0, y0, z0 = origin
    dx, dz = FACING_VECTORS[facing]
    half = SIZE // 2
    door = (x0 + half + dx * half, y0, z0 + half + dz * half)
    interior = interior_cells(door, facing)
    behind_door = (door[0] - dx, y0, door[2] - dz)
    blocked = set(keep_free) | {behind_door} | ({torch} if torch else set())
    free = [c for c in interior if c not in blocked]
    choices = []
    for foot in free:
        for sx, sz in ((1, 0), (0, 1), (-1, 0), (0, -1)):
            head, stand = (foot[0] + sx, y0, foot[2] + sz), (foot[0] - sx, y0, foot[2] - sz)
            if head in free and stand in interior and stand != torch:
                away = -((foot[0] + head[0]) * dx + (foot[2] + head[2]) * dz)  # from the door, along the facing
                choices.append((away, foot, head, stand, (sx, sz)))
    if not choices:
        raise ValueError(f"no room for a bed in the hut at {list(origin)} facing {facing}")
    _away, foot, head, stand, (sx, sz) = max(choices, key=lambda c: c[:4])
    k = 1
    while _inside(origin, foot[0] - sx * k, foot[2] - sz * k):
        k += 1
    return BedSpot(foot, head, stand, (foot[0] - sx * k, y0, foot[2] - sz * k))


def _inside(origin: Pos, x: int, z: int) -> bool:
    return origin[0] <= x < origin[0] + SIZE and origin[2] <= z < origin[2] + SIZE


def bed_in_hut(region: Any, door: Pos, facing: str) -> Pos | None:
    """A cell of a whole bed (both halves) on the floor of the hut whose doorway is `door`,
    read from `region`."""
    cells = [c for c in interior_cells(door, facing) if is_bed(region.block_at(*c))]
    for a in cells:
        if any((a[0] + sx, a[1], a[2] + sz) in cells for sx, sz in ((1, 0), (0, 1), (-1, 0), (0, -1))):
            return a
    return None


def shelter_bed_spot(origin: Pos, facing: Facing) -> BedSpot:
    """The bed spot of the basic shelter built at origin/facing (clear of its torch and probes)."""
    bp = basic_shelter(origin, facing)
    torch = bp.module("light").placements[0][:3]
    return bed_spot(origin, facing, bp.site.interiorProbes, torch)


async def _interior_region(ctx: ToolContext, door: Pos, facing: str) -> Any:
    cells = interior_cells(door, facing)
    lo = (min(c[0] for c in cells), door[1], min(c[2] for c in cells))
    return await ctx.region(lo, (SIZE - 2, 1, SIZE - 2))


async def _held_bed(ctx: ToolContext) -> str | None:
    return next((i.name for i in (await ctx.snapshot()).inventory if is_bed(i.name) and i.count > 0), None)


async def place_bed(ctx: ToolContext, origin: Pos, facing: Facing) -> dict[str, Any]:
    """Put a held bed at the shelter's bed spot (nothing when a whole bed is already inside)."""
    spot = shelter_bed_spot(origin, facing)
    door = basic_shelter(origin, facing).site.entrance
    assert door is not None
    there = bed_in_hut(await _interior_region(ctx, door, facing), door, facing)
    if there is not None:
        return {"placed": False, "bed": list(there)}
    item = await _held_bed(ctx)
    if item is None:
        raise ToolFailure(PRECONDITION_FAILED, f"no bed held to put in the shelter at {list(origin)}")
    region = await _interior_region(ctx, door, facing)
    for cell in (spot.foot, spot.head):
        if not is_replaceable(region.block_at(*cell)):
            raise ToolFailure(
                PRECONDITION_FAILED,
                f"the bed spot {list(cell)} in the shelter at {list(origin)} is taken by {region.block_at(*cell)}",
            )
    pos = (await ctx.snapshot()).position
    stand = spot.inside if _inside(origin, int(pos.x // 1), int(pos.z // 1)) else spot.outside
    await run_action(ctx, "move_to", {"x": stand[0] + 0.5, "y": stand[1], "z": stand[2] + 0.5, "range": 0})
    await run_action(ctx, "step", {"x": stand[0], "y": stand[1], "z": stand[2]})  # the middle: in line with the bed
    await run_action(ctx, "place", {"block": item, "x": spot.foot[0], "y": spot.foot[1], "z": spot.foot[2]})
    now = await _interior_region(ctx, door, facing)
    if not (is_bed(now.block_at(*spot.foot)) and is_bed(now.block_at(*spot.head))):
        raise ToolFailure(
            EXECUTION_ERROR,
            f"the bed at {list(spot.foot)} did not stand whole (head cell "
            f"{list(spot.head)}: {now.block_at(*spot.head)})",
        )
    places = ctx.hooks.get(PLACES_HOOK)
    if places is not None:
        places.placed(item, *spot.foot)
    logger.info(
        f"[Shelter] {item} placed in the shelter at {list(origin)}: foot {list(spot.foot)}, head {list(spot.head)}"
    )
    return {"placed": True, "bed": list(spot.foot), "head": list(spot.head), "item": item}


class ShelterBedInput(ToolInput):
    origin: tuple[int, int, int]
    facing: Literal["north", "south", "east", "west"]


class SleepInput(ToolInput):
    x: int
    y: int
    z: int


class WakeInput(ToolInput):
    pass


async def place_shelter_bed(ctx: ToolContext, p: ShelterBedInput) -> dict[str, Any]:
    return await place_bed(ctx, p.origin, p.facing)


async def sleep(ctx: ToolContext, p: SleepInput) -> dict[str, Any]:
    return await run_action(ctx, "sleep", {"x": p.x, "y": p.y, "z": p.z})


async def sleep_in_shelter(ctx: ToolContext, p: DoorwayInput) -> dict[str, Any]:
    """Lie down in the bed inside the shelter; a bed held and none inside is put there first."""
    region = await _interior_region(ctx, p.door, p.facing)
    bed = bed_in_hut(region, p.door, p.facing)
    placed = False
    if bed is None and await _held_bed(ctx) is not None:
        out = await place_bed(ctx, hut_origin(p.door, p.facing), p.facing)
        bed, placed = tuple(out["bed"]), True
    if bed is None:
        raise ToolFailure(PRECONDITION_FAILED, f"no bed inside the shelter whose door is at {list(p.door)}, none held")
    places = ctx.hooks.get(PLACES_HOOK)
    if places is not None and not placed:
        places.saw(region.block_at(*bed) or BED, *bed)
    out = await run_action(ctx, "sleep", {"x": bed[0], "y": bed[1], "z": bed[2]})
    return {**out, "bed": list(bed), "placedBed": placed}


async def shelter_bed(ctx: ToolContext, p: DoorwayInput) -> dict[str, Any]:
    """The whole bed inside the shelter, if any: one read of its interior, no move."""
    bed = bed_in_hut(await _interior_region(ctx, p.door, p.facing), p.door, p.facing)
    return {"bed": list(bed) if bed is not None else None}


async def wake(ctx: ToolContext, _p: WakeInput) -> dict[str, Any]:
    return await run_action(ctx, "sleep", {"wake": True})


TOOLS = [
    Tool(
        "place_shelter_bed",
        "Put a held bed inside the basic shelter at origin/facing (both halves inside, clear of the door).",
        ShelterBedInput,
        place_shelter_bed,
        timeout_s=60,
        queue=BODY_QUEUE,
    ),
    Tool(
        "sleep",
        "Lie down in the bed at x,y,z (either half); only at night with no monster near.",
        SleepInput,
        sleep,
        timeout_s=15,
        queue=BODY_QUEUE,
    ),
    Tool(
        "sleep_in_shelter",
        "Lie down in the bed inside the shelter whose door is given (a held bed is put there first).",
        DoorwayInput,
        sleep_in_shelter,
        timeout_s=45,
        queue=BODY_QUEUE,
    ),
    Tool(
        "shelter_bed",
        "Is there a whole bed inside the shelter whose door is given? (a read of its interior, no move)",
        DoorwayInput,
        shelter_bed,
        timeout_s=10,
    ),
    Tool("wake", "Get out of bed.", WakeInput, wake, timeout_s=10, queue=BODY_QUEUE),
]
