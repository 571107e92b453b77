"""Goal-key idempotency with the stuck timeout (docs/contracts.md DRIVE-2), shared by drive ticks and
the thought-to-task converter.

A task for the same goalKey that is active, or pending with progress, or pending for less
than STUCK_PENDING_TIMEOUT_MS, suppresses a new one. A task pending that long with zero
progress is treated as blocked: it no longer suppresses, so the goal can be retried, and the
retry supersedes it (`stale_twins`): left pending, it could still be claimed after its retry
and the goal would run twice.

With several bots, a goal about one bot's body or inventory is that bot's: asked for `bot`,
only tasks open to it count (bound to it or to no bot); a task bound to another bot does
not make this bot's same goal a duplicate. Asked for no bot, every task counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from agency.planning.tasks.models import Task, TaskStatus

STUCK_PENDING_TIMEOUT_MS = 300_000
# A task paused for the morning (surface work met under cover at night, agency.execution.executor)
# is in flight as well: given back by day, it must not find a twin made meanwhile. It counts so for
# MORNING_MAX_HOLD_MS at most (a night and its dusk at the normal day length, with room), after
# which the executor gives it back itself.
WAITING_FOR_MORNING = "morning"
MORNING_MAX_HOLD_MS = 12 * 60_000
# A task of queued follow-ups paused behind work queued for its bot (agency.execution.follow_up_watch)
# waits its turn, in flight as well: it goes back to the queue once its bot has nothing else to do.
GAVE_WAY = "gave way to queued work"
# Tasks held while the bot spends the night in its shelter (agency.execution.reflexes), given back
# in the morning; one whose goal the bot's drive tick asks for again (at night it fires only once
# the bot is dug in to work) is given back then instead of a twin (`held_twin`, agency.planning.converter).
SHELTERING = "sheltering"
# A drive tick's craft or smelt whose plan hunts, claimed underground, waits for the bot to be up on
# the surface again by day (the animals graze there; agency.execution.executor gives it back then,
# or after SURFACE_MAX_HOLD_MS at the latest): in flight as well meanwhile, so no twin is made.
WAITING_FOR_SURFACE = "waiting for the surface"
# A task paused for a reflex's moment (agency.execution.reflexes) and given back after it; one held
# so again and again before a step of it is done is given up (agency.execution.executor).
PREEMPTED = "preempted"
SURFACE_MAX_HOLD_MS = MORNING_MAX_HOLD_MS
# pending_planning is pending while a planner works on it; it suppresses like pending.
PENDING_STATUSES = frozenset({TaskStatus.pending, TaskStatus.pending_planning})


class TaskLookup(Protocol):
    def find_by_goal_key(self, goal_key: str, statuses: Iterable[TaskStatus] | None = None) -> list[Task]: ...


def open_to(task: Task, bot: str | None) -> bool:
    """Whether the task is `bot`'s to count: bound to it or to no bot (None: every task is)."""
    return bot is None or task.metadata.bot in (None, bot)


def waits_for_morning(task: Task, now_ms: int) -> bool:
    """Paused for the morning, and not for longer than MORNING_MAX_HOLD_MS."""
    return (
        task.status is TaskStatus.paused
        and task.metadata.blockedReason == WAITING_FOR_MORNING
        and now_ms - task.metadata.updatedAt < MORNING_MAX_HOLD_MS
    )


def waits_for_surface(task: Task, now_ms: int) -> bool:
    """Paused until the bot is up on the surface (WAITING_FOR_SURFACE), not longer than
    SURFACE_MAX_HOLD_MS."""
    return (
        task.status is TaskStatus.paused
        and task.metadata.blockedReason == WAITING_FOR_SURFACE
        and now_ms - task.metadata.updatedAt < SURFACE_MAX_HOLD_MS
    )


def waits_its_turn(task: Task) -> bool:
    """Paused behind work queued after it (GAVE_WAY)."""
    return task.status is TaskStatus.paused and task.metadata.blockedReason == GAVE_WAY


def suppresses(task: Task, now_ms: int, stuck_timeout_ms: int = STUCK_PENDING_TIMEOUT_MS) -> bool:
    if task.status is TaskStatus.active or waits_for_morning(task, now_ms) or waits_its_turn(task):
        return True
    if waits_for_surface(task, now_ms):
        return True
    if task.status in PENDING_STATUSES:
        pending_for = now_ms - task.metadata.createdAt
        return pending_for < stuck_timeout_ms or task.progress > 0
    return False


def find_blocking_task(
    tasks: TaskLookup | Iterable[Task],
    goal_key: str | None,
    now_ms: int,
    stuck_timeout_ms: int = STUCK_PENDING_TIMEOUT_MS,
    *,
    bot: str | None = None,
) -> Task | None:
    """The first task open to `bot` (module docstring) that makes a new task for goal_key a
    duplicate, or None."""
    if not goal_key:
        return None
    candidates: Iterable[Task]
    if hasattr(tasks, "find_by_goal_key"):  # a store: let its index do the filtering
        candidates = tasks.find_by_goal_key(goal_key, PENDING_STATUSES | {TaskStatus.active, TaskStatus.paused})
    else:
        candidates = tasks
    for task in candidates:
        if task.metadata.goalKey == goal_key and open_to(task, bot) and suppresses(task, now_ms, stuck_timeout_ms):
            return task
    return None


def stale_twins(
    tasks: TaskLookup,
    goal_key: str | None,
    now_ms: int,
    stuck_timeout_ms: int = STUCK_PENDING_TIMEOUT_MS,
    *,
    bot: str | None = None,
) -> list[Task]:
    """The pending tasks open to `bot` for goal_key that the stuck timeout stopped suppressing:
    a new task for the goal replaces them."""
    if not goal_key:
        return []
    return [
        t
        for t in tasks.find_by_goal_key(goal_key, PENDING_STATUSES)
        if t.metadata.goalKey == goal_key and open_to(t, bot) and not suppresses(t, now_ms, stuck_timeout_ms)
    ]


def held_twin(tasks: TaskLookup, goal_key: str | None, *, bot: str | None = None) -> Task | None:
    """A plain task for goal_key that `bot` (None: the one bot) held for the night (SHELTERING,
    and claimed by that bot: heldBy). A drive tick fires at night only once the bot is out of its
    hut's hold (dug in under it to work): its tick asking for that goal again means the task can go
    on now (agency.planning.converter). A twin made instead ran after it in the morning, an iron
    pickaxe held: a bench bot went down the mine for a second one and died there. Goal-bound
    tasks are held through their goal."""
    if not goal_key:
        return None
    for task in tasks.find_by_goal_key(goal_key, {TaskStatus.paused}):
        held = task.metadata.blockedReason == SHELTERING and task.metadata.goalBinding is None
        if held and task.metadata.goalKey == goal_key and task.metadata.heldBy == bot:
            return task
    return None
