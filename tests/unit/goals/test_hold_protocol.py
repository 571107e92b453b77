"""Hold protocol (docs/contracts.md HOLD-1, HOLD-2): safe stop, emergency hold, conservative
resume, budget."""

from __future__ import annotations

from dataclasses import dataclass, field

from agency.goals import (
    BUILD_SHELTER,
    GoalStatus,
    SafeStopResult,
    dump_binding,
    new_binding,
    plan_resume,
    preempt,
    read_binding,
    resume_module,
)
from agency.planning.tasks.models import NewTask, TaskStatus


@dataclass
class FakeStopper:
    """Stands in for the workflow engine's safe stop; spends time on the frozen clock."""

    clock: object
    result: SafeStopResult | None
    spend_ms: int = 0
    calls: list = field(default_factory=list)

    def safe_stop(self, max_steps: int = 3, timeout_s: float = 5.0) -> SafeStopResult:
        self.calls.append((max_steps, timeout_s))
        self.clock.advance(self.spend_ms)
        if self.result is None:
            raise RuntimeError("bridge gone")
        return self.result


def _stop(*, at_checkpoint, module_cursor, completed, steps_used=0, last_step_id="s"):
    return SafeStopResult(
        at_checkpoint=at_checkpoint,
        last_step_id=last_step_id,
        module_cursor=module_cursor,
        completed=completed,
        steps_used=steps_used,
    )


def _building(store, cursor=3):
    n = len(store.list_by_status())  # distinct intents: the database refuses duplicate keys
    b = new_binding(BUILD_SHELTER, {"n": n}, (0, 64, 0), verifier="verify_shelter_v0", goal_id="g-hold")
    meta = {"goalBinding": dump_binding(b), "build": {"moduleCursor": cursor, "totalModules": 6}}
    task = store.add_task(NewTask(title="shelter", type="build", metadata=meta))
    return store.set_status(task.id, TaskStatus.active)


def test_safe_stop(store, lifecycle, clock, goals):
    """Preempted between modules: the stop lands on a checkpoint, witness verified."""
    task = _building(store)
    stopper = FakeStopper(clock, _stop(at_checkpoint=True, last_step_id="roof", module_cursor=4, completed=True))
    out = preempt(lifecycle, task.id, stopper, reason="unsafe")
    hold = read_binding(out.task).hold
    assert out.task.status is TaskStatus.paused and hold.reason == "unsafe"
    assert hold.holdWitness.verified is True and hold.holdWitness.moduleCursor == 4
    assert hold.resumeHints == ["resume_from_module:4"]
    assert out.task.metadata.blockedReason == "unsafe"
    assert goals.get("g-hold").status is GoalStatus.SUSPENDED


def test_emergency_hold(store, lifecycle, clock):
    """Mid-module, the safe stop times out: the minimum witness is still written."""
    task = _building(store)
    timed_out = _stop(
        at_checkpoint=False, last_step_id="walls_layer_2#7", module_cursor=2, completed=False, steps_used=3
    )
    stopper = FakeStopper(clock, timed_out, spend_ms=5000)
    out = preempt(lifecycle, task.id, stopper)
    w = read_binding(out.task).hold.holdWitness
    assert (w.lastStepId, w.moduleCursor, w.verified) == ("walls_layer_2#7", 2, False)
    assert "conservative_rescan" in read_binding(out.task).hold.resumeHints
    # a safe stop that raises: witness from the last known build state
    other = _building(store, cursor=5)
    out = preempt(lifecycle, other.id, FakeStopper(clock, None))
    w = read_binding(out.task).hold.holdWitness
    assert (w.moduleCursor, w.verified) == (5, False)
    assert out.task.status is TaskStatus.paused


def test_resume_after_unverified_hold(store, lifecycle, clock):
    task = _building(store)
    stopper = FakeStopper(clock, _stop(at_checkpoint=False, module_cursor=3, completed=False))
    preempt(lifecycle, task.id, stopper)
    resumed = lifecycle.resume(task.id)
    plan = plan_resume(read_binding(resumed))  # the hold is gone; its witness is kept
    assert plan.conservative and plan.verify_first == [2] and plan.start_module == 3
    checked: list[int] = []
    assert resume_module(plan, lambda m: checked.append(m) or True) == 3  # module 2 fine: continue at 3
    assert checked == [2]
    assert resume_module(plan, lambda m: False) == 2  # module 2 not really done: repair it first
    # a verified hold trusts its cursor
    store.set_status(task.id, TaskStatus.active)
    preempt(lifecycle, task.id, FakeStopper(clock, _stop(at_checkpoint=True, module_cursor=3, completed=True)))
    clock.advance(60_000)
    plan = plan_resume(read_binding(lifecycle.resume(task.id)))
    assert not plan.conservative and plan.verify_first == [] and plan.start_module == 3


def test_preemption_budget(store, lifecycle, clock):
    """The stop is asked for at most 3 steps / 5 s; one that overruns is not trusted."""
    task = _building(store)
    ok = FakeStopper(clock, _stop(at_checkpoint=True, module_cursor=3, completed=True, steps_used=2), spend_ms=4000)
    out = preempt(lifecycle, task.id, ok)
    assert ok.calls == [(3, 5.0)]
    assert out.elapsed_ms <= 5000 and out.stop.steps_used <= 3 and out.witness.verified
    other = _building(store)
    slow = FakeStopper(clock, _stop(at_checkpoint=True, module_cursor=3, completed=True, steps_used=1), spend_ms=6000)
    out = preempt(lifecycle, other.id, slow)
    assert out.witness.verified is False
    assert "safe_stop_timeout" in read_binding(out.task).hold.resumeHints
