"""Test doubles shipped with the package: hand-built block regions and a region spy.

Used by unit tests and usable by benches and replay fixtures alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from agency.shelter.models import Bounds, Pos
from agency.world import BlockRegion


def region_from_blocks(
    bounds: Bounds,
    blocks: Mapping[Pos, str | None],
    *,
    ground_y: int | None = None,
    ground: str = "grass_block",
    fill: str = "air",
) -> BlockRegion:
    """A BlockRegion covering bounds: `ground` at and below ground_y, `fill` above, then
    `blocks` on top (a None value makes that block unloaded)."""
    (x0, y0, z0), (x1, y1, z1) = bounds.min, bounds.max
    sx, sy, sz = x1 - x0 + 1, y1 - y0 + 1, z1 - z0 + 1
    palette: list[str | None] = []
    index: dict[str | None, int] = {}
    data: list[int] = []
    for y in range(y0, y1 + 1):
        for z in range(z0, z1 + 1):
            for x in range(x0, x1 + 1):
                name = blocks.get((x, y, z), ground if ground_y is not None and y <= ground_y else fill)
                if name not in index:
                    index[name] = len(palette)
                    palette.append(name)
                data.append(index[name])
    return BlockRegion(origin=(x0, y0, z0), size=(sx, sy, sz), palette=palette, data=data)


class RegionSpy:
    """Wraps a region and records every block_at position asked for."""

    def __init__(self, region: BlockRegion) -> None:
        self.region = region
        self.reads: list[Pos] = []

    def block_at(self, x: int, y: int, z: int) -> str | None:
        self.reads.append((x, y, z))
        return self.region.block_at(x, y, z)

    def outside(self, bounds: Bounds) -> list[Pos]:
        return [p for p in self.reads if not bounds.contains(p)]


def with_blocks(blocks: Mapping[Pos, str], changes: Iterable[tuple[Pos, str | None]]) -> dict[Pos, str | None]:
    out: dict[Pos, str | None] = dict(blocks)
    out.update(dict(changes))
    return out
