"""docs/contracts.md DRIVE-1..4: drive tick gates, idempotency with stuck timeout, selection,
output shape."""

from __future__ import annotations

import asyncio

import pytest

from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_rules import select_drive
from agency.cognition.drive_tick import (
    DRIVE_TICK_INTERVAL_MS,
    EXPLORE_FIRST_LEGS,
    DriveSkipReason,
    DriveTickConfig,
    DriveTickFired,
    DriveTickSkipped,
    drive_gate,
    evaluate_drive_tick,
    sight_box,
)
from agency.cognition.progression import PROGRESSION
from agency.cognition.sanitizer import sanitize
from agency.goal_tag import ExtractedGoal, build_goal_tag_v1
from agency.planning.tasks.models import TaskOrigin
from agency.planning.tasks.retry_backoff import BACKOFF_MS
from agency.tools.base import ToolContext
from agency.tools.gathering import CollectBlockInput
from agency.tools.queries import FindBlocksInput, find_blocks_now
from agency.world import SHELTER_BUILD_START, BlockRegion

# the progression done: the default drive
READY = {"oak_log": 20, "crafting_table": 1, **{step.item: step.amount for step in PROGRESSION}}


def _tick(snapshot, now, state=None, tasks=(), **kw):
    return evaluate_drive_tick(snapshot, now, state or DriveTickState(), tasks, **kw)


def _goal(sel):
    return (sel.action, sel.target, sel.amount)


# -- DRIVE-1 safety gates ---------------------------------------------------------------


@pytest.mark.parametrize("mode", ["creative", "spectator"])
def test_drive_tick_never_fires_in_creative_or_spectator(make_snapshot, clock, counters, mode):
    state = DriveTickState()
    for _ in range(5):
        r = _tick(make_snapshot(READY, gameMode=mode), clock(), state, counters=counters)
        assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.unsafe_game_mode
        clock.advance(DRIVE_TICK_INTERVAL_MS)
    assert counters.driveTicks == 0


@pytest.mark.parametrize("mode", ["survival", "adventure"])
def test_drive_tick_fires_in_survival_and_adventure(make_snapshot, clock, mode):
    assert isinstance(_tick(make_snapshot(READY, gameMode=mode), clock()), DriveTickFired)


@pytest.mark.parametrize(
    ("field", "reason"), [("health", DriveSkipReason.low_health), ("food", DriveSkipReason.low_food)]
)
def test_vital_gate_boundary_15_blocks_16_fires(make_snapshot, clock, field, reason):
    r15 = _tick(make_snapshot(READY, **{field: 15}), clock())
    assert isinstance(r15, DriveTickSkipped) and r15.reason is reason
    assert isinstance(_tick(make_snapshot(READY, **{field: 16}), clock()), DriveTickFired)


def test_fractional_health_below_16_blocks(make_snapshot, clock):
    assert _tick(make_snapshot(READY, health=15.5), clock()).reason is DriveSkipReason.low_health


def test_hostiles_gate_any_hostile_blocks(make_snapshot, clock):
    r = _tick(make_snapshot(READY, hostiles=1), clock())
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.hostiles_present
    assert isinstance(_tick(make_snapshot(READY, hostiles=0), clock()), DriveTickFired)


def test_interval_gate_boundary_is_180s_fixed(make_snapshot, clock):
    assert DriveTickConfig().interval_ms == DRIVE_TICK_INTERVAL_MS == 180_000
    state = DriveTickState()
    snap = make_snapshot(READY)
    assert isinstance(_tick(snap, clock(), state), DriveTickFired)
    first = clock()
    r = _tick(snap, first + 179_999, state)
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.interval_not_elapsed
    assert isinstance(_tick(snap, first + 180_000, state), DriveTickFired)
    assert state.last_fired_ms == first + 180_000


def test_skipped_tick_changes_no_state_and_no_counter(make_snapshot, clock, counters):
    state = DriveTickState(last_fired_ms=None)
    _tick(make_snapshot(READY, health=10), clock(), state, counters=counters)
    assert state.last_fired_ms is None and counters.driveTicks == 0
    assert isinstance(_tick(make_snapshot(READY), clock(), state, counters=counters), DriveTickFired)


def test_driveTicks_counter_increments_when_tick_fires(make_snapshot, clock, counters):
    state = DriveTickState()
    for _ in range(3):
        assert isinstance(_tick(make_snapshot(READY), clock(), state, counters=counters), DriveTickFired)
        clock.advance(DRIVE_TICK_INTERVAL_MS)
    assert counters.driveTicks == 3


def test_disabled_drive_ticks_never_fire(make_snapshot, clock):
    r = _tick(make_snapshot(READY), clock(), config=DriveTickConfig(enabled=False))
    assert r.reason is DriveSkipReason.disabled


# -- DRIVE-2 idempotency ---------------------------------------------------------------------


def _explore_task(store, status="pending", progress=0.0):
    t = store.add_task(
        {"title": "Explore", "type": "explore", "metadata": {"goalKey": "explore:nearby"}},
        origin=TaskOrigin(kind="drive-tick"),
    )
    if status != "pending":
        store.set_status(t.id, status)
    if progress:
        store.set_progress(t.id, progress)
    return t


def test_drive_tick_suppressed_by_pending_same_goalKey_under_5_minutes(make_snapshot, clock, store):
    t = _explore_task(store)
    r = _tick(make_snapshot(READY), clock() + 299_999, tasks=store)
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.duplicate_goal
    assert r.blocking_task_id == t.id


def test_stuck_timeout_pending_5_minutes_with_zero_progress_does_not_suppress(make_snapshot, clock, store):
    _explore_task(store)
    r = _tick(make_snapshot(READY), clock() + 300_000, tasks=store)
    assert isinstance(r, DriveTickFired)
    assert r.thought.metadata.goalKey == "explore:nearby"


def test_pending_task_with_progress_suppresses_past_stuck_timeout(make_snapshot, clock, store):
    _explore_task(store, progress=0.1)
    r = _tick(make_snapshot(READY), clock() + 3_600_000, tasks=store)
    assert r.reason is DriveSkipReason.duplicate_goal


def test_active_task_same_goalKey_suppresses(make_snapshot, clock, store):
    _explore_task(store, status="active")
    assert _tick(make_snapshot(READY), clock() + 3_600_000, tasks=store).reason is DriveSkipReason.duplicate_goal


@pytest.mark.parametrize("status", ["completed", "failed"])
def test_terminal_task_same_goalKey_is_no_duplicate(make_snapshot, clock, store, status):
    t = _explore_task(store, status="active")
    store.set_status(t.id, status)
    if status == "failed":  # not a duplicate, but a goal that just failed waits its backoff first (retry_backoff)
        r = _tick(make_snapshot(READY), clock(), tasks=store)
        assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.retry_later
        clock.advance(BACKOFF_MS[0])
    r = _tick(make_snapshot(READY), clock(), tasks=store)
    assert isinstance(r, DriveTickFired) and r.thought.metadata.goalKey == "explore:nearby"


def test_task_with_other_goalKey_does_not_suppress(make_snapshot, clock, store):
    store.add_task(
        {"title": "Logs", "type": "collect", "metadata": {"goalKey": "collect:log"}},
        origin=TaskOrigin(kind="drive-tick"),
    )
    assert isinstance(_tick(make_snapshot(READY), clock(), tasks=store), DriveTickFired)


def test_idempotency_accepts_a_plain_task_list(make_snapshot, clock, store):
    t = _explore_task(store)
    assert _tick(make_snapshot(READY), clock(), tasks=[t]).reason is DriveSkipReason.duplicate_goal


# -- DRIVE-3 selection priority -------------------------------------------------------------


def test_rule1_empty_inventory_collects_oak_logs(make_snapshot):
    assert _goal(select_drive(make_snapshot({}), None)) == ("collect", "log", 8)


def test_rule1_no_logs_collects_oak_logs_even_at_night(make_snapshot):
    snap = make_snapshot({"dirt": 64, "crafting_table": 1}, timeOfDay=12_000)
    assert _goal(select_drive(snap, None)) == ("collect", "log", 8)


def test_any_log_kind_counts_as_logs(make_snapshot):
    assert _goal(select_drive(make_snapshot({"birch_log": 3}), None)) == ("craft", "crafting_table", 1)


@pytest.mark.parametrize(
    ("tod", "is_day", "shelter"),
    [(SHELTER_BUILD_START, True, None), (11_000, True, None), (12_999, True, False), (18_000, False, None)],
)
def test_rule2_night_approaching_without_shelter_builds_basic_shelter(make_snapshot, tod, is_day, shelter):
    snap = make_snapshot(READY, timeOfDay=tod, isDay=is_day)
    assert _goal(select_drive(snap, shelter)) == ("build", "basic_shelter", 1)


@pytest.mark.parametrize(
    ("tod", "is_day", "shelter"), [(SHELTER_BUILD_START - 1, True, None), (11_500, True, True), (23_500, True, None)]
)
def test_rule2_not_applied_by_day_or_with_shelter(make_snapshot, tod, is_day, shelter):
    snap = make_snapshot(READY, timeOfDay=tod, isDay=is_day)
    assert _goal(select_drive(snap, shelter)) == ("explore", "nearby", 1)


def test_rule3_logs_without_crafting_table_crafts_table(make_snapshot):
    assert _goal(select_drive(make_snapshot({"oak_log": 20}), None)) == ("craft", "crafting_table", 1)


@pytest.mark.parametrize("table_nearby", [None, False])
def test_rule3_unknown_or_absent_placed_table_still_crafts_table(make_snapshot, table_nearby):
    assert _goal(select_drive(make_snapshot({"oak_log": 20}), None, table_nearby)) == ("craft", "crafting_table", 1)


def test_rule3_a_placed_table_within_reach_counts_as_having_one(make_snapshot):
    # crafts place the table they need; judging by the inventory alone made a new one after each
    assert _goal(select_drive(make_snapshot({"oak_log": 20}), None, True)) == ("craft", "wooden_pickaxe", 1)
    fired = _tick(make_snapshot({"oak_log": 20}), 1_000, table_nearby=True)
    assert isinstance(fired, DriveTickFired) and fired.selection.rule == "no_pickaxe"


def test_rule4_crafting_table_without_pickaxe_crafts_wooden_pickaxe(make_snapshot):
    snap = make_snapshot({"oak_log": 20, "crafting_table": 1})
    assert _goal(select_drive(snap, None)) == ("craft", "wooden_pickaxe", 1)


def test_rule5_low_log_stock_below_16_collects_more(make_snapshot):
    low = make_snapshot({"oak_log": 15, "crafting_table": 1, "iron_pickaxe": 1})
    enough = make_snapshot({**READY, "oak_log": 16})  # the progression done
    assert _goal(select_drive(low, None)) == ("collect", "log", 8)
    assert _goal(select_drive(enough, None)) == ("explore", "nearby", 1)


def test_rule6_default_explores_nearby(make_snapshot):
    assert _goal(select_drive(make_snapshot(READY), True)) == ("explore", "nearby", 1)


# -- DRIVE-4 output shape ----------------------------------------------------------------------


def test_drive_tick_output_shape(make_snapshot, clock):
    r = _tick(make_snapshot({"oak_log": 20}), clock())
    assert isinstance(r, DriveTickFired)
    t = r.thought
    assert t.cognitiveSystem == "drive-tick"
    assert t.metadata.extractedGoalSource == "drive-tick"
    assert t.metadata.extractedGoal == sanitize(build_goal_tag_v1("craft", "crafting_table", 1)).goal
    assert t.metadata.goalKey == "craft:crafting_table"
    assert (t.novelty, t.convertEligible, t.processed) == ("high", True, False)
    assert t.tags == ["drive-tick", "autonomous", "crafting"]
    assert "[GOAL" not in t.content and t.content
    assert t.timestamp == clock()


# -- grounding: computed from the snapshot the tick fired on ----------------------------------


def _sight(*names):
    """A region read around the bot holding these blocks (one row, plus air)."""
    palette = ["air", *names]
    return BlockRegion(origin=(0, 64, 0), size=(len(palette), 1, 1), palette=palette, data=list(range(len(palette))))


TREES = _sight("grass_block", "oak_leaves", "oak_log")
BARE = _sight("grass_block", "dirt", "stone")


def test_collect_logs_fires_when_logs_are_in_sight_with_a_computed_grounding(make_snapshot, clock, logs):
    r = _tick(make_snapshot({}), clock(), region=TREES)
    assert isinstance(r, DriveTickFired) and r.selection.rule == "no_logs"
    assert r.thought.metadata.goalKey == "collect:log"
    assert r.thought.metadata.grounding == {"pass": True, "reason": None, "detail": "log in sight"}
    assert not [m for _, m in logs if m.startswith("[Grounding]")]


@pytest.mark.parametrize(
    ("inventory", "rule"), [({}, "no_logs"), ({"oak_log": 5, "crafting_table": 1, "wooden_pickaxe": 1}, "low_logs")]
)
def test_collect_logs_with_none_in_sight_explores_first(make_snapshot, clock, logs, inventory, rule):
    r = _tick(make_snapshot(inventory), clock(), region=BARE)
    assert isinstance(r, DriveTickFired)
    assert r.selection.rule == "explore_first" and r.ungrounded is not None and r.ungrounded.rule == rule
    t = r.thought
    assert t.metadata.goalKey == "explore:farther"
    assert t.metadata.extractedGoal == ExtractedGoal(action="explore", target="farther", amount=EXPLORE_FIRST_LEGS)
    assert t.metadata.grounding == {"pass": True, "reason": None, "detail": "explore: no world claim"}
    assert t.tags == ["drive-tick", "autonomous", "exploration"] and "collect log" in t.content
    # the failed check is logged like any grounding failure, under the published thought's id
    assert f"[Grounding] fail scenario={t.id} reason=missing_item" in [m for _, m in logs]


def test_no_region_read_means_nothing_in_sight(make_snapshot, clock):
    r = _tick(make_snapshot({}), clock())
    assert r.thought.metadata.goalKey == "explore:farther" and r.ungrounded.rule == "no_logs"


def test_grounding_follows_the_frame_not_a_constant(make_snapshot, clock):
    records = {
        _tick(make_snapshot({}), clock(), region=reg).thought.metadata.grounding["detail"] for reg in (TREES, BARE)
    }
    assert records == {"log in sight", "explore: no world claim"}


def test_craft_drives_ground_on_the_logs_they_are_made_from(make_snapshot, clock):
    r = _tick(make_snapshot({"birch_log": 2}), clock(), region=BARE)
    assert r.thought.metadata.goalKey == "craft:crafting_table"
    assert r.thought.metadata.grounding == {
        "pass": True,
        "reason": None,
        "detail": "crafting_table: ingredients at hand",
    }


def test_shelter_drive_at_dusk_is_grounded_whatever_is_in_sight(make_snapshot, clock):
    r = _tick(make_snapshot({"oak_log": 3}, timeOfDay=11_500), clock(), region=BARE, shelter_nearby=False)
    assert r.thought.metadata.goalKey == "build:basic_shelter" and r.thought.metadata.grounding["pass"] is True


def test_explore_first_is_suppressed_while_an_explore_task_is_in_flight(make_snapshot, clock, store, counters):
    t = _explore_task(store, status="active")
    r = _tick(make_snapshot({}), clock(), tasks=store, region=BARE, counters=counters)
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.duplicate_goal
    assert r.blocking_task_id == t.id and counters.driveTicks == 0


def test_an_ungrounded_goal_already_in_flight_is_left_to_its_task(make_snapshot, clock, store, logs):
    collect = store.add_task(
        {"title": "Logs", "type": "collect", "metadata": {"goalKey": "collect:log"}},
        origin=TaskOrigin(kind="drive-tick"),
    )
    store.set_status(collect.id, "active")
    r = _tick(make_snapshot({}), clock(), tasks=store, region=BARE)
    assert r.reason is DriveSkipReason.duplicate_goal and r.blocking_task_id == collect.id
    assert not [m for _, m in logs if m.startswith("[Grounding]")]  # a suppressed goal is not grounded


def test_the_sight_box_is_the_collectors_search_box(make_snapshot):
    """What the drive tick calls 'in sight' is what collect_block would find from there."""
    snap = make_snapshot({}, position={"x": 10.7, "y": 64.2, "z": -3.5})
    asked = []

    class Body:
        def snapshot(self):
            return snap

        def region(self, origin, size):
            asked.append((origin, size))
            return _sight()

    radius = min(CollectBlockInput(block="oak_log").radius, 32)  # what collect_block searches with
    asyncio.run(
        find_blocks_now(
            ToolContext(body=Body(), clock=lambda: 0), FindBlocksInput(block="oak_log", radius=radius, count=1)
        )
    )
    assert asked == [sight_box(snap)]


def test_the_snapshot_gates_are_asked_alone_before_the_daemon_reads_more(make_snapshot):
    """drive_gate: what the daemon asks on the last snapshot before any read for a tick."""
    snap, state = make_snapshot({"oak_log": 20}), DriveTickState()
    assert drive_gate(snap, 1_000, state) is None
    assert drive_gate(snap, 1_000, state, sheltering=True).reason is DriveSkipReason.sheltering
    assert drive_gate(snap.model_copy(update={"health": 15}), 1_000, state).reason is DriveSkipReason.low_health
    state.fired(1_000)
    assert drive_gate(snap, 2_000, state).reason is DriveSkipReason.interval_not_elapsed


@pytest.mark.parametrize(
    ("tod", "is_day", "skips"), [(8_000, True, False), (11_500, True, True), (18_000, False, True)]
)
def test_a_shelter_that_just_failed_is_explored_around_by_day_and_waited_for_by_dusk(
    make_snapshot, clock, store, tod, is_day, skips
):
    t = store.add_task(
        {"title": "Shelter", "type": "build", "metadata": {"goalKey": "build:basic_shelter"}},
        origin=TaskOrigin(kind="drive-tick"),
    )
    store.set_status(t.id, "active")
    store.set_status(t.id, "failed")
    r = _tick(make_snapshot({"oak_log": 20}, timeOfDay=tod, isDay=is_day), clock(), tasks=store, shelter_nearby=False)
    if skips:  # no wandering off in the dark: the build is tried again soon
        assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.retry_later
    else:  # asked for ahead of the dusk (from SHELTER_BUILD_START): by day a failed site is explored away from
        assert isinstance(r, DriveTickFired) and r.selection.rule == "retry_later", r
