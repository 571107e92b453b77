"""Whether a drive tick's goal is already in hand (DRIVE-2: docs/contracts.md) or held back:
an open task of the same goal, or one meaning to do it as a follow-up, makes it a duplicate;
a goal whose newest tasks failed a moment ago waits (agency.planning.tasks.retry_backoff).
Only tasks open to the tick's bot (bound to it or to none) count."""

from __future__ import annotations

from collections.abc import Iterable

from agency.cognition.drive_selection import DriveSelection
from agency.cognition.follow_ups import following
from agency.cognition.settings import DriveTickConfig
from agency.goal_tag import canonical_goal_key
from agency.planning.tasks.idempotency import TaskLookup, find_blocking_task
from agency.planning.tasks.models import Task
from agency.planning.tasks.retry_backoff import HeldBack, held_back
from agency.tools.movement import NEAR_HOME

# A stand-in explore's target: looking for what is missing, not bound near the hut as the last
# rule's `explore nearby` is (agency.tools.movement)
EXPLORE_FARTHER = "farther"
EXPLORE_AREAS = (NEAR_HOME, EXPLORE_FARTHER)  # the drive tick's explores: the last rule's, a stand-in's

Tasks = TaskLookup | Iterable[Task]


def held_back_step(tasks: Tasks, sel: DriveSelection, now_ms: int, bot: str | None) -> HeldBack | None:
    """How the goal is held back (its last tasks failed a moment ago), or None."""
    key = canonical_goal_key(sel.action, sel.target)
    return held_back(tasks, key, now_ms, bot=bot) if key is not None else None


def step_held_back(tasks: Tasks, sel: DriveSelection, now_ms: int, bot: str | None) -> bool:
    """Is a chain's step held back (its last tasks failed a moment ago: retry_backoff)?"""
    return held_back_step(tasks, sel, now_ms, bot) is not None


def step_in_flight(tasks: Tasks, sel: DriveSelection, now_ms: int, config: DriveTickConfig, bot: str | None) -> bool:
    """Does an open task already have a chain's step, or mean to do it as a follow-up (DRIVE-2)?"""
    return blocker(tasks, sel, now_ms, config, bot) is not None


def blocker(
    tasks: Tasks, sel: DriveSelection, now_ms: int, config: DriveTickConfig, bot: str | None
) -> tuple[Task, str] | None:
    """The open task that makes the goal a duplicate (DRIVE-2: its own, or one of its
    follow-ups), and why; None when there is none. An explore in flight, nearby or farther,
    makes any other one a duplicate: one walk at a time."""
    for goal_key in same_goal_keys(sel):
        blocking = find_blocking_task(tasks, goal_key, now_ms, config.stuck_timeout_ms, bot=bot)
        if blocking is not None:
            return blocking, f"{goal_key} already {blocking.status.value}"
        follower = following(tasks, goal_key, now_ms, config.stuck_timeout_ms, bot)
        if follower is not None:
            return follower, f"{goal_key} is a follow-up of {follower.metadata.goalKey} ({follower.status.value})"
    return None


def same_goal_keys(sel: DriveSelection) -> tuple[str | None, ...]:
    """The goal keys a task of which makes `sel` a duplicate: its own, and for an explore
    every drive tick explore's."""
    own = canonical_goal_key(sel.action, sel.target)
    if sel.action != "explore":
        return (own,)
    return (own, *(k for k in (canonical_goal_key("explore", a) for a in EXPLORE_AREAS) if k != own))
