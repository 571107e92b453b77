"""GET /api/tasks/{id}/events: a task's lifecycle as server-sent events.

The task's events (agency/planning/tasks/events.py: created, claimed, step_started/finished, held,
resumed, progress, completed/failed with reason, ...) come from the task store's log, so a
follower that joins late, or reconnects with Last-Event-ID, misses nothing. The stream
replays what it has not seen, then polls for new events, and ends with an `end` event once
the task has ended or the daemon is stopping. A comment line every `keepalive_s` keeps
proxies from closing a quiet stream.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from bot.runtime.api.payloads import sse

POLL_S = 0.5
KEEPALIVE_S = 15.0


async def task_event_stream(
    tasks: Any,  # agency.planning.tasks.store.SqliteTaskStore
    task_id: str,
    after_seq: int,
    *,
    stopping: Callable[[], bool],
    disconnected: Callable[[], Awaitable[bool]],
    poll_s: float = POLL_S,
    keepalive_s: float = KEEPALIVE_S,
    clock: Callable[[], float] = time.monotonic,
) -> AsyncIterator[str]:
    """Every event after `after_seq`, then new ones as they come, then `end`. The end is
    the task row's word, read after the log is drained: a `completed` in the history of a
    task the verifier re-opened does not end the stream, and the event of an ending always
    goes out before the `end` (it is written in the same transaction as the status)."""
    quiet_since = clock()
    while True:
        task = tasks.get_task(task_id)  # read before draining: whatever it says, the log has it by then
        page = tasks.events(task_id, after_seq=after_seq)
        while page:
            for ev in page:
                after_seq = ev.seq
                quiet_since = clock()
                yield sse(ev.event, ev.model_dump(mode="json"), ev.seq)
            page = tasks.events(task_id, after_seq=after_seq)
        if task is None or task.status.terminal:
            status = task.status.value if task is not None else "gone"
            yield sse("end", {"taskId": task_id, "status": status, "reason": f"task {status}"})
            return
        if stopping():
            yield sse("end", {"taskId": task_id, "status": task.status.value, "reason": "daemon stopping"})
            return
        if await disconnected():
            return
        if clock() - quiet_since >= keepalive_s:
            quiet_since = clock()
            yield ": keep-alive\n\n"
        await asyncio.sleep(poll_s)


MAX_SEQ = 2**63 - 1
_SEQ = re.compile(r"^[0-9]{1,18}$")


def resume_after(header: str | None, after: int) -> int:
    """Where to resume: the Last-Event-ID a reconnecting client sends wins over ?after=.
    ValueError for one that is not an event id."""
    if header is None or not header.strip():
        return after
    if not _SEQ.match(header.strip()):
        raise ValueError(f"Last-Event-ID must be an event id (digits), got {header[:40]!r}")
    return int(header.strip())


def nothing_left(tasks: Any, task_id: str, after_seq: int) -> bool:
    """An ended task with no event after `after_seq`: a client that follows it is done (204,
    which also stops a browser's EventSource from reconnecting)."""
    task = tasks.get_task(task_id)
    return task is not None and task.status.terminal and not tasks.events(task_id, after_seq=after_seq, limit=1)
