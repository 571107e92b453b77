"""Activation reactor (docs/contracts.md ACTIVATE-1..3): events, manual-pause wall, budgets, escalation,
the periodic backstop and hysteresis. Time moves only on the frozen clock."""

from __future__ import annotations

import pytest

from agency.goals import (
    BUILD_SHELTER,
    HOLD_MATERIALS_MISSING,
    HOLD_UNSAFE,
    ActivationBudget,
    ActivationReactor,
    ManualPauseWallError,
    SafeStopResult,
    dump_binding,
    new_binding,
    preempt,
    read_binding,
)
from agency.goals.backoff import MINUTE_MS
from agency.planning.tasks.models import NewTask, TaskStatus

from .conftest import completed_shelter


def _goal_task(store, n=0, goal_type=BUILD_SHELTER, parent=None):
    b = new_binding(goal_type, {"n": n}, (n * 300.0, 64, 0), verifier="verify_shelter_v0", goal_id=f"g{n}")
    meta = {"goalBinding": dump_binding(b)}
    task = store.add_task(NewTask(title=f"goal {n}", type="build", metadata=meta))
    store.set_status(task.id, TaskStatus.active)
    return task


def test_event_trigger(store, lifecycle, clock):
    """Hold for materials -> the gathering subtask completes -> reactivated on the next
    tick (not the 60th: the event, not the backstop, brought it back)."""
    parent = _goal_task(store)
    lifecycle.hold(parent.id, HOLD_MATERIALS_MISSING)
    child = store.add_task(NewTask(title="collect oak_log 8", type="collect", metadata={"parentTaskId": parent.id}))
    reactor = ActivationReactor(lifecycle)  # review_every_ticks=60
    clock.advance(5 * MINUTE_MS)  # hysteresis window passed
    assert reactor.tick().reactivated == []  # tick 1: nothing woke it, no periodic review yet
    store.set_status(child.id, TaskStatus.completed)
    assert reactor.subtask_completed(child.id) == [parent.id]
    report = reactor.tick()
    assert report.reactivated == [parent.id] and not report.periodic
    assert store.get_task(parent.id).status is TaskStatus.pending


def test_materials_acquired_respects_feasibility_and_hysteresis(store, lifecycle, clock):
    task = _goal_task(store)
    lifecycle.hold(task.id, HOLD_MATERIALS_MISSING)
    enough = {"value": False}
    reactor = ActivationReactor(lifecycle, feasibility={HOLD_MATERIALS_MISSING: lambda _t, _b: enough["value"]})
    reactor.materials_acquired()
    assert reactor.tick().reconsidered == []  # hysteresis: nextReviewAt not reached
    clock.advance(5 * MINUTE_MS)
    report = reactor.tick()
    assert report.deferred == [task.id]  # still short of materials: backoff
    assert read_binding(store.get_task(task.id)).hold.nextReviewAt == clock() + 5 * MINUTE_MS
    enough["value"] = True
    clock.advance(5 * MINUTE_MS)
    reactor.materials_acquired()
    assert reactor.tick().reactivated == [task.id]


def test_manual_pause_wall(store, lifecycle, clock):
    task = _goal_task(store)
    lifecycle.pause(task.id)
    reactor = ActivationReactor(lifecycle, budget=ActivationBudget(review_every_ticks=1))
    clock.advance(24 * 60 * MINUTE_MS)
    assert reactor.dusk_approaching(verified_shelter_nearby=False) == []
    assert reactor.materials_acquired() == [] and reactor.threat_resolved() == []
    for _ in range(5):
        report = reactor.tick()
        assert report.reconsidered == [] and report.reactivated == []
    assert store.get_task(task.id).status is TaskStatus.paused
    with pytest.raises(ManualPauseWallError):
        lifecycle.reactivate(task.id)
    assert lifecycle.resume(task.id).status is TaskStatus.pending  # only the explicit resume lifts it


def test_budget_enforcement(store, lifecycle, clock):
    tasks = [_goal_task(store, n) for n in range(5)]
    for t in tasks:
        lifecycle.hold(t.id, HOLD_UNSAFE)
    reactor = ActivationReactor(lifecycle)
    clock.advance(5 * MINUTE_MS)
    assert len(reactor.dusk_approaching(verified_shelter_nearby=True)) == 5  # a broad event
    first = reactor.tick()
    assert len(first.reconsidered) == 3
    assert len(first.reactivated) == 2 and len(first.over_budget) == 1
    second = reactor.tick()  # same minute: reconsidered, but no reactivation budget left
    assert len(second.reconsidered) == 3 and second.reactivated == []
    clock.advance(MINUTE_MS)
    third = reactor.tick()
    assert len(third.reactivated) == 2
    assert sum(t.status is TaskStatus.pending for t in map(store.get_task, [t.id for t in tasks])) == 4


def test_repeated_reason_escalation(store, lifecycle, clock, events):
    task = _goal_task(store)
    delays = []
    for _ in range(3):
        held = lifecycle.hold(task.id, HOLD_UNSAFE)
        delays.append(read_binding(held).hold.nextReviewAt - clock())
        clock.advance(10 * MINUTE_MS)
        lifecycle.resume(task.id)
        store.set_status(task.id, TaskStatus.active)
    assert delays == [5 * MINUTE_MS, 15 * MINUTE_MS, 60 * MINUTE_MS]
    exhausted = [e for e in events if e["event"] == "goal_activation_exhausted"]
    assert len(exhausted) == 1 and exhausted[0]["reason"] == HOLD_UNSAFE and exhausted[0]["holdCount"] == 3
    # extended cooldown also floors the review backoff
    held = lifecycle.hold(task.id, HOLD_UNSAFE)
    clock.advance(60 * MINUTE_MS)
    deferred = lifecycle.defer_review(held.id)
    assert read_binding(deferred).hold.nextReviewAt - clock() == 60 * MINUTE_MS
    # another reason has a ladder of its own
    lifecycle.resume(task.id)
    store.set_status(task.id, TaskStatus.active)
    fresh = lifecycle.hold(task.id, HOLD_MATERIALS_MISSING)
    assert read_binding(fresh).hold.nextReviewAt - clock() == 5 * MINUTE_MS


def test_repeated_reason_ladder_climbs_5_15_30_60_per_goal_and_reason(store, lifecycle, clock, events):
    """Holds for one reason far apart (never 3 within an hour): the ladder still climbs,
    per goal instance and reason, and stays at its 60 min cap."""
    task, other = _goal_task(store, 0), _goal_task(store, 1)
    delays = []
    for _ in range(5):
        held = lifecycle.hold(task.id, HOLD_UNSAFE)
        delays.append(read_binding(held).hold.nextReviewAt - clock())
        clock.advance(90 * MINUTE_MS)
        lifecycle.resume(task.id)
        store.set_status(task.id, TaskStatus.active)
    assert delays == [5 * MINUTE_MS, 15 * MINUTE_MS, 30 * MINUTE_MS, 60 * MINUTE_MS, 60 * MINUTE_MS]
    assert not [e for e in events if e["event"] == "goal_activation_exhausted"]  # never 3 within an hour
    assert read_binding(lifecycle.hold(other.id, HOLD_UNSAFE)).hold.nextReviewAt - clock() == 5 * MINUTE_MS
    assert read_binding(lifecycle.hold(task.id, HOLD_MATERIALS_MISSING)).hold.nextReviewAt - clock() == 5 * MINUTE_MS


def test_periodic_backstop(store, lifecycle, clock):
    """No events at all: the Nth tick samples held goals past nextReviewAt, checks them and
    reactivates the feasible one; the infeasible one backs off 5 -> 15 -> 30 (cap)."""
    ok, stuck = _goal_task(store, 0), _goal_task(store, 1)
    lifecycle.hold(ok.id, "preempted")
    lifecycle.hold(stuck.id, "site_blocked")
    checks: list[str] = []

    def feasible(task, _binding):
        checks.append(task.id)
        return task.id == ok.id

    reactor = ActivationReactor(lifecycle, default_feasible=feasible, budget=ActivationBudget(review_every_ticks=10))
    clock.advance(5 * MINUTE_MS)
    for _ in range(9):
        assert reactor.tick().reconsidered == []
    report = reactor.tick()
    assert report.periodic and report.reactivated == [ok.id] and report.deferred == [stuck.id]
    assert store.get_task(ok.id).status is TaskStatus.pending
    waits = []
    for _ in range(4):
        hold = read_binding(store.get_task(stuck.id)).hold
        waits.append(hold.nextReviewAt - clock())
        clock.advance(hold.nextReviewAt - clock())
        for _ in range(10):
            reactor.tick()
    assert waits == [5 * MINUTE_MS, 15 * MINUTE_MS, 30 * MINUTE_MS, 30 * MINUTE_MS]


def test_dusk_urgency_spike_without_verified_shelter(store, lifecycle, events):
    task = _goal_task(store)
    lifecycle.hold(task.id, HOLD_MATERIALS_MISSING)
    reactor = ActivationReactor(lifecycle)
    reactor.dusk_approaching(verified_shelter_nearby=True)
    assert not [e for e in events if e["event"] == "goal_urgency_spike"]
    reactor.dusk_approaching(verified_shelter_nearby=False)
    assert [e["taskId"] for e in events if e["event"] == "goal_urgency_spike"] == [task.id]


def test_world_drift_reopens_a_damaged_shelter(store, index, lifecycle, world):
    done = completed_shelter(store, index, lifecycle, world)
    reactor = ActivationReactor(lifecycle, verify=world.verify)
    assert reactor.world_drift_detected((200.0, 64.0, 200.0)) == []  # far from the site: not even verified
    assert world.verifier_calls == []
    world.blocks[(0, 64, 2)] = "air"
    [after] = reactor.world_drift_detected((0.0, 64.0, 2.0))
    assert after.id == done.id and after.status is TaskStatus.active
    assert read_binding(after).reopened.reason == "regression_detected"


def test_subtask_completed_clears_a_plain_parent_block(store, lifecycle):
    parent = store.add_task(NewTask(title="craft table", type="craft", metadata={"blockedReason": "needs planks"}))
    child = store.add_task(NewTask(title="planks", type="craft", metadata={"parentTaskId": parent.id}))
    store.update_task_metadata(parent.id, {"childTaskIds": [child.id]})
    store.set_status(child.id, TaskStatus.completed)
    ActivationReactor(lifecycle).subtask_completed(child.id)
    assert store.get_task(parent.id).metadata.blockedReason is None


def test_user_pause_of_a_held_task_becomes_the_wall(store, lifecycle, clock):
    class Stop:
        def safe_stop(self, max_steps=3, timeout_s=5.0):
            return SafeStopResult(at_checkpoint=False, last_step_id="s", module_cursor=2, completed=False)

    task = _goal_task(store)
    preempt(lifecycle, task.id, Stop())
    paused = lifecycle.pause(task.id)  # paused -> paused: the hold is re-reasoned in place
    hold = read_binding(paused).hold
    assert hold.reason == "manual_pause" and paused.metadata.blockedReason == "manual_pause"
    assert hold.holdWitness.verified is False  # the stop's witness survives
    clock.advance(120 * MINUTE_MS)
    reactor = ActivationReactor(lifecycle, budget=ActivationBudget(review_every_ticks=1))
    assert reactor.tick().reconsidered == []
