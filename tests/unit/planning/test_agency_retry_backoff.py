"""A goal whose tasks keep failing waits before the drive tick asks it again
(agency.planning.tasks.retry_backoff): 20 s, 60 s, 180 s, 9 and 15 minutes after 1, 2, 3, 4,
5+ failures in a row; the tick explores meanwhile, and skips when exploring just failed too. A poison failure
(its runs took the bridge down twice) holds its goal back half an hour."""

from __future__ import annotations

import pytest

from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_tick import (
    DriveSkipReason,
    DriveTickFired,
    DriveTickSkipped,
    evaluate_drive_tick,
)
from agency.planning.tasks.models import TaskOrigin
from agency.planning.tasks.poison import poison_reason
from agency.planning.tasks.retry_backoff import BACKOFF_MS, POISON_HOLD_MS, held_back
from tests.unit.cognition.test_agency_survival_steps import BASE, mob

NO_TABLE = {"oak_log": 20}  # rule 3 asks craft:crafting_table
KEY = "craft:crafting_table"


def _task(store, goal_key, status, reason="EXECUTION_ERROR: move_to failed: no progress"):
    t = store.add_task(
        {"title": goal_key, "type": goal_key.split(":")[0], "metadata": {"goalKey": goal_key}},
        origin=TaskOrigin(kind="drive-tick"),
    )
    store.set_status(t.id, "active")
    if status == "failed":
        store.update_task_metadata(t.id, {"solver": {"failureReason": reason}})
    if status != "active":
        store.set_status(t.id, status)
    return t


def _tick(make_snapshot, clock, store, inventory=NO_TABLE):
    return evaluate_drive_tick(make_snapshot(inventory), clock(), DriveTickState(), store, shelter_nearby=True)


def test_no_failure_no_wait(store, clock):
    assert held_back(store, KEY, clock()) is None
    _task(store, KEY, "completed")
    assert held_back(store, KEY, clock()) is None


def test_each_failure_in_a_row_waits_longer(store, clock):
    for n, wait in enumerate((*BACKOFF_MS, BACKOFF_MS[-1]), start=1):
        _task(store, KEY, "failed")
        held = held_back(store, KEY, clock())
        assert held is not None and (held.failures, held.wait_ms) == (n, wait)
        assert "move_to failed" in held.reason
        clock.advance(wait - 1)
        assert held_back(store, KEY, clock()).wait_ms == 1
        clock.advance(1)
        assert held_back(store, KEY, clock()) is None  # its wait is over: asked again


def test_a_completed_task_ends_the_run_of_failures(store, clock):
    _task(store, KEY, "failed")
    clock.advance(1)
    _task(store, KEY, "failed")
    clock.advance(1)
    _task(store, KEY, "completed")
    assert held_back(store, KEY, clock()) is None
    clock.advance(1)
    _task(store, KEY, "failed")
    assert held_back(store, KEY, clock()).failures == 1


def test_a_failed_goal_is_explored_around_then_asked_again(make_snapshot, clock, store):
    _task(store, KEY, "failed")
    r = _tick(make_snapshot, clock, store)
    assert isinstance(r, DriveTickFired) and r.selection.rule == "retry_later"
    assert r.thought.metadata.goalKey == "explore:farther"
    assert "My last try to craft crafting_table failed" in r.thought.content and "20 s" in r.thought.content
    clock.advance(BACKOFF_MS[0])
    r = _tick(make_snapshot, clock, store)
    assert isinstance(r, DriveTickFired) and r.thought.metadata.goalKey == KEY


def test_when_exploring_failed_too_the_tick_skips(make_snapshot, clock, store):
    _task(store, KEY, "failed")
    _task(store, "explore:farther", "failed")
    r = _tick(make_snapshot, clock, store)
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.retry_later


@pytest.mark.parametrize("area", ["farther", "nearby"])  # one walk at a time, whichever
def test_an_explore_in_flight_blocks_the_retry_explore(make_snapshot, clock, store, area):
    _task(store, KEY, "failed")
    _task(store, f"explore:{area}", "active")
    r = _tick(make_snapshot, clock, store)
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.duplicate_goal


def test_a_failed_night_shelter_is_waited_for_in_place_not_explored_around(make_snapshot, clock, store):
    _task(store, "build:basic_shelter", "failed")
    dusk = make_snapshot(NO_TABLE, timeOfDay=12000, isDay=False)
    r = evaluate_drive_tick(dusk, clock(), DriveTickState(), store, shelter_nearby=False)
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.retry_later
    clock.advance(BACKOFF_MS[0])
    r = evaluate_drive_tick(dusk, clock(), DriveTickState(), store, shelter_nearby=False)
    assert isinstance(r, DriveTickFired) and r.thought.metadata.goalKey == "build:basic_shelter"


def test_a_stand_in_that_just_failed_makes_the_tick_skip(make_snapshot, clock, store):
    # logs wanted, none in sight: explore first stands in; it failed a moment ago
    _task(store, "explore:farther", "failed")
    r = evaluate_drive_tick(make_snapshot({}), clock(), DriveTickState(), store, shelter_nearby=True)
    assert isinstance(r, DriveTickSkipped) and r.reason is DriveSkipReason.retry_later
    clock.advance(BACKOFF_MS[0])
    r = evaluate_drive_tick(make_snapshot({}), clock(), DriveTickState(), store, shelter_nearby=True)
    assert isinstance(r, DriveTickFired) and r.ungrounded is not None
    assert r.thought.metadata.goalKey == "explore:farther"


def test_a_held_stone_age_step_lets_the_hunt_have_its_turn(make_snapshot, clock, store):
    herd = [mob("cow")]
    r = evaluate_drive_tick(make_snapshot(BASE, entities=herd), clock(), DriveTickState(), store, shelter_nearby=True)
    assert r.selection.rule == "have_stone_sword"  # the sword first
    _task(store, "craft:stone_sword", "failed")
    r = evaluate_drive_tick(make_snapshot(BASE, entities=herd), clock(), DriveTickState(), store, shelter_nearby=True)
    assert isinstance(r, DriveTickFired) and r.selection.rule == "low_food_stock"


POISON = poison_reason(2, "wedged: no heartbeat for 6 s")


def test_a_poison_failure_holds_its_goal_back_half_an_hour_not_three_minutes(make_snapshot, clock, store):
    _task(store, KEY, "failed", reason=POISON)
    held = held_back(store, KEY, clock())
    assert (held.failures, held.wait_ms, held.reason) == (1, POISON_HOLD_MS, POISON)
    clock.advance(BACKOFF_MS[-1] + 1)  # an ordinary failure's longest wait is over
    r = _tick(make_snapshot, clock, store)
    assert isinstance(r, DriveTickFired) and r.selection.rule == "retry_later"  # explored around, not asked
    assert r.thought.metadata.goalKey == "explore:farther"
    clock.advance(POISON_HOLD_MS - BACKOFF_MS[-1] - 2)
    assert held_back(store, KEY, clock()).wait_ms == 1
    clock.advance(1)
    assert held_back(store, KEY, clock()) is None
    r = _tick(make_snapshot, clock, store)
    assert isinstance(r, DriveTickFired) and r.thought.metadata.goalKey == KEY  # asked again at last


def test_a_users_try_that_fails_otherwise_keeps_the_poison_hold_and_one_that_completes_ends_it(store, clock):
    _task(store, KEY, "failed", reason=POISON)
    clock.advance(60_000)
    _task(store, KEY, "failed")  # submitted by hand meanwhile (nothing stops that), failed of something else
    held = held_back(store, KEY, clock())
    assert (held.failures, held.wait_ms, held.reason) == (2, POISON_HOLD_MS - 60_000, POISON)
    clock.advance(1)
    _task(store, KEY, "completed")
    assert held_back(store, KEY, clock()) is None
