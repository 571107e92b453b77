"""Closing behind a staircase: the cells it opened that must be solid again (a hut's floor, the
ground over a burrow) filled with a block it dug out, farthest first, so a nearer one never stands
between the bot and the next. Used by agency.shelter.dig_in and agency.shelter.burrow."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

from loguru import logger

from agency.blocks import DEEP_ROCK, ROCK, SOIL, is_log, is_solid
from agency.tools.actions import run_action
from agency.tools.base import ToolContext, ToolFailure
from agency.tools.spatial import block_pos, touches

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
    ctx: ToolContext,
    cells: Iterable[Cell],
    *,
    planks: bool = False,
    wood: bool = False,
    toward: tuple[float, float, float] | None = None,
) -> list[list[int]]:
    """Fill those of `cells` that are not solid; returns the ones still open (no filler held, or
    the place failed). `planks`: planks held fill when nothing dug out is (a hut's floor, of
    the hut's own material). `wood`: any other ground held that does not fall, then a log (a
    burrow: its way out digs both). `toward`: the cells nearest this point first (a hostile's
    side), else the farthest from the bot first. A cell with nothing solid beside it waits for a
    filled neighbour, or gets a block under it first (`_in_placeable_order`)."""
    cells = list(cells)
    if not cells:
        return []
    xs, ys, zs = zip(*cells, strict=True)
    lo = (min(xs) - 1, min(ys) - 2, min(zs) - 1)  # their neighbours, and the cells under them
    size = (max(xs) - lo[0] + 2, max(ys) - lo[1] + 2, max(zs) - lo[2] + 2)
    region = await ctx.region(lo, size)
    here = block_pos((await ctx.snapshot()).position)

    def first(c: Cell) -> float:
        if toward is None:
            return -math.dist(c, here)
        return math.dist((c[0] + 0.5, c[1] + 0.5, c[2] + 0.5), toward)

    holes = sorted((c for c in cells if not is_solid(region.block_at(*c))), key=first)
    box = itertools.product(range(lo[0], lo[0] + size[0]), range(lo[1], lo[1] + size[1]), range(lo[2], lo[2] + size[2]))
    solid = {c for c in box if is_solid(region.block_at(*c))}
    body = {here, (here[0], here[1] + 1, here[2])}
    still: list[list[int]] = []
    for cell, support in _in_placeable_order(holes, solid, body):
        filler = await _filler(ctx, planks, wood)
        if filler is None:
            still += [] if support else [list(cell)]
            continue
        try:
            await run_action(ctx, "place", {"block": filler, "x": cell[0], "y": cell[1], "z": cell[2]})
        except ToolFailure as e:
            logger.info("[Shelter] could not fill {} behind the staircase: {}", list(cell), e.message)
            still += [] if support else [list(cell)]
    return still


def _in_placeable_order(holes: list[Cell], solid: set[Cell], body: set[Cell]) -> list[tuple[Cell, bool]]:
    """(cell, is a support) in `holes`' order, except that a hole with nothing solid beside it
    waits for a filled neighbour, and one that never gets one is placed over a support: a block
    in the open cell under it, when that touches something solid and is not where the bot
    stands. A 26.1 bench burrow's two cells beside the bot opened onto a cave, nothing to place
    against, and a zombie came in by them."""
    have, left, out = set(solid), list(holes), []

    def support(cell: Cell) -> Cell | None:
        under = (cell[0], cell[1] - 1, cell[2])
        return under if under not in have and under not in body and touches(under, have) else None

    while left:
        i = next((i for i, c in enumerate(left) if touches(c, have)), None)
        if i is None:
            under = next((u for c in left if (u := support(c)) is not None), None)
            if under is not None:
                out.append((under, True))
                have.add(under)
                continue
            out += [(c, False) for c in left]  # nothing to place against: their places say so
            break
        cell = left.pop(i)
        out.append((cell, False))
        have.add(cell)
    return out


async def _filler(ctx: ToolContext, planks: bool, wood: bool) -> str | None:
    """A block dug out, else (when allowed) planks: a staircase under a hut dug out nothing to
    fill its floor with, and the floor stayed open all night in a bench run. A burrow (`wood`)
    takes any other ground or log held: three bench burrows failed for want of fill ("the way in
    is still open"), the bot left out in the night."""
    held = sorted(i.name for i in (await ctx.snapshot()).inventory if i.count > 0)
    dug = next((name for name in FILLERS if name in held), None)
    if dug or not (planks or wood):
        return dug
    if wood:  # what a burrow's way out digs (agency.blocks.natural_ground): never planks
        return next((n for n in held if n in BURROW_GROUND), None) or next((n for n in held if is_log(n)), None)
    return next((n for n in held if n.endswith("_planks")), None)
