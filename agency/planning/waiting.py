"""Why a task that is not running waits, in words, for everywhere a task is shown (the API's
task JSON, `mcbot tasks`, `mcbot goal --follow`, the dashboard, chat's `status`). Before this,
a goal given at dusk sat pending for 7 minutes with an empty reason while the night's shelter
held all work until morning."""

from __future__ import annotations

from agency.planning.tasks.models import Task, TaskStatus


def waiting_reason(task: Task, *, held: str | None, running: Task | None, connected: bool) -> str | None:
    """`held`: what holds the bot's body from tasks (the reflexes' reason), `running`: the task
    it works on, `connected`: whether the bot is in the world. None: the task does not wait."""
    if task.status is TaskStatus.paused:
        return task.metadata.blockedReason or "paused"
    if task.status is not TaskStatus.pending:
        return None
    if not connected:
        return "waiting for the bot to join the world"
    if held:
        return f"waiting: {held}"
    if running is not None and running.id != task.id:
        return f"waiting for {running.metadata.goalKey or running.type} (task {running.id[-8:]}) to end"
    return "next: the executor takes it at its next tick"
