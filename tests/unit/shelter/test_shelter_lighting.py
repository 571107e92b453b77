"""The verifier's `lit` verdict: every floor cell inside at block light >= 8 from the emitters
inside the hut, worked out from the blocks. It can fail without failing the shelter."""

from __future__ import annotations

import pytest

from agency.goals import basic_shelter, verify_shelter_v0
from agency.shelter.lighting import SAFE_LEVEL, block_light
from agency.shelter.models import Bounds
from agency.shelter.testing import region_from_blocks, with_blocks
from tests.unit.goals.conftest import GROUND_Y, ORIGIN

BP = basic_shelter(ORIGIN, "south")
SITE = BP.site
BUILT = BP.expected_blocks()  # with the light module's torch in the corner
TORCH = BP.module("light").placements[0][:3]


def verify(blocks, site=SITE):
    return verify_shelter_v0(region_from_blocks(site.footprintBounds.expanded(8), blocks, ground_y=GROUND_Y), site)


@pytest.mark.parametrize("facing", ["north", "south", "east", "west"])
def test_the_blueprints_one_torch_lights_every_floor_cell_for_every_facing(facing):
    bp = basic_shelter((100, 64, -40), facing)
    r = verify(bp.expected_blocks(), site=bp.site)
    assert r.done and r.lit is True, r.evidence
    assert any(e.startswith("lit:9/9 floor cells") for e in r.evidence), r.evidence


def test_a_hut_without_its_torch_is_a_shelter_but_not_lit():
    r = verify(with_blocks(BUILT, [(TORCH, "air")]))
    assert r.done and r.lit is False
    assert any(e.startswith("lit:0/9") for e in r.evidence), r.evidence


def test_a_wall_torch_or_a_lantern_lights_it_too_and_a_redstone_torch_is_too_dim():
    assert verify(with_blocks(BUILT, [(TORCH, "wall_torch")])).lit is True
    assert verify(with_blocks(BUILT, [(TORCH, "lantern")])).lit is True
    assert verify(with_blocks(BUILT, [(TORCH, "redstone_torch")])).lit is False  # 7: the far corner gets 3


def test_a_torch_outside_the_walls_does_not_light_the_inside():
    x0, y0, z0 = ORIGIN
    outside = (x0 - 1, y0, z0 + 1)  # against the west wall, outside
    assert verify(with_blocks(BUILT, [(TORCH, "air"), (outside, "torch")])).lit is False


def test_nothing_enclosed_leaves_lit_unjudged():
    door = SITE.entrance
    r = verify(with_blocks(BUILT, [(door, "air"), ((door[0], door[1] + 1, door[2]), "air")]))
    assert r.blockers == ["not_enclosed"] and r.lit is None


def test_light_falls_one_per_block_and_stops_at_solid_blocks():
    blocks = {(0, 64, 0): "torch", (3, 64, 0): "stone"}
    region = region_from_blocks(Bounds(min=(-2, 63, -2), max=(6, 66, 2)), blocks, ground_y=63)
    levels = block_light(lambda p: region.block_at(*p), Bounds(min=(-2, 64, -2), max=(6, 66, 2)))
    assert levels[(0, 64, 0)] == 14 and levels[(2, 64, 0)] == 12 and levels[(0, 66, 2)] == 10
    assert (3, 64, 0) not in levels  # the stone itself
    assert levels[(4, 64, 0)] == 8  # around it: 6 steps, 2 more than the straight line
    assert SAFE_LEVEL == 8
