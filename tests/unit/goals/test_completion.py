"""Completion stability (docs/contracts.md VERIFY-2, VERIFY-1's bounds): two consecutive passes,
regression re-opens, bounds."""

from __future__ import annotations

from agency.goals import (
    REGRESSION_DETECTED,
    GoalStatus,
    anchor_goal,
    basic_shelter,
    read_binding,
    resolve_or_create_build_goal,
    verify_shelter_v0,
)
from agency.planning.tasks.models import TaskStatus
from agency.shelter.testing import RegionSpy, region_from_blocks

from .conftest import GROUND_Y, ORIGIN, completed_shelter, shelter_intent


def _anchored_active(store, index, world):
    bp = basic_shelter(ORIGIN, "south")
    res = resolve_or_create_build_goal(store, index, shelter_intent((2.5, 64.0, 7.5)), verify=world.verify)
    task = anchor_goal(store, res.task.id, bp.site)
    store.set_status(task.id, TaskStatus.active)
    return bp, task


def test_stability_window(store, index, lifecycle, world, goals):
    bp, task = _anchored_active(store, index, world)
    world.build(bp)
    once = lifecycle.record_verification(task.id, world.verify(task, read_binding(task)))
    assert once.status is TaskStatus.active
    assert read_binding(once).completion.consecutivePasses == 1
    twice = lifecycle.record_verification(task.id, world.verify(once, read_binding(once)))
    assert twice.status is TaskStatus.completed
    assert read_binding(twice).completion.consecutivePasses == 2
    assert goals.get("goal-shelter").status is GoalStatus.COMPLETED


def test_transient_pass_does_not_complete(store, index, lifecycle, world):
    """pass, fail (a mob in the doorway knocked a block... or anything), pass: still not done."""
    bp, task = _anchored_active(store, index, world)
    world.build(bp)
    lifecycle.record_verification(task.id, world.verify(task, read_binding(task)))
    world.blocks[(0, 65, 2)] = "air"
    failed = lifecycle.record_verification(task.id, world.verify(task, read_binding(task)))
    assert read_binding(failed).completion.consecutivePasses == 0
    world.blocks[(0, 65, 2)] = "oak_planks"
    again = lifecycle.record_verification(task.id, world.verify(task, read_binding(task)))
    assert again.status is TaskStatus.active and read_binding(again).completion.consecutivePasses == 1


def test_regression_reopens(store, index, lifecycle, world, goals, events):
    done = completed_shelter(store, index, lifecycle, world)
    world.blocks[(4, 64, 2)] = "air"  # damage: a hole in the east wall
    after = lifecycle.record_verification(done.id, world.verify(done, read_binding(done)))
    binding = read_binding(after)
    assert after.status is TaskStatus.active
    assert binding.completion.consecutivePasses == 0
    assert binding.reopened.reason == REGRESSION_DETECTED
    assert binding.reopened.blockers == ["not_enclosed"]  # the repair work package seed
    assert binding.hold is None  # FIELDS-2: an active task never carries a hold
    assert goals.get("goal-shelter").status is GoalStatus.ACTIVE
    assert events[-1]["event"] == "goal_reopened"
    # repaired: two passes complete it again
    world.blocks[(4, 64, 2)] = "oak_planks"
    for _ in range(2):
        after = lifecycle.record_verification(done.id, world.verify(after, read_binding(after)))
    assert after.status is TaskStatus.completed


def test_verifier_bounds():
    """Every block the verifier reads lies within footprintBounds + 8, even when the region
    handed in is far larger and the enclosure leaks."""
    bp = basic_shelter(ORIGIN, "south")
    site = bp.site
    blocks = dict(bp.expected_blocks())
    blocks[(0, 65, 2)] = "air"  # a leak, so the BFS pushes against the footprint
    del blocks[(2, 67, 2)]  # and a roof hole, so the roof scan runs its full 8
    huge = site.footprintBounds.expanded(40)
    spy = RegionSpy(region_from_blocks(huge, blocks, ground_y=GROUND_Y))
    result = verify_shelter_v0(spy, site)
    assert not result.done
    assert spy.reads and spy.outside(site.footprintBounds.expanded(8)) == []
    assert not any(e.startswith("out_of_bounds_reads") for e in result.evidence)
    assert len(set(spy.reads)) < 300  # bounded cost: nowhere near the 90k blocks offered
