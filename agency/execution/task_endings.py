"""How a task's status changes when its run ends or comes to rest, for the executor: completed
(a goal-bound one only once its verifier passes), failed with its reason, paused with a reason
(a goal-bound one through the hold protocol), given back to the queue, or failed as poison.
Each change is counted in the executor's stats and told to its lifecycle listener; a task
done queues the follow-ups that come after it (FollowUpWatch.queue_after)."""

from __future__ import annotations

from collections.abc import Callable

from loguru import logger

from agency.clock import Clock
from agency.execution.follow_up_watch import FollowUpWatch
from agency.execution.replans import Replanner
from agency.execution.runs import ExecutorStats, GoalHooks, Running, SafeStop
from agency.execution.workflows.models import WorkflowRunResult
from agency.planning.tasks.models import Task, TaskStatus
from agency.planning.tasks.store import TaskStore

RECENT_EVENTS = 100  # lifecycle events kept in the stats


class TaskEndings:
    def __init__(
        self,
        tasks: TaskStore,
        clock: Clock,
        stats: ExecutorStats,
        *,
        goals: GoalHooks | None,
        replanner: Replanner,
        follow_ups: FollowUpWatch,
        on_lifecycle: Callable[[str, Task], None] | None,
    ) -> None:
        self.tasks = tasks
        self.clock = clock
        self.stats = stats
        self.goals = goals
        self.replanner = replanner
        self.follow_ups = follow_ups
        self.on_lifecycle = on_lifecycle

    def goal_bound(self, task: Task) -> bool:
        return self.goals is not None and self.goals.owns(task)

    async def finish(self, run: Running, result: WorkflowRunResult) -> None:
        """The task of a run that ended, ended by its result (a stopped run stays active)."""
        task = self.tasks.get_task(run.task_id)
        if task is None or task.status is not TaskStatus.active:
            return  # paused or cancelled meanwhile: preempt/cancel already recorded it
        solver = {"agentId": result.agentId, "runId": result.runId, "status": result.status}
        if result.status == "completed" and self.goals is not None and self.goals.owns(task):
            self.tasks.update_task_metadata(task.id, {"solver": solver})
            outcome = await self.goals.complete(task, result)  # verifier passes twice, or not done
            if outcome == "completed":
                self.tasks.set_progress(task.id, 1.0)
                self.stats.completed += 1
                await self.follow_ups.queue_after(task)
            elif outcome == "failed":
                self.stats.failed += 1
            logger.info("[Executor] goal-bound task={} workflow done -> {}", task.id, outcome)
            self.lifecycle(outcome, task.id)
        elif result.status == "completed":
            self.tasks.update_task_metadata(task.id, {"solver": solver})
            self.tasks.set_progress(task.id, 1.0)
            self.tasks.set_status(task.id, TaskStatus.completed)
            self.stats.completed += 1
            logger.info("[Executor] completed task={} goalKey={}", task.id, task.metadata.goalKey)
            self.lifecycle("completed", task.id)
            await self.follow_ups.queue_after(task)
        elif result.status == "stopped":
            # stopped without a preemption record (e.g. shutdown): leave it active to resume
            logger.info("[Executor] run stopped task={} (will resume from checkpoint)", task.id)
        else:
            reason = "; ".join(f"{e.code}: {e.message}" for e in result.errors) or "workflow failed"
            solver["failureReason"] = reason
            self.tasks.update_task_metadata(task.id, {"solver": solver})
            self.tasks.set_status(task.id, TaskStatus.failed)
            self.stats.failed += 1
            logger.warning("[Executor] failed task={} goalKey={} reason={}", task.id, task.metadata.goalKey, reason)
            self.lifecycle("failed", task.id)

    def failed_as_poison(self, task: Task) -> None:
        """A task the bridge's downs made poison (the store failed it): said, counted, told."""
        self.replanner.forget(task.id)
        self.stats.failed += 1
        logger.warning(
            "[Executor] failed task={} goalKey={} reason={} (not resumed)",
            task.id,
            task.metadata.goalKey,
            task.metadata.solver.get("failureReason"),
        )
        self.lifecycle("failed", task.id)

    def give_up(self, task_id: str, reason: str) -> bool:
        """A paused or just claimed task that keeps going nowhere fails with `reason` (a goal's
        task is the goal's to end: left alone). True when it failed."""
        task = self.tasks.get_task(task_id)
        if task is None or task.status not in (TaskStatus.paused, TaskStatus.active) or self.goal_bound(task):
            return False
        self.replanner.forget(task_id)
        solver = {**task.metadata.solver, "failureReason": reason}
        self.tasks.update_task_metadata(task.id, {"solver": solver, "blockedReason": None})
        self.tasks.set_status(task.id, TaskStatus.failed)
        self.stats.failed += 1
        logger.warning("[Executor] failed task={} goalKey={} reason={}", task.id, task.metadata.goalKey, reason)
        self.lifecycle("failed", task.id)
        return True

    def pause(self, task_id: str, reason: str, stop: SafeStop) -> None:
        """An active task whose run came to rest is paused with `reason`: goal-bound tasks
        through the hold protocol (a stop with no report leaves an unverified witness)."""
        task = self.tasks.get_task(task_id)
        if task is None or task.status is not TaskStatus.active:
            return  # cancelled or finished meanwhile: nothing to hold
        self.replanner.forget(task_id)
        if self.goals is not None and self.goals.owns(task):
            self.goals.hold(task, reason, stop)  # hold protocol: holdWitness + Goal SUSPENDED
            logger.info("[Executor] held task={} reason={}", task.id, reason)
        else:
            self.tasks.update_task_metadata(task.id, {"blockedReason": reason, "nextEligibleAt": None})
            self.tasks.set_status(task.id, TaskStatus.paused)
            logger.info("[Executor] paused task={} reason={}", task.id, reason)
        self.stats.paused += 1
        self.lifecycle("paused", task.id)

    def give_back(self, task: Task, reason: str) -> None:
        """A task paused for `reason` goes back in the queue (paused -> pending)."""
        if self.goals is not None and self.goals.owns(task):
            self.goals.release(task)  # hold cleared with its mirrors, witness kept for the resume
        else:
            self.tasks.update_task_metadata(task.id, {"blockedReason": None})
            self.tasks.set_status(task.id, TaskStatus.pending)
        self.stats.resumed += 1
        logger.info("[Executor] resumed task={} after {}", task.id, reason)
        self.lifecycle("resumed", task.id)

    def lifecycle(self, kind: str, task_id: str) -> None:
        self.stats.events = [*self.stats.events, {"event": kind, "taskId": task_id, "ts": self.clock()}][
            -RECENT_EVENTS:
        ]
        if self.on_lifecycle is not None:
            task = self.tasks.get_task(task_id)
            if task is not None:
                self.on_lifecycle(kind, task)
