"""Choosing where a basic shelter goes, from ONE block region read around the bot.

A site is a 5x5 footprint on solid ground with 4 clear layers above (walls + roof), plus a
1-block ring around it that the bot can stand on: the builder places every block from the
ring, so it never walls itself in and never places a block into its own cell. The door
faces the bot, so the way in is on the side it came from. Pure: the region comes in, the
choice goes out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agency.goals.blocks import AIRS, is_door, is_passable, is_solid
from agency.goals.models import FACING_VECTORS, Facing, Pos
from agency.goals.shelter_blueprint import SIZE, WALL_HEIGHT
from agency.world import BlockRegion

SCAN_RADIUS = 16  # blocks around the bot, horizontally (hilly, wooded ground needs room)
SCAN_DOWN = 3  # ground may sit up to 2 below the bot's feet...
SCAN_UP = 5  # ...or 2 above, with the roof layer still inside the read
MAX_STEP = 2  # |ground - feet| considered
RING = 1
# What the JS place action may replace (node/lib/actions/place.js REPLACEABLE, minus liquids).
REPLACEABLE = AIRS | {"grass", "short_grass", "tall_grass", "snow"}


@dataclass(frozen=True)
class SiteChoice:
    origin: Pos  # min-x/min-z corner at floor level (first air layer)
    facing: Facing
    distance: float  # bot feet to footprint centre, horizontally


def scan_box(feet: Pos) -> tuple[Pos, Pos]:
    """(origin, size) of the one region read a site choice needs."""
    fx, fy, fz = feet
    side = 2 * SCAN_RADIUS + 1
    return (fx - SCAN_RADIUS, fy - SCAN_DOWN, fz - SCAN_RADIUS), (side, SCAN_DOWN + SCAN_UP + 1, side)


def _column_levels(region: BlockRegion, x: int, z: int, levels: range) -> tuple[set[int], set[int]]:
    """Floor levels y0 at which column x,z can hold a shelter cell (solid below, 4 clear
    layers) and at which the bot can stand there (solid below, 2 passable layers)."""
    build, stand = set(), set()
    for y0 in levels:
        below = region.block_at(x, y0 - 1, z)
        if not is_solid(below) or (below or "").endswith("_leaves"):
            continue
        cells = [region.block_at(x, y0 + dy, z) for dy in range(WALL_HEIGHT + 1)]
        if all(c in REPLACEABLE for c in cells):
            build.add(y0)
        if all(is_passable(c) and not is_door(c) for c in cells[:2]):
            stand.add(y0)
    return build, stand


def _facing_towards(origin: Pos, feet: Pos) -> Facing:
    cx, cz = origin[0] + SIZE / 2, origin[2] + SIZE / 2
    vx, vz = feet[0] + 0.5 - cx, feet[2] + 0.5 - cz
    return max(FACING_VECTORS, key=lambda f: FACING_VECTORS[f][0] * vx + FACING_VECTORS[f][1] * vz)  # type: ignore[return-value]


def choose_site(region: BlockRegion, feet: Pos) -> SiteChoice | None:
    """The flat site nearest the bot (same floor level first), or None."""
    fx, fy, fz = feet
    levels = range(fy - MAX_STEP, fy + MAX_STEP + 1)
    (ox, _, oz), (sx, _, sz) = region.origin, region.size
    cols = {(x, z): _column_levels(region, x, z, levels) for x in range(ox, ox + sx) for z in range(oz, oz + sz)}
    best: tuple[tuple[int, float], SiteChoice] | None = None
    for x0 in range(ox + RING, ox + sx - SIZE - RING + 1):
        for z0 in range(oz + RING, oz + sz - SIZE - RING + 1):
            if x0 <= fx < x0 + SIZE and z0 <= fz < z0 + SIZE:
                continue  # never build over the bot
            dist = math.hypot(x0 + SIZE / 2 - (fx + 0.5), z0 + SIZE / 2 - (fz + 0.5))
            for y0 in sorted(levels, key=lambda y: abs(y - fy)):
                cost = (abs(y0 - fy), dist)
                if best is not None and cost >= best[0]:
                    break
                if _fits(cols, x0, y0, z0):
                    origin = (x0, y0, z0)
                    best = (cost, SiteChoice(origin, _facing_towards(origin, feet), round(dist, 2)))
                    break
    return None if best is None else best[1]


def _fits(cols: dict[tuple[int, int], tuple[set[int], set[int]]], x0: int, y0: int, z0: int) -> bool:
    for x in range(x0 - RING, x0 + SIZE + RING):
        for z in range(z0 - RING, z0 + SIZE + RING):
            inside = x0 <= x < x0 + SIZE and z0 <= z < z0 + SIZE
            build, stand = cols[(x, z)]
            if y0 not in (build if inside else stand):
                return False
    return True


def ring_cells(origin: Pos) -> list[Pos]:
    """Where the builder stands: the cells just outside the footprint, at floor level."""
    x0, y0, z0 = origin
    lo_x, hi_x, lo_z, hi_z = x0 - RING, x0 + SIZE, z0 - RING, z0 + SIZE
    return [
        (x, y0, z)
        for x in range(lo_x, hi_x + 1)
        for z in range(lo_z, hi_z + 1)
        if x in (lo_x, hi_x) or z in (lo_z, hi_z)
    ]
