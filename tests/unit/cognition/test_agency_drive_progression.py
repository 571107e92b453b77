"""The drive tick's tech-tree progression, where the plain `explore nearby` was.

Each step fires exactly when it is the next missing one; the first five rules of
docs/contracts.md DRIVE-3 keep their order ahead of it; every goal it emits routes to a
workflow whose plan can be built."""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path

import pytest

from agency.cognition import drive_tick, progression
from agency.cognition.drive_selection import DriveSelection
from agency.cognition.drive_tick import (
    DriveSkipReason,
    DriveTickFired,
    DriveTickSkipped,
    DriveTickState,
    evaluate_drive_tick,
    select_drive,
)
from agency.cognition.grounding import GroundingResult
from agency.cognition.progression import next_progression_step, routable
from agency.cognition.sanitizer import sanitize
from agency.execution.agents.planning import craft_plan
from agency.execution.agents.smelt_plan import smelt_plan
from agency.goal_tag import build_goal_tag_v1
from agency.planning.tasks.models import TaskOrigin
from agency.world import BlockRegion, Vec3

BASE = {"oak_log": 20, "crafting_table": 1, "wooden_pickaxe": 1}  # the first five DRIVE-3 rules all pass
SPEC_RULES = ("no_logs", "night_no_shelter", "no_crafting_table", "no_pickaxe", "low_logs")
ORDER = (
    "no_cobblestone",
    "no_stone_pickaxe",
    "no_sword",
    "no_furnace",
    "no_coal",
    "no_iron_ore",
    "no_iron_ingot",
    "no_iron_pickaxe",
    "no_iron_sword",
    "default",
)
AGENTS = Path(__file__).resolve().parents[3] / "config" / "agents"


@pytest.fixture
def iron_recipes(monkeypatch):
    """The crafter knowing iron tools (it does not yet: then those steps are never emitted)."""
    monkeypatch.setattr(progression, "CRAFTABLE", progression.CRAFTABLE | {"iron_pickaxe", "iron_sword"})


def _inv(**more: int) -> dict[str, int]:
    return {**BASE, **more}


# The tech tree walked step by step: (inventory, rule, goal).
WALK = [
    (_inv(), "no_cobblestone", ("collect", "stone", 13)),
    (_inv(cobblestone=5), "no_cobblestone", ("collect", "stone", 8)),
    (_inv(cobblestone=13), "no_stone_pickaxe", ("craft", "stone_pickaxe", 1)),
    (_inv(stone_pickaxe=1, cobblestone=10), "no_sword", ("craft", "stone_sword", 1)),
    (_inv(stone_pickaxe=1, stone_sword=1, cobblestone=8), "no_furnace", ("craft", "furnace", 1)),
    (_inv(stone_pickaxe=1, stone_sword=1, furnace=1), "no_coal", ("collect", "coal_ore", 3)),
    (_inv(stone_pickaxe=1, stone_sword=1, furnace=1, coal=3), "no_iron_ore", ("collect", "iron_ore", 3)),
    (_inv(stone_pickaxe=1, stone_sword=1, furnace=1, coal=3, raw_iron=1), "no_iron_ore", ("collect", "iron_ore", 2)),
    (_inv(stone_pickaxe=1, stone_sword=1, furnace=1, coal=3, raw_iron=3), "no_iron_ingot", ("smelt", "iron_ingot", 3)),
    (
        _inv(stone_pickaxe=1, stone_sword=1, furnace=1, coal=2, raw_iron=2, iron_ingot=1),
        "no_iron_ingot",
        ("smelt", "iron_ingot", 2),
    ),
    (_inv(stone_pickaxe=1, stone_sword=1, coal=2, iron_ingot=3), "no_iron_pickaxe", ("craft", "iron_pickaxe", 1)),
    (_inv(stone_pickaxe=1, stone_sword=1, iron_pickaxe=1, iron_ingot=2), "no_iron_sword", ("craft", "iron_sword", 1)),
    (_inv(stone_pickaxe=1, stone_sword=1, iron_pickaxe=1), "default", ("explore", "nearby", 1)),
    (_inv(iron_pickaxe=1, iron_sword=1, iron_ingot=5), "default", ("explore", "nearby", 1)),
]


def _goal(sel):
    return (sel.action, sel.target, sel.amount)


@pytest.mark.parametrize(("inventory", "rule", "goal"), WALK, ids=[f"{i}-{w[1]}" for i, w in enumerate(WALK)])
def test_each_step_fires_when_it_is_the_next_missing_one(make_snapshot, iron_recipes, inventory, rule, goal):
    sel = select_drive(make_snapshot(inventory), True, None)
    assert (sel.rule, _goal(sel)) == (rule, goal)
    assert " I " in f" {sel.reason}" and sel.reason.endswith(".")  # a first-person sentence


def test_walking_the_tree_never_goes_back_to_an_earlier_step(make_snapshot, iron_recipes):
    rules = [select_drive(make_snapshot(inv), True).rule for inv, _, _ in WALK]
    assert [ORDER.index(r) for r in rules] == sorted(ORDER.index(r) for r in rules)
    assert set(rules) == set(ORDER)  # every step is reached


@pytest.mark.parametrize(("inventory", "rule", "goal"), WALK, ids=[f"{i}-{w[1]}" for i, w in enumerate(WALK)])
def test_the_spec_rules_keep_their_order_ahead_of_the_progression(make_snapshot, iron_recipes, inventory, rule, goal):
    # night without shelter, a missing table, a missing pickaxe (the wooden one counted by any
    # '_pickaxe'), low logs: each still wins over every progression step
    assert select_drive(make_snapshot(inventory, timeOfDay=12_000), False).rule == "night_no_shelter"
    no_logs = {k: v for k, v in inventory.items() if k != "oak_log"}
    assert select_drive(make_snapshot(no_logs), True).rule == "no_logs"
    no_table = {k: v for k, v in inventory.items() if k != "crafting_table"}
    assert select_drive(make_snapshot(no_table), True, False).rule == "no_crafting_table"
    assert select_drive(make_snapshot({**inventory, "oak_log": 15}), True).rule == "low_logs"
    no_pick = {k: v for k, v in inventory.items() if not k.endswith("_pickaxe")}
    assert select_drive(make_snapshot(no_pick), True).rule == "no_pickaxe"


GRID = list(itertools.product((0, 3, 13), (0, 1), (0, 1), (0, 3), (0, 1, 3), (0, 2, 3), (0, 1), (0, 1)))


def test_later_steps_never_fire_before_the_ones_they_build_on(make_snapshot, iron_recipes):
    """Over a grid of inventories: what each step needs is in hand whenever it fires."""
    seen = set()
    for cobble, stone, furnace, coal, raw, ingots, iron, sword in GRID:
        inv = _inv(
            cobblestone=cobble,
            stone_pickaxe=stone,
            stone_sword=sword,
            furnace=furnace,
            coal=coal,
            raw_iron=raw,
            iron_ingot=ingots,
            iron_pickaxe=iron,
        )
        sel = select_drive(make_snapshot({k: v for k, v in inv.items() if v}), True)
        seen.add(sel.rule)
        later = ORDER.index(sel.rule)
        if later > ORDER.index("no_cobblestone") and not iron:
            assert stone or cobble >= 3, inv  # never past cobblestone without the stone pickaxe's
        if later > ORDER.index("no_sword"):
            # nothing past the stone age bare-handed (or no iron sword soon)
            assert sword or (iron and ingots >= 2), inv
        if later > ORDER.index("no_stone_pickaxe"):
            assert stone or iron, inv
        if ORDER.index("no_furnace") < later <= ORDER.index("no_iron_ingot"):
            assert furnace, inv  # nothing smelts without a furnace held (none in sight here)
        if sel.rule == "no_iron_ore":
            assert coal, inv  # fuel is arranged before the hunt for iron
        if sel.rule == "no_iron_ingot":
            assert raw + ingots >= 3, inv
        if sel.rule == "no_iron_pickaxe":
            assert ingots >= 3, inv
        if sel.rule == "no_iron_sword":
            assert iron and ingots >= 2, inv
    assert seen == set(ORDER)


def test_a_furnace_nearby_counts_as_held(make_snapshot):
    inv = _inv(stone_pickaxe=1, stone_sword=1)
    assert select_drive(make_snapshot(inv), True).rule == "no_cobblestone"  # 8 for the furnace
    assert select_drive(make_snapshot(inv), True, None, True).rule == "no_coal"
    assert select_drive(make_snapshot({**inv, "cobblestone": 8}), True, None, False).rule == "no_furnace"


def test_no_furnace_is_wanted_once_the_iron_is_smelted(make_snapshot):
    # the furnace stood where the iron was smelted: far from it now, no new one is made
    assert select_drive(make_snapshot(_inv(stone_pickaxe=1, stone_sword=1, iron_ingot=3)), True).rule != "no_furnace"
    assert select_drive(make_snapshot(_inv(stone_pickaxe=1, stone_sword=1, iron_pickaxe=1)), True).rule == "default"


def test_iron_in_hand_is_smelted_with_the_logs_when_no_coal_was_found(make_snapshot):
    assert _goal(select_drive(make_snapshot(_inv(stone_pickaxe=1, stone_sword=1, furnace=1, raw_iron=3)), True)) == (
        "smelt",
        "iron_ingot",
        3,
    )


def test_the_iron_tools_are_crafted_once_the_ingots_are_held(make_snapshot):
    assert routable("craft", "iron_pickaxe") and routable("craft", "iron_sword")
    snap = make_snapshot(_inv(stone_pickaxe=1, stone_sword=1, iron_ingot=3))
    assert _goal(select_drive(snap, True)) == ("craft", "iron_pickaxe", 1)


def test_a_step_no_workflow_carries_out_is_never_emitted(make_snapshot, monkeypatch):
    # a crafter without iron tool recipes: the progression ends at the ingots
    monkeypatch.setattr(progression, "CRAFTABLE", progression.CRAFTABLE - {"iron_pickaxe", "iron_sword"})
    assert not routable("craft", "iron_pickaxe")
    assert next_progression_step(make_snapshot(_inv(stone_pickaxe=1, stone_sword=1, iron_ingot=3))) is None
    assert select_drive(make_snapshot(_inv(stone_pickaxe=1, stone_sword=1, iron_ingot=3)), True).rule == "default"


def test_routable_follows_the_workflows():
    assert routable("collect", "iron_ore") and routable("craft", "furnace") and routable("smelt", "iron_ingot")
    assert routable("craft", "diamond_pickaxe")  # minecraft-data's recipe book: every craftable item
    assert not routable("craft", "blaze_rod") and not routable("smelt", "dirt")
    assert not routable("explore", "nearby")  # not a progression step's action


@pytest.mark.parametrize(("inventory", "rule", "goal"), WALK, ids=[f"{i}-{w[1]}" for i, w in enumerate(WALK)])
def test_every_emitted_goal_round_trips_and_its_workflow_plans(make_snapshot, iron_recipes, inventory, rule, goal):
    sel = select_drive(make_snapshot(inventory), True)
    action, target, amount = _goal(sel)
    parsed = sanitize(f"{sel.reason}\n{build_goal_tag_v1(action, target, amount)}").goal
    assert parsed is not None and (parsed.action, parsed.target, parsed.amount) == goal
    workflows = {name for f in AGENTS.glob("*.toml") for name in tomllib.loads(f.read_text()).get("workflows", {})}
    assert action in workflows
    task = {"target": target, "amount": amount, "facts": {"craftingTable": True}}
    if action == "craft" and target in {"stone_pickaxe", "stone_sword", "furnace"}:
        assert craft_plan("crafter", task, inventory).steps  # no NO_RECIPE / NO_SOURCE
    if action == "smelt":
        assert smelt_plan("crafter", task, inventory).steps


# -- through the drive tick: the frame grounds the progression's goals -----------------------------


def _sight(*names):
    palette = ["air", *names]
    return BlockRegion(origin=(0, 64, 0), size=(len(palette), 1, 1), palette=palette, data=list(range(len(palette))))


def _tick(snapshot, **kw):
    return evaluate_drive_tick(snapshot, 1_000, DriveTickState(), (), shelter_nearby=True, **kw)


def test_stone_in_sight_is_mined_for_cobblestone(make_snapshot):
    r = _tick(make_snapshot(_inv()), region=_sight("grass_block", "dirt", "stone"))
    assert isinstance(r, DriveTickFired) and r.selection.rule == "no_cobblestone" and r.ungrounded is None
    assert r.thought.metadata.goalKey == "collect:stone"
    assert r.thought.metadata.grounding["detail"] == "stone in sight"


COAL_NEXT = _inv(stone_pickaxe=1, stone_sword=1, furnace=1)
IRON_NEXT = _inv(stone_pickaxe=1, stone_sword=1, furnace=1, coal=3)


@pytest.mark.parametrize(
    ("inventory", "y", "step", "goal_key"),
    [
        (COAL_NEXT, 64, "no_coal", "descend:y52"),  # 12 below the bot
        (COAL_NEXT, 30, "no_coal", "descend:y18"),
        (COAL_NEXT, 20, "no_coal", "descend:y12"),  # the safe floor, not lower
        (IRON_NEXT, 64, "no_iron_ore", "descend:y40"),  # down to where iron lies
        (IRON_NEXT, 90, "no_iron_ore", "descend:y42"),  # at most 48 blocks in one descent
        (IRON_NEXT, 45, "no_iron_ore", "descend:y33"),  # already near it: 12 lower
        (IRON_NEXT, 15, "no_iron_ore", "explore:nearby"),  # at the floor: explore
    ],
    ids=lambda v: str(v) if not isinstance(v, dict) else "",
)
def test_ores_out_of_sight_are_dug_down_for(make_snapshot, inventory, y, step, goal_key):
    r = _tick(make_snapshot(inventory, position=Vec3(x=0, y=y, z=0)), region=_sight("grass_block", "stone"))
    assert isinstance(r, DriveTickFired) and r.ungrounded is not None and r.ungrounded.rule == step
    assert r.thought.metadata.goalKey == goal_key
    assert r.selection.rule == ("explore_first" if goal_key.startswith("explore") else "dig_down_first")
    assert r.thought.metadata.grounding["pass"] is True
    assert r.selection.action == "explore" or routable(r.selection.action, r.selection.target)


def test_once_the_ore_is_in_sight_the_collect_step_takes_over(make_snapshot):
    r = _tick(make_snapshot(IRON_NEXT, position=Vec3(x=0, y=40, z=0)), region=_sight("stone", "iron_ore"))
    assert r.selection.rule == "no_iron_ore" and r.thought.metadata.goalKey == "collect:iron_ore"
    r = _tick(make_snapshot(COAL_NEXT), region=_sight("stone", "coal_ore"))
    assert r.selection.rule == "no_coal" and r.thought.metadata.goalKey == "collect:coal_ore"


def test_no_digging_down_without_a_pickaxe_or_for_what_lies_on_the_surface(make_snapshot):
    failed = GroundingResult(False, "missing_item", "collect iron_ore: none in sight")
    no_pick = make_snapshot({"oak_log": 20, "coal": 3})
    assert (
        progression.dig_down_first(DriveSelection("collect", "iron_ore", 3, "no_iron_ore", ""), no_pick, failed) is None
    )
    with_pick = make_snapshot(IRON_NEXT)
    assert progression.dig_down_first(DriveSelection("collect", "oak_log", 8, "no_logs", ""), with_pick, failed) is None
    sel = progression.dig_down_first(DriveSelection("collect", "iron_ore", 3, "no_iron_ore", ""), with_pick, failed)
    assert sel is not None and (sel.action, sel.target, sel.amount) == ("descend", "y40", 1)
    assert "none in sight" in sel.reason


def test_a_descent_in_flight_is_not_asked_for_again(make_snapshot, store, clock):
    snap = make_snapshot(IRON_NEXT)
    assert _tick(snap, region=_sight("stone")).thought.metadata.goalKey == "descend:y40"
    task = store.add_task(
        {"title": "Descend", "type": "descend", "metadata": {"goalKey": "descend:y40"}},
        origin=TaskOrigin(kind="drive-tick"),
    )
    store.set_status(task.id, "active")
    r = evaluate_drive_tick(snap, clock(), DriveTickState(), store, shelter_nearby=True, region=_sight("stone"))
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.duplicate_goal
    assert r.blocking_task_id == task.id


def test_a_furnace_in_sight_is_the_furnace_nearby(make_snapshot):
    inv = make_snapshot(_inv(stone_pickaxe=1, stone_sword=1, cobblestone=8))
    assert _tick(inv, region=_sight("stone")).selection.rule == "no_furnace"
    r = _tick(inv, region=_sight("stone", "furnace", "coal_ore"))
    assert r.selection.rule == "no_coal" and r.thought.metadata.goalKey == "collect:coal_ore"


def test_smelting_grounds_without_a_region_read(make_snapshot):
    r = _tick(make_snapshot(_inv(stone_pickaxe=1, stone_sword=1, furnace=1, raw_iron=3)))
    assert r.selection.rule == "no_iron_ingot" and r.thought.metadata.goalKey == "smelt:iron_ingot"
    assert r.thought.metadata.grounding["pass"] is True
    assert not drive_tick.needs_sight(r.selection)


def test_no_stone_sword_when_the_iron_for_an_iron_one_is_in_hand(make_snapshot, iron_recipes):
    assert select_drive(make_snapshot(_inv(iron_pickaxe=1, cobblestone=2)), True).rule == "no_sword"
    assert select_drive(make_snapshot(_inv(iron_pickaxe=1, iron_ingot=2)), True).rule == "no_iron_sword"
