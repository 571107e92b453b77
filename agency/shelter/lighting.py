"""Is a shelter lit? Block light inside the hut, worked out from the blocks (the bot cannot
read light levels from every server: the embedded one sends none).

Vanilla block light: an emitter gives its level to its own cell and one less per block of
travel through cells that are not opaque; here a solid block (agency.blocks.is_solid) stops
it and light is followed only inside the footprint (what leaks out and back in through the
doorway is left out: a lower bound). The levels are minecraft-data's emitLight (checked at
1.21.4; unchanged since 1.13 for these).

A floor cell (open, on a solid block) at level >= 8 is safe from hostile spawns under every
rule since 1.13 (before 1.18 they needed light <= 7; since then block light 0).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

from agency.blocks import is_solid
from agency.names import canonical
from agency.shelter.models import Bounds, Pos
from agency.tools.spatial import neighbours

EMITS = {
    "torch": 14,
    "wall_torch": 14,
    "soul_torch": 10,
    "soul_wall_torch": 10,
    "redstone_torch": 7,
    "redstone_wall_torch": 7,
    "lantern": 15,
    "soul_lantern": 10,
    "glowstone": 15,
    "jack_o_lantern": 15,
    "sea_lantern": 15,
    "shroomlight": 15,
    "campfire": 15,
    "soul_campfire": 10,
    "end_rod": 14,
    "ochre_froglight": 15,
    "verdant_froglight": 15,
    "pearlescent_froglight": 15,
}
SAFE_LEVEL = 8

BlockAt = Callable[[Pos], "str | None"]


def emits(name: str | None) -> int:
    return EMITS.get(canonical(name), 0) if name else 0


def block_light(block_at: BlockAt, box: Bounds) -> dict[Pos, int]:
    """Block light of every non-solid cell in `box` reached by an emitter inside it."""
    cells = [
        (x, y, z)
        for x in range(box.min[0], box.max[0] + 1)
        for y in range(box.min[1], box.max[1] + 1)
        for z in range(box.min[2], box.max[2] + 1)
    ]
    level: dict[Pos, int] = {}
    queue: deque[Pos] = deque()
    for p in cells:
        if (e := emits(block_at(p))) > 0:
            level[p] = e
            queue.append(p)
    while queue:  # breadth first from every emitter at once: each cell keeps its best level
        p = queue.popleft()
        nxt = level[p] - 1
        if nxt <= 0:
            continue
        for n in neighbours(p):
            if not box.contains(n) or level.get(n, 0) >= nxt:
                continue
            name = block_at(n)
            if name is None or is_solid(name):
                continue
            level[n] = nxt
            queue.append(n)
    return level


def floor_cells(block_at: BlockAt, cells: Iterable[Pos]) -> list[Pos]:
    """The cells a mob could stand in: open, with a solid block below."""
    return sorted(p for p in cells if not is_solid(block_at(p)) and is_solid(block_at((p[0], p[1] - 1, p[2]))))
