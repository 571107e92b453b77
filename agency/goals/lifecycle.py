"""Every status change of a goal-bound task, in one place: hold, reactivate, resume, manual
pause, review deferral, completion and regression re-open.

Each one writes status + goalBinding + the mirrored fields in ONE store transaction
(set_status(metadata_patch=...)), then runs the Task -> Goal reducer and emits a lifecycle
event. The activation reactor, the hold protocol, the completion recorder and the
resolver all go through here, so the sync rules of docs/contracts.md FIELDS-1 and GOAL-7
have a single implementation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from agency.clock import Clock, system_clock_ms
from agency.db import integrity_errors
from agency.errors import AgencyError
from agency.goals import backoff
from agency.goals.fields import binding_patch, hold_patch, release_patch
from agency.goals.key_index import GoalKeyConflictError, is_goal_key_conflict
from agency.goals.models import (
    HOLD_MANUAL_PAUSE,
    HOLD_WORLD_CHANGED,
    REGRESSION_DETECTED,
    GoalBinding,
    Hold,
    HoldRecord,
    HoldWitness,
    Reopened,
    VerificationResult,
    require_binding,
)
from agency.goals.sync import GoalSync
from agency.planning.tasks.models import Task, TaskNotFoundError, TaskStatus
from agency.planning.tasks.store import TaskStore

LifecycleEvent = dict[str, Any]
# Statuses from which the transition table allows completed (plus completed itself).
_MAY_COMPLETE = frozenset({TaskStatus.active, TaskStatus.pending, TaskStatus.completed})
EventSink = Callable[[LifecycleEvent], None]


class ManualPauseWallError(AgencyError, RuntimeError):
    """Only an explicit resume(task_id) may lift a manual pause."""

    def __init__(self, task_id: str) -> None:
        super().__init__(f"task {task_id} is manually paused; only an explicit resume lifts it")
        self.task_id = task_id


class ArchivedGoalError(AgencyError, ValueError):
    """An archived goal belongs to another world: nothing resumes or reactivates it (a
    ValueError: the API answers a resume request with 409, not 5xx)."""

    def __init__(self, task_id: str, world_id: str | None) -> None:
        super().__init__(f"task {task_id} is archived with world {world_id}; it is never resumed")
        self.task_id = task_id
        self.world_id = world_id


class GoalLifecycle:
    def __init__(
        self,
        store: TaskStore,
        *,
        clock: Clock = system_clock_ms,
        goals: GoalSync | None = None,
        emit: EventSink | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self._goals = goals
        self._emit = emit

    # -- plumbing -----------------------------------------------------------------

    def load(self, task_id: str) -> tuple[Task, GoalBinding]:
        task = self.store.get_task(task_id)
        if task is None:
            raise TaskNotFoundError(task_id)
        return task, require_binding(task)

    def emit(self, event: str, task: Task, binding: GoalBinding, **extra: Any) -> None:
        if self._emit is not None:
            ids = {"taskId": task.id, "goalInstanceId": binding.goalInstanceId}
            self._emit({"event": event, **ids, "at": self.clock(), **extra})

    def _write(self, task: Task, binding: GoalBinding, to: TaskStatus | None, patch: dict[str, Any]) -> Task:
        try:
            if to is None:
                after = self.store.update_task_metadata(task.id, patch)
            else:
                after = self.store.set_status(task.id, to, metadata_patch=patch)
        except integrity_errors() as exc:
            if is_goal_key_conflict(exc):
                raise GoalKeyConflictError(binding.goalType, binding.goalKey) from exc
            raise
        if self._goals is not None:  # the reducer is a function of the new state: safe to rerun
            self._goals.on_task_transition(task.status, after)
        return after

    def created(self, task: Task) -> Task:
        """A new goal-bound task: give its goal a row (status via the reducer)."""
        if self._goals is not None:
            self._goals.on_task_transition(None, task)
        return task

    # -- holds ----------------------------------------------------------------------

    def hold(
        self,
        task_id: str,
        reason: str,
        *,
        resume_hints: Iterable[str] = (),
        witness: HoldWitness | None = None,
    ) -> Task:
        """active/pending -> paused with a hold. nextReviewAt follows the repeated-reason
        ladder (5 -> 15 -> 30 -> 60 min per goal and reason); the 3rd hold for one reason
        within an hour gets the extended cooldown and emits goal_activation_exhausted."""
        task, binding = self.load(task_id)
        now = self.clock()
        history = [*backoff.recent_history(binding.holdHistory, now), HoldRecord(reason=reason, at=now)]
        count = sum(1 for h in history if h.reason == reason)
        by_reason = {**binding.holdsByReason, reason: binding.holdsByReason.get(reason, 0) + 1}
        delay = backoff.initial_review_delay_ms(by_reason[reason], count)
        hold = Hold(
            reason=reason,
            heldAt=now,
            resumeHints=list(resume_hints),
            nextReviewAt=now if reason == HOLD_MANUAL_PAUSE else now + delay,
            # a re-reasoned hold keeps the witness of the stop that paused the task
            holdWitness=witness or (binding.hold.holdWitness if binding.hold is not None else None),
            holdCount=count,
        )
        binding = binding.model_copy(update={"holdHistory": history, "holdsByReason": by_reason, "reopened": None})
        # Already paused (e.g. the user pauses a preempted task): replace the hold in place.
        to = None if task.status is TaskStatus.paused else TaskStatus.paused
        after = self._write(task, binding, to, hold_patch(binding, hold))
        self.emit("goal_held", after, binding, reason=reason, nextReviewAt=hold.nextReviewAt)
        if reason != HOLD_MANUAL_PAUSE and backoff.is_exhausted(count):
            self.emit("goal_activation_exhausted", after, binding, reason=reason, holdCount=count)
        return after

    def pause(self, task_id: str) -> Task:
        """The user's pause: a manual_pause hold, the hard wall."""
        return self.hold(task_id, HOLD_MANUAL_PAUSE, resume_hints=["explicit_resume_required"])

    def reactivate(self, task_id: str) -> Task:
        """The reactor's paused -> pending. Refuses a manual pause whatever the caller thinks."""
        task, binding = self.load(task_id)
        if binding.archived:
            raise ArchivedGoalError(task_id, binding.archivedWorld)
        if binding.hold is not None and binding.hold.reason == HOLD_MANUAL_PAUSE:
            raise ManualPauseWallError(task_id)
        after = self._write(task, binding, TaskStatus.pending, release_patch(binding))
        self.emit("goal_reactivated", after, binding, reason=binding.hold.reason if binding.hold else None)
        return after

    def resume(self, task_id: str) -> Task:
        """Explicit user resume: the only way out of manual_pause (valid for any hold but
        an archived goal's)."""
        task, binding = self.load(task_id)
        if binding.archived:
            raise ArchivedGoalError(task_id, binding.archivedWorld)
        after = self._write(task, binding, TaskStatus.pending, release_patch(binding))
        self.emit("goal_resumed", after, binding, reason=binding.hold.reason if binding.hold else None)
        return after

    def archive(self, task_id: str, world_id: str) -> Task:
        """The goal's world is gone (the store entered another one): mark the binding with
        world_id, and hold a live task for good (reason world_changed, never woken, never
        failed). Its keys stop being live (migration 5). Archiving twice is a no-op."""
        task, binding = self.load(task_id)
        if binding.archived or task.status is TaskStatus.failed:
            return task
        binding = binding.model_copy(update={"archivedWorld": world_id})
        if task.status is TaskStatus.completed:
            after = self._write(task, binding, None, binding_patch(binding))
        else:
            if task.status is TaskStatus.unplannable:  # no direct edge to paused
                task = self._write(task, binding, TaskStatus.pending, binding_patch(binding))
            now = self.clock()
            witness = binding.hold.holdWitness if binding.hold is not None else None
            hold = Hold(
                reason=HOLD_WORLD_CHANGED,
                heldAt=now,
                resumeHints=["world_changed"],
                nextReviewAt=now,
                holdWitness=witness,
            )
            to = None if task.status is TaskStatus.paused else TaskStatus.paused
            after = self._write(task, binding, to, hold_patch(binding, hold))
        self.emit("goal_archived", after, binding, world=world_id)
        return after

    def defer_review(self, task_id: str) -> Task:
        """A review found the goal still infeasible: push nextReviewAt along the ladder."""
        task, binding = self.load(task_id)
        if binding.hold is None:
            return task
        hold = binding.hold
        delay = backoff.review_delay_ms(hold.reviewAttempts, hold.holdCount)
        hold = hold.model_copy(update={"reviewAttempts": hold.reviewAttempts + 1, "nextReviewAt": self.clock() + delay})
        return self._write(task, binding, None, hold_patch(binding, hold))

    def spike_urgency(self, task_id: str, trigger: str) -> Task:
        """Mark the goal as spiked now (e.g. dusk with no verified shelter). Only the
        priority scorer turns this into urgency: Task.urgency keeps its one writer."""
        task, binding = self.load(task_id)
        binding = binding.model_copy(update={"urgencySpikeAt": self.clock()})
        after = self._write(task, binding, None, binding_patch(binding))
        self.emit("goal_urgency_spike", after, binding, trigger=trigger)
        return after

    # -- completion -------------------------------------------------------------------

    def record_verification(self, task_id: str, result: VerificationResult) -> Task:
        """Stability window: completed only at consecutivePasses >= 2; a failure resets the
        count and re-opens a completed task (regression)."""
        task, binding = self.load(task_id)
        now = self.clock()
        if not result.done:
            if task.status is TaskStatus.completed:
                return self.reopen(task_id, result)
            completion = binding.completion.model_copy(
                update={"consecutivePasses": 0, "lastResult": result, "lastVerifiedAt": now}
            )
            failed = binding.model_copy(update={"completion": completion})
            return self._write(task, failed, None, binding_patch(failed))
        passes = binding.completion.consecutivePasses + 1
        if task.status not in _MAY_COMPLETE:
            passes = min(passes, 1)  # e.g. a held task: judged again once it runs
        completion = binding.completion.model_copy(
            update={"consecutivePasses": passes, "lastResult": result, "lastVerifiedAt": now}
        )
        binding = binding.model_copy(update={"completion": completion, "reopened": None})
        if passes >= 2 and task.status is not TaskStatus.completed:
            after = self._write(task, binding, TaskStatus.completed, binding_patch(binding))
            self.emit("goal_completed", after, binding, score=result.score)
            return after
        return self._write(task, binding, None, binding_patch(binding))

    def reopen(self, task_id: str, result: VerificationResult) -> Task:
        """completed -> active after a failed re-verification: passes reset, the blockers
        kept as the repair work package seed, reason 'regression_detected'."""
        task, binding = self.load(task_id)
        now = self.clock()
        completion = binding.completion.model_copy(
            update={"consecutivePasses": 0, "lastResult": result, "lastVerifiedAt": now}
        )
        reopened = Reopened(reason=REGRESSION_DETECTED, at=now, blockers=list(result.blockers))
        binding = binding.model_copy(update={"completion": completion, "reopened": reopened, "hold": None})
        patch = {**binding_patch(binding), "blockedReason": None, "nextEligibleAt": None}
        after = self._write(task, binding, TaskStatus.active, patch)
        self.emit("goal_reopened", after, binding, reason=REGRESSION_DETECTED, blockers=list(result.blockers))
        return after
