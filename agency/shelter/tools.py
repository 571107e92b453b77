"""Shelter tools for the builder: pick and anchor a site, then build one blueprint module.

`shelter_site` reads one region around the bot and picks the site needing the least
earthwork, reading again over the bot when its level has none (or returns the
site the goal is already anchored to, so a resumed or repair run builds in the same place).
`prepare_shelter_site` does the site's earthwork (digs natural blocks in the way, fills
1-deep holes in the floor), re-reading the site first so a re-run only does what is left.
`build_shelter_module` builds one module of agency.shelter.blueprint like
build_blueprint does (one region read, skip what already stands, so a re-run repairs),
but places every block from the ring around the footprint: the bot never walls itself in.
The goal store's side (anchoring, module progress) goes through ctx.hooks["shelter"] when
the daemon provides it; without it the tools still build.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import Any, Literal, Protocol

from loguru import logger
from pydantic import Field

from agency.blocks import is_leaves, is_log, is_replaceable, is_solid
from agency.names import same
from agency.shelter.backfill import FILLERS
from agency.shelter.bed import interior_cells, is_bed
from agency.shelter.blueprint import ShelterBlueprint, basic_shelter
from agency.shelter.door import doorway_cells
from agency.shelter.earthwork import MAX_COST, PATH_DIGGABLE, Work, keep_box, site_columns, site_work, work_box
from agency.shelter.models import Facing, Pos
from agency.shelter.site_check import stands
from agency.shelter.site_finder import SCAN_RADIUS, SiteChoice, choose_site, ring_cells, scan_box
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.crafting import CraftInput, craft
from agency.tools.movement import NO_PROGRESS, ExploreInput, dig_walk, explore, time_to_dig, walk
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED
from agency.tools.spatial import block_pos
from agency.world import BlockRegion

HOOKS_KEY = "shelter"
EYE_HEIGHT = 1.62
PLACE_REACH = 4.5  # survival reach, measured from the eyes
PLACE_POLL_S = 0.05


class ShelterHooks(Protocol):
    def anchored_site(self, task_id: str) -> dict[str, Any] | None: ...
    def anchor(self, task_id: str, blueprint: ShelterBlueprint, materials: dict[str, Any]) -> None: ...
    def module_done(self, task_id: str, index: int, total: int, name: str) -> None: ...


class _Materials(ToolInput):
    taskId: str | None = None
    wallBlock: str = Field(default="oak_planks", min_length=1)
    doorBlock: str = Field(default="oak_door", min_length=1)
    lightBlock: str = Field(default="torch", min_length=1)


class ShelterSiteInput(_Materials):
    pass


class ShelterPrepareInput(_Materials):
    origin: tuple[int, int, int]
    facing: Literal["north", "south", "east", "west"]


class ShelterModuleInput(ShelterPrepareInput):
    module: str = Field(min_length=1)


def _hooks(ctx: ToolContext) -> ShelterHooks | None:
    return ctx.hooks.get(HOOKS_KEY)


def blueprint_for(p: _Materials, origin: tuple[int, int, int], facing: Facing) -> ShelterBlueprint:
    return basic_shelter(origin, facing, wall_block=p.wallBlock, door_block=p.doorBlock, light_block=p.lightBlock)


GROUND_SEARCH = 8
# Floors looked at when none within the site finder's reach of the feet will do: a slope has
# no level spot at the bot's height, but a terrace up it may (a bench bot on a hillside failed
# two shelters in a row and burrowed for the night). Not down: a cave's floor under the hill
# would score as a site whose walls are already there.
LEVEL_SHIFTS = (0, 4, 8)


async def _ground_feet(ctx: ToolContext, feet: tuple[int, int, int]) -> tuple[int, int, int]:
    """Feet level on the ground below the bot: a bot that just cut a treetop stands in the
    canopy, and the site search looks for floors within 2 blocks of the feet."""
    x, y, z = feet
    column = await ctx.region((x, y - GROUND_SEARCH, z), (1, GROUND_SEARCH, 1))
    for below in range(y - 1, y - GROUND_SEARCH - 1, -1):
        name = column.block_at(x, below, z)
        if is_solid(name) and not is_leaves(name) and not is_log(name):
            return (x, below + 1, z)
    return feet


FARTHER_LEGS = 2  # walks away to look for a site when none is near the bot
FARTHER_LEG = 24  # blocks: beyond what the scan around the bot saw


async def _site_near_bot(ctx: ToolContext) -> SiteChoice | None:
    feet = await _ground_feet(ctx, block_pos((await ctx.snapshot()).position))
    for dy in LEVEL_SHIFTS:
        level = (feet[0], feet[1] + dy, feet[2])
        choice = choose_site(await ctx.region(*scan_box(level)), level)
        if choice is not None:
            if dy:
                logger.info("[Shelter] no site at the bot's level (y {}): one {} blocks up", feet[1], dy)
            return choice
    return None


async def shelter_site(ctx: ToolContext, p: ShelterSiteInput) -> dict[str, Any]:
    hooks = _hooks(ctx)
    if hooks is not None and p.taskId:
        known = hooks.anchored_site(p.taskId)
        if known is not None:  # anchored once, for good: resume and repair build here
            return {**known, "anchored": True, "reused": True}
    choice = await _site_near_bot(ctx)
    for leg in range(1, FARTHER_LEGS + 1):
        if choice is not None:
            break
        # steep or wooded ground: a walk of FARTHER_LEG blocks, where the scan has not looked,
        # and a scan from there (a 26.1 bench bot failed its hut twice in 30 s on a slope)
        logger.info("[Shelter] no site within {} blocks of the bot: looking {} blocks away", SCAN_RADIUS, FARTHER_LEG)
        try:
            await explore(ctx, ExploreInput(legs=1, leg_distance=FARTHER_LEG, max_distance=FARTHER_LEG * FARTHER_LEGS))
        except ToolFailure as e:
            logger.info("[Shelter] could not walk away to look: {}", e.message)
            break
        choice = await _site_near_bot(ctx)
        if choice is not None:
            logger.info("[Shelter] a site found after {} walk(s) away", leg)
    if choice is None:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"no 7x7 spot within {SCAN_RADIUS} blocks of the bot, at its level or up to "
            f"{max(LEVEL_SHIFTS)} blocks over it, can be cleared "
            f"and levelled with under {MAX_COST:g} units of earthwork",
        )
    bp = blueprint_for(p, choice.origin, choice.facing)
    materials = {"wallBlock": p.wallBlock, "doorBlock": p.doorBlock, "lightBlock": p.lightBlock}
    if hooks is not None and p.taskId:
        hooks.anchor(p.taskId, bp, materials)
    return {
        "origin": list(choice.origin),
        "facing": choice.facing,
        "modules": [m.name for m in bp.modules],
        "anchored": bool(hooks and p.taskId),
        "reused": False,
        "digs": len(choice.work.digs),
        "fills": len(choice.work.fills),
        "earthwork": choice.work.cost,
        **materials,
    }


def _reach(stand: tuple[float, float, float], target: tuple[int, int, int]) -> bool:
    eye = (stand[0], stand[1] + EYE_HEIGHT, stand[2])
    return math.dist(eye, (target[0] + 0.5, target[1] + 0.5, target[2] + 0.5)) <= PLACE_REACH


async def _never() -> bool:
    return False


async def walk_site(
    ctx: ToolContext,
    origin: Pos,
    spot: tuple[float, float, float],
    rng: float,
    good_enough: Callable[[], Awaitable[bool]] = _never,
) -> None:
    """Walk to a spot at the site at origin. If the path is blocked (a bot coming back out of
    the canopy, a leaf wall round a clearing), try again digging through leaves and logs only;
    if that fails too (a bot in the pit its collect of stone left, under a cliff the site is
    on), once more digging through natural ground anywhere but the site (earthwork.keep_box:
    never its floor). A walk that fails where the bot can already do its job (`good_enough`)
    is no failure."""
    x, y, z = spot
    trees = {"x": x, "y": y, "z": z, "range": rng, "digOnly": list(PATH_DIGGABLE)}
    tries: tuple[tuple[str, Callable[[], Awaitable[Any]]], ...] = (
        ("", lambda: walk(ctx, x, y, z, rng, dig_out=False)),  # never through soil: that holes the site's floor
        ("digging through trees only", lambda: run_action(ctx, "move_to", trees)),
        ("digging through natural ground outside the site", lambda: dig_walk(ctx, x, y, z, rng, keep_box(origin))),
    )
    for n, (_, go) in enumerate(tries):
        try:
            await go()
            return
        except ToolFailure as e:
            if e.code != EXECUTION_ERROR:
                raise
            if await good_enough():
                return
            last = n == len(tries) - 1
            if last or (n > 0 and (NO_PROGRESS not in e.message or not time_to_dig(ctx))):
                raise
            logger.info(f"[Builder] path to {x:.1f},{y:.1f},{z:.1f} blocked ({e.message}); retrying, {tries[n + 1][0]}")


async def _approach(
    ctx: ToolContext, origin: tuple[int, int, int], target: tuple[int, int, int], upcoming: list[tuple[int, int, int]]
) -> None:
    """Stay put if the target is within reach from outside the footprint; else walk to the
    ring cell that reaches it and as many of the upcoming placements as possible (fewest
    walks), the nearest such cell first."""
    pos = (await ctx.snapshot()).position
    feet = block_pos(pos)
    x0, _, z0 = origin
    inside = x0 <= feet[0] < x0 + 5 and z0 <= feet[2] < z0 + 5
    if not inside and _reach((pos.x, pos.y, pos.z), target):
        return
    cells = [c for c in ring_cells(origin) if _reach((c[0] + 0.5, c[1], c[2] + 0.5), target)] or ring_cells(origin)

    def score(c: tuple[int, int, int]) -> tuple[int, float]:
        stand = (c[0] + 0.5, c[1], c[2] + 0.5)
        covered = sum(1 for u in upcoming if _reach(stand, u))
        return (-covered, math.dist(c, feet))

    spot = min(cells, key=score)

    async def placeable_from_here() -> bool:
        p = (await ctx.snapshot()).position
        f = block_pos(p)
        return not (x0 <= f[0] < x0 + 5 and z0 <= f[2] < z0 + 5) and _reach((p.x, p.y, p.z), target)

    await walk_site(ctx, origin, (spot[0] + 0.5, spot[1], spot[2] + 0.5), 0, placeable_from_here)


def _build_order(
    placements: list[tuple[int, int, int, str]], origin: tuple[int, int, int], feet: tuple[int, int, int]
) -> list[tuple[int, int, int, str]]:
    """Around the footprint once, starting on the bot's side (a walk every few blocks, not
    every block); outer rings first, so each roof block has a placed neighbour to go against."""
    cx, cz = origin[0] + 2, origin[2] + 2
    start = math.atan2(feet[2] - cz, feet[0] - cx)

    def key(p: tuple[int, int, int, str]) -> tuple[int, float]:
        ring = max(abs(p[0] - cx), abs(p[2] - cz))
        return (-ring, (math.atan2(p[2] - cz, p[0] - cx) - start) % math.tau)

    return sorted(placements, key=key)


PLANKS_PER_LOG = 4
PREPARE_PASSES = 3  # re-read and redo: sand or gravel may slide into a dug cell


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
    region = await ctx.region(*work_box(p.origin))
    bp = blueprint_for(p, p.origin, p.facing)
    door = bp.site.entrance
    assert door is not None
    doorway = {door, (door[0], door[1] + 1, door[2])}
    w = site_work(region, p.origin, keep=_built(region, bp), clear=doorway)
    if isinstance(w, str):
        raise ToolFailure(PRECONDITION_FAILED, f"the site at {p.origin} can no longer be built on: {w}")
    return w


async def _filler(ctx: ToolContext, p: ShelterPrepareInput) -> str | None:
    """Dirt or stone if held (digging the site yields dirt), else wall blocks the blueprint
    will not need (the builder brings a few spare planks for this), else planks of the walls'
    wood made from a log held (the spare went into an earlier pass, and a site on rock yields
    no dirt: a bench build failed on two holes with logs in its pack)."""
    snap = await ctx.snapshot()
    for item in FILLERS:
        if snap.count_of(item) > 0:
            return item
    need = blueprint_for(p, p.origin, p.facing).materials()[p.wallBlock]
    if snap.count_of(p.wallBlock) > need:
        return p.wallBlock
    if not p.wallBlock.endswith("_planks"):
        return None
    try:
        await craft(ctx, CraftInput(item=p.wallBlock, count=PLANKS_PER_LOG))
    except ToolFailure as e:
        logger.info("[Shelter] no filler for the site's holes: no {} to spare and {}", p.wallBlock, e.message)
        return None
    return p.wallBlock if (await ctx.snapshot()).count_of(p.wallBlock) > need else None


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
        reachable = [t for t in todo if _reach(stand, t)]
        if not reachable:
            x, _, z = min(todo, key=lambda t: math.dist((t[0], t[2]), (feet[0], feet[2])))

            async def reaches_one() -> bool:
                eye, _ = await _eye(ctx)
                return any(_reach(eye, t) for t in todo)

            await walk_site(ctx, origin, (x + 0.5, origin[1], z + 0.5), 2, reaches_one)
            stand, _ = await _eye(ctx)
            reachable = [t for t in todo if _reach(stand, t)] or [min(todo, key=lambda t: math.dist(t, feet))]
        target = max(reachable, key=lambda t: (t[1], -math.dist(t, feet)))
        todo.remove(target)
        if is_replaceable((await ctx.region(target, (1, 1, 1))).block_at(*target)):
            continue  # gone already (a re-run, or it was never solid)
        await run_action(ctx, "dig", {"x": target[0], "y": target[1], "z": target[2]})
        dug += 1
    return dug


async def _fill_spot_ok(ctx: ToolContext, holes: set[tuple[int, int]], target: tuple[int, int, int]) -> bool:
    stand, feet = await _eye(ctx)
    return (feet[0], feet[2]) not in holes and _reach(stand, target)


async def _fill_all(ctx: ToolContext, p: ShelterPrepareInput, fills: list[tuple[int, int, int]]) -> int:
    """Fill each hole from a site cell that is not a hole (never the bot's own cell)."""
    holes = {(x, z) for x, _, z in fills}
    cells = [(x, p.origin[1], z) for x, z, _ in site_columns(p.origin) if (x, z) not in holes]
    for target in fills:
        ctx.check()
        block = await _filler(ctx, p)
        if block is None:
            raise ToolFailure(
                PRECONDITION_FAILED,
                f"{len(fills)} holes to fill at the site and nothing to fill them with "
                f"(no dirt, no stone, no spare {p.wallBlock})",
            )
        if not await _fill_spot_ok(ctx, holes, target):
            feet = (await _eye(ctx))[1]
            spot = min(cells, key=lambda c: (not _reach((c[0] + 0.5, c[1], c[2] + 0.5), target), math.dist(c, feet)))
            await walk_site(
                ctx, p.origin, (spot[0] + 0.5, spot[1], spot[2] + 0.5), 0, partial(_fill_spot_ok, ctx, holes, target)
            )
        await run_action(ctx, "place", {"block": block, "x": target[0], "y": target[1], "z": target[2]})
    return len(fills)


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


async def _face_the_doorway(ctx: ToolContext, bp: ShelterBlueprint) -> None:
    """A door faces the way its placer looks. Placed from the cell in front of the doorway,
    looking in, it closes across the doorway; placed from a diagonal ring cell it could
    stand along the doorway, and then the open door blocked the way in."""
    assert bp.site.entrance is not None
    outside, _inside = doorway_cells(bp.site.entrance, bp.site.facing)
    await walk_site(ctx, bp.site.refCorner, (outside[0] + 0.5, outside[1], outside[2] + 0.5), 0)
    await run_action(ctx, "step", {"x": outside[0], "y": outside[1], "z": outside[2]})  # the middle: look straight in


async def _check_materials(ctx: ToolContext, module: str, todo: list[tuple[int, int, int, str]]) -> None:
    """A module needs all its blocks in hand. Missing ones (dropped on a death, used up) are a
    precondition, not an execution error: the run is re-planned and gathers them again."""
    snap = await ctx.snapshot()
    need = Counter(block for *_, block in todo)
    missing = {b: n - snap.count_of(b) for b, n in need.items() if snap.count_of(b) < n}
    if missing:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"materials missing for the {module}: " + ", ".join(f"{n} {b}" for b, n in sorted(missing.items())),
            details={"missing": missing},
        )


async def build_shelter_module(ctx: ToolContext, p: ShelterModuleInput) -> dict[str, Any]:
    bp = blueprint_for(p, p.origin, p.facing)
    names = [m.name for m in bp.modules]
    if p.module not in names:
        raise ToolFailure(PRECONDITION_FAILED, f"no module '{p.module}' in {bp.template} (has {', '.join(names)})")
    module = bp.module(p.module)
    xs, ys, zs = zip(*[(x, y, z) for x, y, z, _ in module.placements], strict=True)
    lo = (min(xs), min(ys), min(zs))
    standing = await ctx.region(lo, (max(xs) - lo[0] + 1, max(ys) - lo[1] + 1, max(zs) - lo[2] + 1))
    placed, skipped = [], 0
    todo = []
    for x, y, z, block in _build_order(module.placements, p.origin, block_pos((await ctx.snapshot()).position)):
        here = standing.block_at(x, y, z)
        if stands(p.module, block, here):
            skipped += 1
        elif here is not None and not is_replaceable(here):
            raise ToolFailure(
                PRECONDITION_FAILED, f"{p.module}: {x},{y},{z} is taken by {here}, {block} cannot go there"
            )
        else:
            todo.append((x, y, z, block))
    await _check_materials(ctx, p.module, todo)
    if p.module == "door" and todo:
        await _face_the_doorway(ctx, bp)
    # A placement takes ~0.1-0.3 s: poll it finely, or each one waits out a whole interval.
    fast = replace(ctx, poll_interval_s=min(ctx.poll_interval_s, PLACE_POLL_S))
    for i, (x, y, z, block) in enumerate(todo):
        ctx.check()
        await _approach(ctx, p.origin, (x, y, z), [(a, b, c) for a, b, c, _ in todo[i + 1 :]])
        try:
            await run_action(fast, "place", {"block": block, "x": x, "y": y, "z": z})
        except ToolFailure:
            await _check_materials(ctx, p.module, todo[i:])  # lost on the way (a death): say so, re-plannable
            raise
        placed.append({"x": x, "y": y, "z": z})
    hooks = _hooks(ctx)
    if hooks is not None and p.taskId:
        hooks.module_done(p.taskId, names.index(p.module) + 1, len(names), p.module)
    return {"module": p.module, "placed": placed, "skipped": skipped}


TOOLS = [
    Tool(
        "shelter_site",
        "Choose (or recall) a site for a basic shelter near the bot (least earthwork) and anchor the goal there.",
        ShelterSiteInput,
        shelter_site,
        timeout_s=90,  # two walks of 24 blocks to look farther
        queue=BODY_QUEUE,
    ),
    Tool(
        "prepare_shelter_site",
        "Clear and level a chosen shelter site: dig natural blocks in the way, fill small holes.",
        ShelterPrepareInput,
        prepare_shelter_site,
        timeout_s=600,
        queue=BODY_QUEUE,
    ),
    Tool(
        "build_shelter_module",
        "Build one module of a basic shelter, skipping blocks that already stand.",
        ShelterModuleInput,
        build_shelter_module,
        timeout_s=300,
        queue=BODY_QUEUE,
    ),
]
