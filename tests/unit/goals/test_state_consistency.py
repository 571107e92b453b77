"""Field ownership (docs/contracts.md FIELDS-1, FIELDS-2): illegal combinations, pause/resume
sync, goal reducer (GOAL-7)."""

from __future__ import annotations

import pytest

from agency.goals import (
    BUILD_SHELTER,
    HOLD_MANUAL_PAUSE,
    HOLD_MATERIALS_MISSING,
    GoalStatus,
    IllegalGoalStateError,
    anchored_goal_key,
    assert_task_state,
    basic_shelter,
    check_task_state,
    dump_binding,
    new_binding,
    read_binding,
    reduce_goal_status,
)
from agency.goals.models import Hold, VerificationResult
from agency.planning.tasks.models import NewTask, Task, TaskMetadata, TaskStatus

from .conftest import ORIGIN

NOW = 1_700_000_000_000


def _task(status: str, binding, **meta) -> Task:
    return Task(
        title="t",
        type="build",
        status=TaskStatus(status),
        metadata=TaskMetadata(createdAt=NOW, updatedAt=NOW, goalBinding=dump_binding(binding), **meta),
    )


def _binding(**update):
    return new_binding(
        BUILD_SHELTER, {"template": "basic_shelter"}, (1, 64, 1), verifier="verify_shelter_v0"
    ).model_copy(update=update)


HOLD = Hold(reason=HOLD_MATERIALS_MISSING, heldAt=NOW, nextReviewAt=NOW + 300_000)
MANUAL = Hold(reason=HOLD_MANUAL_PAUSE, heldAt=NOW, nextReviewAt=NOW)
PASSED = _binding().completion.model_copy(update={"consecutivePasses": 2})
SITE = basic_shelter(ORIGIN).site

ILLEGAL = {
    "paused_without_hold": _task("paused", _binding()),
    "active_with_hold": _task(
        "active", _binding(hold=HOLD), blockedReason=HOLD.reason, nextEligibleAt=HOLD.nextReviewAt
    ),
    "manual_pause_blocked_reason_mismatch": _task(
        "paused", _binding(hold=MANUAL), blockedReason="materials_missing", nextEligibleAt=MANUAL.nextReviewAt
    ),
    "verified_but_not_completed": _task("active", _binding(completion=PASSED)),
    "anchored_without_alias": _task(
        "pending",
        _binding(
            goalKey=anchored_goal_key(BUILD_SHELTER, SITE),
            anchors=_binding().anchors.model_copy(update={"siteSignature": SITE}),
        ),
    ),
}


@pytest.mark.parametrize("violation", sorted(ILLEGAL))
def test_illegal_state_combinations(violation):
    task = ILLEGAL[violation]
    assert violation in check_task_state(task)
    with pytest.raises(IllegalGoalStateError, match=violation):
        assert_task_state(task)


def test_illegal_states_never_reach_the_store(store):
    """Dev mode: the store runs the check inside its transaction and rolls back."""
    task = store.add_task(NewTask(title="t", type="build", metadata={"goalBinding": dump_binding(_binding())}))
    with pytest.raises(IllegalGoalStateError, match="paused_without_hold"):
        store.set_status(task.id, TaskStatus.paused)
    assert store.get_task(task.id).status is TaskStatus.pending
    with pytest.raises(IllegalGoalStateError, match="verified_but_not_completed"):
        store.update_task_metadata(task.id, {"goalBinding": dump_binding(_binding(completion=PASSED))})


def test_legal_states_pass():
    assert check_task_state(_task("pending", _binding())) == []
    held = _task("paused", _binding(hold=HOLD), blockedReason=HOLD.reason, nextEligibleAt=HOLD.nextReviewAt)
    assert check_task_state(held) == []
    assert check_task_state(_task("completed", _binding(completion=PASSED))) == []


def test_pause_resume_field_synchronization(store, lifecycle, clock):
    task = store.add_task(
        NewTask(title="t", type="build", metadata={"goalBinding": dump_binding(_binding(goalId="g1"))})
    )
    store.set_status(task.id, TaskStatus.active)
    for reason in (HOLD_MATERIALS_MISSING, HOLD_MANUAL_PAUSE, "unsafe"):
        held = lifecycle.hold(task.id, reason) if reason != HOLD_MANUAL_PAUSE else lifecycle.pause(task.id)
        b = read_binding(held)
        assert held.status is TaskStatus.paused
        assert held.metadata.blockedReason == b.hold.reason == reason
        assert held.metadata.nextEligibleAt == b.hold.nextReviewAt
        assert check_task_state(held) == []
        clock.advance(60_000)
        resumed = lifecycle.resume(task.id)
        assert resumed.status is TaskStatus.pending
        assert read_binding(resumed).hold is None
        assert resumed.metadata.blockedReason is None and resumed.metadata.nextEligibleAt is None
        store.set_status(task.id, TaskStatus.active)


def test_goal_status_tracks_task_status(store, lifecycle, goals, clock):
    task = store.add_task(
        NewTask(title="t", type="build", metadata={"goalBinding": dump_binding(_binding(goalId="g1"))})
    )
    store.set_status(task.id, TaskStatus.active)
    lifecycle.hold(task.id, "preempted")
    goal = goals.get("g1")
    assert goal.status is GoalStatus.SUSPENDED and goal.suspendedReason == "preempted"
    clock.advance(10 * 60_000)
    lifecycle.reactivate(task.id)
    assert goals.get("g1").status is GoalStatus.ACTIVE
    # the reducer table, row by row
    b = _binding()
    verified = _binding(completion=PASSED.model_copy(update={"lastResult": VerificationResult(done=True)}))
    S, G = TaskStatus, GoalStatus
    assert reduce_goal_status(G.ACTIVE, S.active, S.paused, b) is G.SUSPENDED
    assert reduce_goal_status(G.ACTIVE, S.active, S.completed, verified) is G.COMPLETED
    assert reduce_goal_status(G.ACTIVE, S.active, S.completed, b) is G.ACTIVE  # no verifier pass, no COMPLETED
    assert reduce_goal_status(G.ACTIVE, S.active, S.failed, b) is G.FAILED
    assert reduce_goal_status(G.SUSPENDED, S.paused, S.pending, b) is G.ACTIVE
    assert reduce_goal_status(G.ACTIVE, S.pending, S.pending_planning, b) is G.ACTIVE
    assert reduce_goal_status(G.COMPLETED, S.completed, S.active, b) is G.ACTIVE
