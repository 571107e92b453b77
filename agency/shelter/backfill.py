"""Closing behind a staircase: the cells it opened that must be solid again (a hut's floor, the
ground over a burrow) filled with a block it dug out, farthest first, so a nearer one never stands
between the bot and the next. Used by agency.shelter.dig_in and agency.shelter.burrow."""

from __future__ import annotations

import math
from collections.abc import Iterable

from loguru import logger

from agency.blocks import DEEP_ROCK, ROCK, SOIL, is_log, is_solid
from agency.tools.actions import run_action
from agency.tools.base import ToolContext, ToolFailure
from agency.tools.spatial import block_pos

Cell = tuple[int, int, int]
# what a staircase or a site's levelling digs out of the ground, placed back (dirt first)
FILLERS = (
    "dirt",
    "coarse_dirt",
    "cobblestone",
    "cobbled_deepslate",
    "stone",
    "granite",
    "diorite",
    "andesite",
    "tuff",
)
# Ground a burrow may close itself in with besides: what does not fall (sand and gravel do).
BURROW_GROUND = (SOIL | ROCK | DEEP_ROCK) - {"sand", "red_sand", "gravel"}


async def fill_open(
    ctx: ToolContext, cells: Iterable[Cell], *, planks: bool = False, wood: bool = False
) -> list[list[int]]:
    """Fill those of `cells` that are not solid; returns the ones still open (no filler held, or
    the place failed). `planks`: planks held fill when nothing dug out is (a hut's floor, of
    the hut's own material). `wood`: any other ground held that does not fall, then a log (a
    burrow: its way out digs both)."""
    cells = list(cells)
    if not cells:
        return []
    xs, ys, zs = zip(*cells, strict=True)
    lo = (min(xs), min(ys), min(zs))
    region = await ctx.region(lo, (max(xs) - lo[0] + 1, max(ys) - lo[1] + 1, max(zs) - lo[2] + 1))
    here = block_pos((await ctx.snapshot()).position)
    holes = sorted((c for c in cells if not is_solid(region.block_at(*c))), key=lambda c: -math.dist(c, here))
    still: list[list[int]] = []
    for cell in holes:
        filler = await _filler(ctx, planks, wood)
        if filler is None:
            still.append(list(cell))
            continue
        try:
            await run_action(ctx, "place", {"block": filler, "x": cell[0], "y": cell[1], "z": cell[2]})
        except ToolFailure as e:
            logger.info("[Shelter] could not fill {} behind the staircase: {}", list(cell), e.message)
            still.append(list(cell))
    return still


async def _filler(ctx: ToolContext, planks: bool, wood: bool) -> str | None:
    """A block dug out, else (when allowed) planks: a staircase under a hut dug out nothing to
    fill its floor with, and the floor stayed open all night in a bench run. A burrow (`wood`)
    takes any other ground or log held: a 26.1 bench bot on a mountain ran out of what its
    staircase dug out with two cells beside it open, and a zombie came in."""
    held = sorted(i.name for i in (await ctx.snapshot()).inventory if i.count > 0)
    dug = next((name for name in FILLERS if name in held), None)
    if dug or not (planks or wood):
        return dug
    if wood:  # what a burrow's way out digs (agency.blocks.natural_ground): never planks
        return next((n for n in held if n in BURROW_GROUND), None) or next((n for n in held if is_log(n)), None)
    return next((n for n in held if n.endswith("_planks")), None)
