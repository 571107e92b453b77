"""The drive tick's survival steps (food and wool to a bed), asked after the stone age
(a stone sword), the food stock's hunt before the iron pickaxe and the rest after it, and all
before the rest of the tech-tree progression. Each rule
fires exactly when it should; the first five rules of docs/contracts.md DRIVE-3 stay ahead;
every goal round-trips through the sanitizer, grounds on its frame and plans."""

from __future__ import annotations

import pytest

from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_rules import select_drive
from agency.cognition.drive_tick import DriveTickFired, evaluate_drive_tick
from agency.cognition.follow_ups import as_first
from agency.cognition.grounding import FrameFacts, check_goal, check_text
from agency.cognition.progression import routable
from agency.cognition.sanitizer import sanitize
from agency.cognition.survival_steps import SURVIVAL_ACTIONS, next_survival_step
from agency.execution.agents import load_default_registry
from agency.execution.agents.planning import craft_plan
from agency.execution.agents.smelt_plan import smelt_plan
from agency.execution.hunger import FOOD_STOCK
from agency.goal_tag import ExtractedGoal, build_goal_tag_v1
from agency.world import BlockRegion, EntityInfo, Vec3
from tests.unit.cognition.inventories import EVERY_STEP_BUT_THE_BED

BASE = {"oak_log": 20, "crafting_table": 1, "wooden_pickaxe": 1}  # the first five DRIVE-3 rules all pass
STONE_AGE = {**BASE, "stone_pickaxe": 1, "stone_sword": 1, "cobblestone": 8}  # stone tools and a furnace's stone held
IRON_AGE = {**STONE_AGE, "iron_pickaxe": 1}


def mob(name: str, distance: float = 6.0, hostile: bool = False) -> EntityInfo:
    return EntityInfo(
        name=name,
        type="hostile" if hostile else "animal",
        hostile=hostile,
        distance=distance,
        position=Vec3(x=distance, y=64, z=0),
    )


FOOD = "low_food_stock"


def herd(name: str, *distances: float) -> list[EntityInfo]:
    return [mob(name, d) for d in distances]


def _goal(sel):
    return None if sel is None else (sel.rule, sel.action, sel.target, sel.amount)


# (inventory beyond BASE, animals in sight, keyword arguments) -> (rule, action, target, amount) or None
CASES = [
    ({}, [], {}, None),  # nothing to hunt, nothing to cook: the progression's turn
    ({}, [mob("cow")], {}, ("low_food_stock", "hunt", "animal", 2)),
    ({"bread": 1}, [mob("pig")], {}, ("low_food_stock", "hunt", "animal", 2)),
    ({"cooked_beef": 3}, [mob("chicken")], {}, ("low_food_stock", "hunt", "animal", 1)),
    ({"cooked_beef": FOOD_STOCK}, [mob("cow")], {}, None),  # stocked
    ({"rotten_flesh": 9}, [mob("cow")], {}, ("low_food_stock", "hunt", "animal", 2)),  # no stock to keep
    ({}, [mob("cow", 40)], {}, None),  # out of the hunt's reach
    ({}, [mob("zombie", hostile=True), mob("villager")], {}, None),  # no game
    # a furnace to be had: the hunt and its cooking are one goal, the meat held cooked with it
    ({"beef": 2, "furnace": 1}, [mob("cow")], {}, ("low_food_stock", "smelt", "cooked_beef", 4)),
    ({"furnace": 1}, [mob("pig")], {}, ("low_food_stock", "smelt", "cooked_porkchop", 4)),
    ({"cobblestone": 8}, [mob("chicken", 10), mob("cow", 5)], {}, ("low_food_stock", "smelt", "cooked_beef", 4)),
    # more meat a kill first: the cow further off before the chicken (4 chickens, 2 cows)
    ({"cobblestone": 8}, [mob("chicken", 4), mob("cow", 20)], {}, ("low_food_stock", "smelt", "cooked_beef", 4)),
    # a rabbit drops 0 or 1, a chicken 1: the chicken further off first
    ({"cobblestone": 8}, [mob("rabbit", 4), mob("chicken", 9)], {}, ("low_food_stock", "smelt", "cooked_chicken", 4)),
    # three rabbits (1.5 on the mean) after two chickens (2)
    ({"cobblestone": 8}, [*herd("rabbit", 3, 4, 5), *herd("chicken", 9, 10)], {}, (FOOD, "smelt", "cooked_chicken", 4)),
    # the most meat in sight, up to the stock's need, before the most a kill: three sheep (4.5
    # mutton on the mean) before a lone pig (2 porkchops), two sheep (3) before it too
    ({"furnace": 1}, [mob("pig", 4), *herd("sheep", 12, 14, 16)], {}, ("low_food_stock", "smelt", "cooked_mutton", 4)),
    ({"furnace": 1}, [mob("pig", 4), *herd("sheep", 12, 14)], {}, ("low_food_stock", "smelt", "cooked_mutton", 4)),
    # short by two: one pig covers it as well as two sheep nearer, and gives more a kill
    ({"furnace": 1, "bread": 2}, [mob("pig", 9), *herd("sheep", 4, 5)], {}, (FOOD, "smelt", "cooked_porkchop", 2)),
    # two cows and two pigs both cover it: the nearer kind
    ({"furnace": 1}, [*herd("pig", 9, 10), *herd("cow", 5, 6)], {}, ("low_food_stock", "smelt", "cooked_beef", 4)),
    ({"cobblestone": 7}, [mob("cow")], {}, ("low_food_stock", "hunt", "animal", 2)),  # no furnace to be had
    ({"bread": 1}, [mob("sheep")], {"furnace_nearby": True}, ("low_food_stock", "smelt", "cooked_mutton", 3)),
    # a mooshroom's beef is planned on cows: the pig behind it is the one hunted
    ({"furnace": 1}, [mob("mooshroom", 3), mob("pig", 9)], {}, ("low_food_stock", "smelt", "cooked_porkchop", 4)),
    ({"furnace": 1}, [mob("mooshroom")], {}, ("low_food_stock", "hunt", "animal", 2)),
    ({"beef": 5, "furnace": 1}, [mob("cow")], {}, ("raw_meat", "smelt", "cooked_beef", 5)),
    ({"beef": 5}, [], {}, None),  # no furnace, no cobblestone for one
    ({"beef": 5, "cobblestone": 7}, [], {}, None),
    ({"beef": 5, "cobblestone": 8}, [], {}, ("raw_meat", "smelt", "cooked_beef", 5)),
    ({"beef": 5}, [], {"furnace_nearby": True}, ("raw_meat", "smelt", "cooked_beef", 5)),
    ({"beef": 1, "mutton": 4, "furnace": 1}, [], {}, ("raw_meat", "smelt", "cooked_mutton", 4)),  # most held first
    # the wool's hunt is the bed's craft: its plan hunts the sheep
    ({"cooked_beef": 4}, herd("sheep", 5, 7, 9), {}, ("no_wool", "craft", "white_bed", 1)),
    ({"cooked_beef": 4, "white_wool": 2}, [mob("sheep"), mob("cow")], {}, ("no_wool", "craft", "white_bed", 1)),
    # fewer sheep in sight than wool short: those hunted for their wool, a goal that can be done
    ({"cooked_beef": 4}, [mob("sheep")], {}, ("no_wool", "hunt", "sheep", 1)),
    ({"cooked_beef": 4, "white_wool": 1}, [mob("sheep"), mob("cow")], {}, ("no_wool", "hunt", "sheep", 1)),
    ({"cooked_beef": 4}, herd("sheep", 5, 30), {}, ("no_wool", "hunt", "sheep", 2)),
    ({"cooked_beef": 4}, [mob("cow")], {}, None),  # wool only from sheep
    ({"cooked_beef": 4, "white_wool": 3}, [], {}, ("no_bed", "craft", "white_bed", 1)),
    ({"cooked_beef": 4, "white_bed": 1}, [mob("sheep")], {}, None),  # a bed held
    ({"cooked_beef": 4, "red_bed": 1}, [mob("sheep")], {}, None),
    ({"cooked_beef": 4}, [mob("sheep")], {"bed_known": True}, None),  # a bed placed and remembered
    ({"cooked_beef": 4, "white_wool": 3}, [], {"bed_known": True}, None),
    ({}, [mob("sheep")], {}, ("low_food_stock", "hunt", "animal", 2)),  # food before the bed
]


@pytest.mark.parametrize(("extra", "entities", "kw", "goal"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_each_rule_fires_exactly_when_it_should(make_snapshot, extra, entities, kw, goal):
    snap = make_snapshot({**BASE, **extra}, entities=entities)
    assert _goal(next_survival_step(snap, **kw)) == goal


def test_a_cooking_goal_held_back_gives_way_to_the_next_animal_then_to_the_plain_hunt(make_snapshot):
    snap = make_snapshot({**BASE, "furnace": 1}, entities=[mob("pig", 5), mob("sheep", 9)])
    held: set[str] = set()

    def holds(sel):
        return f"{sel.action}:{sel.target}" in held

    assert _goal(next_survival_step(snap, held=holds)) == ("low_food_stock", "smelt", "cooked_porkchop", 4)
    held.add("smelt:cooked_porkchop")  # the pig out of reach: its tasks failed
    assert _goal(next_survival_step(snap, held=holds)) == ("low_food_stock", "smelt", "cooked_mutton", 4)
    held.add("smelt:cooked_mutton")
    assert _goal(next_survival_step(snap, held=holds)) == ("low_food_stock", "hunt", "animal", 2)
    # the plain hunt held back too: the bed's goal is not hidden behind it
    held.add("hunt:animal")
    assert _goal(next_survival_step(snap, held=holds)) == ("no_wool", "hunt", "sheep", 1)
    # and select_drive asks the food stock with the same holds before the iron pickaxe
    stone = make_snapshot({**STONE_AGE, "furnace": 1}, entities=[mob("pig", 5), mob("sheep", 9)])
    assert select_drive(stone, True, held=holds).rule == "have_iron_pickaxe"
    held.clear()
    assert _goal(select_drive(stone, True, held=holds)) == ("low_food_stock", "smelt", "cooked_porkchop", 4)


def test_hunts_wait_for_the_day(make_snapshot):
    herd = [mob("cow"), mob("sheep")]
    for time in (11_500, 15_000):  # dusk and night: the surface is the hostiles'
        snap = make_snapshot({**BASE, "cooked_beef": 1}, entities=herd, timeOfDay=time, isDay=time < 13_000)
        assert next_survival_step(snap) is None, time
    stocked = make_snapshot({**BASE, "cooked_beef": 4}, entities=herd, timeOfDay=15_000, isDay=False)
    assert next_survival_step(stocked) is None  # no wool hunt either
    cook = make_snapshot({**BASE, "beef": 5, "furnace": 1}, entities=herd, timeOfDay=15_000, isDay=False)
    assert _goal(next_survival_step(cook)) == ("raw_meat", "smelt", "cooked_beef", 5)  # cooking is not a hunt


def test_hunts_wait_for_the_surface(make_snapshot):
    """An animal 32 blocks off through the rock of a mine is no hunt from there."""
    herd = [mob("cow"), mob("sheep")]
    assert next_survival_step(make_snapshot({**BASE, "cooked_beef": 1}, entities=herd, cover=8)) is None
    assert next_survival_step(make_snapshot({**BASE, "cooked_beef": 4}, entities=herd, cover=8)) is None  # no wool
    assert next_survival_step(make_snapshot({**BASE, "cooked_beef": 1}, entities=herd, cover=2)) is not None  # a hut
    cook = make_snapshot({**BASE, "beef": 5, "furnace": 1}, entities=herd, cover=8)
    assert _goal(next_survival_step(cook)) == ("raw_meat", "smelt", "cooked_beef", 5)  # cooking is not a hunt


def test_no_bed_is_crafted_without_planks_or_logs_for_it(make_snapshot):
    snap = make_snapshot({"white_wool": 3, "cooked_beef": 4})
    assert next_survival_step(snap) is None
    assert _goal(next_survival_step(make_snapshot({"white_wool": 3, "cooked_beef": 4, "birch_planks": 3}))) == (
        "no_bed",
        "craft",
        "white_bed",
        1,
    )


def test_survival_steps_come_after_the_spec_rules_and_the_stone_age_and_before_the_progression(make_snapshot):
    herd = [mob("cow")]
    assert select_drive(make_snapshot(STONE_AGE, entities=herd), True).rule == "low_food_stock"
    assert select_drive(make_snapshot({"oak_log": 20}, entities=herd), True).rule == "no_crafting_table"
    assert select_drive(make_snapshot({**BASE, "oak_log": 10}, entities=herd), True).rule == "low_logs"
    # The sword first, before a hunt; then the hunt before the iron pickaxe
    assert select_drive(make_snapshot(BASE, entities=herd), True).rule == "have_stone_sword"
    assert select_drive(make_snapshot({**BASE, "stone_sword": 1}, entities=herd), True).rule == "low_food_stock"
    assert select_drive(make_snapshot(STONE_AGE, entities=herd), True).rule == "low_food_stock"
    # the iron pickaxe before the cooking and the bed (a daylight holds three ticks)
    assert select_drive(make_snapshot({**STONE_AGE, "beef": 3}), True).rule == "have_iron_pickaxe"
    assert select_drive(make_snapshot({**STONE_AGE, "cooked_beef": 4}, entities=[mob("sheep")]), True).rule == (
        "have_iron_pickaxe"
    )
    assert select_drive(make_snapshot({**IRON_AGE, "beef": 3}), True).rule == "raw_meat"
    assert select_drive(make_snapshot(STONE_AGE), True).rule == "have_iron_pickaxe"  # no game in sight: the progression


def test_hunting_is_routable_through_the_survivor():
    assert {"hunt"} == SURVIVAL_ACTIONS
    assert routable("hunt", "animal") and routable("hunt", "sheep")
    assert "hunt" in load_default_registry().routable_actions()


def _sight(*names):
    palette = ["air", *names]
    return BlockRegion(origin=(0, 64, 0), size=(len(palette), 1, 1), palette=palette, data=list(range(len(palette))))


def test_a_hunt_with_animals_in_sight_fires_as_it_is_not_explore(make_snapshot):
    game = [mob("sheep", 12), mob("cow", 20)]
    no_stone = {k: n for k, n in STONE_AGE.items() if k != "cobblestone"}
    snap = make_snapshot(no_stone, entities=game)
    r = evaluate_drive_tick(snap, 1_000, DriveTickState(), (), shelter_nearby=True, region=_sight("grass_block"))
    assert isinstance(r, DriveTickFired) and r.ungrounded is None
    assert r.selection.rule == "low_food_stock" and r.thought.metadata.goalKey == "hunt:animal"
    assert r.thought.metadata.grounding == {"pass": True, "reason": None, "detail": "animal nearby"}
    # with the stone for a furnace: the cow's meat (more a kill than the nearer sheep's), hunted
    # and cooked in one goal
    snap = make_snapshot(STONE_AGE, entities=game)
    r = evaluate_drive_tick(snap, 1_000, DriveTickState(), (), shelter_nearby=True, region=_sight("grass_block"))
    assert isinstance(r, DriveTickFired) and r.ungrounded is None
    assert r.selection.rule == "low_food_stock" and r.thought.metadata.goalKey == "smelt:cooked_beef"
    assert r.thought.metadata.grounding["pass"]
    r = evaluate_drive_tick(
        make_snapshot({**IRON_AGE, "cooked_beef": 4}, entities=herd("sheep", 6, 8, 10)),
        1_000,
        DriveTickState(),
        (),
        shelter_nearby=True,
    )
    assert r.selection.rule == "no_wool" and r.thought.metadata.goalKey == "craft:white_bed"


# Every goal the survival steps emit: it round-trips, grounds on its own frame (goal and
# reason), names a workflow, and that workflow plans from the inventory it fired on.
# Past the iron pickaxe, where every survival step comes first; without the stone for a
# furnace the food stock is a plain hunt.
IRON_NO_STONE = {k: n for k, n in IRON_AGE.items() if k != "cobblestone"}
EMITTED = [({**(IRON_NO_STONE if g[1] == "hunt" else IRON_AGE), **x}, e, kw, g) for x, e, kw, g in CASES if g] + [
    ({**IRON_AGE, "cooked_beef": 4, "white_wool": 3, "oak_planks": 3}, [], {}, ("no_bed", "craft", "white_bed", 1))
]


@pytest.mark.parametrize(("inventory", "entities", "kw", "goal"), EMITTED, ids=[str(i) for i in range(len(EMITTED))])
def test_every_emitted_goal_round_trips_grounds_and_plans(make_snapshot, inventory, entities, kw, goal):
    snap = make_snapshot(inventory, entities=entities)
    sel = next_survival_step(snap, **kw)
    parsed = sanitize(f"{sel.reason}\n{build_goal_tag_v1(sel.action, sel.target, sel.amount)}").goal
    assert parsed is not None and (parsed.action, parsed.target, parsed.amount) == goal[1:]
    facts = FrameFacts.from_snapshot(snap)
    assert check_text(sel.reason, facts, scenario_id="t").passed, sel.reason  # the reason claims nothing absent
    r = evaluate_drive_tick(
        snap, 1_000, DriveTickState(), (), shelter_nearby=True, furnace_nearby=kw.get("furnace_nearby")
    )
    if not kw:  # the drive tick itself passes neither keyword yet
        assert r.selection.rule == goal[0] and r.ungrounded is None and r.thought.metadata.grounding["pass"]
    agents = load_default_registry()
    assert agents.owners(sel.action)
    task = {"target": sel.target, "amount": sel.amount, "facts": {"craftingTable": True}}
    if sel.action == "smelt":
        assert smelt_plan("crafter", task, inventory).steps[-1].tool == "smelt"
    elif sel.action == "craft":
        steps = craft_plan("crafter", task, inventory).steps
        assert steps
        if sel.rule == "no_wool":  # the plan hunts the wool the goal was asked without
            assert any(s.tool == "hunt" and s.args["until_item"] == "white_wool" for s in steps)
    else:
        steps = agents.require("survivor").workflows["hunt"].static("survivor-hunt").steps
        assert [s.tool for s in steps] == ["hunt"]


@pytest.mark.parametrize(
    ("target", "entities", "passed"),
    [
        ("cow", {"cow"}, True),
        ("cows", {"cow", "zombie"}, True),
        ("animal", {"sheep"}, True),
        ("animal", {"zombie", "villager"}, False),
        ("cow", {"pig"}, False),
        ("zombie", {"zombie"}, False),
    ],
)
def test_a_hunt_goal_grounds_only_with_its_game_nearby(target, entities, passed):
    r = check_goal(
        ExtractedGoal(action="hunt", target=target), FrameFacts(entities=frozenset(entities)), scenario_id=None
    )
    assert r.passed is passed and (passed or r.reason == "missing_entity")


def test_the_food_stocks_plain_hunt_is_done_at_once_with_its_game_in_sight_on_the_surface(make_snapshot):
    """Asked between ticks (DriveJob.goals_now), the hunt no longer waits for its tick: two
    bench bots at 855429f stood idle in their first minutes, `hunt:animal waits for its tick`."""
    herd = [mob("cow")]
    held = {**BASE, "stone_pickaxe": 1, "stone_sword": 1}  # no furnace to be had: a plain hunt
    snap = make_snapshot(held, entities=herd)
    sel = next_survival_step(snap)
    assert _goal(sel) == ("low_food_stock", "hunt", "animal", 2)
    first = as_first(sel, snap)
    assert first is not None and (first.action, first.target, first.amount, first.hunts) == ("hunt", "animal", 2, True)
    assert as_first(sel, make_snapshot(held, entities=herd, cover=8)) is None  # underground: for its tick
    assert as_first(sel, make_snapshot(held)) is None  # the game strolled off


def test_while_the_hunt_of_sheep_for_wool_is_held_back_the_bed_waits_too(make_snapshot):
    """The progression's bed would hunt the same sheep: with one sheep in sight and no wool it
    is no_wool's hunt, and that held back (the sheep out of reach), neither the hunt nor the
    bed is asked."""
    snap = make_snapshot(EVERY_STEP_BUT_THE_BED, entities=[mob("sheep", 12)])
    held: set[str] = set()

    def holds(sel):
        return f"{sel.action}:{sel.target}" in held

    assert _goal(select_drive(snap, True, held=holds)) == ("no_wool", "hunt", "sheep", 1)
    held.add("hunt:sheep")
    assert (select_drive(snap, True, held=holds).action, select_drive(snap, True, held=holds).target) == (
        "explore",
        "nearby",
    )
    # three wool held: the bed's plan hunts nothing, and the hold does not keep it
    wool = make_snapshot({**EVERY_STEP_BUT_THE_BED, "white_wool": 3}, entities=[mob("sheep", 12)])
    assert _goal(select_drive(wool, True, held=holds)) == ("no_bed", "craft", "white_bed", 1)
