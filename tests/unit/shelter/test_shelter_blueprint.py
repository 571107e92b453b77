"""The basic 5x5 shelter blueprint: modules in order, door gap, roof order, site signature."""

from __future__ import annotations

import pytest

from agency.goals import basic_shelter
from agency.goals.models import FACING_VECTORS


def test_modules_in_build_order():
    bp = basic_shelter((0, 64, 0), "south")
    assert [m.name for m in bp.modules] == ["walls_layer_1", "walls_layer_2", "walls_layer_3", "roof", "door", "light"]
    assert basic_shelter((0, 64, 0), floor_block="cobblestone").modules[0].name == "floor"
    layers = [len(bp.module(f"walls_layer_{i}").placements) for i in (1, 2, 3)]
    assert layers == [15, 15, 16]  # 16 perimeter cells, the doorway gap in the first two
    assert len(bp.module("roof").placements) == 25
    assert bp.materials() == {"oak_planks": 15 + 15 + 16 + 25, "oak_door": 1, "torch": 1}


@pytest.mark.parametrize("facing", sorted(FACING_VECTORS))
def test_door_on_the_facing_side(facing):
    bp = basic_shelter((10, 64, 20), facing)
    ex, ey, ez = bp.site.entrance
    dx, dz = FACING_VECTORS[facing]
    cx, cz = 12, 22
    assert (ex - cx, ez - cz) == (2 * dx, 2 * dz)
    assert bp.module("door").placements == [(ex, ey, ez, "oak_door")]
    walls = {(x, y, z) for i in (1, 2) for x, y, z, _ in bp.module(f"walls_layer_{i}").placements}
    assert (ex, ey, ez) not in walls and (ex, ey + 1, ez) not in walls
    assert (ex, ey + 2, ez) in {(x, y, z) for x, y, z, _ in bp.module("walls_layer_3").placements}


def test_roof_rim_first():
    roof = basic_shelter((0, 64, 0)).module("roof").placements
    assert roof[-1][:3] == (2, 67, 2)
    assert all(max(abs(x - 2), abs(z - 2)) == 2 for x, _, z, _ in roof[:16])


def test_site_signature():
    bp = basic_shelter((0, 64, 0), "east")
    site = bp.site
    assert site.refCorner == (0, 64, 0) and site.facing == "east"
    assert site.footprintBounds.min == (0, 63, 0) and site.footprintBounds.max == (4, 67, 4)
    placed = bp.expected_blocks()
    assert all(placed.get(p, "air") in ("air", "torch") for p in site.interiorProbes)
    assert bp.total_modules == 6
    assert bp.digest() == basic_shelter((50, 64, 50), "east").digest()  # relative to the corner
    assert bp.digest() != basic_shelter((0, 64, 0), "east", wall_block="dirt").digest()


def test_bad_facing():
    with pytest.raises(ValueError):
        basic_shelter((0, 0, 0), "up")  # type: ignore[arg-type]  # an invalid facing, on purpose
