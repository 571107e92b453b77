"""Planks stand in for planks: a wall of one wood goes on in another held once its own run out."""

from __future__ import annotations

from collections import Counter

from agency.execution.builtin_tools import default_tool_registry
from agency.shelter.stand_ins import spare_planks, with_stand_ins
from agency.tools.results import PRECONDITION_FAILED
from tests.unit.conftest import run

ORIGIN = (0, 64, 0)
LAYER = {"origin": list(ORIGIN), "facing": "south", "module": "walls_layer_1", "wallBlock": "acacia_planks"}


def test_a_wall_layer_goes_on_in_oak_once_its_acacia_planks_run_out(ctx, body):
    body.inventory.update({"acacia_planks": 6, "oak_planks": 20})
    res = run(default_tool_registry().execute("build_shelter_module", LAYER, ctx))
    assert res.success, res.error
    placed = Counter(body.blocks[(p["x"], p["y"], p["z"])] for p in res.output["placed"])
    assert placed == {"acacia_planks": 6, "oak_planks": 9}  # 16 cells, less the doorway's
    assert body.inventory.get("acacia_planks", 0) == 0 and body.inventory["oak_planks"] == 11


def test_too_few_planks_of_any_wood_is_a_precondition_naming_the_walls_wood(ctx, body):
    body.inventory.update({"acacia_planks": 6, "birch_planks": 4})
    res = run(default_tool_registry().execute("build_shelter_module", LAYER, ctx))
    assert res.success is False and res.error.code == PRECONDITION_FAILED
    assert "materials missing for the walls_layer_1: 5 acacia_planks" in res.error.message
    assert not any(kind == "place" for kind, _ in body.started)


def test_only_walls_and_roof_take_stand_ins_and_a_hole_takes_planks_beyond_the_walls_need():
    door = [(0, 0, 0, "acacia_door")]
    assert with_stand_ins("door", door, {"oak_door": 1}) == door
    light = [(0, 0, 0, "acacia_planks")]  # a module that is neither wall nor roof keeps its block
    assert with_stand_ins("light", light, {"oak_planks": 3}) == light
    cells = [(i, 0, 0, "acacia_planks") for i in range(3)]
    assert [b for *_, b in with_stand_ins("roof", cells, {"acacia_planks": 1, "oak_planks": 1, "birch_planks": 2})] == [
        "acacia_planks",
        "birch_planks",
        "birch_planks",
    ]
    assert spare_planks({"acacia_planks": 2, "oak_planks": 9}, "acacia_planks", 10) == "acacia_planks"
    assert spare_planks({"oak_planks": 11}, "acacia_planks", 10) == "oak_planks"
    assert spare_planks({"acacia_planks": 4, "oak_planks": 6}, "acacia_planks", 10) is None
