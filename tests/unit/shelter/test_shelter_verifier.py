"""verify_shelter_v0 on hand-built regions (docs/contracts.md VERIFY-1: hard and soft
requirements)."""

from __future__ import annotations

import pytest

from agency.blocks import is_open_for_enclosure, is_passable, is_solid
from agency.goals import basic_shelter, verify_shelter_v0
from agency.shelter.testing import RegionSpy, region_from_blocks, with_blocks
from tests.unit.goals.conftest import GROUND_Y, ORIGIN

BP = basic_shelter(ORIGIN, "south")  # 5x5 at x,z 0..4, y 64..66 walls, roof 67, door at (2,64,4)
SITE = BP.site
BUILT = BP.expected_blocks()
DOOR = SITE.entrance


def verify(blocks, site=SITE, **kw):
    region = region_from_blocks(site.footprintBounds.expanded(8), blocks, ground_y=GROUND_Y)
    return verify_shelter_v0(region, site, **kw)


def test_blueprint_built_verifies_done():
    r = verify(BUILT, completed_modules=BP.total_modules, total_modules=BP.total_modules)
    assert r.done, r.blockers
    assert r.blockers == []
    assert r.score == pytest.approx(0.5 + 0.15)  # hard half + full fidelity, no furniture
    assert "entrance_has_door" in r.evidence


@pytest.mark.parametrize("facing", ["north", "south", "east", "west"])
def test_blueprint_verifies_for_every_facing(facing):
    bp = basic_shelter((100, 64, -40), facing)
    r = verify(bp.expected_blocks(), site=bp.site)
    assert r.done, (facing, r.blockers)


def test_open_box_without_door_is_not_enclosed():
    """The doorway is an air gap: passable entrance, but mobs walk in."""
    r = verify(with_blocks(BUILT, [(DOOR, "air"), ((DOOR[0], DOOR[1] + 1, DOOR[2]), "air")]))
    assert not r.done
    assert r.blockers == ["not_enclosed"]


def test_open_door_counts_as_entrance_and_closes_the_enclosure():
    r = verify(with_blocks(BUILT, [(DOOR, "spruce_door"), ((DOOR[0], DOOR[1] + 1, DOOR[2]), "spruce_door")]))
    assert r.done


def test_no_roof():
    no_roof = {p: b for p, b in BUILT.items() if p[1] != ORIGIN[1] + 3}
    r = verify(no_roof)
    assert not r.done
    assert "no_roof" in r.blockers and "not_enclosed" in r.blockers


def test_no_entrance():
    r = verify(with_blocks(BUILT, [(DOOR, "oak_planks"), ((DOOR[0], DOOR[1] + 1, DOOR[2]), "oak_planks")]))
    assert not r.done
    assert r.blockers == ["entrance_blocked"]


def test_no_entrance_declared():
    r = verify(BUILT, site=SITE.model_copy(update={"entrance": None}))
    assert r.blockers == ["no_entrance"]


def test_one_high_entrance():
    r = verify(with_blocks(BUILT, [(DOOR, "air"), ((DOOR[0], DOOR[1] + 1, DOOR[2]), "oak_planks")]))
    assert not r.done
    assert "entrance_too_low" in r.blockers


def test_hole_in_a_wall():
    r = verify(with_blocks(BUILT, [((0, 65, 2), "air")]))
    assert not r.done
    assert r.blockers == ["not_enclosed"]
    assert any(e.startswith("enclosure:") and "leak@" in e for e in r.evidence)


def test_hole_in_the_floor_is_an_opening():
    r = verify(with_blocks(BUILT, [((2, 63, 2), "air"), ((2, 62, 2), "air")]))
    assert "not_enclosed" in r.blockers


def test_dark_enclosed_is_safe_when_covered():
    """Light 0 everywhere, but every probe has a solid block within 4 above."""
    r = verify(BUILT, light=lambda _p: 0)
    assert r.done
    assert any("covered" in e and "light 0" in e for e in r.evidence)


def test_dark_enclosed_with_a_high_ceiling_is_unsafe():
    """Walls 6 high, roof at +6: enclosed and roofed (within 8) but dark and uncovered
    within 4, so mobs can spawn inside."""
    tall = dict(BUILT)
    x0, y0, z0 = ORIGIN
    for (x, y, z), b in BUILT.items():
        if y == y0 + 3:  # move the roof up 3 and raise the walls to meet it
            del tall[(x, y, z)]
            tall[(x, y0 + 6, z)] = b
    for y in range(y0 + 3, y0 + 6):
        for x in range(x0, x0 + 5):
            for z in range(z0, z0 + 5):
                if x in (x0, x0 + 4) or z in (z0, z0 + 4):
                    tall[(x, y, z)] = "oak_planks"
    site = SITE.model_copy(update={"footprintBounds": SITE.footprintBounds.model_copy(update={"max": (4, y0 + 6, 4)})})
    dark = verify(tall, site=site, light=dict.fromkeys(site.interiorProbes, 0))
    assert not dark.done and dark.blockers == ["spawn_unsafe"]
    lit = verify(tall, site=site, light=dict.fromkeys(site.interiorProbes, 12))
    assert lit.done


def test_unloaded_blocks_are_unknown_not_air():
    r = verify(with_blocks(BUILT, [((4, 65, 2), None)]))
    assert not r.done and r.blockers[0] == "unloaded"


def test_probe_inside_a_block():
    r = verify(with_blocks(BUILT, [(p, "dirt") for p in SITE.interiorProbes]))
    assert "not_enclosed" in r.blockers
    assert any("probe_blocked" in e for e in r.evidence)


def test_soft_scores():
    _x0, y0, _z0 = ORIGIN
    furnished = with_blocks(BUILT, [((3, y0, 1), "red_bed"), ((1, y0 + 1, 1), "chest"), ((3, y0, 3), "crafting_table")])
    r = verify(furnished, stations={"furnace": [(1, y0, 3)]}, completed_modules=3, total_modules=6)
    assert r.done, r.blockers
    assert {"soft:bed", "soft:storage", "soft:workstations"} <= set(r.evidence)
    assert r.score == pytest.approx(0.5 + 0.15 + 0.1 + 0.1 + 0.15 * 0.5)


def test_workstations_out_of_reach_do_not_count():
    r = verify(BUILT, stations={"crafting_table": [(2, 64, 2)], "furnace": [(40, 64, 40)]})
    assert "soft:workstations" not in r.evidence


def test_block_classes():
    for name in (
        "air",
        "cave_air",
        "void_air",
        "torch",
        "wall_torch",
        "short_grass",
        "tall_grass",
        "oak_door",
        "iron_door",
    ):
        assert is_passable(name), name
    for name in ("oak_leaves", "glass", "dirt", "oak_slab", "cobblestone"):
        assert is_solid(name), name
    assert not is_open_for_enclosure("oak_door")
    assert not is_passable(None) and not is_solid(None)


def test_shelter_80m_away_does_not_verify_here():
    """A perfect shelter 80 m away is outside footprint + 8 of this site: judged absent."""
    far = basic_shelter((80, 64, 0), "south")
    spy = RegionSpy(
        region_from_blocks(
            SITE.footprintBounds.expanded(8).model_copy(update={"max": (100, 80, 20)}),
            far.expected_blocks(),
            ground_y=GROUND_Y,
        )
    )
    r = verify_shelter_v0(spy, SITE)
    assert not r.done
    assert spy.outside(SITE.footprintBounds.expanded(8)) == []
