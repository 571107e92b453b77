"""A running task's progress, read from its run's checkpoints (the bench's idle judge and the
dashboard read it): the share of its workflow's steps done, a drive tick's follow-ups counting
as runs of the task's own after its goal's (agency.execution.agents.follow_up_runs)."""

from __future__ import annotations

from agency.execution.agents.follow_up_runs import follow_up_index
from agency.execution.runs import task_spec
from agency.execution.workflows.checkpoints import CheckpointStore
from agency.planning.tasks.store import TaskStore


def report_progress(tasks: TaskStore, checkpoints: CheckpointStore | None, task_id: str) -> None:
    """Raise the task's progress to what its latest run has done (never 1.0: completing does)."""
    if checkpoints is None:
        return
    rec = checkpoints.latest_run_for_task(task_id)
    if rec is None or not rec.workflow.steps:
        return
    latest = checkpoints.latest(rec.runId)
    done = 0 if latest is None else latest.stepIndex + 1
    task = tasks.get_task(task_id)
    if task is None:
        return
    # a drive tick's follow-ups are part of the task's work: its goal's run is the first share
    runs = 1 + len(task_spec(task).then)
    progress = min(0.99, (follow_up_index(rec.runId) + done / len(rec.workflow.steps)) / runs)
    if progress > task.progress:  # 1.0 only when completed
        tasks.set_progress(task_id, progress)
