"""A goal whose tasks keep failing waits before it is asked again.

Idempotency (docs/contracts.md DRIVE-2) stops a second task while one is in flight; nothing stopped a
drive tick from asking, a moment after a failure, for the very goal that just failed (a table
out of reach, no wool to be had), so one blocked step failed every tick. Here a goal whose
newest tasks failed n times in a row is held back BACKOFF_MS[n - 1] (the last entry beyond)
from its last failure; a task of it that completes, or one still in flight, ends the run.
A poison failure among them (agency.planning.tasks.poison: its runs took the bridge down
twice) holds the goal back POISON_HOLD_MS from that failure. Only what the drive tick asks
waits: a user may still submit the goal (their choice).
A goal whose newest task waits for the morning (paused WAITING_FOR_MORNING: surface work met
under cover at night, agency.execution.executor) is held back too until that task is given back,
so the night asks for the next goal instead of the same one again; so is one whose newest task
waits for the surface (WAITING_FOR_SURFACE: a plan that hunts, claimed underground).
Asked for a bot, only the tasks open to it count (agency.planning.tasks.idempotency.open_to).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agency.planning.tasks.idempotency import TaskLookup, open_to, waits_for_morning, waits_for_surface
from agency.planning.tasks.models import Task, TaskStatus
from agency.planning.tasks.poison import is_poison

# growing past the tick's 180 s: a goal failing the same way every tick (an armour craft whose
# furnace no walk reached, five times in 15 minutes at 8fd0a28) gives the others its turns
BACKOFF_MS = (20_000, 60_000, 180_000, 540_000, 900_000)
# A poison goal asked again every few minutes takes node down (every bot of the fleet with
# it) twice each time. Held until the daemon restarts would be lost at the restart, which is
# no sign the goal got safe; a time from the failure, kept in the store, holds across it. In
# half an hour the bot has moved on and its inventory changed, which may be all the run
# needed (a search that wedged node there); a held goal's periodic review waits as long at most
# (agency.goals.backoff).
POISON_HOLD_MS = 30 * 60_000
MORNING_RECHECK_MS = 60_000  # what a goal held for the morning reports as its wait (a tick asks again)


@dataclass(frozen=True)
class HeldBack:
    failures: int  # in a row, newest first
    wait_ms: int  # left until the goal may be asked again
    reason: str  # the last failure's reason


def held_back(
    tasks: TaskLookup | Iterable[Task], goal_key: str, now_ms: int, *, bot: str | None = None
) -> HeldBack | None:
    """Is goal_key held back now for `bot`? None when its newest task did not fail or its wait is over."""
    depth = len(BACKOFF_MS) + 1  # failures beyond the last step wait no longer: no need to read them
    if hasattr(tasks, "latest_by_goal_key"):  # a store: its newest few, not every task of the goal
        newest = tasks.latest_by_goal_key(goal_key, depth, open_to=bot)
    else:
        assert isinstance(tasks, Iterable)  # not a store: the tasks themselves
        mine = [t for t in tasks if t.metadata.goalKey == goal_key and open_to(t, bot)]
        newest = sorted(mine, key=lambda t: t.metadata.updatedAt, reverse=True)[:depth]
    if newest and waits_for_morning(newest[0], now_ms):
        return HeldBack(failures=0, wait_ms=MORNING_RECHECK_MS, reason="it waits for the morning")
    if newest and waits_for_surface(newest[0], now_ms):  # the tick asks for another goal meanwhile
        return HeldBack(failures=0, wait_ms=MORNING_RECHECK_MS, reason="it waits for the surface")
    failures, last, poison = 0, None, None
    for task in newest:
        if task.status is not TaskStatus.failed:
            break
        failures += 1
        last = last or task
        if poison is None and is_poison(task.metadata.solver.get("failureReason")):
            poison = task  # a failure of another kind after it (a user's try) does not end its hold
    if last is None:
        return None
    wait, by = BACKOFF_MS[min(failures, len(BACKOFF_MS)) - 1] - (now_ms - last.metadata.updatedAt), last
    if poison is not None and (long := POISON_HOLD_MS - (now_ms - poison.metadata.updatedAt)) > wait:
        wait, by = long, poison
    if wait <= 0:
        return None
    return HeldBack(failures=failures, wait_ms=wait, reason=str(by.metadata.solver.get("failureReason", "")))
