"""The order a module's blocks are placed in: every block has something solid to go against."""

from __future__ import annotations

from agency.execution.builtin_tools import default_tool_registry
from agency.goals import basic_shelter
from agency.shelter.tools import _build_order, supported_order
from agency.tools.spatial import touches
from agency.world import Vec3
from tests.unit.conftest import run

ORIGIN = (0, 64, 0)


def _lower_layers_and_ground() -> set[tuple[int, int, int]]:
    bp = basic_shelter(ORIGIN, "south")
    solid = {(x, ORIGIN[1] - 1, z) for x in range(-2, 7) for z in range(-2, 7)}
    for name in ("walls_layer_1", "walls_layer_2"):
        solid |= {(x, y, z) for x, y, z, _ in bp.module(name).placements}
    return solid


Cell = tuple[int, int, int]


def _unsupported(order: list[tuple[int, int, int, str]], solid: set[Cell]) -> list[Cell]:
    have, out = set(solid), []
    for x, y, z, _ in order:
        if not touches((x, y, z), have):
            out.append((x, y, z))
        have.add((x, y, z))
    return out


def test_the_lintel_waits_for_a_neighbour_when_the_bot_stands_in_front_of_the_door():
    layer = basic_shelter(ORIGIN, "south").module("walls_layer_3").placements
    in_front_of_the_door = (2, 64, 6)
    solid = _lower_layers_and_ground()
    ring = _build_order(layer, ORIGIN, in_front_of_the_door)
    assert ring[0][:3] == (2, 66, 4)  # the lintel over the doorway: nothing placed beside it yet
    assert _unsupported(ring, solid) == [(2, 66, 4)]
    order = supported_order(ring, solid)
    assert _unsupported(order, solid) == []
    assert sorted(order) == sorted(ring)
    assert order[0][:3] != (2, 66, 4)


def test_a_block_that_never_gets_a_neighbour_keeps_its_place_at_the_end():
    floating = [(10, 80, 10, "oak_planks"), (0, 65, 0, "oak_planks")]
    assert supported_order(floating, {(0, 64, 0)}) == [(0, 65, 0, "oak_planks"), (10, 80, 10, "oak_planks")]


def test_the_third_wall_layer_is_built_from_in_front_of_the_door(ctx, body):
    """Over the fake world, whose place wants a solid face beside the cell as place.js does."""
    bp = basic_shelter(ORIGIN, "south")
    for name in ("walls_layer_1", "walls_layer_2"):
        for x, y, z, block in bp.module(name).placements:
            body.blocks[(x, y, z)] = block
    body.inventory["oak_planks"] = 16
    body.position = Vec3(x=2.5, y=64, z=6.5)  # in front of the doorway, looking in
    args = {"origin": list(ORIGIN), "facing": "south", "module": "walls_layer_3"}
    res = run(default_tool_registry().execute("build_shelter_module", args, ctx))
    assert res.success, res.error
    assert body.blocks[(2, 66, 4)] == "oak_planks" and len(res.output["placed"]) == 16
