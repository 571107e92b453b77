"""Placing: place_block (compensated by digging it back) and build_blueprint, a list of
placements run as modules. A module re-reads the world before placing, so a blueprint
interrupted anywhere resumes by skipping what already stands."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from loguru import logger
from pydantic import Field, model_validator

from agency.blocks import DEEP_ROCK, ROCK, SOIL, is_liquid, is_solid
from agency.names import same
from agency.places.memory import HOOK as PLACES_HOOK
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.gathering import REACH
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.spatial import block_pos, free_spot_near, in_body, neighbours, read_around, spot_against_near
from agency.tools.walking import walk
from agency.world import BlockRegion, Vec3


class PlaceBlockInput(ToolInput):
    block: str = Field(min_length=1)
    x: int | None = None
    y: int | None = None
    z: int | None = None

    @model_validator(mode="after")
    def _all_or_none(self) -> PlaceBlockInput:
        given = [v is not None for v in (self.x, self.y, self.z)]
        if any(given) and not all(given):
            raise ValueError("give x, y and z together, or none (a free spot next to the bot)")
        return self


class Placement(ToolInput):
    x: int
    y: int
    z: int
    block: str = Field(min_length=1)


class BuildBlueprintInput(ToolInput):
    name: str = Field(default="blueprint", min_length=1, max_length=64)
    placements: list[Placement] = Field(min_length=1, max_length=4096)
    origin: tuple[int, int, int] = (0, 0, 0)  # added to every placement
    module_size: int = Field(default=8, ge=1, le=64)


async def place_at(ctx: ToolContext, block: str, x: int, y: int, z: int) -> dict[str, Any]:
    snap = await ctx.snapshot()
    if snap.count_of(block) == 0:
        # A precondition, not a failed placement: a run resumed after the world restarted from
        # its last save can find an item it had made gone, and the executor replans it.
        raise ToolFailure(PRECONDITION_FAILED, f"no {block} in inventory", details={"block": block})
    pos = snap.position
    if pos.distance_to(type(pos)(x=x + 0.5, y=y + 0.5, z=z + 0.5)) > REACH:
        await walk(ctx, x + 0.5, y, z + 0.5, 2.5, dig_out=False)  # never dig up a build's own ground
    out = await run_action(ctx, "place", {"block": block, "x": x, "y": y, "z": z})
    placed = out.get("placed") or block  # the block the game reports there (None: not seen yet)
    places = ctx.hooks.get(PLACES_HOOK)
    if places is not None:  # a table, furnace or bed the bot put down is remembered for later
        places.placed(placed, x, y, z)
    return {"block": block, "x": x, "y": y, "z": z, "placed": placed}


SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))


def room_to_dig(around: BlockRegion, feet: tuple[int, int, int], standing: Vec3) -> tuple[int, int, int] | None:
    """In a tunnel or a staircase, where nothing can be placed: a cell beside the bot's feet
    of natural rock or soil, on a solid floor, with no liquid next to it and clear of the
    bot's body (the game refuses a block in a player), to dig so a block fits there."""
    fx, fy, fz = feet
    diggable = SOIL | ROCK | DEEP_ROCK
    for dx, dz in SIDES:
        x, z = fx + dx, fz + dz
        if in_body(standing, x, fy, z):
            continue
        near = [around.block_at(*n) for n in neighbours((x, fy, z))]
        rock = around.block_at(x, fy, z) in diggable and is_solid(around.block_at(x, fy - 1, z))
        if rock and not any(is_liquid(n) for n in near):
            return (x, fy, z)
    return None


# A spot read free can be filled before the place lands: gravel the bot undermined fell into
# the cell a bench bot's furnace was for, and the iron pickaxe's plan failed on it.
PLACE_TRIES = 2


async def place_near_bot(ctx: ToolContext, block: str) -> dict[str, Any]:
    for attempt in range(1, PLACE_TRIES + 1):
        try:
            return await _place_near_bot_once(ctx, block)
        except ToolFailure as e:
            if attempt == PLACE_TRIES or "is occupied by" not in str(e):
                raise
            logger.info("[Tools] {}: the blocks around the bot are read again for another spot", e)
    raise AssertionError("unreachable")


async def _place_near_bot_once(ctx: ToolContext, block: str) -> dict[str, Any]:
    snap = await ctx.snapshot()
    feet = block_pos(snap.position)
    around = await ctx.io(read_around, ctx.body, feet, 2, 2, 2)
    spot = free_spot_near(around, feet, snap.position)
    if spot is None and (room := room_to_dig(around, feet, snap.position)) is not None:
        await run_action(ctx, "dig", {"x": room[0], "y": room[1], "z": room[2]})
        logger.info("[Tools] no room to place {} at {}: dug {} {} {} beside the bot", block, list(feet), *room)
        return await place_at(ctx, block, *room)
    if spot is None and (spot := spot_against_near(around, feet, snap.position)) is not None:
        logger.info("[Tools] no free spot on solid ground for {}: placing it at {} {} {}", block, *spot)
    if spot is None:
        seen = sorted({n for n in around.palette if n is not None})
        details = {"feet": list(feet), "health": snap.health, "blocksAround": seen}
        if not seen:  # a bot whose chunks are gone (dead and never respawned) sees nothing at all
            raise ToolFailure(
                PRECONDITION_FAILED,
                f"the blocks around the bot at {list(feet)} are not loaded "
                f"(health {snap.health:g}): cannot place {block}",
                details=details,
            )
        raise ToolFailure(PRECONDITION_FAILED, f"no free spot next to the bot to place {block}", details=details)
    return await place_at(ctx, block, *spot)


async def place_block(ctx: ToolContext, p: PlaceBlockInput) -> dict[str, Any]:
    if p.x is None or p.y is None or p.z is None:  # all or none (the input's check)
        return await place_near_bot(ctx, p.block)
    return await place_at(ctx, p.block, p.x, p.y, p.z)


def _undo_place(_p: PlaceBlockInput, out: Mapping[str, Any]) -> dict[str, Any]:
    return {"tool": "mine_block", "args": {"x": out["x"], "y": out["y"], "z": out["z"]}}


async def build_blueprint(ctx: ToolContext, p: BuildBlueprintInput) -> dict[str, Any]:
    ox, oy, oz = p.origin
    todo = [(q.x + ox, q.y + oy, q.z + oz, q.block) for q in p.placements]
    modules = [todo[i : i + p.module_size] for i in range(0, len(todo), p.module_size)]
    progress = ctx.memory.setdefault("blueprints", {}).setdefault(p.name, {"modulesDone": 0})
    placed: list[dict[str, int]] = []
    skipped = 0
    for index, module in enumerate(modules):
        ctx.check()
        xs, ys, zs = zip(*[(x, y, z) for x, y, z, _ in module], strict=True)
        origin = (min(xs), min(ys), min(zs))
        size = (max(xs) - origin[0] + 1, max(ys) - origin[1] + 1, max(zs) - origin[2] + 1)
        standing = await ctx.region(origin, size)
        for x, y, z, block in module:
            if same(standing.block_at(x, y, z), block):
                skipped += 1
                continue
            await place_at(ctx, block, x, y, z)
            placed.append({"x": x, "y": y, "z": z})
        progress["modulesDone"] = index + 1
    return {"name": p.name, "modules": len(modules), "placed": placed, "skipped": skipped}


def _undo_blueprint(_p: BuildBlueprintInput, out: Mapping[str, Any]) -> dict[str, Any] | None:
    if not out["placed"]:
        return None
    return {"tool": "mine_block", "args": {"positions": list(reversed(out["placed"]))}}


TOOLS = [
    Tool(
        "place_block",
        "Place a block from the inventory at x,y,z or next to the bot.",
        PlaceBlockInput,
        place_block,
        timeout_s=30,
        queue=BODY_QUEUE,
        compensate=_undo_place,
    ),
    Tool(
        "build_blueprint",
        "Place a list of blocks in modules, skipping what already stands.",
        BuildBlueprintInput,
        build_blueprint,
        timeout_s=600,
        queue=BODY_QUEUE,
        compensate=_undo_blueprint,
    ),
]
