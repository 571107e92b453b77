"""Activation reactor (docs/contracts.md ACTIVATE-1..3): when does a held goal get another chance?

Events (method calls) wake held goals whose hold reason they may have cured; every tick
reconsiders woken goals, and every Nth tick also the held goals whose nextReviewAt has
passed (the periodic backstop). One eligibility check guards all paths, the manual-pause
wall and hysteresis together; budgets cap reconsiderations per tick and reactivations per
minute, so a broad event (dusk) cannot start a storm of reactivate/fail/hold loops.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from agency.goals.lifecycle import GoalLifecycle
from agency.goals.models import (
    BUILD_SHELTER,
    HOLD_MANUAL_PAUSE,
    HOLD_MATERIALS_MISSING,
    HOLD_UNSAFE,
    SITE_MARGIN,
    GoalBinding,
    Hold,
    VerificationResult,
    read_binding,
)
from agency.planning.tasks.models import Task, TaskStatus

Feasibility = Callable[[Task, GoalBinding], bool]
Verifier = Callable[[Task, GoalBinding], VerificationResult]
MINUTE_MS = 60_000


@dataclass(frozen=True)
class ActivationBudget:
    per_tick: int = 3  # goals reconsidered per tick, across all held goals
    per_minute: int = 2  # goals reactivated per rolling minute, across all goal types
    review_every_ticks: int = 60  # periodic backstop cadence


@dataclass
class TickReport:
    reconsidered: list[str] = field(default_factory=list)
    reactivated: list[str] = field(default_factory=list)
    deferred: list[str] = field(default_factory=list)  # reviewed, still infeasible: backoff
    over_budget: list[str] = field(default_factory=list)  # feasible, kept for a later tick
    periodic: bool = False


def is_eligible(hold: Hold, now_ms: int) -> bool:
    """THE eligibility check: nothing reactivates a manual pause, nothing runs before
    nextReviewAt (hysteresis)."""
    return hold.reason != HOLD_MANUAL_PAUSE and now_ms >= hold.nextReviewAt


class ActivationReactor:
    def __init__(
        self,
        lifecycle: GoalLifecycle,
        *,
        feasibility: Mapping[str, Feasibility] | None = None,
        default_feasible: Feasibility = lambda _t, _b: True,
        verify: Verifier | None = None,
        budget: ActivationBudget = ActivationBudget(),
    ) -> None:
        self.lifecycle = lifecycle
        self.store = lifecycle.store
        self._feasibility = dict(feasibility or {})
        self._default_feasible = default_feasible
        self._verify = verify
        self.budget = budget
        self._woken: OrderedDict[str, str] = OrderedDict()  # task id -> waking trigger, FIFO
        self._reactivated_at: deque[int] = deque()
        self._ticks = 0

    # -- held goals -----------------------------------------------------------------

    def held(self) -> list[tuple[Task, GoalBinding]]:
        """Held goals of this world (an archived goal is held for good: never reconsidered)."""
        out = []
        for task in self.store.list_by_status(TaskStatus.paused):
            binding = read_binding(task)
            if binding is not None and binding.hold is not None and not binding.archived:
                out.append((task, binding))
        return out

    def _wake(self, trigger: str, match: Callable[[Task, GoalBinding], bool]) -> list[str]:
        # manual_pause is never woken: the wall holds even before the eligibility check
        woken = [t.id for t, b in self.held() if b.hold and b.hold.reason != HOLD_MANUAL_PAUSE and match(t, b)]
        for task_id in woken:
            self._woken.setdefault(task_id, trigger)
        return woken

    # -- event triggers -------------------------------------------------------------

    def materials_acquired(self) -> list[str]:
        return self._wake("materials_acquired", lambda _t, b: bool(b.hold and b.hold.reason == HOLD_MATERIALS_MISSING))

    def threat_resolved(self) -> list[str]:
        return self._wake("threat_resolved", lambda _t, b: bool(b.hold and b.hold.reason == HOLD_UNSAFE))

    def dusk_approaching(self, *, verified_shelter_nearby: bool) -> list[str]:
        """Re-score held shelter goals; with no verified shelter, spike their urgency (kept
        on the binding; the priority scorer, Task.urgency's one writer, turns it into
        urgency for the night)."""
        woken = self._wake("dusk_approaching", lambda _t, b: b.goalType == BUILD_SHELTER)
        if not verified_shelter_nearby:
            for task_id in woken:
                self.lifecycle.spike_urgency(task_id, trigger="dusk_approaching")
        return woken

    def subtask_completed(self, child_task_id: str) -> list[str]:
        """Wake a held goal parent; for a plain parent, clear blockedReason once every
        child is terminal (the dependency it waited on is met)."""
        child = self.store.get_task(child_task_id)
        parent_id = child.metadata.parentTaskId if child is not None else None
        parent = self.store.get_task(parent_id) if parent_id else None
        if parent is None:
            return []
        if read_binding(parent) is not None:
            return self._wake("subtask_completed", lambda t, _b: t.id == parent.id)
        if parent.metadata.blockedReason:
            kids = [self.store.get_task(k) for k in parent.metadata.childTaskIds]
            if all(k is None or k.status.terminal for k in kids):
                self.store.update_task_metadata(parent.id, {"blockedReason": None})
        return []

    def world_drift_detected(self, position: tuple[float, float, float]) -> list[Task]:
        """Blocks changed near position: re-verify goals whose site (footprint + 8) holds it
        and that are completed or inside their stability window. A failure on a completed
        goal re-opens it as a repair (lifecycle.record_verification)."""
        if self._verify is None:
            return []
        out = []
        candidates = self.store.list_by_status(TaskStatus.completed, TaskStatus.active, TaskStatus.pending)
        for task in candidates:
            binding = read_binding(task)
            site = binding.anchors.siteSignature if binding is not None else None
            if (
                binding is None
                or binding.archived
                or site is None
                or not site.footprintBounds.expanded(SITE_MARGIN).contains(position)
            ):
                continue  # an archived site lies in another world, whatever its coordinates
            if task.status is not TaskStatus.completed and binding.completion.consecutivePasses == 0:
                continue
            out.append(self.lifecycle.record_verification(task.id, self._verify(task, binding)))
        return out

    # -- the tick ---------------------------------------------------------------------

    def _budget_left(self, now: int) -> int:
        while self._reactivated_at and now - self._reactivated_at[0] >= MINUTE_MS:
            self._reactivated_at.popleft()
        return self.budget.per_minute - len(self._reactivated_at)

    def _feasible(self, task: Task, binding: GoalBinding) -> bool:
        assert binding.hold is not None
        return self._feasibility.get(binding.hold.reason, self._default_feasible)(task, binding)

    def tick(self) -> TickReport:
        self._ticks += 1
        now = self.lifecycle.clock()
        report = TickReport(periodic=self._ticks % self.budget.review_every_ticks == 0)
        held = {t.id: (t, b) for t, b in self.held()}
        order = [tid for tid in self._woken if tid in held]
        for gone in [tid for tid in self._woken if tid not in held]:
            del self._woken[gone]  # resumed, cancelled or otherwise no longer held
        if report.periodic:
            due = sorted(
                (b.hold.nextReviewAt, tid) for tid, (_t, b) in held.items() if b.hold and tid not in self._woken
            )
            order += [tid for _at, tid in due]
        for task_id in order:
            if len(report.reconsidered) >= self.budget.per_tick:
                break
            task, binding = held[task_id]
            assert binding.hold is not None
            if not is_eligible(binding.hold, now):
                if binding.hold.reason == HOLD_MANUAL_PAUSE:
                    self._woken.pop(task_id, None)
                continue  # hysteresis: stays woken until nextReviewAt
            report.reconsidered.append(task_id)
            if not self._feasible(task, binding):
                self.lifecycle.defer_review(task_id)
                self._woken.pop(task_id, None)
                report.deferred.append(task_id)
            elif self._budget_left(now) <= 0:
                self._woken.setdefault(task_id, "over_budget")
                report.over_budget.append(task_id)
            else:
                self.lifecycle.reactivate(task_id)
                self._reactivated_at.append(now)
                self._woken.pop(task_id, None)
                report.reactivated.append(task_id)
        return report
