"""Which block a raw item is dug from, by minecraft-data's block loot: sure drops only, and
only for raw items of the overworld; the collect tool counts the block's drop. A chance drop
of our table (flint: gravel, one in ten) is dug for until enough drop."""

from __future__ import annotations

import pytest

from agency.execution.agents.gather_plan import gather_plan
from agency.execution.agents.obtain import resolve_obtain
from agency.execution.agents.planning import craft_plan
from agency.execution.agents.sources import source_block
from agency.game.loot import block_dropping, chance_drop, sure_drop
from agency.goal_tag import ExtractedGoal
from agency.tools.gathering import drop_of
from tests.unit.game.test_mcdata_recipes import CLAIMED


@pytest.mark.parametrize("v", CLAIMED)
@pytest.mark.parametrize(
    ("item", "block"),
    [("clay_ball", "clay"), ("snowball", "snow_block"), ("birch_log", "birch_log"), ("cobblestone", "cobblestone")],
)
def test_a_sure_drop_names_its_block_at_every_version(v, item, block):
    assert block_dropping(item, v) == block


@pytest.mark.parametrize("item", ["flint", "apple", "wheat_seeds", "string", "melon_slice"])
def test_the_loots_chances_are_never_planned_on(item):
    assert block_dropping(item) is None  # gravel's flint, leaves' apple, grass's seeds: chances
    assert chance_drop(item) is None or item in ("flint", "wheat_seeds")  # only our table's, with vanilla's figure


def test_flint_is_collected_by_digging_gravel_until_enough_drop():
    got = resolve_obtain(ExtractedGoal(action="obtain", target="flint", amount=2))
    assert isinstance(got, ExtractedGoal) and (got.action, got.target, got.amount) == ("collect", "flint", 2)
    steps = gather_plan("gatherer", {"action": "collect", "target": "flint", "amount": 2}, {}).steps
    assert steps[0].tool == "collect_block" and steps[0].args == {
        "block": "gravel",
        "count": 2,
        "ensure": True,
        "item": "flint",
        "chance": 0.1,
    }
    steel = craft_plan("crafter", {"target": "flint_and_steel", "amount": 1}, {"iron_ingot": 1}).steps
    assert [(s.tool, s.args.get("item")) for s in steel] == [("collect_block", "flint"), ("craft", "flint_and_steel")]


def test_wheat_seeds_are_collected_by_cutting_short_grass_one_in_eight():
    got = resolve_obtain(ExtractedGoal(action="obtain", target="wheat_seeds", amount=3))
    assert isinstance(got, ExtractedGoal) and (got.action, got.target) == ("collect", "wheat_seeds")
    step = gather_plan("gatherer", {"action": "collect", "target": "wheat_seeds", "amount": 3}, {}).steps[0]
    assert step.args["block"] == "short_grass" and step.args["chance"] == 0.125 and step.args["item"] == "wheat_seeds"


def test_the_collect_tool_counts_what_the_block_drops():
    assert (drop_of("clay"), drop_of("snow_block"), drop_of("stone"), drop_of("grass_block")) == (
        "clay_ball",
        "snowball",
        "cobblestone",
        "dirt",
    )
    assert drop_of("oak_log") == "oak_log" and drop_of("log") == "log" and sure_drop("gravel") is None


@pytest.mark.parametrize(
    ("item", "goal"),
    [
        ("clay_ball", ("collect", "clay")),
        ("snowball", ("collect", "snow_block")),
        ("bricks", ("craft", "bricks")),  # clay balls dug, smelted into brick, crafted
    ],
)
def test_obtain_digs_the_loots_block(item, goal):
    got = resolve_obtain(ExtractedGoal(action="obtain", target=item, amount=1))
    assert isinstance(got, ExtractedGoal) and (got.action, got.target) == goal


def test_what_is_made_given_or_found_elsewhere_is_not_dug_for():
    assert source_block("crafting_table") is None  # it drops itself, but it is crafted
    assert source_block("white_wool") is None  # sheep give it; nature places no wool
    assert source_block("glowstone_dust") is None  # the nether's
    assert source_block("birch_log") == "birch_log"  # one wood's log: dug for (not with sticks: below)


def test_one_woods_log_is_gathered_for_its_planks_and_the_sticks_beside_them_leave_them_alone():
    """More spruce planks for a spruce shelter: spruce logs. A birch fence (birch planks and
    sticks of any planks): birch logs, and its sticks and table told to keep the birch planks
    (the craft action's `keep`), so they are made of the oak held."""
    steps = craft_plan("crafter", {"target": "spruce_planks", "amount": 8}, {}).steps
    assert [(s.tool, s.args.get("block") or s.args.get("item")) for s in steps] == [
        ("collect_block", "spruce_log"),
        ("craft", "spruce_planks"),
    ]
    fence = resolve_obtain(ExtractedGoal(action="obtain", target="birch_fence", amount=1), {"oak_log": 5})
    assert fence == ExtractedGoal(action="craft", target="birch_fence", amount=1)
    steps = craft_plan("crafter", {"target": "birch_fence", "amount": 1}, {"oak_log": 5}).steps
    assert ("collect_block", "birch_log") in [(s.tool, s.args.get("block")) for s in steps]
    keeps = {s.args["item"]: s.args.get("keep") for s in steps if s.tool == "craft"}
    assert keeps["stick"] == ["birch_planks"] and keeps["crafting_table"] == ["birch_planks"]
    assert keeps["birch_fence"] is None  # it takes them


def test_a_bricks_plan_digs_clay_smelts_and_crafts():
    steps = craft_plan("crafter", {"target": "bricks", "amount": 1}, {"stone_pickaxe": 1, "oak_log": 8}).steps
    tools = [(s.tool, s.args.get("block") or s.args.get("item")) for s in steps]
    assert ("collect_block", "clay") in tools and ("smelt", "brick") in tools and tools[-1] == ("craft", "bricks")
