"""prepare_shelter_site: the site's earthwork. Digs the natural blocks in the way and fills
1-deep holes in the floor, re-reading the site first so a re-run only does what is left."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from loguru import logger

from agency.blocks import is_leaves, is_replaceable, is_solid, is_walkable
from agency.names import same
from agency.shelter.backfill import FILLERS
from agency.shelter.bed import interior_cells, is_bed
from agency.shelter.blueprint import ShelterBlueprint
from agency.shelter.earthwork import NOT_LOADED, Work, site_columns, site_work, work_box
from agency.shelter.site_check import stands
from agency.shelter.site_walk import back_to_site, in_reach, walk_site
from agency.shelter.stand_ins import is_planks, spare_planks
from agency.shelter.tool_inputs import ShelterPrepareInput, blueprint_for
from agency.tools.actions import run_action
from agency.tools.base import ToolContext, ToolFailure
from agency.tools.crafting import CraftInput, craft
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED
from agency.tools.spatial import block_pos
from agency.world import BlockRegion

PLANKS_PER_LOG = 4
PREPARE_PASSES = 3  # re-read and redo: sand or gravel may slide into a dug cell
FILL_SPOTS = 3  # cells tried in turn to fill a hole from


def _built(region: BlockRegion, bp: ShelterBlueprint) -> set[tuple[int, int, int]]:
    """Cells already holding what the blueprint puts there, or the hut's bed: never dug as
    'in the way' (a repair builds around them)."""
    out = {pos for pos, want in bp.expected_blocks().items() if same(region.block_at(*pos), want)}
    out |= {
        (x, y, z)
        for m in bp.modules
        for x, y, z, want in m.placements
        if stands(m.name, want, region.block_at(x, y, z))
    }
    assert bp.site.entrance is not None
    out |= {c for c in interior_cells(bp.site.entrance, bp.site.facing) if is_bed(region.block_at(*c))}  # its furniture
    return out


async def _site_work(ctx: ToolContext, p: ShelterPrepareInput) -> Work:
    """What is left to do at the site. A site out of the bot's loaded chunks is walked back to
    first: a 26.1 bench bot went home to its first hut for the night, 95 blocks from the one it
    had begun, and in the morning the resumed build failed on the unloaded site."""
    w = await _read_site_work(ctx, p)
    if isinstance(w, str) and w.endswith(NOT_LOADED):
        await back_to_site(ctx, p.origin, w)
        w = await _read_site_work(ctx, p)
    if isinstance(w, str):
        raise ToolFailure(PRECONDITION_FAILED, f"the site at {p.origin} can no longer be built on: {w}")
    return w


async def _read_site_work(ctx: ToolContext, p: ShelterPrepareInput) -> Work | str:
    region = await ctx.region(*work_box(p.origin))
    bp = blueprint_for(p, p.origin, p.facing)
    door = bp.site.entrance
    assert door is not None
    doorway = {door, (door[0], door[1] + 1, door[2])}
    return site_work(region, p.origin, keep=_built(region, bp), clear=doorway)


def _wall_blocks_to_place(region: BlockRegion, p: ShelterPrepareInput) -> int:
    """The wall blocks the blueprint still places: a repair needs only those it lacks. Leaves
    kept where a wall or the roof goes count as to place: they decay once the trunk is dug."""
    bp = blueprint_for(p, p.origin, p.facing)
    built = {c for c in _built(region, bp) if not is_leaves(region.block_at(*c))}
    return sum(1 for m in bp.modules for x, y, z, b in m.placements if b == p.wallBlock and (x, y, z) not in built)


async def _filler(ctx: ToolContext, p: ShelterPrepareInput, need: int) -> str | None:
    """Dirt or stone if held (digging the site yields dirt), else wall blocks the blueprint
    will not need (`need`: those it still places; the builder brings a few spare planks for
    this; planks of any wood, agency.shelter.stand_ins), else planks of the walls' wood made
    from a log held (the spare went into an earlier pass, and a site on rock yields no dirt: a
    bench build failed on two holes with logs in its pack)."""
    snap = await ctx.snapshot()
    for item in FILLERS:
        if snap.count_of(item) > 0:
            return item
    if not is_planks(p.wallBlock):
        return p.wallBlock if snap.count_of(p.wallBlock) > need else None
    if spare := spare_planks(snap.held(), p.wallBlock, need):  # other planks stand in (agency.shelter.stand_ins)
        return spare
    try:
        await craft(ctx, CraftInput(item=p.wallBlock, count=PLANKS_PER_LOG))
    except ToolFailure as e:
        logger.info("[Shelter] no filler for the site's holes: no {} to spare and {}", p.wallBlock, e.message)
        return None
    return spare_planks((await ctx.snapshot()).held(), p.wallBlock, need)


async def _eye(ctx: ToolContext) -> tuple[tuple[float, float, float], tuple[int, int, int]]:
    pos = (await ctx.snapshot()).position
    return (pos.x, pos.y, pos.z), block_pos(pos)


async def _dig_all(ctx: ToolContext, origin: tuple[int, int, int], digs: list[tuple[int, int, int]]) -> int:
    """Dig what is in reach, highest first (a canopy before the trunk under it); when
    nothing is, walk towards the nearest remaining column."""
    todo, dug = list(digs), 0
    while todo:
        ctx.check()
        stand, feet = await _eye(ctx)
        reachable = [t for t in todo if in_reach(stand, t)]
        if not reachable:
            x, _, z = min(todo, key=lambda t: math.dist((t[0], t[2]), (feet[0], feet[2])))

            async def reaches_one() -> bool:
                eye, _ = await _eye(ctx)
                return any(in_reach(eye, t) for t in todo)

            await walk_site(ctx, origin, (x + 0.5, origin[1], z + 0.5), 2, reaches_one)
            stand, _ = await _eye(ctx)
            reachable = [t for t in todo if in_reach(stand, t)] or [min(todo, key=lambda t: math.dist(t, feet))]
        target = max(reachable, key=lambda t: (t[1], -math.dist(t, feet)))
        todo.remove(target)
        if is_replaceable((await ctx.region(target, (1, 1, 1))).block_at(*target)):
            continue  # gone already (a re-run, or it was never solid)
        await run_action(ctx, "dig", {"x": target[0], "y": target[1], "z": target[2]})
        dug += 1
    return dug


async def _fill_spot_ok(ctx: ToolContext, holes: set[tuple[int, int]], target: tuple[int, int, int]) -> bool:
    stand, feet = await _eye(ctx)
    return (feet[0], feet[2]) not in holes and in_reach(stand, target)


def _standable(region: BlockRegion, cell: tuple[int, int, int]) -> bool:
    x, y, z = cell
    below, feet, head = (region.block_at(x, y + dy, z) for dy in (-1, 0, 1))
    return is_solid(below) and is_walkable(feet) and is_walkable(head)


async def _fill_all(ctx: ToolContext, p: ShelterPrepareInput, fills: list[tuple[int, int, int]]) -> int:
    """Fill each hole from a site cell the bot can stand in that is not a hole (never the bot's
    own cell). Not a wall cell whose natural block stays as part of the wall: a bench hut's
    levelling walked to one for a minute, three times, and failed."""
    holes = {(x, z) for x, _, z in fills}
    region = await ctx.region(*work_box(p.origin))
    need = _wall_blocks_to_place(region, p)
    cells = [
        (x, p.origin[1], z)
        for x, z, _ in site_columns(p.origin)
        if (x, z) not in holes and _standable(region, (x, p.origin[1], z))
    ]
    for target in fills:
        ctx.check()
        block = await _filler(ctx, p, need)
        if block is None:
            raise ToolFailure(
                PRECONDITION_FAILED,
                f"{len(fills)} holes to fill at the site and nothing to fill them with "
                f"(no dirt, no stone, no spare {p.wallBlock})",
            )
        if not await _fill_spot_ok(ctx, holes, target):
            await _to_a_fill_spot(ctx, p.origin, cells, holes, target)
        await run_action(ctx, "place", {"block": block, "x": target[0], "y": target[1], "z": target[2]})
    return len(fills)


async def _to_a_fill_spot(
    ctx: ToolContext,
    origin: tuple[int, int, int],
    cells: list[tuple[int, int, int]],
    holes: set[tuple[int, int]],
    target: tuple[int, int, int],
) -> None:
    """To the nearest cell that reaches the target; one the walk cannot get to gives way to the
    next, FILL_SPOTS in all."""
    if not cells:
        raise ToolFailure(PRECONDITION_FAILED, f"no cell of the site to stand in to fill {list(target)} from")
    feet = (await _eye(ctx))[1]
    ranked = sorted(cells, key=lambda c: (not in_reach((c[0] + 0.5, c[1], c[2] + 0.5), target), math.dist(c, feet)))
    spots = ranked[:FILL_SPOTS]
    for n, spot in enumerate(spots):
        try:
            await walk_site(
                ctx, origin, (spot[0] + 0.5, spot[1], spot[2] + 0.5), 0, partial(_fill_spot_ok, ctx, holes, target)
            )
            return
        except ToolFailure as e:
            if e.code != EXECUTION_ERROR or n == len(spots) - 1:
                raise
            logger.info(
                "[Builder] no way to {} to fill {} ({}); trying {}",
                list(spot),
                list(target),
                e.message,
                list(spots[n + 1]),
            )


async def prepare_shelter_site(ctx: ToolContext, p: ShelterPrepareInput) -> dict[str, Any]:
    dug = filled = 0
    for _ in range(PREPARE_PASSES):
        work = await _site_work(ctx, p)
        if work.empty:
            return {"origin": list(p.origin), "dug": dug, "filled": filled}
        dug += await _dig_all(ctx, p.origin, list(work.digs))
        filled += await _fill_all(ctx, p, list(work.fills))
    left = await _site_work(ctx, p)
    if not left.empty:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"the site at {p.origin} is still not level after {PREPARE_PASSES} passes: "
            f"{len(left.digs)} blocks in the way, {len(left.fills)} holes",
        )
    return {"origin": list(p.origin), "dug": dug, "filled": filled}
