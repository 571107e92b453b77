"""Which column to dig up through, out of the ground: the pathfinder (node_modules'
mineflayer-pathfinder, movements.js safeToBreak) digs no block under sand or gravel, and none
next to water or lava, so a climb straight up under a lake's sandy floor or a gravel pocket
finds no path at all (a 26.1 bench bot under a lake: "all 1 nodes in reach searched", and its
log collect failed through a morning). A column that has neither, near the bot, is climbed
instead."""

from __future__ import annotations

import math
from typing import NamedTuple

from agency.blocks import is_liquid
from agency.names import canonical
from agency.world import BlockRegion

# What falls when the block under it is dug (the pathfinder refuses to dig under sand and
# gravel; the others fall in the game too).
FALLING = frozenset({"sand", "red_sand", "gravel", "suspicious_sand", "suspicious_gravel"})
CLIMB_RADIUS = 6  # columns this far around the bot (each way) are weighed for the climb
SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))


class Column(NamedTuple):
    x: int
    z: int
    top: int  # the highest ground block of the column: the climb ends standing on it


def _falls(name: str | None) -> bool:
    return name is not None and canonical(name) in FALLING


def safe_to_dig_up(region: BlockRegion, x: int, z: int, from_y: int, top: int) -> bool:
    """May the column x,z be dug from feet height from_y up through top and stood on? None of
    its blocks from from_y to two over top (the standing room) is a liquid or unloaded, none
    over the head's block falls, and no liquid is beside a block dug or the standing room."""
    for y in range(from_y, top + 3):
        name = region.block_at(x, y, z)
        if name is None or is_liquid(name) or (y >= from_y + 2 and _falls(name)):
            return False
        for dx, dz in SIDES:
            if region.contains(x + dx, y, z + dz) and is_liquid(region.block_at(x + dx, y, z + dz)):
                return False
    return True


def climb_columns(
    region: BlockRegion, here: tuple[int, int, int], ground: frozenset[str], limit: int = 3
) -> list[Column]:
    """The columns around `here` (the bot's feet) to dig up through, nearest first (then the
    lowest top: less to dig): each with ground over the bot's head level (`ground` names what
    counts) and safe_to_dig_up. The region spans the columns around and the column's height
    over `here`."""
    hx, hy, hz = here
    ox, oy, oz = region.origin
    sx, sy, sz = region.size
    found: list[tuple[float, int, Column]] = []
    for x in range(ox, ox + sx):
        for z in range(oz, oz + sz):
            tops = [y for y in range(hy + 2, oy + sy) if region.block_at(x, y, z) in ground]
            if not tops:
                continue
            # ground up to the region's top: as far as is seen (the climb goes on from there)
            top = min(max(tops), oy + sy - 3)
            if not safe_to_dig_up(region, x, z, hy, top):
                continue
            found.append((math.dist((x, z), (hx, hz)), top, Column(x, z, top)))
    found.sort(key=lambda f: (f[0], f[1]))
    return [c for _, _, c in found[:limit]]
