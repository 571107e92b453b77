"""Shelter tools for the builder: pick and anchor a site (agency.shelter.site_pick), level it
(agency.shelter.site_prepare), then build one blueprint module.

`build_shelter_module` builds one module of agency.shelter.blueprint like build_blueprint
does (one region read, skip what already stands, so a re-run repairs), but places every block
from the ring around the footprint: the bot never walls itself in.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace
from typing import Any

from agency.blocks import is_replaceable, is_solid
from agency.shelter.blueprint import ShelterBlueprint
from agency.shelter.door import doorway_cells
from agency.shelter.site_check import stands
from agency.shelter.site_pick import shelter_site
from agency.shelter.site_prepare import prepare_shelter_site
from agency.shelter.site_walk import approach, back_to_site, walk_site
from agency.shelter.stand_ins import with_stand_ins
from agency.shelter.tool_inputs import (
    ShelterModuleInput,
    ShelterPrepareInput,
    ShelterSiteInput,
    blueprint_for,
    shelter_hooks,
)
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.spatial import block_pos, touches
from agency.world import BlockRegion

PLACE_POLL_S = 0.05


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


def supported_order(
    todo: list[tuple[int, int, int, str]], solid: set[tuple[int, int, int]]
) -> list[tuple[int, int, int, str]]:
    """`todo` in its order, except that a block with nothing solid beside it yet (`solid`: what
    stands now, then each block placed) waits until a neighbour is placed: a place goes
    against a solid face. Started from in front of the door, the ring order put the lintel
    over the doorway first, with both its neighbours still to come: a 1.18.2 bench hut failed
    there twice ("no solid block next to"). What never gets a neighbour keeps its place at the
    end, and its place says so."""
    have, left, out = set(solid), list(todo), []
    while left:
        i = next((i for i, (x, y, z, _) in enumerate(left) if touches((x, y, z), have)), 0)
        x, y, z, block = left.pop(i)
        out.append((x, y, z, block))
        have.add((x, y, z))
    return out


async def _face_the_doorway(ctx: ToolContext, bp: ShelterBlueprint) -> None:
    """A door faces the way its placer looks. Placed from the cell in front of the doorway,
    looking in, it closes across the doorway; placed from a diagonal ring cell it could
    stand along the doorway, and then the open door blocked the way in."""
    assert bp.site.entrance is not None
    outside, _inside = doorway_cells(bp.site.entrance, bp.site.facing)
    await walk_site(ctx, bp.site.refCorner, (outside[0] + 0.5, outside[1], outside[2] + 0.5), 0)
    await run_action(ctx, "step", {"x": outside[0], "y": outside[1], "z": outside[2]})  # the middle: look straight in


Cell = tuple[int, int, int]


def _solid_cells(region: BlockRegion, box: tuple[Cell, Cell]) -> set[Cell]:
    (x0, y0, z0), (sx, sy, sz) = box
    cells = ((x, y, z) for x in range(x0, x0 + sx) for y in range(y0, y0 + sy) for z in range(z0, z0 + sz))
    return {c for c in cells if is_solid(region.block_at(*c))}


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
    size = (max(xs) - lo[0] + 1, max(ys) - lo[1] + 1, max(zs) - lo[2] + 1)
    # a margin of one: the blocks a placement may go against
    box = ((lo[0] - 1, lo[1] - 1, lo[2] - 1), (size[0] + 2, size[1] + 2, size[2] + 2))
    standing = await ctx.region(*box)
    if None in standing.palette:  # resumed at this module far from the site: nothing known there
        await back_to_site(ctx, p.origin, f"the {p.module} not loaded")
        standing = await ctx.region(*box)
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
    todo = with_stand_ins(p.module, todo, (await ctx.snapshot()).held())  # other planks, once the wall's run out
    await _check_materials(ctx, p.module, todo)
    todo = supported_order(todo, _solid_cells(standing, box))
    if p.module == "door" and todo:
        await _face_the_doorway(ctx, bp)
    # A placement takes ~0.1-0.3 s: poll it finely, or each one waits out a whole interval.
    fast = replace(ctx, poll_interval_s=min(ctx.poll_interval_s, PLACE_POLL_S))
    for i, (x, y, z, block) in enumerate(todo):
        ctx.check()
        await approach(ctx, p.origin, (x, y, z), [(a, b, c) for a, b, c, _ in todo[i + 1 :]])
        try:
            await run_action(fast, "place", {"block": block, "x": x, "y": y, "z": z})
        except ToolFailure:
            await _check_materials(ctx, p.module, todo[i:])  # lost on the way (a death): say so, re-plannable
            raise
        placed.append({"x": x, "y": y, "z": z})
    hooks = shelter_hooks(ctx)
    if hooks is not None and p.taskId:
        hooks.module_done(p.taskId, names.index(p.module) + 1, len(names), p.module)
    return {"module": p.module, "placed": placed, "skipped": skipped}


TOOLS = [
    Tool(
        "shelter_site",
        "Choose (or recall) a site for a basic shelter near the bot (least earthwork) and anchor the goal there.",
        ShelterSiteInput,
        shelter_site,
        timeout_s=150,  # a climb out of the ground, two walks of 24 blocks to look farther
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
