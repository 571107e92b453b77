"""Grounding (docs/contracts.md PROPERTY-1): goals and claims that name absent entities, items
or places fail."""

from __future__ import annotations

import pytest

from agency.cognition.grounding import FrameFacts, check, check_doable_goal, check_goal, check_text
from agency.goal_tag import ExtractedGoal
from agency.world import BlockRegion, EntityInfo, Vec3

FACTS = FrameFacts(
    inventory=frozenset({"oak_log", "bread"}),
    entities=frozenset({"cow", "zombie"}),
    blocks=frozenset({"oak_log", "stone", "grass_block", "coal_ore"}),
    locations=frozenset({"home"}),
    hostiles=1,
)


def g(action, target):
    return ExtractedGoal(action=action, target=target, amount=1)


def msgs(logs):
    return [m for _, m in logs]


@pytest.mark.parametrize(
    "action, target",
    [
        ("collect", "oak_log"),
        ("collect", "wood"),
        ("gather", "trees"),
        ("mine", "stone"),
        ("mine", "cobblestone"),
        ("mine", "coal"),
        ("find", "cow"),
        ("attack", "zombie"),
        ("attack", "zombies"),
        ("flee", "zombie"),
        ("flee", "hostiles"),
        ("eat", "bread"),
        ("eat", "food"),
        ("place", "oak_log"),
        ("craft", "crafting_table"),
        ("craft", "wooden_pickaxe"),
        ("smelt", "iron_ingot"),
        ("build", "basic_shelter"),
        ("explore", "nearby"),
        ("explore", "the_unknown"),
        ("navigate", "north"),
        ("navigate", "home"),
        ("navigate", "stone"),
        ("sleep", "night"),
    ],
)
def test_PA_D1_grounded_goals_pass(action, target, logs):
    r = check_goal(g(action, target), FACTS, scenario_id="s1")
    assert r.passed and r.reason is None, r
    assert not any(m.startswith("[Grounding] fail") for m in msgs(logs))


@pytest.mark.parametrize(
    "action, target, reason",
    [
        ("collect", "diamond", "missing_item"),
        ("mine", "iron_ore", "missing_item"),
        ("collect", "birch_log", "missing_item"),
        ("find", "skeleton", "missing_entity"),
        ("collect", "pigs", "missing_entity"),
        ("attack", "creeper", "missing_entity"),
        ("flee", "creeper", "missing_entity"),
        ("eat", "apple", "missing_item"),
        ("place", "torch", "missing_item"),
        ("craft", "flux_capacitor", "missing_item"),
        ("build", "castle", "missing_item"),
        ("navigate", "village", "missing_location"),
        ("navigate", "base", "missing_location"),
    ],
)
def test_PA_D1_fabricated_goal_fails_with_reason_and_log(action, target, reason, logs):
    r = check_goal(g(action, target), FACTS, scenario_id="thought-42")
    assert (r.passed, r.reason) == (False, reason)
    assert r.detail
    assert msgs(logs) == [f"[Grounding] fail scenario=thought-42 reason={reason}"]


def test_flee_generic_threat_needs_a_hostile():
    calm = FrameFacts(entities=frozenset({"cow"}), hostiles=0)
    assert check_goal(g("flee", "danger"), calm, scenario_id="x").reason == "missing_entity"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("I see a creeper by the trees.", "missing_entity"),
        ("Three skeletons are nearby.", "missing_entity"),
        ("I have an iron pickaxe in my inventory.", "missing_item"),
        ("I'm holding a torch.", "missing_item"),
    ],
)
def test_PA_D1_fabricated_text_claims_fail(text, reason, logs):
    r = check_text(text, FACTS, scenario_id="scn-7")
    assert (r.passed, r.reason) == (False, reason)
    assert f"[Grounding] fail scenario=scn-7 reason={reason}" in msgs(logs)


@pytest.mark.parametrize(
    "text",
    [
        "A cow and a zombie are close. It is daytime.",
        "There are no skeletons around.",
        "I don't have a torch.",
        "I have bread and some oak logs.",
        "I have cooked chicken? No, I do not.",
        "The light is fading.",
        "",
    ],
)
def test_PA_D1_true_or_negated_text_passes(text):
    assert check_text(text, FACTS, scenario_id="x").passed


def test_check_runs_goal_then_text():
    r = check(FACTS, scenario_id="x", goal=g("collect", "oak_log"), text="I see a creeper.")
    assert (r.passed, r.reason) == (False, "missing_entity")
    r = check(FACTS, scenario_id="x", goal=g("collect", "diamond"), text="I see a creeper.")
    assert r.reason == "missing_item"
    assert check(FACTS, scenario_id="x").passed
    assert check(FACTS, scenario_id="x").as_record() == {"pass": True, "reason": None, "detail": "grounded"}


def test_frame_facts_from_snapshot_and_region(make_snapshot):
    snap = make_snapshot(
        {"oak_log": 2, "stick": 0},
        entities=[EntityInfo(name="cow", type="mob", hostile=False, distance=4, position=Vec3(x=1, y=64, z=1))],
    )
    region = BlockRegion(origin=(0, 0, 0), size=(2, 1, 1), palette=["air", "birch_log"], data=[0, 1])
    facts = FrameFacts.from_snapshot(snap, region=region, locations=["home"])
    assert facts.inventory == {"oak_log"} and facts.entities == {"cow"}
    assert facts.blocks == {"birch_log"} and facts.locations == {"home"}
    assert check_goal(g("collect", "birch_log"), facts, scenario_id="x").passed


# -- drive-tick goals: held to what the frame shows (a check, not a constant) -------------


def _drive_facts(inventory=(), blocks=()):
    return FrameFacts(inventory=frozenset(inventory), blocks=frozenset(blocks))


@pytest.mark.parametrize(
    "inventory, blocks, passed",
    [
        ((), ("oak_log", "grass_block"), True),  # logs in sight
        (("oak_log",), ("grass_block",), False),  # logs held but none in sight: collecting more needs trees
        ((), ("birch_log",), False),  # the collector looks for the block named, not any log
        ((), (), False),
    ],
)
def test_a_drive_collect_grounds_only_on_the_block_in_sight(inventory, blocks, passed, logs):
    r = check_doable_goal(g("collect", "oak_log"), _drive_facts(inventory, blocks), scenario_id="d1")
    assert r.passed is passed
    if not passed:
        assert (r.reason, r.detail) == ("missing_item", "collect oak_log: none in sight")
        assert "[Grounding] fail scenario=d1 reason=missing_item" in msgs(logs)
    else:
        assert r.detail == "oak_log in sight" and not msgs(logs)


@pytest.mark.parametrize(
    "target, inventory, blocks",
    [
        ("crafting_table", ("oak_log",), ()),  # the ingredients' source is held
        ("crafting_table", ("spruce_planks",), ()),  # the ingredient itself is held
        ("crafting_table", (), ("birch_log",)),  # the source is in sight: the crafter gathers it
        ("wooden_pickaxe", ("oak_planks", "stick"), ("crafting_table",)),
        ("wooden_pickaxe", ("oak_log",), ()),  # planks, sticks and the table all come from logs
        ("stone_pickaxe", ("oak_log",), ("stone",)),  # cobblestone from the stone in sight
        ("torch", ("charcoal", "stick"), ()),
    ],
)
def test_a_drive_craft_grounds_when_ingredients_or_their_sources_are_at_hand(target, inventory, blocks, logs):
    r = check_doable_goal(g("craft", target), _drive_facts(inventory, blocks), scenario_id="d2")
    assert r.passed, r
    assert r.detail == f"{target}: ingredients at hand" and not msgs(logs)


@pytest.mark.parametrize(
    "target, inventory, blocks, missing",
    [
        ("crafting_table", (), ("grass_block",), "log"),
        ("wooden_pickaxe", ("stick",), (), "log"),
        ("stone_pickaxe", ("oak_log",), ("dirt",), "blackstone or cobbled_deepslate or cobblestone"),
        ("torch", ("stick",), ("stone",), "coal"),
        ("diamond_block", ("oak_log",), (), "diamond"),  # minecraft-data's recipe: nine diamonds, none in sight
        ("blaze_rod", ("oak_log",), (), "blaze_rod"),  # no recipe, nothing in sight
    ],
)
def test_a_drive_craft_without_ingredients_or_sources_fails_missing_item(target, inventory, blocks, missing, logs):
    r = check_doable_goal(g("craft", target), _drive_facts(inventory, blocks), scenario_id="d3")
    assert (r.passed, r.reason, r.detail) == (False, "missing_item", f"craft {target}: no {missing} at hand")
    assert "[Grounding] fail scenario=d3 reason=missing_item" in msgs(logs)


def test_drive_build_and_explore_follow_the_goal_checker():
    empty = _drive_facts()
    assert check_doable_goal(g("build", "basic_shelter"), empty, scenario_id="d4").passed
    assert check_doable_goal(g("explore", "nearby"), empty, scenario_id="d4").passed
    assert not check_doable_goal(g("build", "castle_in_the_sky"), empty, scenario_id="d4").passed
