"""`status` in chat: what the bot is doing and why, in one line: what holds its body (a
reflex: a threat, the night in its shelter), the task it works on and how far, a task
waiting and why, or idle."""

from __future__ import annotations

from agency.planning.tasks.models import Task, TaskStatus
from agency.planning.tasks.store import TaskStore


def _what(task: Task) -> str:
    return task.metadata.goalKey or task.title


def status_line(tasks: TaskStore, bot: str | None, hold: str | None) -> str:
    """`bot`: whose tasks (None: the one bot's daemon, every task); `hold`: the reflexes' hold."""

    def mine(*statuses: TaskStatus) -> list[Task]:
        return tasks.held_by(bot, *statuses) if bot else tasks.list_by_status(*statuses)

    active = mine(TaskStatus.active)
    doing = f"working on {_what(active[0])} ({active[0].progress:.0%})" if active else ""
    if hold:
        return f"I am busy: {hold}" + (f"; {doing} waits for it." if doing else ".")
    if doing:
        return f"I am {doing}."
    paused = mine(TaskStatus.paused)
    if paused:
        return f"{_what(paused[0])} waits: {paused[0].metadata.blockedReason or 'held'}."
    pending = tasks.list_by_status(TaskStatus.pending, bot=bot)
    if pending:
        return f"{len(pending)} goal(s) queued, next {_what(pending[0])}."
    return "I am idle: nothing to do."
