"""GET /api/tasks/{id}/events: a task's lifecycle as server-sent events.

The task's events (agency/tasks/events.py: created, claimed, step_started/finished, held,
resumed, progress, completed/failed with reason, ...) come from the task store's log, so a
follower that joins late, or reconnects with Last-Event-ID, misses nothing. The stream
replays what it has not seen, then polls for new events, and ends with an `end` event once
the task has ended or the daemon is stopping. A comment line every `keepalive_s` keeps
proxies from closing a quiet stream.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, AsyncIterator, Awaitable, Callable

from agency.tasks.events import TERMINAL_EVENTS

POLL_S = 0.5
KEEPALIVE_S = 15.0


def sse(event: str, data: Any, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


async def task_event_stream(
    tasks: Any,  # agency.tasks.store.SqliteTaskStore
    task_id: str,
    after_seq: int,
    *,
    stopping: Callable[[], bool],
    disconnected: Callable[[], Awaitable[bool]],
    poll_s: float = POLL_S,
    keepalive_s: float = KEEPALIVE_S,
    clock: Callable[[], float] = time.monotonic,
) -> AsyncIterator[str]:
    quiet_since = clock()
    while True:
        for ev in tasks.events(task_id, after_seq=after_seq):
            after_seq = ev.seq
            quiet_since = clock()
            yield sse(ev.event, ev.model_dump(mode="json"), ev.seq)
            if ev.event in TERMINAL_EVENTS:
                yield sse("end", {"taskId": task_id, "status": ev.status, "reason": f"task {ev.event}"})
                return
        task = tasks.get_task(task_id)
        if task is None or task.status.terminal:  # ended before events were logged (an older store)
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


def last_event_id(header: str | None, after: int) -> int:
    """Where to resume: the Last-Event-ID a reconnecting client sends wins over ?after=."""
    if header is not None and header.strip().isdigit():
        return int(header.strip())
    return after
