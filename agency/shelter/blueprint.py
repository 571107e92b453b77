"""The basic shelter blueprint: a 5x5 (outer) hut as ordered, resumable modules, plus the
SiteSignature the verifier judges it by.

origin is the min-x/min-z corner at ground level: the first air layer, y of the bot's feet
on flat ground. Walls are 3 high on the perimeter, with a 2-high door gap in the middle of
the facing side; the roof covers the 5x5 at y+3; a torch stands inside. Placements within
a module are ordered so each block has a placed or natural neighbour to go against (roof
from the rim inwards).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agency.shelter.models import FACING_VECTORS, Bounds, Facing, Pos, SiteSignature

SIZE = 5
WALL_HEIGHT = 3

Placement = tuple[int, int, int, str]


@dataclass(frozen=True)
class Module:
    name: str
    placements: list[Placement]


@dataclass(frozen=True)
class ShelterBlueprint:
    template: str
    modules: list[Module]
    site: SiteSignature
    door_block: str
    extra_world_blocks: list[Placement] = field(default_factory=list)  # e.g. the door's upper half

    @property
    def total_modules(self) -> int:
        return len(self.modules)

    def module(self, name: str) -> Module:
        return next(m for m in self.modules if m.name == name)

    def materials(self) -> Counter[str]:
        """Items to have before building (a door item places both halves)."""
        return Counter(block for m in self.modules for *_, block in m.placements)

    def expected_blocks(self) -> dict[Pos, str]:
        """The world once every module is built, including blocks the game adds itself."""
        out = {(x, y, z): b for m in self.modules for x, y, z, b in m.placements}
        out.update({(x, y, z): b for x, y, z, b in self.extra_world_blocks})
        return out

    def digest(self) -> str:
        """templateDigest: identity input for build_structure goals (not for shelters)."""
        body = [[m.name, [list(p) for p in m.placements]] for m in self.modules]
        rel = json.dumps([self.template, self._relative(body)], separators=(",", ":"))
        return hashlib.sha256(rel.encode()).hexdigest()[:32]

    def _relative(self, body: list[Any]) -> list[Any]:
        ox, oy, oz = self.site.refCorner
        return [[n, [[x - ox, y - oy, z - oz, b] for x, y, z, b in ps]] for n, ps in body]


def _door_cell(origin: Pos, facing: Facing) -> tuple[int, int]:
    x0, _, z0 = origin
    mid, far = SIZE // 2, SIZE - 1
    return {
        "north": (x0 + mid, z0),
        "south": (x0 + mid, z0 + far),
        "west": (x0, z0 + mid),
        "east": (x0 + far, z0 + mid),
    }[facing]


def _perimeter(origin: Pos) -> list[tuple[int, int]]:
    x0, _, z0 = origin
    cells = [(x0 + dx, z0 + dz) for dz in range(SIZE) for dx in range(SIZE)]
    return [(x, z) for x, z in cells if x in (x0, x0 + SIZE - 1) or z in (z0, z0 + SIZE - 1)]


def basic_shelter(
    origin: Pos,
    facing: Facing = "south",
    *,
    wall_block: str = "oak_planks",
    roof_block: str | None = None,
    floor_block: str | None = None,
    door_block: str = "oak_door",
    light_block: str = "torch",
) -> ShelterBlueprint:
    """Modules: [floor,] walls_layer_1..3, roof, door, light. floor_block=None leaves the
    ground as the floor (the builder levels the site first: agency.shelter.earthwork)."""
    if facing not in FACING_VECTORS:
        raise ValueError(f"facing must be one of {sorted(FACING_VECTORS)}, got {facing!r}")
    x0, y0, z0 = origin
    door = _door_cell(origin, facing)
    modules: list[Module] = []
    if floor_block:
        floor = [(x0 + dx, y0 - 1, z0 + dz, floor_block) for dz in range(SIZE) for dx in range(SIZE)]
        modules.append(Module("floor", floor))
    for layer in range(WALL_HEIGHT):
        gap = layer < 2  # the doorway is 2 high
        cells = [c for c in _perimeter(origin) if not (gap and c == door)]
        modules.append(Module(f"walls_layer_{layer + 1}", [(x, y0 + layer, z, wall_block) for x, z in cells]))
    cx, cz = x0 + SIZE // 2, z0 + SIZE // 2
    roof_cells = sorted(
        ((x0 + dx, z0 + dz) for dz in range(SIZE) for dx in range(SIZE)),
        key=lambda c: (-max(abs(c[0] - cx), abs(c[1] - cz)), c[1], c[0]),  # rim first, centre last
    )
    modules.append(Module("roof", [(x, y0 + WALL_HEIGHT, z, roof_block or wall_block) for x, z in roof_cells]))
    modules.append(Module("door", [(door[0], y0, door[1], door_block)]))
    torch = (x0 + 1, y0, z0 + 1)  # an interior corner: out of the walking line, on the ground
    modules.append(Module("light", [(*torch, light_block)]))

    probes = [(cx, y0, cz), (cx, y0 + 1, cz), (x0 + SIZE - 2, y0, z0 + SIZE - 2)]
    site = SiteSignature(
        refCorner=origin,
        facing=facing,
        # y0-1 is the floor/ground layer: a hole there is an opening too.
        footprintBounds=Bounds(min=(x0, y0 - 1, z0), max=(x0 + SIZE - 1, y0 + WALL_HEIGHT, z0 + SIZE - 1)),
        entrance=(door[0], y0, door[1]),
        interiorProbes=probes,
    )
    return ShelterBlueprint(
        template="basic_shelter_5x5",
        modules=modules,
        site=site,
        door_block=door_block,
        extra_world_blocks=[(door[0], y0 + 1, door[1], door_block)],
    )
