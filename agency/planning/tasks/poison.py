"""Poison tasks: a task whose runs took the bridge down (its node process died, or was killed
as wedged) POISON_AFTER times is failed, not held again. Held, it would be resumed once the
bot is back and do the same thing again; and since it stays in the store, the next daemon
start would resume it too. An ordinary disconnect (a kick, a server restart) never counts.

Pure: the task store applies it in one write under the row's lock (record_bridge_down), so
the record and the failure land together and a restart finds the task failed, never active.
"""

from __future__ import annotations

from typing import Any

from agency.planning.tasks.models import BridgeDown, Task, TaskStatus

POISON_AFTER = 2  # one bridge down may be bad luck (the world, the host); the second is the task
POISON = "poison:"  # how a poison failure's reason starts (retry_backoff holds its goal back long)


def poison_reason(count: int, last: str) -> str:
    times = "twice" if count == 2 else f"{count} times"
    return f"{POISON} its run brought the bridge down {times} (last: {last})"


def is_poison(reason: str | None) -> bool:
    return (reason or "").startswith(POISON)


def bridge_down_update(
    task: Task, reason: str, now: int, poison_after: int = POISON_AFTER
) -> tuple[dict[str, Any], TaskStatus | None]:
    """The metadata patch and status (None: unchanged) recording one more bridge down on
    `task`: the record appended, and at the `poison_after`-th the task failed with why."""
    downs = [*(task.metadata.bridgeDowns or []), BridgeDown(at=now, reason=reason)]
    patch: dict[str, Any] = {"bridgeDowns": [d.model_dump() for d in downs]}
    if len(downs) < poison_after or task.status.terminal:
        return patch, None
    patch["solver"] = {**task.metadata.solver, "failureReason": poison_reason(len(downs), reason)}
    patch["blockedReason"] = None  # the failure is the reason shown, not an old hold's
    return patch, TaskStatus.failed
