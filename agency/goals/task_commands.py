"""A user's pause / resume / cancel of one task (POST /api/tasks/{id}/{command}, `mcbot task`).

pause holds the task with manual_pause: only an explicit resume lifts it. A running task
is preempted through the hold protocol; a waiting one is paused in place. cancel ends the
task as failed (reason cancelled) without a hold first. A goal-bound task goes through
its goal's lifecycle (the manual_pause wall, goal sync); the rules are the same.
"""

from __future__ import annotations

from typing import Literal

from agency.execution.executor import Executor
from agency.goals.runtime import GoalRuntime
from agency.planning.tasks.events import cancelled_patch
from agency.planning.tasks.models import Task, TaskStatus
from agency.planning.tasks.store import TaskStore, existing_task

TaskCommand = Literal["pause", "resume", "cancel"]


async def run_task_command(
    tasks: TaskStore, executor: Executor | None, goals: GoalRuntime, task_id: str, command: str
) -> Task:
    """The task after the command; ValueError when its status does not allow it (the
    caller has checked that the task exists)."""
    task = existing_task(tasks, task_id)
    if task.metadata.goalBinding is not None:  # holds, the manual_pause wall, goal sync
        return await goals.task_command(task, command, executor)
    run = executor.current if executor is not None else None
    running = executor if run is not None and run.task_id == task_id else None  # the executor running this task
    if command == "pause":
        if running is not None:
            await running.preempt("manual_pause")
        elif task.status in (TaskStatus.pending, TaskStatus.pending_planning, TaskStatus.active):
            tasks.update_task_metadata(task_id, {"blockedReason": "manual_pause"})
            tasks.set_status(task_id, TaskStatus.paused)
        else:
            raise ValueError(f"task {task_id} is {task.status.value}; only pending or active tasks pause")
    elif command == "resume":
        if task.status is not TaskStatus.paused:
            raise ValueError(f"task {task_id} is {task.status.value}; only paused tasks resume")
        tasks.update_task_metadata(task_id, {"blockedReason": None})
        tasks.set_status(task_id, TaskStatus.pending)
    else:  # cancel
        if task.status.terminal:
            raise ValueError(f"task {task_id} is already {task.status.value}")
        if running is not None:
            await running.stop_run("cancelled")  # no hold first: the cancel is the task's end
        tasks.set_status(task_id, TaskStatus.failed, metadata_patch=cancelled_patch(existing_task(tasks, task_id)))
    return existing_task(tasks, task_id)
