"""Choosing where a basic shelter goes, from ONE block region read around the bot.

A site is a 5x5 footprint with 4 clear layers above its floor (walls + roof), plus a
1-block ring around it that the bot can stand on: the builder places every block from the
ring, so it never walls itself in and never places a block into its own cell. Few spots
are like that already (hills, trees), so every spot is priced by its earthwork
(agency.shelter.earthwork: natural blocks to dig, 1-deep holes to fill) and the cheapest
near the bot wins - a flat clearing next to it costs nothing. The door faces the bot, so
the way in is on the side it came from. Pure: the region comes in, the choice goes out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agency.shelter.blueprint import SIZE
from agency.shelter.earthwork import MAX_COST, MAX_FILLS, RING, Work, column_work, site_work
from agency.shelter.models import FACING_VECTORS, FACINGS, Facing, Pos
from agency.world import BlockRegion

__all__ = ["SCAN_RADIUS", "SiteChoice", "choose_site", "ring_cells", "scan_box"]

SCAN_RADIUS = 16  # blocks around the bot, horizontally (hilly, wooded ground needs room)
SCAN_DOWN = 4  # floors from 2 below the bot's feet (with the ground under a fill)...
SCAN_UP = 5  # ...to 2 above, with the roof layer still inside the read
MAX_STEP = 2  # |floor - feet| considered
DIST_WEIGHT = 0.5  # cost units per block of distance: a clear spot 10 blocks off beats 6 digs here
STEP_WEIGHT = 2.0  # per block of floor above/below the feet
INF = 1e9


@dataclass(frozen=True)
class SiteChoice:
    origin: Pos  # min-x/min-z corner at floor level (first air layer)
    facing: Facing
    distance: float  # bot feet to footprint centre, horizontally
    work: Work  # earthwork before the walls go up (empty on a ready site)


def scan_box(feet: Pos) -> tuple[Pos, Pos]:
    """(origin, size) of the one region read a site choice needs."""
    fx, fy, fz = feet
    side = 2 * SCAN_RADIUS + 1
    return (fx - SCAN_RADIUS, fy - SCAN_DOWN, fz - SCAN_RADIUS), (side, SCAN_DOWN + SCAN_UP + 1, side)


def _facing_towards(origin: Pos, feet: Pos) -> Facing:
    cx, cz = origin[0] + SIZE / 2, origin[2] + SIZE / 2
    vx, vz = feet[0] + 0.5 - cx, feet[2] + 0.5 - cz
    return max(FACINGS, key=lambda f: FACING_VECTORS[f][0] * vx + FACING_VECTORS[f][1] * vz)


class _Sums:
    """Summed-area table of per-column costs: any rectangle's total in O(1)."""

    def __init__(self, cost: list[list[float]]) -> None:
        nx, nz = len(cost), len(cost[0])
        s = [[0.0] * (nz + 1) for _ in range(nx + 1)]
        for i in range(nx):
            for j in range(nz):
                s[i + 1][j + 1] = cost[i][j] + s[i][j + 1] + s[i + 1][j] - s[i][j]
        self.s = s

    def rect(self, i0: int, j0: int, i1: int, j1: int) -> float:  # inclusive of i0..i1-1, j0..j1-1
        s = self.s
        return s[i1][j1] - s[i0][j1] - s[i1][j0] + s[i0][j0]


def _cost(w: Work | str) -> float:
    return INF if isinstance(w, str) else w.cost


def choose_site(region: BlockRegion, feet: Pos) -> SiteChoice | None:
    """The site with the least earthwork + distance + climb, or None if every spot in
    reach needs more than MAX_COST of work (or touches something the builder must keep)."""
    fx, fy, fz = feet
    (ox, _, oz), (sx, _, sz) = region.origin, region.size
    best: tuple[float, Pos] | None = None
    for y0 in range(fy - MAX_STEP, fy + MAX_STEP + 1):
        inner, wall, ring = (
            _Sums([[_cost(column_work(region, ox + i, oz + j, y0, kind)) for j in range(sz)] for i in range(sx)])
            for kind in ("inside", "wall", "ring")
        )
        for i in range(RING, sx - SIZE - RING + 1):
            for j in range(RING, sz - SIZE - RING + 1):
                x0, z0 = ox + i, oz + j
                if x0 <= fx < x0 + SIZE and z0 <= fz < z0 + SIZE:
                    continue  # never build over the bot
                work = (
                    inner.rect(i + 1, j + 1, i + SIZE - 1, j + SIZE - 1)
                    + wall.rect(i, j, i + SIZE, j + SIZE)
                    - wall.rect(i + 1, j + 1, i + SIZE - 1, j + SIZE - 1)
                    + ring.rect(i - RING, j - RING, i + SIZE + RING, j + SIZE + RING)
                    - ring.rect(i, j, i + SIZE, j + SIZE)
                )
                if work > MAX_COST:
                    continue
                dist = math.hypot(x0 + SIZE / 2 - (fx + 0.5), z0 + SIZE / 2 - (fz + 0.5))
                score = work + DIST_WEIGHT * dist + STEP_WEIGHT * abs(y0 - fy)
                if best is None or score < best[0]:
                    origin = (x0, y0, z0)
                    w = site_work(region, origin)
                    if isinstance(w, Work) and len(w.fills) <= MAX_FILLS:
                        best = (score, origin)
    if best is None:
        return None
    origin = best[1]
    w = site_work(region, origin)
    assert isinstance(w, Work)
    dist = math.hypot(origin[0] + SIZE / 2 - (fx + 0.5), origin[2] + SIZE / 2 - (fz + 0.5))
    return SiteChoice(origin, _facing_towards(origin, feet), round(dist, 2), w)


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
