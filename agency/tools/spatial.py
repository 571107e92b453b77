"""Pure spatial helpers over one BlockRegion read: finding blocks, a free spot to place
something, the walkable surface of a column. One region call each, never block by block."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from agency.blocks import is_liquid, is_replaceable, is_solid, is_walkable
from agency.game.recipes import matches
from agency.world import BlockRegion, Body, Vec3

PLAYER_HALF_WIDTH = 0.3
PLAYER_HEIGHT = 1.8


def block_pos(p: Vec3) -> tuple[int, int, int]:
    return (math.floor(p.x), math.floor(p.y), math.floor(p.z))


FACES = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


def neighbours(cell: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    """The six cells sharing a face with `cell`."""
    return [(cell[0] + dx, cell[1] + dy, cell[2] + dz) for dx, dy, dz in FACES]


def touches(cell: tuple[int, int, int], solid: set[tuple[int, int, int]]) -> bool:
    """A face of `cell` against one of `solid`: a block placed there has something to go against."""
    return any(n in solid for n in neighbours(cell))


def chunk_of(x: float, z: float) -> str:
    return f"{math.floor(x) >> 4},{math.floor(z) >> 4}"


def read_around(body: Body, center: tuple[int, int, int], radius: int, up: int, down: int) -> BlockRegion:
    cx, cy, cz = center
    return body.region((cx - radius, cy - down, cz - radius), (2 * radius + 1, up + down + 1, 2 * radius + 1))


def iter_blocks(region: BlockRegion) -> Iterable[tuple[int, int, int, str]]:
    ox, oy, oz = region.origin
    sx, _sy, sz = region.size
    for i, pi in enumerate(region.data):
        name = region.palette[pi]
        if name is None:
            continue
        x = i % sx
        z = (i // sx) % sz
        y = i // (sx * sz)
        yield ox + x, oy + y, oz + z, name


def wet(region: BlockRegion, cell: tuple[int, int, int]) -> bool:
    """Water or lava on a face of `cell`: dug, the hole floods as it opens."""
    return any(is_liquid(region.block_at(*n)) for n in neighbours(cell))


def find_in_region(
    region: BlockRegion, block: str, origin: Vec3, count: int, *, dry: bool = False
) -> list[dict[str, Any]]:
    """The nearest `count` blocks of a kind; `dry`: none with water or lava on a face (wet)."""
    wanted = {n for n in region.palette if n is not None and matches(block, n)}
    if not wanted:
        return []
    hits = []
    for x, y, z, name in iter_blocks(region):
        if name in wanted and not (dry and wet(region, (x, y, z))):
            d = math.dist((x + 0.5, y + 0.5, z + 0.5), (origin.x, origin.y, origin.z))
            hits.append((round(d, 2), x, y, z, name))
    hits.sort()
    return [{"x": x, "y": y, "z": z, "name": n, "distance": d} for d, x, y, z, n in hits[:count]]


def cells_around(
    feet: tuple[int, int, int], levels: tuple[int, ...], standing: Vec3 | None = None
) -> Iterable[tuple[int, int, int]]:
    """The cells next to (not inside) the bot's column, 1 then 2 out, at each of `levels`
    (relative to the feet) in that order. Given where the bot stands, a cell its body reaches
    into is left out: the game refuses to place a block into a player."""
    fx, fy, fz = feet
    for r in (1, 2):
        for dy in levels:
            for dx in range(-r, r + 1):
                for dz in range(-r, r + 1):
                    if max(abs(dx), abs(dz)) != r:
                        continue
                    x, y, z = fx + dx, fy + dy, fz + dz
                    if standing is None or not in_body(standing, x, y, z):
                        yield (x, y, z)


def free_spot_near(
    region: BlockRegion, feet: tuple[int, int, int], standing: Vec3 | None = None
) -> tuple[int, int, int] | None:
    """A cell a block can be placed into (air, or a plant a placement replaces: grass,
    fern...) on solid ground, next to the bot, nearest first (cells_around)."""
    for x, y, z in cells_around(feet, (0, -1, 1), standing):
        if is_replaceable(region.block_at(x, y, z)) and is_solid(region.block_at(x, y - 1, z)):
            return (x, y, z)
    return None


def spot_against_near(
    region: BlockRegion, feet: tuple[int, int, int], standing: Vec3 | None = None
) -> tuple[int, int, int] | None:
    """When no cell on solid ground is free: one of air, a plant or a liquid (a placement
    replaces water or lava, as the game lets a player) with a solid block on any face to
    place against, next to the bot, nearest first. A 1.18.2 bench bot in a flooded tunnel had
    only water and rock beside it and could not put its crafting table down all night. A cell
    below the feet's level first: one at their level may be the tunnel's way on or out."""
    for cell in cells_around(feet, (-1, 0, 1), standing):
        here = region.block_at(*cell)
        if (is_replaceable(here) or is_liquid(here)) and any(is_solid(region.block_at(*n)) for n in neighbours(cell)):
            return cell
    return None


def in_body(p: Vec3, x: int, y: int, z: int) -> bool:
    """Whether a player standing at p (0.6 wide, 1.8 tall) reaches into the cell x, y, z."""
    return (
        x < p.x + PLAYER_HALF_WIDTH
        and p.x - PLAYER_HALF_WIDTH < x + 1
        and z < p.z + PLAYER_HALF_WIDTH
        and p.z - PLAYER_HALF_WIDTH < z + 1
        and y < p.y + PLAYER_HEIGHT
        and p.y < y + 1
    )


def surface_y(region: BlockRegion, x: int, z: int, near_y: int) -> int | None:
    """Feet y of the standable spot in column x,z closest to near_y (solid below, 2 free)."""
    oy = region.origin[1]
    best: int | None = None
    for y in range(oy + 1, oy + region.size[1] - 1):
        below, feet, head = region.block_at(x, y - 1, z), region.block_at(x, y, z), region.block_at(x, y + 1, z)
        if below is None or feet is None or head is None:
            continue
        if (
            is_solid(below)
            and is_walkable(feet)
            and is_walkable(head)
            and (best is None or abs(y - near_y) < abs(best - near_y))
        ):
            best = y
    return best
