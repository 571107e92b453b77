"""cover: out of a hostile's sight where the bot stands, when it cannot get away from it (a
retreat in a tunnel or a dead end that found no way off): the open cells beside its feet and
head, and the ones over its head and under its feet, filled with ground it holds, so neither
an arrow nor a hit gets in (a mob draws and strikes only with the bot in sight: node/plugins/mobs.js); later those
blocks are dug again and the bot goes on where it was. Used by the combat reflex
(agency.execution.reflexes.combat); `seal` also closes a night's burrow (agency.shelter.burrow)."""

from __future__ import annotations

import math
from typing import Any

from loguru import logger
from pydantic import Field

from agency.blocks import is_liquid, is_log, is_solid, natural_ground
from agency.game.harvest import needs_tool, ranked_tools, tool_held
from agency.shelter.backfill import BURROW_GROUND, FILLERS, fill_open
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.climb_out import GROUND_ROOF, MIN_ROOF, SKY_READ, WORLD_TOP, pillar_up
from agency.tools.climbing import safe_to_dig_up
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.spatial import block_pos, neighbours
from agency.world import BlockRegion, WorldSnapshot

Cell = tuple[int, int, int]


def _box(feet: Cell) -> tuple[Cell, tuple[int, int, int]]:
    """The region around the bot's two cells that a seal reads and may place in (a support
    under a cell beside the feet too: agency.shelter.backfill)."""
    return (feet[0] - 2, feet[1] - 2, feet[2] - 2), (5, 6, 5)


async def open_around(ctx: ToolContext) -> list[Cell]:
    """The open cells beside the bot's feet and head, over its head and under its feet: the
    ones a seal fills."""
    feet = block_pos((await ctx.snapshot()).position)
    head = (feet[0], feet[1] + 1, feet[2])
    around = {n for c in (feet, head) for n in neighbours(c)} - {feet, head}
    over = (feet[0], feet[1] + 2, feet[2])
    region = await ctx.region(*_box(feet))
    opening = sorted(c for c in around if not is_solid(region.block_at(*c)))
    if over in opening and not any(is_solid(region.block_at(*n)) for n in neighbours(over)):
        # in the open nothing is beside the cell over the head to place it against: one block
        # beside it first, on the one closed beside the head
        opening.append((over[0] + 1, over[1], over[2]))
    return opening


async def seal(
    ctx: ToolContext, cells: list[Cell] | None = None, toward: tuple[float, float, float] | None = None
) -> tuple[list[list[int]], list[list[int]]]:
    """`cells` (by default every one open_around finds) filled with what a burrow may close
    itself in with (agency.shelter.backfill, `wood`), those nearest `toward` first. Returns the
    cells that are solid now and were not (with any support fill_open put under one) and those
    of `cells` left open (no block held, nothing to place it against, a mob standing in it)."""
    feet = block_pos((await ctx.snapshot()).position)
    box = _box(feet)
    before = await ctx.region(*box)
    opening = await open_around(ctx) if cells is None else cells
    left = await fill_open(ctx, opening, wood=True, toward=toward)
    after = await ctx.region(*box)
    (x0, y0, z0), (dx, dy, dz) = box
    # the cells and the supports under them (agency.shelter.backfill): not what fell or another
    # placed meanwhile
    ours = set(opening) | {(x, y - 1, z) for x, y, z in opening}
    placed = [
        [x, y, z]
        for x, y, z in sorted(ours)
        if x0 <= x < x0 + dx and y0 <= y < y0 + dy and z0 <= z < z0 + dz
        if is_solid(after.block_at(x, y, z)) and not is_solid(before.block_at(x, y, z))
    ]
    return placed, left


def _fillers_held(snap: WorldSnapshot) -> int:
    """How many blocks fill_open(wood=True) could take from the inventory."""
    return sum(i.count for i in snap.inventory if i.name in FILLERS or i.name in BURROW_GROUND or is_log(i.name))


async def placed_walls(ctx: ToolContext) -> list[Cell]:
    """When every cell around the bot is closed and a walk could not get out through ground
    (agency.blocks natural_ground) alone: the blocks of one side, beside its feet and head,
    to dig to let it out (cobblestone: what a cover left standing over a restart boxes the
    bot in with, its state being the daemon's only). The side with the most open cells beyond
    it, never one with a liquid beyond (a burrow's seal closes water and lava out too). []
    when some cell around is open or no side will do."""
    if await open_around(ctx):
        return []
    feet = block_pos((await ctx.snapshot()).position)
    region = await ctx.region(*_box(feet))
    natural = set(natural_ground())
    best: tuple[int, list[Cell]] | None = None
    for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        pair = [(feet[0] + dx, feet[1] + dy, feet[2] + dz) for dy in (0, 1)]
        beyond = [region.block_at(feet[0] + 2 * dx, feet[1] + dy, feet[2] + 2 * dz) for dy in (0, 1)]
        walls = [c for c in pair if region.block_at(*c) in FILLERS and region.block_at(*c) not in natural]
        if not walls or any(region.block_at(*c) not in natural and c not in walls for c in pair):
            continue  # ground a walk digs by itself, or a block that is not a cover's
        if any(is_liquid(b) for b in beyond):
            continue
        open_beyond = sum(not is_solid(b) for b in beyond)
        if best is None or open_beyond > best[0]:
            best = (open_beyond, walls)
    return best[1] if best else []


class TakeCoverInput(ToolInput):
    # more open cells than this and nothing is placed (a cover in the open takes 10 blocks, and
    # seconds under fire: a retreat tried first may do better)
    maxOpen: int = Field(default=10, ge=0, le=10)
    # the cells on this side (a creeper's: out of its sight, its swell falls back) filled first
    toward: tuple[float, float, float] | None = None


class LeaveCoverInput(ToolInput):
    # the cells take_cover filled ("filled"): dug again, so the bot's way on is as it was
    cells: list[tuple[int, int, int]] = Field(default_factory=list, max_length=24)


async def take_cover(ctx: ToolContext, p: TakeCoverInput) -> dict[str, Any]:
    cells = await open_around(ctx)
    snap = await ctx.snapshot()
    held = _fillers_held(snap)
    if len(cells) > p.maxOpen or held < len(cells):
        why = f"{len(cells)} open cells" + (f", more than {p.maxOpen}" if len(cells) > p.maxOpen else "")
        return {"filled": [], "open": [list(c) for c in cells], "why": f"{why}; {held} blocks held to fill them"}
    feet = block_pos(snap.position)
    filled, left = await seal(ctx, cells, p.toward)
    return {"filled": filled, "open": left, "feet": list(feet)}


async def leave_cover(ctx: ToolContext, p: LeaveCoverInput) -> dict[str, Any]:
    cells = [tuple(c) for c in p.cells]
    if not cells:
        return {"dug": []}
    xs, ys, zs = zip(*cells, strict=True)
    region = await ctx.region(
        (min(xs), min(ys), min(zs)), (max(xs) - min(xs) + 1, max(ys) - min(ys) + 1, max(zs) - min(zs) + 1)
    )
    dug: list[list[int]] = []
    left: list[list[int]] = []  # still standing: dug on the next try
    for x, y, z in sorted(cells, key=lambda c: -c[1]):
        if not is_solid(region.block_at(x, y, z)):
            continue  # gone meanwhile (a creeper's blast)
        try:
            await run_action(ctx, "dig", {"x": x, "y": y, "z": z})
        except ToolFailure as e:
            logger.info("[Reflex] out of cover: could not dig {}: {}", [x, y, z], e.message)
            left.append([x, y, z])
            continue
        dug.append([x, y, z])
    return {"dug": dug, "left": left}


EXIT_CLEAR = 4.0  # no hostile this near the column's top: the climb would come up beside it


def _column_refusal(snap: WorldSnapshot, region: BlockRegion, feet: Cell, top: int, placed: set[Cell]) -> str | None:
    """Why the pillar (node/lib/actions/pillar.js) would stop part-way up this column, or None:
    a block over the head that is not natural ground (an ore, calcite, mineshaft planks; the
    cover's own roof is dug first) or that needs a tool not held, nothing to place under the
    feet, a hostile at the top."""
    held = {i.name: i.count for i in snap.inventory}
    x, z = feet[0], feet[2]
    natural = set(natural_ground())
    for y in range(feet[1] + 2, min(top + 4, feet[1] + region.size[1])):  # the last step digs top+2, top+3
        name = region.block_at(x, y, z)
        if not is_solid(name) or (x, y, z) in placed:
            continue
        if name not in natural:
            return f"{name} at {[x, y, z]} is not ground the climb digs"
        if needs_tool(name) and tool_held(held, name) is None:
            return f"{name} at {[x, y, z]} needs one of {', '.join(ranked_tools(name)) or 'no tool held'}"
    # what pillar.js places under the feet (node/lib/names.js fillers: these and planks)
    if not any(i.name in FILLERS or i.name.endswith("_planks") for i in snap.inventory):
        return "nothing held to place under the feet"
    out = (x + 0.5, top + 1, z + 0.5)  # where the climb comes up
    for e in snap.entities:
        p = e.position
        if e.hostile and p.y > feet[1] + 2 and math.dist((p.x, p.y, p.z), out) <= EXIT_CLEAR:
            return f"a {e.name} by the top of the column"
    return None


async def leave_cover_up(ctx: ToolContext, p: LeaveCoverInput) -> dict[str, Any]:
    """Out of cover upward, through the ground over the head to the surface, the cover's walls left
    standing: a bot not healed in its time (nothing to eat), the hostile still outside, came out
    of its cell in a cave at health 6 and was shot dead (26.1 seed 5249 at c13238d). Only a column
    the climb can finish (no liquid in it or beside it, nothing over the head that falls, every
    block one it digs: _column_refusal); else it fails before a block is touched and the cover
    is left as usual."""
    snap = await ctx.snapshot()
    feet = block_pos(snap.position)
    height = min(SKY_READ, WORLD_TOP - feet[1])
    region = await ctx.region((feet[0] - 1, feet[1], feet[2] - 1), (3, height, 3))
    tops = [y for y in range(feet[1] + 2, feet[1] + height) if region.block_at(feet[0], y, feet[2]) in GROUND_ROOF]
    if len(tops) < MIN_ROOF:
        raise ToolFailure(PRECONDITION_FAILED, f"no ground over the head at {list(feet)} to climb up through")
    top = min(max(tops), feet[1] + height - 3)
    if not safe_to_dig_up(region, feet[0], feet[2], feet[1], top):
        raise ToolFailure(
            PRECONDITION_FAILED, f"the column over {list(feet)} has water, lava, sand or gravel in or beside it"
        )
    refusal = _column_refusal(snap, region, feet, top, set(p.cells))
    if refusal is not None:
        raise ToolFailure(PRECONDITION_FAILED, f"the column over {list(feet)} cannot be climbed: {refusal}")
    roof = sorted(
        (c for c in p.cells if c[1] >= feet[1] + 2 and (c[0], c[2]) == (feet[0], feet[2])), key=lambda c: c[1]
    )
    for x, y, z in roof:  # a placed block, not natural ground: the pillar digs only that
        await run_action(ctx, "dig", {"x": x, "y": y, "z": z})
    out = await pillar_up(ctx, top + 1)
    return {"from": list(feet), "top": top, **out}


TOOLS = [
    Tool(
        "take_cover",
        "Cornered by a hostile: close the open cells around the bot's feet and head.",
        TakeCoverInput,
        take_cover,
        timeout_s=45,  # ten blocks placed at most, and a support or two
        queue=BODY_QUEUE,
    ),
    Tool(
        "leave_cover",
        "Out of cover: dig the blocks take_cover placed.",
        LeaveCoverInput,
        leave_cover,
        timeout_s=100,  # a dozen blocks of cobblestone by hand, under the reflex job's 120 s
        queue=BODY_QUEUE,
    ),
    Tool(
        "leave_cover_up",
        "Out of cover upward: dig up through the ground over the head to the surface, the walls left.",
        LeaveCoverInput,
        leave_cover_up,
        timeout_s=110,  # up to the surface from a cave, a block a second or two, under the reflex job's 120 s
        queue=BODY_QUEUE,
    ),
]
