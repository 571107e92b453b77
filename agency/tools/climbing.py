"""Which column to dig up through, out of the ground: the pathfinder (node_modules'
mineflayer-pathfinder, movements.js safeToBreak) digs no block under sand or gravel, and none
next to water or lava, so a climb straight up under a lake's sandy floor or a gravel pocket
finds no path at all (a 26.1 bench bot under a lake: "all 1 nodes in reach searched", and its
log collect failed through a morning). A column that has neither, near the bot, is climbed
instead; under a lake or a sea bed every column near has water over it, and one farther along
a level tunnel is looked for (clear_column_along)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from agency.blocks import is_liquid
from agency.names import canonical
from agency.world import BlockRegion

# What falls when the block under it is dug (the pathfinder refuses to dig under sand and
# gravel; the others fall in the game too).
FALLING = frozenset({"sand", "red_sand", "gravel", "suspicious_sand", "suspicious_gravel"})
CLIMB_RADIUS = 6  # columns this far around the bot (each way) are weighed for the climb
SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))
# A level tunnel (node/lib/actions/tunnel.js) goes at most 64 blocks; the columns along one of
# the four ways, this far, are weighed when none near is clear (a 1.18.2 bench bot under a lake
# bed spent two game days trying the columns within CLIMB_RADIUS, all under the same water).
TUNNEL_REACH = 48
WAYS = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}


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


def along(here: tuple[int, int, int], way: str, height: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The region (origin, size) a look along `way` reads: the line of columns from the bot's
    own to one past TUNNEL_REACH off, with the line on either side of it (every side of a
    column weighed is checked for liquid, its ends' too), from the bot's feet `height` up."""
    dx, dz = WAYS[way]
    far_x, far_z = here[0] + dx * (TUNNEL_REACH + 1), here[2] + dz * (TUNNEL_REACH + 1)
    if dx:
        return (min(here[0], far_x), here[1], here[2] - 1), (TUNNEL_REACH + 2, height, 3)
    return (here[0] - 1, here[1], min(here[2], far_z)), (3, height, TUNNEL_REACH + 2)


def clear_column_along(
    region: BlockRegion,
    here: tuple[int, int, int],
    way: str,
    ground: frozenset[str],
    allowed: Callable[[tuple[int, int, int]], bool] = lambda feet: True,
) -> tuple[int, Column] | None:
    """The nearest column along `way` (in the region `along` names) with ground over the bot's
    head level, safe_to_dig_up and `allowed` (its foot at the bot's level: not under a hut's
    floor), with how many blocks off it is; None when none is."""
    dx, dz = WAYS[way]
    hx, hy, hz = here
    top_of_read = region.origin[1] + region.size[1]
    for d in range(1, TUNNEL_REACH + 1):
        x, z = hx + dx * d, hz + dz * d
        if not allowed((x, hy, z)):
            continue
        tops = [y for y in range(hy + 2, top_of_read) if region.block_at(x, y, z) in ground]
        if not tops:
            continue
        top = min(max(tops), top_of_read - 3)
        if safe_to_dig_up(region, x, z, hy, top):
            return d, Column(x, z, top)
    return None
