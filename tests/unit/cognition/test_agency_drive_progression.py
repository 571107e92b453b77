"""The drive tick's progression (what to have, in order), where the plain `explore nearby` was.

Each step fires exactly when it is the first not had; what is at least as good counts; the
first five rules of docs/contracts.md DRIVE-3 keep their order ahead of it; every goal it
emits round-trips and its plan builds from the inventory it fired on, everything included."""

from __future__ import annotations

import pytest

from agency.cognition import drive_tick, progression
from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_rules import NIGHT_LOG_FLOOR, select_drive
from agency.cognition.drive_selection import DriveSelection
from agency.cognition.drive_tick import (
    DriveSkipReason,
    DriveTickFired,
    DriveTickSkipped,
    drive_candidate,
    evaluate_drive_tick,
)
from agency.cognition.night_work import is_night_work, night_work_due
from agency.cognition.progression import PROGRESSION, STONE_AGE_RULES, next_progression_step, routable
from agency.cognition.sanitizer import sanitize
from agency.execution.agents.planning import craft_plan
from agency.goal_tag import build_goal_tag_v1
from agency.planning.tasks.models import TaskOrigin
from agency.world import EntityInfo, Vec3

BASE = {"oak_log": 20, "crafting_table": 1, "wooden_pickaxe": 1}  # the first five DRIVE-3 rules all pass
SPEC_RULES = ("no_logs", "night_no_shelter", "no_crafting_table", "no_pickaxe", "low_logs")


def _walk() -> list[tuple[dict[str, int], str, tuple[str, str, int]]]:
    """The progression walked from BASE: (inventory, rule, goal) for each step, the inventory
    holding every earlier step."""
    inv, out = dict(BASE), []
    for step in PROGRESSION:
        out.append((dict(inv), step.rule, ("craft", step.item, step.amount)))
        inv[step.item] = step.amount
    return out


WALK = _walk()
DONE = {**WALK[-1][0], PROGRESSION[-1].item: 1}
IDS = [w[1] for w in WALK]
SHEEP = EntityInfo(name="sheep", type="animal", hostile=False, distance=6, position=Vec3(x=6, y=64, z=0))
# What a step's plan hunts, in sight: with none of it there the step waits behind the later ones
# (test_on_the_surface_a_hunting_step_with_nothing_to_hunt_in_sight_waits_behind_the_later_ones).
# Such a step is read from the progression itself: with a sheep in sight, the survival steps'
# food stock (its mutton) comes first.
SIGHT = {"have_white_bed": [SHEEP]}


def _step(make_snapshot, inventory, rule):
    """The drive's selection from `inventory` on the surface by day, what `rule`'s plan hunts in sight."""
    if rule in SIGHT:
        return next_progression_step(make_snapshot(inventory, entities=SIGHT[rule]), True)
    return select_drive(make_snapshot(inventory), True)


def _goal(sel):
    return (sel.action, sel.target, sel.amount)


@pytest.mark.parametrize(("inventory", "rule", "goal"), WALK, ids=IDS)
def test_each_step_fires_when_it_is_the_first_not_had(make_snapshot, inventory, rule, goal):
    sel = _step(make_snapshot, inventory, rule)
    assert (sel.rule, _goal(sel)) == (rule, goal)
    assert sel.planned
    assert " I " in f" {sel.reason}" and sel.reason.endswith(".")  # a first-person sentence


def test_the_progression_reaches_diamond_tools_and_then_explores(make_snapshot):
    rules = [s.rule for s in PROGRESSION]
    assert rules.index("have_iron_pickaxe") < rules.index("have_diamond_pickaxe")
    assert {"have_shield", "have_bucket", "have_torch", "have_white_bed", "have_iron_chestplate"} <= set(rules)
    diamond_armour = (rules.index("have_diamond_chestplate"), rules.index("have_diamond_boots"))
    assert rules.index("have_diamond_sword") < diamond_armour[0] < diamond_armour[1]
    assert select_drive(make_snapshot(DONE), True).rule == "default"
    assert next_progression_step(make_snapshot(DONE)) is None


@pytest.mark.parametrize(
    ("held", "rule"),
    [
        ({"iron_pickaxe": 1}, "have_stone_sword"),
        ({"diamond_pickaxe": 1, "wooden_sword": 1, "furnace": 1}, "have_iron_sword"),  # a diamond one has iron's step
        ({"stone_pickaxe": 1, "golden_sword": 1, "furnace": 1}, "have_iron_pickaxe"),
        ({"netherite_pickaxe": 1, "diamond_sword": 1, "furnace": 1}, "have_shield"),
    ],
)
def test_what_is_at_least_as_good_counts(make_snapshot, held, rule):
    assert select_drive(make_snapshot({**BASE, **held}), True).rule == rule


def test_a_furnace_or_a_bed_standing_nearby_counts_as_had(make_snapshot):
    tools = {**BASE, "iron_pickaxe": 1, "stone_sword": 1}
    assert select_drive(make_snapshot(tools), True).rule == "have_furnace"
    assert select_drive(make_snapshot(tools), True, None, True).rule == "have_iron_sword"
    to_bed = WALK[[s.rule for s in PROGRESSION].index("have_white_bed")][0]
    in_sight = {"entities": [SHEEP]}
    assert next_progression_step(make_snapshot(to_bed, **in_sight), True).rule == "have_white_bed"
    assert next_progression_step(make_snapshot(to_bed, **in_sight), True, bed_known=True).rule == "have_bucket"
    assert next_progression_step(make_snapshot({**to_bed, "red_bed": 1}, **in_sight), True).rule == "have_bucket"


def test_a_step_asks_for_what_is_short_of_it(make_snapshot):
    to_torches = {**WALK[IDS.index("have_torch")][0], "torch": 5}
    assert _goal(select_drive(make_snapshot(to_torches), True)) == ("craft", "torch", 11)


@pytest.mark.parametrize(("inventory", "rule", "goal"), WALK, ids=IDS)
def test_the_spec_rules_keep_their_order_ahead_of_the_progression(make_snapshot, inventory, rule, goal):
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


def test_underground_at_dusk_or_night_the_rock_overhead_is_the_night_shelter(make_snapshot):
    """No shelter built over a bot working underground at dusk (agency.world.underground): the
    progression goes on. Before the dusk, and in the open, the rule holds."""
    below = {"cover": 4}
    assert select_drive(make_snapshot(BASE, timeOfDay=12_000, **below), False).rule != "night_no_shelter"
    assert select_drive(make_snapshot(BASE, timeOfDay=15_000, isDay=False, **below), None).rule != "night_no_shelter"
    assert select_drive(make_snapshot(BASE, timeOfDay=12_000, cover=3), False).rule == "night_no_shelter"
    assert select_drive(make_snapshot(BASE, timeOfDay=12_000), False).rule == "night_no_shelter"  # not read
    assert select_drive(make_snapshot(BASE, timeOfDay=7_000, **below), False).rule == "night_no_shelter"


def test_night_work_is_a_progression_step_or_a_craft_never_logs(make_snapshot):
    night = {"timeOfDay": 15_000, "isDay": False}
    assert night_work_due(make_snapshot(BASE, **night))  # the stone sword: stone dug underground
    # a table is counted as had (the tick counts a remembered one): with few logs, logs come next
    assert night_work_due(make_snapshot({"oak_log": 20, "wooden_pickaxe": 1}, **night))
    assert not night_work_due(make_snapshot({"oak_log": 10, "wooden_pickaxe": 1}, **night))
    assert not night_work_due(make_snapshot({**BASE, "oak_log": 10}, **night))  # logs grow on the surface
    assert not night_work_due(make_snapshot({"crafting_table": 1, "wooden_pickaxe": 1}, **night))
    assert not night_work_due(make_snapshot({"oak_log": 20, "crafting_table": 1}, **night))  # nothing to dig with
    cow = EntityInfo(name="cow", type="animal", hostile=False, distance=5, position=Vec3(x=5, y=64, z=0))
    # a cow in sight: the hunt waits for the day, the iron pickaxe is the night's work
    assert night_work_due(make_snapshot({**BASE, "stone_sword": 1}, entities=[cow], **night))


def test_a_craft_or_smelt_whose_plan_hunts_is_not_night_work():
    bed = DriveSelection("craft", "white_bed", 1, "have_white_bed", "", planned=True)
    assert not is_night_work(bed, {"oak_planks": 3})  # its wool: no sheep down there
    assert is_night_work(bed, {"oak_planks": 3, "white_wool": 3})
    cook = DriveSelection("smelt", "cooked_beef", 2, "raw_meat", "")
    assert not is_night_work(cook, {}) and is_night_work(cook, {"beef": 2})
    assert not is_night_work(DriveSelection("smelt", "cooked_beef", 4, "raw_meat", ""), {"beef": 1})  # 3 more hunted
    assert is_night_work(DriveSelection("smelt", "iron_ingot", 3, "x", ""), {})  # its ore is dug for
    assert is_night_work(DriveSelection("smelt", "smooth_stone", 2, "x", ""), {"cobblestone": 10})
    assert is_night_work(DriveSelection("craft", "stone_sword", 1, "x", "", planned=True), {})


def test_under_ground_at_night_surface_work_waits_for_the_morning(make_snapshot):
    night = {"timeOfDay": 15_000, "isDay": False}
    no_logs = make_snapshot({**BASE, "oak_log": NIGHT_LOG_FLOOR - 1}, cover=2, **night)
    r = drive_candidate(no_logs, 1_000, DriveTickState(), [], shelter_nearby=True)
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.surface_work_at_night, r
    assert "collect:log is surface work" in r.detail
    # with a few logs held, the 16 logs wait for the morning and the night goes to the next step
    low_logs = make_snapshot({**BASE, "oak_log": 10}, cover=2, **night)
    passed = drive_candidate(low_logs, 1_000, DriveTickState(), [], shelter_nearby=True)
    assert not isinstance(passed, DriveTickSkipped) and passed.rule == "have_stone_sword", passed
    assert night_work_due(low_logs) and not night_work_due(no_logs)  # in the hut: dig in for it, or not
    step = drive_candidate(make_snapshot(BASE, cover=2, **night), 1_000, DriveTickState(), [], shelter_nearby=True)
    assert not isinstance(step, DriveTickSkipped) and step.rule == "have_stone_sword"  # work for down there
    # in the open at night (no roof over it), or by day, the rules are as ever
    open_sky = drive_candidate(
        make_snapshot({**BASE, "oak_log": 10}, cover=0, **night), 1_000, DriveTickState(), [], shelter_nearby=True
    )
    assert not isinstance(open_sky, DriveTickSkipped) and open_sky.rule == "low_logs"
    day = drive_candidate(make_snapshot({**BASE, "oak_log": 10}, cover=2), 1_000, DriveTickState(), [])
    assert not isinstance(day, DriveTickSkipped) and day.rule == "low_logs"


def test_underground_a_step_whose_plan_hunts_waits_for_the_surface(make_snapshot):
    """A bed's wool comes from sheep, which graze on the surface: in a mine the next step is
    asked, even with the last step had; with the wool held, or on the surface, the bed is."""
    to_bed = WALK[IDS.index("have_white_bed")][0]
    assert select_drive(make_snapshot(to_bed, cover=8), True).rule == "have_bucket"
    assert next_progression_step(make_snapshot(to_bed, cover=8, entities=[SHEEP]), True).rule == "have_bucket"
    assert next_progression_step(make_snapshot({**DONE, "white_bed": 0}, cover=8), True) is None
    assert next_progression_step(make_snapshot(to_bed, cover=2, entities=[SHEEP]), True).rule == "have_white_bed"
    assert next_progression_step(make_snapshot(to_bed, entities=[SHEEP]), True).rule == "have_white_bed"
    with_wool = select_drive(make_snapshot({**to_bed, "white_wool": 3}, cover=8), True)
    assert _goal(with_wool) == ("craft", "white_bed", 1)  # (the survival step's no_bed: wool held)


def test_from_dusk_a_step_whose_plan_hunts_is_passed_over_as_underground(make_snapshot):
    """A bed asked at dusk with a sheep in sight was held over the night, and by morning its one
    sheep was gone (1.18.2 seed 6841 at a6804fe): the animals' surface is the hostiles' then."""
    to_bed = WALK[IDS.index("have_white_bed")][0]
    for time in (11_500, 15_000):
        snap = make_snapshot(to_bed, entities=[SHEEP], timeOfDay=time, isDay=time < 13_000)
        assert next_progression_step(snap, True).rule == "have_bucket", time
        last = make_snapshot({**DONE, "white_bed": 0}, entities=[SHEEP], timeOfDay=time, isDay=time < 13_000)
        assert next_progression_step(last, True) is None, time
    assert next_progression_step(make_snapshot(to_bed, entities=[SHEEP], timeOfDay=6_000), True).rule == (
        "have_white_bed"
    )


def test_on_the_surface_a_hunting_step_with_nothing_to_hunt_in_sight_waits_behind_the_later_ones(make_snapshot):
    """A bed's hunt for sheep nowhere near explored, failed and was asked again 20 s later (the
    bench at c13238d, five wedges of eight): the later steps go first, the bed when none is left
    or a sheep is in sight."""
    to_bed = WALK[IDS.index("have_white_bed")][0]
    assert select_drive(make_snapshot(to_bed), True).rule == "have_bucket"
    cow = EntityInfo(name="cow", type="animal", hostile=False, distance=5, position=Vec3(x=5, y=64, z=0))
    assert next_progression_step(make_snapshot(to_bed, entities=[cow]), True).rule == "have_bucket"  # not its animal
    assert next_progression_step(make_snapshot(to_bed, entities=[SHEEP]), True).rule == "have_white_bed"
    no_bed = {**DONE, "white_bed": 0}
    assert select_drive(make_snapshot(no_bed), True).rule == "have_white_bed"  # nothing after it left
    assert next_progression_step(make_snapshot({**DONE, "white_bed": 1})) is None


def test_a_step_that_cannot_be_obtained_ends_the_progression(make_snapshot, monkeypatch):
    """A later step would skip the one it builds on: none is asked for past it."""
    monkeypatch.setattr(progression, "CRAFTABLE", progression.CRAFTABLE - {"shield"})
    to_shield = WALK[IDS.index("have_shield")][0]
    assert next_progression_step(make_snapshot(to_shield)) is None
    assert select_drive(make_snapshot(to_shield), True).rule == "default"


def test_routable_follows_the_workflows():
    assert routable("collect", "iron_ore") and routable("craft", "furnace") and routable("smelt", "iron_ingot")
    assert routable("craft", "diamond_pickaxe")  # minecraft-data's recipe book: every craftable item
    assert not routable("craft", "blaze_rod") and not routable("smelt", "dirt")
    assert not routable("explore", "nearby")  # not a progression step's action


@pytest.mark.parametrize(("inventory", "rule", "goal"), WALK, ids=IDS)
def test_every_emitted_goal_round_trips_and_plans_everything_it_needs(make_snapshot, inventory, rule, goal):
    """From the inventory it fired on (logs, a table, a wooden pickaxe and the earlier steps'
    items, nothing else): the plan gathers, mines, smelts and crafts the rest itself."""
    sel = _step(make_snapshot, inventory, rule)
    parsed = sanitize(f"{sel.reason}\n{build_goal_tag_v1(sel.action, sel.target, sel.amount)}").goal
    assert parsed is not None and (parsed.action, parsed.target, parsed.amount) == goal
    plan = craft_plan("crafter", {"target": sel.target, "amount": sel.amount}, inventory)
    assert plan.steps[-1].tool == "craft" and plan.steps[-1].args.get("item") == sel.target
    tools = {s.tool for s in plan.steps}
    if rule == "have_iron_pickaxe":
        assert {"seek_ore", "smelt"} <= tools  # digs down for the iron and smelts it, in one plan
        made = [s.args.get("item") for s in plan.steps if s.tool == "craft"]
        assert made.index("stone_pickaxe") < made.index("furnace") < made.index("iron_pickaxe")
    if rule == "have_diamond_pickaxe":
        assert "seek_ore" in tools


def test_the_sword_comes_first_and_then_the_iron_pickaxe_with_everything_it_needs():
    assert {s.rule for s in PROGRESSION[:1]} == STONE_AGE_RULES == {"have_stone_sword"}
    assert PROGRESSION[1].item == "iron_pickaxe"  # its plan makes the stone pickaxe and the furnace


# -- through the drive tick: a planned step is not held to the frame -----------------------------


def _tick(snapshot, tasks=(), now=1_000, **kw):
    return evaluate_drive_tick(snapshot, now, DriveTickState(), tasks, shelter_nearby=True, **kw)


def test_a_step_fires_with_nothing_it_needs_in_sight_and_reads_no_blocks(make_snapshot):
    to_iron = WALK[IDS.index("have_iron_pickaxe")][0]
    r = _tick(make_snapshot(to_iron))  # no region read: nothing in sight
    assert isinstance(r, DriveTickFired) and r.ungrounded is None
    assert r.selection.rule == "have_iron_pickaxe" and r.thought.metadata.goalKey == "craft:iron_pickaxe"
    assert r.thought.metadata.grounding == {
        "pass": True,
        "reason": None,
        "detail": "the plan gets iron_pickaxe's materials itself",
    }
    assert not drive_tick.needs_sight(r.selection)


def test_a_step_in_flight_is_not_asked_for_again(make_snapshot, store, clock):
    """A whole step is minutes of work: the ticks during it skip, they do not stack another."""
    snap = make_snapshot(WALK[IDS.index("have_iron_pickaxe")][0])
    task = store.add_task(
        {"title": "Craft", "type": "craft", "metadata": {"goalKey": "craft:iron_pickaxe"}},
        origin=TaskOrigin(kind="drive-tick"),
    )
    store.set_status(task.id, "active")
    r = _tick(snap, store, clock())
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.duplicate_goal
    assert r.blocking_task_id == task.id
