"""A drive tick's follow-ups (agency.cognition.follow_ups): what the next ticks would choose
once this goal's plan is done, in select_drive's order, carried on the thought and the task;
a tick never chooses a goal an open task still means to do as a follow-up."""

from __future__ import annotations

from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_rules import DEFAULT_RULE, select_drive
from agency.cognition.drive_selection import DriveSelection
from agency.cognition.drive_tick import (
    DriveSkipReason,
    DriveTickFired,
    DriveTickSkipped,
    evaluate_drive_tick,
)
from agency.cognition.follow_ups import FollowUp, Places, as_first, follow_ups, looks_for_game
from agency.cognition.settings import DriveTickConfig
from agency.planning.converter import convert_thought
from agency.planning.tasks.idempotency import WAITING_FOR_SURFACE
from agency.planning.tasks.models import TaskOrigin, TaskStatus
from agency.world import SHELTER_BUILD_START, EntityInfo, Vec3
from tests.unit.cognition.inventories import EVERY_STEP_BUT_THE_BED

STONE_AGE = {"oak_log": 20, "crafting_table": 1, "wooden_pickaxe": 1}  # the first five rules pass
IRON_AGE = {**STONE_AGE, "stone_sword": 1, "iron_pickaxe": 1, "furnace": 1, "cooked_beef": 10}
SHELTERED = Places(shelter_nearby=True, table_nearby=True, furnace_nearby=True)


def _chain(snapshot, places=SHELTERED, limit=3):
    sel = select_drive(snapshot, places.shelter_nearby, places.table_nearby, places.furnace_nearby, places.bed_known)
    return sel, follow_ups(sel, snapshot, places, limit)


def test_the_ticks_after_a_stone_sword_are_the_progressions_next_steps_each_a_total(make_snapshot):
    sel, then = _chain(make_snapshot(STONE_AGE))
    assert (sel.action, sel.target) == ("craft", "stone_sword")
    assert then == (
        FollowUp("craft", "iron_pickaxe", 1, 1),
        FollowUp("craft", "iron_sword", 1, 1),
        FollowUp("craft", "shield", 1, 1),
    )
    assert _chain(make_snapshot(STONE_AGE), limit=1)[1] == then[:1]
    assert _chain(make_snapshot(STONE_AGE), limit=0)[1] == ()
    _, with_torches = _chain(make_snapshot({**STONE_AGE, "torch": 5, "shield": 1}))
    assert with_torches[-1] == FollowUp("craft", "torch", 16, 11)  # 5 held + the 11 short: the total to hold


def test_the_chain_passes_a_bed_whose_sheep_are_out_of_sight(make_snapshot):
    sel, then = _chain(make_snapshot(IRON_AGE))
    assert (sel.action, sel.target) == ("craft", "iron_sword")
    # no sheep in sight: the bed waits behind the later steps (agency.cognition.progression)
    assert then == (
        FollowUp("craft", "shield", 1, 1),
        FollowUp("collect", "log", 22, 8),
        FollowUp("craft", "torch", 16, 16),
    )
    first, with_wool = _chain(make_snapshot({**IRON_AGE, "white_wool": 3}))
    assert "white_bed" in [first.target, *(f.target for f in with_wool)]  # wool held: the bed hunts nothing


def test_on_the_surface_a_bed_whose_sheep_are_in_sight_follows_a_short_smelt_marked_as_a_hunt(make_snapshot):
    """The bench at 9a719ea stood 159 s idle after an 18 s smelt of mutton, the bed waiting
    for the next tick. Underground the chain ends there: no sheep down there."""
    sheep = [
        EntityInfo(name="sheep", type="animal", hostile=False, position=Vec3(x=d, y=64, z=0), distance=d)
        for d in (6, 8, 10)  # one for each wool: fewer are hunted as a goal of their own (survival_steps)
    ]
    held = {**IRON_AGE, "iron_sword": 1, "mutton": 3, "coal": 4}
    sel, then = _chain(make_snapshot(held, entities=sheep))
    assert (sel.action, sel.target) == ("smelt", "cooked_mutton")
    assert then[0] == FollowUp("craft", "white_bed", 1, 1, hunts=True)
    assert then[0].as_dict()["hunts"] is True and "hunts" not in FollowUp("craft", "torch", 16, 16).as_dict()
    sel, below = _chain(make_snapshot(held, entities=sheep, cover=8))
    assert (sel.action, sel.target) == ("smelt", "cooked_mutton")
    assert "white_bed" not in [f.target for f in below]
    # no sheep in sight: the progression's bed waits behind the later steps, which follow
    sel, unseen = _chain(make_snapshot({**held, "torch": 16}))
    assert (sel.action, sel.target) == ("smelt", "cooked_mutton")
    assert "white_bed" not in [f.target for f in unseen] and unseen[0] == FollowUp("craft", "shield", 1, 1)


def test_the_low_log_rules_logs_follow_a_craft_and_follow_themselves_until_sixteen_are_held(make_snapshot):
    sel, then = _chain(make_snapshot({"oak_log": 6}))
    assert (sel.action, sel.target) == ("craft", "wooden_pickaxe")
    # 4 logs left after the pickaxe: 8 more, then 8 more (16 held), then the stone sword
    assert then == (
        FollowUp("collect", "log", 12, 8),
        FollowUp("collect", "log", 20, 8),
        FollowUp("craft", "stone_sword", 1, 1),
    )
    sel, then = _chain(make_snapshot({"oak_log": 4, "crafting_table": 1, "wooden_pickaxe": 1}))
    assert (sel.action, sel.target, sel.amount) == ("collect", "log", 8)
    assert then[0] == FollowUp("collect", "log", 20, 8) and then[1].target == "stone_sword"


def test_a_hunt_for_the_food_stock_is_followed_by_what_comes_once_the_stock_is_held(make_snapshot):
    cow = EntityInfo(name="cow", type="passive", hostile=False, distance=10, position=Vec3(x=10, y=64, z=0))
    sel, then = _chain(make_snapshot({**STONE_AGE, "stone_sword": 1}, entities=[cow]), places=Places(True, True))
    assert (sel.action, sel.target, sel.rule) == ("hunt", "animal", "low_food_stock")  # no furnace to cook it
    assert then[0] == FollowUp("craft", "iron_pickaxe", 1, 1)  # not another hunt: the stock is held by then


def test_none_at_dusk_nor_while_the_nights_shelter_is_due_and_none_is_near(make_snapshot):
    assert _chain(make_snapshot(STONE_AGE, timeOfDay=12_000))[1] == ()
    due = make_snapshot(STONE_AGE, timeOfDay=SHELTER_BUILD_START + 100)
    sel = select_drive(due, True, True, True)
    assert follow_ups(sel, due, Places(shelter_nearby=None, table_nearby=True), 3) == ()
    assert follow_ups(sel, due, SHELTERED, 3) != ()


def test_the_nights_hut_by_day_is_followed_as_if_it_stood_a_table_with_it_unless_a_door_is_held(make_snapshot):
    """Its follow-ups are queued once it is verified (agency.execution.after_goal); a door it
    has to make is made at a table the builder's crafter places."""
    due = make_snapshot({"oak_log": 20}, timeOfDay=SHELTER_BUILD_START + 100)
    sel, then = _chain(due, places=Places(shelter_nearby=False))
    assert (sel.action, sel.target) == ("build", "basic_shelter")
    assert then == (
        FollowUp("craft", "wooden_pickaxe", 1, 1),
        FollowUp("craft", "stone_sword", 1, 1),
        FollowUp("craft", "iron_pickaxe", 1, 1),
    )
    with_door = make_snapshot({"oak_log": 20, "spruce_door": 1}, timeOfDay=SHELTER_BUILD_START + 100)
    assert _chain(with_door, places=Places(shelter_nearby=False))[1][0] == FollowUp("craft", "crafting_table", 1, 1)
    assert _chain(make_snapshot({"oak_log": 20}, timeOfDay=12_000), places=Places(shelter_nearby=False))[1] == ()


def test_the_tick_carries_them_on_its_thought_and_the_converter_on_the_task(make_snapshot, clock, store):
    fired = evaluate_drive_tick(
        make_snapshot({"oak_log": 6}),
        clock(),
        DriveTickState(),
        store,
        shelter_nearby=True,
        table_nearby=True,
        config=DriveTickConfig(queued_follow_ups=3),
    )
    assert isinstance(fired, DriveTickFired) and fired.follow_ups
    assert fired.thought.metadata.followUps == [f.as_dict() for f in fired.follow_ups]
    out = convert_thought(fired.thought, store, clock())
    task = store.get_task(out.task_id)
    assert task.parameters["then"] == fired.thought.metadata.followUps
    # the goals after those: queued as a task once it completes (agency.execution.after_goal)
    assert fired.queued and fired.thought.metadata.followUpsAfter == [f.as_dict() for f in fired.queued]
    assert task.parameters["after"] == fired.thought.metadata.followUpsAfter and task.parameters["afterBot"] is None
    assert len(fired.follow_ups) == DriveTickConfig().follow_ups
    off = evaluate_drive_tick(
        make_snapshot(STONE_AGE),
        clock(),
        DriveTickState(),
        (),
        shelter_nearby=True,
        table_nearby=True,
        config=DriveTickConfig(follow_ups=0),  # each tick's goal alone: none queued either
    )
    assert isinstance(off, DriveTickFired) and off.thought.metadata.followUps is None
    assert off.thought.metadata.followUpsAfter is None


def test_an_llm_thought_carrying_follow_ups_gets_none_on_its_task(make_snapshot, clock, store):
    fired = evaluate_drive_tick(
        make_snapshot(STONE_AGE), clock(), DriveTickState(), store, shelter_nearby=True, table_nearby=True
    )
    meta = fired.thought.metadata.model_copy(update={"extractedGoalSource": "llm"})
    out = convert_thought(fired.thought.model_copy(update={"metadata": meta}), store, clock())
    assert "then" not in store.get_task(out.task_id).parameters


def _sword_then_iron_pickaxe(store, status, **meta):
    """A drive tick's stone sword task whose follow-up is the iron pickaxe."""
    then = [{"action": "craft", "target": "iron_pickaxe", "total": 1, "amount": 1}]
    task = store.add_task(
        {
            "title": "craft stone_sword",
            "type": "craft",
            "parameters": {"target": "stone_sword", "amount": 1, "then": then},
            "metadata": {"goalKey": "craft:stone_sword", **meta},
        },
        origin=TaskOrigin(kind="drive-tick"),
    )
    store.set_status(task.id, status)
    return task


def test_a_tick_never_chooses_a_goal_an_open_task_means_to_do_after_its_own(make_snapshot, clock, store):
    owner = _sword_then_iron_pickaxe(store, TaskStatus.active)
    ready = make_snapshot({**STONE_AGE, "stone_sword": 1, "cooked_beef": 10})  # the sword made: the pickaxe is next
    r = evaluate_drive_tick(ready, clock(), DriveTickState(), store, shelter_nearby=True, table_nearby=True)
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.duplicate_goal
    assert r.blocking_task_id == owner.id and "follow-up" in r.detail
    store.set_status(owner.id, TaskStatus.completed)
    after = evaluate_drive_tick(ready, clock(), DriveTickState(), store, shelter_nearby=True, table_nearby=True)
    assert isinstance(after, DriveTickFired) and after.thought.metadata.goalKey == "craft:iron_pickaxe"


def test_the_chain_ends_at_a_goal_an_open_task_already_has(make_snapshot, clock, store):
    pick = store.add_task(
        {"title": "craft iron_pickaxe", "type": "craft", "metadata": {"goalKey": "craft:iron_pickaxe"}},
        origin=TaskOrigin(kind="user"),
    )
    store.set_status(pick.id, TaskStatus.active)
    fired = evaluate_drive_tick(
        make_snapshot(STONE_AGE), clock(), DriveTickState(), store, shelter_nearby=True, table_nearby=True
    )
    assert isinstance(fired, DriveTickFired) and fired.selection.target == "stone_sword"
    assert fired.follow_ups == ()  # the iron pickaxe is the player's task's: nothing after it either


def test_a_task_paused_by_hand_does_not_hold_its_follow_ups_from_the_ticks(make_snapshot, clock, store):
    _sword_then_iron_pickaxe(store, TaskStatus.paused, blockedReason="manual_pause")
    ready = make_snapshot({**STONE_AGE, "stone_sword": 1, "cooked_beef": 10})
    r = evaluate_drive_tick(ready, clock(), DriveTickState(), store, shelter_nearby=True, table_nearby=True)
    assert isinstance(r, DriveTickFired) and r.thought.metadata.goalKey == "craft:iron_pickaxe"


def test_underground_by_day_a_goal_held_with_a_task_for_the_surface_climbs_out_to_explore(make_snapshot, clock, store):
    """The sword's task is held for the surface and carries the iron pickaxe: down a mine by day
    the tick explores (which climbs out first) rather than skip as a duplicate every time; on
    the surface, where the task is given back, or at night it skips as ever."""
    owner = _sword_then_iron_pickaxe(store, TaskStatus.paused, blockedReason=WAITING_FOR_SURFACE)
    sword_had = {**STONE_AGE, "stone_sword": 1, "cooked_beef": 10}
    r = evaluate_drive_tick(
        make_snapshot(sword_had, cover=8), clock(), DriveTickState(), store, shelter_nearby=True, table_nearby=True
    )
    assert isinstance(r, DriveTickFired), r
    assert (r.selection.rule, r.thought.metadata.goalKey) == ("surface_first", "explore:farther")
    assert "craft:stone_sword waits for the surface" in r.selection.reason
    for where in ({"cover": 0}, {"cover": 8, "timeOfDay": 15_000, "isDay": False}):
        r = evaluate_drive_tick(
            make_snapshot(sword_had, **where), clock(), DriveTickState(), store, shelter_nearby=True, table_nearby=True
        )
        assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.duplicate_goal, (where, r)
        assert r.blocking_task_id == owner.id


def test_a_planner_fault_in_the_chain_leaves_the_tick_its_goal(make_snapshot, clock, monkeypatch):
    def broken(*_a, **_k):
        raise AssertionError("a plan the simulation cannot make")

    monkeypatch.setattr("agency.cognition.follow_ups._after", broken)
    fired = evaluate_drive_tick(
        make_snapshot(STONE_AGE), clock(), DriveTickState(), (), shelter_nearby=True, table_nearby=True
    )
    assert isinstance(fired, DriveTickFired) and fired.selection.target == "stone_sword" and fired.follow_ups == ()


def test_the_last_rules_explore_may_be_done_between_ticks_a_stand_in_explore_not(make_snapshot):
    """With every step had the tick's goal is the last rule's explore: asked between ticks it is
    done at once (a bot with every milestone stood 120-180 s after each one-leg explore); the
    explore standing in for a goal held back or out of sight waits for its tick."""
    snap = make_snapshot(STONE_AGE)
    calm = DriveSelection("explore", "nearby", 1, DEFAULT_RULE, "Things are calm; I will explore nearby.")
    assert as_first(calm, snap) == FollowUp("explore", "nearby", 1, 1, False)
    for rule in ("retry_later", "explore_first", "surface_first"):
        assert as_first(DriveSelection("explore", "farther", 2, rule, ""), snap) is None, rule


def test_between_ticks_a_bed_whose_sheep_are_out_of_sight_is_looked_for_nearby(make_snapshot):
    """Every step had but the bed and no sheep in sight: the bed waits for its tick (as_first)
    and the bot explores near home meanwhile, not standing (a 1.18.2 bench bot at a8c0d4b stood
    six minutes of a morning); with a sheep in sight the bed itself is taken, underground nothing."""
    every_step = EVERY_STEP_BUT_THE_BED
    snap = make_snapshot(every_step)
    sel = select_drive(snap, True, True, True, False)
    assert (sel.action, sel.target) == ("craft", "white_bed")
    assert as_first(sel, snap) is None
    assert looks_for_game(sel, snap) == FollowUp("explore", "nearby", 1, 1, False)
    sheep = EntityInfo(name="sheep", type="animal", hostile=False, position=Vec3(x=6, y=64, z=0), distance=6)
    in_sight = make_snapshot(every_step, entities=[sheep])
    assert looks_for_game(sel, in_sight) is None and as_first(sel, in_sight) is not None
    assert looks_for_game(sel, make_snapshot(every_step, cover=8)) is None  # underground
    assert looks_for_game(sel, make_snapshot({**every_step, "white_wool": 3})) is None  # nothing to hunt
    sword = select_drive(make_snapshot(STONE_AGE), True, True, True, False)
    assert looks_for_game(sword, make_snapshot(STONE_AGE)) is None  # a plan that hunts nothing


def test_a_hunt_of_sheep_for_wool_ends_its_chain_the_bed_needs_more_sheep_than_were_in_sight(make_snapshot):
    """no_wool's hunt is asked with fewer sheep in sight than wool short: a bed after it would
    go for sheep it has already killed (the snapshot still shows them)."""
    sheep = EntityInfo(name="sheep", type="animal", hostile=False, position=Vec3(x=6, y=64, z=0), distance=6)
    sel, then = _chain(make_snapshot({**EVERY_STEP_BUT_THE_BED, "white_wool": 1}, entities=[sheep]))
    assert (sel.rule, sel.action, sel.target, sel.amount) == ("no_wool", "hunt", "sheep", 1)
    assert "white_bed" not in [f.target for f in then]
