"""Agency code that matches block and item names, fed the same world under each version's
names (`grass` is `short_grass` since 1.20.3): every answer must be the same, and a plant
next to the bot is a place to put a block, never the ground to put it on."""

from __future__ import annotations

import asyncio

import pytest

from agency.cognition.drive_rules import select_drive
from agency.cognition.grounding import FrameFacts, check_goal
from agency.execution.builtin_tools import default_tool_registry
from agency.game.recipes import CRAFTABLE, available, matches
from agency.goal_tag import ExtractedGoal
from agency.goals.models import Bounds
from agency.shelter.earthwork import column_work, dig_cost, site_work
from agency.shelter.site_check import stands
from agency.shelter.site_finder import choose_site
from agency.shelter.testing import region_from_blocks
from agency.tools.base import ToolContext
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.spatial import find_in_region, free_spot_near, surface_y
from agency.tools.testing import GROUND_Y, FakeBody, FakeTime
from agency.world import BlockRegion, InventoryItem, Vec3, WorldSnapshot

PLANTS = ["grass", "short_grass"]  # one plant: 1.18.2's name, 1.21.4's name
FEET = (0, 64, 0)


def _field(plant: str, r: int = 3) -> BlockRegion:
    """Grass blocks at y 63, the plant on every cell of y 64 (the bot's feet level), air above."""
    x, y, z = FEET
    cells = {(x + dx, y, z + dz): plant for dx in range(-r, r + 1) for dz in range(-r, r + 1)}
    return region_from_blocks(Bounds(min=(x - r, y - 5, z - r), max=(x + r, y + 6, z + r)), cells, ground_y=y - 1)


@pytest.mark.parametrize("plant", PLANTS)
def test_a_free_spot_next_to_a_bot_in_a_field_of_grass_is_a_grass_cell_on_the_ground(plant: str) -> None:
    spot = free_spot_near(_field(plant), FEET)
    assert spot is not None and spot[1] == FEET[1]  # at the feet, on the grass block: never above a plant
    assert max(abs(spot[0] - FEET[0]), abs(spot[2] - FEET[2])) == 1


def test_a_free_spot_prefers_nothing_but_nearness_and_needs_solid_ground() -> None:
    region = region_from_blocks(Bounds(min=(-2, 62, -2), max=(2, 66, 2)), {}, ground_y=63)
    assert free_spot_near(region, FEET) is not None
    flowers = {(dx, 64, dz): "poppy" for dx in range(-2, 3) for dz in range(-2, 3)}
    flowers.update({(dx, 63, dz): "water" for dx in range(-2, 3) for dz in range(-2, 3)})
    flooded = region_from_blocks(Bounds(min=(-2, 62, -2), max=(2, 66, 2)), flowers, ground_y=62)
    # a flower is not replaceable, water is no ground, and air above a flower is not ground either
    assert free_spot_near(flooded, FEET) is None


def test_a_free_spot_is_never_a_cell_the_bots_body_reaches_into() -> None:
    """A bot near its cell's north-west corner reaches into the cells west, north and
    north-west of it: the game would refuse a block there, so the spot is the next one."""
    region = region_from_blocks(Bounds(min=(-2, 62, -2), max=(2, 66, 2)), {}, ground_y=63)
    assert free_spot_near(region, FEET) == (-1, 64, -1)  # nearest first, west first
    assert free_spot_near(region, FEET, Vec3(x=0.1, y=64, z=0.1)) == (-1, 64, 1)


def test_no_free_spot_in_an_unloaded_world() -> None:
    unloaded = BlockRegion(origin=(-2, 62, -2), size=(5, 5, 5), palette=[None], data=[0] * 125)
    assert free_spot_near(unloaded, FEET) is None


@pytest.mark.parametrize("plant", PLANTS)
def test_the_surface_of_a_column_of_grass_is_the_plants_cell(plant: str) -> None:
    assert surface_y(_field(plant), 1, 1, 70) == FEET[1]


@pytest.mark.parametrize("plant", PLANTS)
def test_earthwork_treats_grass_as_clear_at_either_name(plant: str) -> None:
    region = _field(plant, r=10)
    assert dig_cost(plant) == dig_cost("short_grass")
    for kind in ("inside", "wall", "ring"):
        w = column_work(region, 2, 2, FEET[1], kind)
        assert not isinstance(w, str) and w.empty, (kind, w)
    site = choose_site(region, FEET)
    assert site is not None and site.work.empty
    assert site_work(region, site.origin).empty


def test_the_site_search_reads_both_names_alike() -> None:
    old, new = (choose_site(_field(p, r=10), FEET) for p in PLANTS)
    assert old == new


def test_a_placement_stands_whichever_version_named_it() -> None:
    assert stands("light", "torch", "wall_torch")
    assert stands("door", "short_grass", "grass") and stands("door", "grass", "short_grass")
    assert not stands("door", "oak_door", "air")


@pytest.mark.parametrize(
    "generic, name",
    [
        ("short_grass", "grass"),
        ("grass", "short_grass"),
        ("log", "cherry_log"),
        ("log", "pale_oak_log"),
        ("planks", "mangrove_planks"),
        ("coal", "charcoal"),
    ],
)
def test_recipe_matching_across_versions_and_woods(generic: str, name: str) -> None:
    assert matches(generic, name)


def test_recipe_matching_refuses_what_is_not_one() -> None:
    assert (
        not matches("log", "stripped_oak_log")
        and not matches("grass", "grass_block")
        and not matches("log", "oak_planks")
    )
    assert {"cherry_planks", "pale_oak_planks", "mangrove_planks", "oak_planks"} <= CRAFTABLE
    assert available({"grass": 3, "short_grass": 2}, "short_grass") == 5


@pytest.mark.parametrize("plant", PLANTS)
def test_find_blocks_finds_the_plant_by_either_name(plant: str) -> None:
    region = _field(plant, r=1)
    for asked in PLANTS:
        hits = find_in_region(region, asked, Vec3(x=0.5, y=64, z=0.5), 3)
        assert len(hits) == 3 and {h["name"] for h in hits} == {plant}


def test_inventory_counts_and_grounding_take_either_name() -> None:
    snap = WorldSnapshot(
        health=20,
        food=20,
        gameMode="survival",
        dimension="overworld",
        timeOfDay=1000,
        isDay=True,
        position=Vec3(x=0, y=64, z=0),
        inventory=[InventoryItem(name="grass", count=3)],
        hostiles=0,
        ts=0,
    )
    assert snap.count_of("short_grass") == snap.count_of("grass") == 3
    assert snap.count_of("grass_block") == 0
    for seen, asked in (("short_grass", "grass"), ("grass", "short_grass")):
        facts = FrameFacts.from_snapshot(snap.model_copy(update={"inventory": []}), blocks=[seen])
        goal = ExtractedGoal(action="collect", target=asked, amount=1)
        assert check_goal(goal, facts, scenario_id="t").passed, (seen, asked)
    facts = FrameFacts.from_snapshot(snap.model_copy(update={"inventory": []}), blocks=["grass_block"])
    assert not check_goal(
        ExtractedGoal(action="collect", target="short_grass", amount=1), facts, scenario_id="t"
    ).passed


# -- place_block next to the bot, on a fake world --------------------------------------------


@pytest.fixture
def fake() -> tuple[FakeBody, ToolContext]:
    ft = FakeTime()
    body = FakeBody(ft.clock, inventory={"crafting_table": 1})
    return body, ToolContext(body=body, clock=ft.clock, sleep=ft.sleep, poll_interval_s=0.1)


@pytest.mark.parametrize("plant", PLANTS)
def test_place_block_next_to_a_bot_in_a_field_of_grass_replaces_a_plant(
    fake: tuple[FakeBody, ToolContext], plant: str
) -> None:
    body, ctx = fake
    for dx in range(-3, 4):
        for dz in range(-3, 4):
            body.blocks[(dx, GROUND_Y, dz)] = plant
    res = asyncio.run(default_tool_registry().execute("place_block", {"block": "crafting_table"}, ctx))
    assert res.success, res.error
    assert res.output["y"] == GROUND_Y and body.block(res.output["x"], GROUND_Y, res.output["z"]) == "crafting_table"


def test_place_block_in_an_unloaded_world_says_so_rather_than_no_free_spot(fake: tuple[FakeBody, ToolContext]) -> None:
    body, ctx = fake
    body.region = lambda origin, size: BlockRegion(
        origin=origin, size=size, palette=[None], data=[0] * (size[0] * size[1] * size[2])
    )
    res = asyncio.run(default_tool_registry().execute("place_block", {"block": "crafting_table"}, ctx))
    assert not res.success and res.error.code == PRECONDITION_FAILED
    assert "not loaded" in res.error.message and "no free spot" not in res.error.message
    assert res.error.details["blocksAround"] == () and body.started == []


def test_place_block_with_no_room_says_no_free_spot_and_what_is_around(fake: tuple[FakeBody, ToolContext]) -> None:
    body, ctx = fake
    for dx in range(-3, 4):
        for dz in range(-3, 4):
            for dy in (-1, 0, 1, 2):
                if (dx, dz) != (0, 0):
                    body.blocks[(dx, GROUND_Y + dy, dz)] = "oak_planks"  # walled into a 1x1 shaft (not dug)
    res = asyncio.run(default_tool_registry().execute("place_block", {"block": "crafting_table"}, ctx))
    assert not res.success and res.error.message == "no free spot next to the bot to place crafting_table"
    assert "oak_planks" in res.error.details["blocksAround"]


def test_in_a_tunnel_of_rock_a_cell_beside_the_feet_is_dug_to_place_in(fake: tuple[FakeBody, ToolContext]) -> None:
    body, ctx = fake
    body.inventory["furnace"] = 1
    for dx in range(-3, 4):
        for dz in range(-3, 4):
            for dy in (-1, 0, 1, 2):
                if (dx, dz) != (0, 0):
                    body.blocks[(dx, GROUND_Y + dy, dz)] = "stone"
    body.blocks[(1, GROUND_Y, 0)] = "coal_ore"  # rock too, but next to water: left alone
    body.blocks[(2, GROUND_Y, 0)] = "water"
    res = asyncio.run(default_tool_registry().execute("place_block", {"block": "furnace"}, ctx))
    assert res.success, res.error
    digs = [(a["x"], a["y"], a["z"]) for k, a in body.started if k == "dig"]
    assert digs == [(-1, GROUND_Y, 0)] and body.block(-1, GROUND_Y, 0) == "furnace"


def test_in_a_flooded_tunnel_the_table_goes_into_the_water_beside_the_bot(fake: tuple[FakeBody, ToolContext]) -> None:
    body, ctx = fake
    for dx in range(-3, 4):
        for dz in range(-3, 4):
            for dy in (-1, 0, 1, 2):
                if (dx, dz) != (0, 0):
                    body.blocks[(dx, GROUND_Y + dy, dz)] = "stone"
    for z in range(-3, 4):  # a tunnel along z, flooded to the head, over water: no dry floor
        for dy in (-1, 0, 1):
            body.blocks[(0, GROUND_Y + dy, z)] = "water"
    body.blocks[(0, GROUND_Y - 1, 0)] = "stone"  # the bot stands on the one rock
    res = asyncio.run(default_tool_registry().execute("place_block", {"block": "crafting_table"}, ctx))
    assert res.success, res.error
    spot = (res.output["x"], res.output["y"], res.output["z"])
    # below the feet's level: the tunnel's way on at their level is left open
    assert spot == (0, GROUND_Y - 1, spot[2]) and abs(spot[2]) == 1 and body.block(*spot) == "crafting_table"
    assert body.block(0, GROUND_Y, spot[2]) == "water"
    assert [k for k, _ in body.started if k == "dig"] == []  # rock by water is never dug


def test_the_drive_tick_counts_logs_as_the_crafter_does() -> None:
    def snap(*items: tuple[str, int]) -> WorldSnapshot:
        return WorldSnapshot(
            health=20,
            food=20,
            gameMode="survival",
            dimension="overworld",
            timeOfDay=1000,
            isDay=True,
            position=Vec3(x=0, y=64, z=0),
            inventory=[InventoryItem(name=n, count=c) for n, c in items],
            hostiles=0,
            ts=0,
        )

    assert select_drive(snap(("stripped_oak_log", 9)), True).rule == "no_logs"  # no planks from those
    assert select_drive(snap(("cherry_log", 9)), True).rule == "no_crafting_table"
    assert available({"stripped_oak_log": 9, "cherry_log": 2}, "log") == 2
