"""Earthwork: what must be dug or filled before a basic shelter fits a spot.

Real ground is rarely flat for 7x7 blocks, and the embedded world's woods put a trunk or a
canopy over most spots. So a site is judged by the work it needs, not by whether it is
already perfect: the 5x5 footprint must be clear for its 4 layers (walls + roof) - except
that a natural solid block where a wall or the roof goes may stay as part of it - and the
1-block ring around it (where the builder stands) clear for 2 layers, all over solid
ground at one floor level. A column may need natural blocks dug (a dirt bump, a trunk,
leaves) or a 1-deep hole in the floor filled. Anything else there - a plank, a torch, a
door, water - is somebody's or something's and makes the spot unusable: the builder never
tears down what it did not grow. Pure: a region comes in, the work list goes out.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from agency.blocks import (
    ROCK,
    SOIL,
    is_door,
    is_leaves,
    is_liquid,
    is_log,
    is_passable,
    is_replaceable,
    is_solid,
    tree_blocks,
)
from agency.names import canonical
from agency.shelter.blueprint import SIZE, WALL_HEIGHT
from agency.shelter.models import Pos
from agency.world import BlockRegion

RING = 1
# Cost units ~ seconds of work by hand: leaves and soil are quick, a log slower, stone
# without a pickaxe slowest. A fill is a walk + a placement + material.
# What a path to the site may be dug through (move_to digOnly): trees only. Never soil: a
# pathfinder digging down would hole the site's floor.
PATH_DIGGABLE = tree_blocks()
LEAF_COST, SOIL_COST, LOG_COST, ROCK_COST, PLANT_COST, FILL_COST = 1.0, 1.0, 2.0, 4.0, 0.5, 3.0
MAX_COST = 48.0  # more than this and the site is not worth it (a couple of minutes' work)
MAX_FILLS = 4  # fills need material: dirt dug on site, else the planks the builder brings spare
# A hut being repaired keeps its place: a hole in its floor is filled from this deep up (the
# bot's own shafts and tunnels under it), up to REPAIR_MAX_FILLS blocks in all.
REPAIR_FILL_DEPTH = 3
REPAIR_MAX_FILLS = 16


@dataclass(frozen=True)
class Work:
    digs: tuple[Pos, ...] = ()
    fills: tuple[Pos, ...] = ()
    cost: float = 0.0

    @property
    def empty(self) -> bool:
        return not self.digs and not self.fills

    def __add__(self, other: Work) -> Work:
        return Work(self.digs + other.digs, self.fills + other.fills, self.cost + other.cost)


NOTHING = Work()
NOT_LOADED = "not loaded"  # why a column cannot be judged: the bot is too far for its chunk


def dig_cost(name: str) -> float | None:
    """Cost of digging a natural block; None for anything the builder must not remove."""
    name = canonical(name)
    if is_leaves(name):
        return LEAF_COST
    if name.endswith(("_log", "_wood")):
        return LOG_COST
    if name in SOIL:
        return SOIL_COST
    if name in ROCK:
        return ROCK_COST
    if is_passable(name) and not is_door(name) and not is_liquid(name) and not name.endswith(("torch", "_sign")):
        return PLANT_COST  # flowers, ferns, saplings: not replaceable by a placement, but a tap removes them
    return None


ColumnKind = Literal["ring", "wall", "inside"]  # where the builder stands / footprint perimeter / interior


def _clear(name: str, kind: ColumnKind) -> bool:
    if kind != "ring":
        return is_replaceable(name)  # a block will be placed there, or must be walkable air
    return is_passable(name) and not is_door(name) and not is_liquid(name)


def _shell(name: str, kind: ColumnKind, dy: int) -> bool:
    """A natural solid block where the hut's shell goes (a wall cell, or the roof layer) can
    stay: the verifier asks for a closed wall and roof, not planks, and the module tool
    skips any solid block there. (The door cell is judged again, with the blueprint, by
    the prepare tool.) Never a log: the bot's own collects take the nearest logs, and a bench
    hut built around a trunk lost it to the first `collect log` after it (a hole in the wall,
    the hut re-opened for repair half a minute after it was verified)."""
    shell = kind == "wall" or (kind == "inside" and dy == WALL_HEIGHT)
    # leaves stay: mobs neither pass nor spawn on them
    return shell and is_solid(name) and dig_cost(name) is not None and not is_log(name)


def column_work(
    region: BlockRegion,
    x: int,
    z: int,
    y0: int,
    kind: ColumnKind,
    keep: Collection[Pos] = (),
    clear: Collection[Pos] = (),
) -> Work | str:
    """The work making column x,z usable at floor level y0 (footprint: 4 layers clear or
    shell; ring: 2 standable layers; both: solid ground below), or why it cannot be. `keep`:
    cells already holding what the shelter puts there (a resumed or repaired build, whose
    ring may keep a deep hole: the builder reaches the walls from the rest of it);
    `clear`: shell cells that must be emptied anyway (the doorway)."""
    digs: list[Pos] = []
    cost = 0.0
    for y in range(y0 + (1 if kind == "ring" else WALL_HEIGHT), y0 - 1, -1):  # top down: the dig order
        name = region.block_at(x, y, z)
        if name is None:
            return f"{x},{y},{z} {NOT_LOADED}"
        if _clear(name, kind) or (x, y, z) in keep or (_shell(name, kind, y - y0) and (x, y, z) not in clear):
            continue
        c = dig_cost(name)
        if c is None and kind == "ring" and keep:
            # a block not to dig beside a hut being repaired (its own cobblestone from a night's
            # pillar): the builder stands elsewhere round it, as round a crater. A 1.18.2 bench
            # hut's repair failed for good on one (seed 2953 at a6804fe).
            continue
        if c is None:
            return f"{x},{y},{z} is {name}"
        digs.append((x, y, z))
        cost += c
    floor = region.block_at(x, y0 - 1, z)
    if floor is None:
        return f"{x},{y0 - 1},{z} {NOT_LOADED}"
    if is_solid(floor) and not is_leaves(floor):
        return Work(tuple(digs), (), cost)
    # A hole (or a leaf/plant) in the floor: fill it, if there is ground right below to place on.
    below = region.block_at(x, y0 - 2, z)
    if not (is_solid(below) and not is_leaves(below)):
        if kind == "ring" and keep:  # a crater beside a hut being repaired (a creeper's): stand elsewhere
            return Work(tuple(digs), (), cost)
        if not keep:
            return f"{x},{y0 - 1},{z} is a hole deeper than 1"
        # a hut being repaired: its floor cell over a shaft (a staircase dug from inside it) is
        # filled against the floor beside it (a bench hut failed its repair on one for good),
        # or, nothing beside it, from the shaft's bottom up
        if not is_replaceable(floor):
            return f"{x},{y0 - 1},{z} is {floor}"
        fills = _shaft_fill(region, x, z, y0)
        if fills is None:
            return f"{x},{y0 - 1},{z} is a hole deeper than {REPAIR_FILL_DEPTH} with nothing beside it"
        return Work(tuple(digs), fills, cost + FILL_COST * len(fills))
    if not is_replaceable(floor):
        c = dig_cost(floor)
        if c is None:
            return f"{x},{y0 - 1},{z} is {floor}"
        digs.append((x, y0 - 1, z))
        cost += c
    return Work(tuple(digs), ((x, y0 - 1, z),), cost + FILL_COST)


def _ground(name: str | None) -> bool:
    return is_solid(name) and not is_leaves(name)


def _shaft_fill(region: BlockRegion, x: int, z: int, y0: int) -> tuple[Pos, ...] | None:
    """The cells that fill the hole under floor cell x,y0-1,z, bottom first: down to the first
    that has ground beside it or under it (a place goes against a solid face), at most
    REPAIR_FILL_DEPTH deep. A 26.1 bench bot working under its hut at night left a wall's
    ground cell with no floor beside it, and the hut's repair failed on it."""
    for depth in range(1, REPAIR_FILL_DEPTH + 1):
        y = y0 - depth
        if not is_replaceable(region.block_at(x, y, z)):
            return None
        beside = [region.block_at(x + dx, y, z + dz) for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1))]
        if _ground(region.block_at(x, y - 1, z)) or any(_ground(b) for b in beside):
            return tuple((x, y0 - d, z) for d in range(depth, 0, -1))
    return None


def column_kind(origin: Pos, x: int, z: int) -> ColumnKind:
    x0, _, z0 = origin
    if not (x0 <= x < x0 + SIZE and z0 <= z < z0 + SIZE):
        return "ring"
    return "wall" if x in (x0, x0 + SIZE - 1) or z in (z0, z0 + SIZE - 1) else "inside"


def site_columns(origin: Pos) -> list[tuple[int, int, ColumnKind]]:
    """(x, z, kind) for the footprint and the ring around it."""
    x0, _, z0 = origin
    return [
        (x, z, column_kind(origin, x, z))
        for x in range(x0 - RING, x0 + SIZE + RING)
        for z in range(z0 - RING, z0 + SIZE + RING)
    ]


def site_work(region: BlockRegion, origin: Pos, keep: Collection[Pos] = (), clear: Collection[Pos] = ()) -> Work | str:
    """All the work at a site (digs top down, then fills), or why the site is unusable."""
    total = NOTHING
    for x, z, kind in site_columns(origin):
        w = column_work(region, x, z, origin[1], kind, keep, clear)
        if isinstance(w, str):
            return w
        total = total + w
    if keep and len(total.fills) > REPAIR_MAX_FILLS:
        return f"{len(total.fills)} cells to fill under the hut, more than a repair fills ({REPAIR_MAX_FILLS})"
    return Work(tuple(sorted(total.digs, key=lambda p: (-p[1], p[0], p[2]))), total.fills, total.cost)


def work_box(origin: Pos) -> tuple[Pos, tuple[int, int, int]]:
    """(origin, size) of the region read site_work needs: footprint + ring, floor - 1 .. roof."""
    x0, y0, z0 = origin
    side = SIZE + 2 * RING
    down = REPAIR_FILL_DEPTH + 1  # a repair's shaft fills and the ground under them
    return (x0 - RING, y0 - down, z0 - RING), (side, WALL_HEIGHT + down + 1, side)


def keep_box(origin: Pos) -> tuple[int, int, int, int, int, int]:
    """The box a walk that digs must leave alone near a site or a hut (move_to keepOut):
    footprint + ring, from under the floor to two over the roof (pathfinder checks a bridging
    block one cell over the one it places)."""
    x0, y0, z0 = origin
    return (x0 - RING, y0 - 3, z0 - RING, x0 + SIZE + RING, y0 + WALL_HEIGHT + 3, z0 + SIZE + RING)
