"""The task store's pure rules (docs/contracts.md TASK-1..5), one copy for every backend.

Each function takes the task, draft, patch or value and the clock, and returns the new value
or raises the store's typed error; none touches a database. SQLite and PostgreSQL call the
same ones (through TaskStoreBase), so their semantics cannot drift apart.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from loguru import logger

from agency.clock import Clock
from agency.planning.tasks.events import RUN_EVENTS, TaskEvent
from agency.planning.tasks.idempotency import PENDING_STATUSES
from agency.planning.tasks.models import (
    TRANSITIONS,
    IllegalTransitionError,
    InvalidProgressError,
    NewTask,
    Task,
    TaskMetadata,
    TaskOrigin,
    TaskStatus,
)
from agency.planning.tasks.projection import project_incoming_metadata

OnDropped = Callable[[str], None]

# Store-owned keys a metadata patch may not touch (origin: TASK-2; heldBy: the claim's;
# bridgeDowns: record_bridge_down's).
PATCH_PROTECTED = ("origin", "createdAt", "updatedAt", "heldBy", "bridgeDowns")


def strict_finalize_from_env() -> bool:
    """MCBOT_PLANNING_STRICT_FINALIZE=1 warns on tasks stored without origin (TASK-2)."""
    return os.environ.get("MCBOT_PLANNING_STRICT_FINALIZE") == "1"


def stamp(origin: TaskOrigin | Mapping[str, Any], clock: Clock) -> TaskOrigin:
    """The origin as stored: stampedAt is the clock's unless the caller gave one."""
    o = TaskOrigin.model_validate(origin)
    return o if o.stampedAt is not None else o.model_copy(update={"stampedAt": clock()})


def new_task(
    draft: NewTask | Mapping[str, Any],
    clock: Clock,
    *,
    origin: TaskOrigin | Mapping[str, Any] | None,
    on_dropped: OnDropped,
) -> Task:
    """add_task's task: metadata rebuilt from scratch, the caller's keys only through the
    projection allowlist; origin, when given, stamped in the same write."""
    new = NewTask.model_validate(draft)
    incoming = new.metadata
    now = clock()
    tags, category, solver = incoming.get("tags"), incoming.get("category"), incoming.get("solver")
    metadata = TaskMetadata(
        createdAt=now,
        updatedAt=now,
        retryCount=0,
        maxRetries=3,
        childTaskIds=[],
        tags=[t for t in tags if isinstance(t, str)] if isinstance(tags, list) else [],
        category=category if isinstance(category, str) and category else new.type,
        solver=dict(solver) if isinstance(solver, Mapping) else {},
        **project_incoming_metadata(incoming, on_dropped=on_dropped),
    )
    if origin is not None:
        metadata = metadata.model_copy(update={"origin": stamp(origin, clock)})
    return Task(
        title=new.title,
        type=new.type,
        description=new.description,
        priority=new.priority,
        source=new.source,
        parameters=new.parameters,
        metadata=metadata,
    )


def warn_unfinalized(task: Task, *, strict: bool, allow_unfinalized: bool) -> None:
    if strict and task.metadata.origin is None and not allow_unfinalized:
        logger.warning(
            "[TaskStore] strict finalize: task {} stored without origin "
            "(call finalize_new_task or pass allow_unfinalized=True)",
            task.id,
        )


def touched(task: Task, now: int, **update: Any) -> Task:
    """The task with `update` applied and metadata.updatedAt = now."""
    meta = task.metadata.model_copy(update={"updatedAt": now})
    return _released(task.model_copy(update={**update, "metadata": meta}))


def claimed(task: Task, now: int, bot: str | None) -> Task:
    """claim_next's write: pending -> active, held by `bot` (None: by no bot in particular)."""
    meta = task.metadata.model_copy(update={"updatedAt": now, "heldBy": bot})
    return task.model_copy(update={"status": TaskStatus.active, "metadata": meta})


def _released(task: Task) -> Task:
    """A task back in the queue (pending, pending_planning) is held by no bot: the next claim
    names its holder. Every other status keeps the holder (the store's docstring)."""
    if task.status not in PENDING_STATUSES or task.metadata.heldBy is None:
        return task
    return task.model_copy(update={"metadata": task.metadata.model_copy(update={"heldBy": None})})


def finalized(task: Task, origin: TaskOrigin | Mapping[str, Any], clock: Clock) -> Task:
    meta = task.metadata.model_copy(update={"origin": stamp(origin, clock), "updatedAt": clock()})
    return task.model_copy(update={"metadata": meta})


def clean_patch(task_id: str, patch: Mapping[str, Any], on_dropped: OnDropped) -> dict[str, Any]:
    """A metadata patch as the store applies it: store-owned keys, an empty goalKey and keys
    TaskMetadata does not have are left out."""
    clean = {k: v for k, v in patch.items() if k not in PATCH_PROTECTED}
    if "origin" in patch:
        logger.debug("[TaskStore] ignored origin in metadata patch for task {}", task_id)
    if "goalKey" in clean and not clean["goalKey"]:
        del clean["goalKey"]  # '' or None never replaces a key
    for key in [k for k in clean if k not in TaskMetadata.model_fields]:
        on_dropped(key)
        del clean[key]
    return clean


def patched(task: Task, clean: Mapping[str, Any], clock: Clock, **update: Any) -> Task:
    """The task with a cleaned metadata patch (clean_patch) and `update` applied."""
    meta = TaskMetadata.model_validate({**task.metadata.model_dump(), **clean, "updatedAt": clock()})
    return _released(task.model_copy(update={**update, "metadata": meta}))


def check_transition(task: Task, to: TaskStatus) -> None:
    if to not in TRANSITIONS[task.status]:
        raise IllegalTransitionError(task.id, task.status, to)


def checked_progress(task_id: str, progress: float) -> float:
    if isinstance(progress, bool) or not isinstance(progress, (int, float)) or not 0 <= progress <= 1:  # NaN fails
        raise InvalidProgressError(task_id, progress)
    return float(progress)


def checked_urgency(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:  # NaN fails
        raise ValueError(f"urgency must be within 0..1, got {value!r}")
    return round(float(value), 4)  # finer differences are noise, not a reason to write


def needs_urgency(task: Task, urgency: float) -> bool:
    """Only a live task whose urgency changed is written."""
    return not task.status.terminal and task.urgency != urgency


def status_values(statuses: Iterable[TaskStatus | str]) -> list[str]:
    return sorted(TaskStatus(s).value for s in statuses)


def all_counts(got: Mapping[str, int]) -> dict[str, int]:
    """Every status named, 0 when none."""
    return {s.value: got.get(s.value, 0) for s in TaskStatus}


def check_step_event(event: str) -> None:
    """record_event takes the run's own events only (steps, a replan): status and progress
    events come from their writes."""
    if event not in RUN_EVENTS:
        raise ValueError(f"record_event takes run events ({', '.join(sorted(RUN_EVENTS))}), not {event!r}")


def check_page_limit(limit: int) -> None:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit!r}")


def new_event(task: Task, event: str, data: Mapping[str, Any], at: int) -> TaskEvent:
    """An event as it is logged: the task's status and progress now; seq comes from the database."""
    return TaskEvent(
        seq=0, taskId=task.id, at=at, event=event, status=task.status.value, progress=task.progress, data=dict(data)
    )
