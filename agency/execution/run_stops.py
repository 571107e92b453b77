"""Stopping a run: `preempt()` brings the running workflow to a safe stop (SAFE_STOP_BUDGET_S
at most) and pauses its task with a reason; `stop_run()` lets go of it with the task untouched;
`shutdown()` leaves the task active to resume on the next start. A run held for a lost body whose
bridge went down meanwhile is poison the second time (agency/planning/tasks/poison.py): failed,
not held. The executor's own part (agency.execution.executor)."""

from __future__ import annotations

import asyncio

from loguru import logger

from agency.clock import Clock
from agency.execution.bridge_watch import BridgeWatch
from agency.execution.follow_up_watch import FollowUpWatch
from agency.execution.runs import DISCONNECTED, Running, SafeStop, completed_run, stop_report
from agency.execution.task_endings import TaskEndings
from agency.planning.tasks.models import TaskStatus
from agency.planning.tasks.store import TaskStore

SAFE_STOP_BUDGET_S = 5.0  # a preemption waits this long for the workflow's safe stop


class RunStops:
    tasks: TaskStore
    bridge: BridgeWatch | None
    current: Running | None
    endings: TaskEndings
    follow_ups: FollowUpWatch
    _preempted: tuple[str, tuple[str, str]] | None
    clock: Clock

    async def preempt(self, reason: str) -> str | None:
        """Bring the running workflow to a safe stop and pause its task with `reason`.
        Returns the paused task id (None when nothing was running or the task ended: its run
        completed as the stop came)."""
        run = self.current
        if run is None:
            return None
        started = self.clock()
        goal = self.follow_ups.goal_of(run)
        await self.stop_run(reason)
        done = completed_run(run)
        if done is not None and not self._goal_bound(run.task_id) and not self.follow_ups.carries(run.task_id):
            # done as the stop came: paused, its resume would make the goal again
            await self.endings.finish(run, done)
            return None
        report = stop_report(run)
        stop = SafeStop(
            report,
            steps_used=report.stepsAfterStop if report is not None else 0,
            elapsed_ms=self.clock() - started,
            timed_out=not run.handle.task.done(),
        )
        if reason != DISCONNECTED or not self._poisoned(run):
            self.endings.pause(run.task_id, reason, stop)
            self._preempted = (run.task_id, goal)
        return run.task_id

    def _goal_bound(self, task_id: str) -> bool:
        task = self.tasks.get_task(task_id)
        return task is not None and self.endings.goal_bound(task)

    async def stop_run(self, reason: str) -> str | None:
        """Bring the running workflow to a safe stop and let go of it, task untouched (a
        cancel records its own end; preempt pauses). Returns the task id, None if idle."""
        run = self.current
        if run is None:
            return None
        run.handle.stop(reason)
        try:
            await asyncio.wait_for(asyncio.shield(run.handle.task), timeout=SAFE_STOP_BUDGET_S)
        except (TimeoutError, asyncio.CancelledError):
            logger.warning("[Executor] safe stop of task={} exceeded {} s", run.task_id, SAFE_STOP_BUDGET_S)
        except Exception as e:  # noqa: BLE001 - the run's own failure; stopping goes on
            logger.warning("[Executor] run of task={} ended with {} while stopping", run.task_id, e)
        self.current = None
        return run.task_id

    def _poisoned(self, run: Running) -> bool:
        """A run held for a lost body: if the bridge itself went down since it started while
        this bot was doing something on it, the task records it, and the record that makes it
        poison fails it (no hold). True then."""
        why = self.bridge.down_since(run.bridge_mark) if self.bridge is not None else None
        task = self.tasks.get_task(run.task_id)
        if why is None or task is None or task.status is not TaskStatus.active:
            return False
        task = self.tasks.record_bridge_down(task.id, why)
        if task.status is not TaskStatus.failed:
            logger.warning(
                "[Executor] task={} goalKey={}: the bridge went down during its run ({}); holding it",
                task.id,
                task.metadata.goalKey,
                why,
            )
            return False
        self.endings.failed_as_poison(task)
        return True

    async def shutdown(self) -> None:
        """Safe-stop a running workflow; its task stays active and resumes on next start."""
        run = self.current
        if run is None:
            return
        run.handle.stop("shutdown")
        try:
            await asyncio.wait_for(asyncio.shield(run.handle.task), timeout=SAFE_STOP_BUDGET_S)
        except Exception:  # noqa: BLE001 - shutting down regardless
            run.handle.task.cancel()
        self.current = None
