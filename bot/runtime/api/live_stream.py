"""GET /api/live: everything the dashboard shows, pushed as server-sent events.

Events: `state` (vitals, position, time of day, inventory, nearby entities, the active task
with its last step, the running direct action, health, counters, job health, shelters),
sent when it changed and at least every `STATE_EVERY_S`; `tasks` (the newest tasks with
outcomes and reasons) when the list changed; `thought` for each new cognitive-stream entry;
`log` for each new log line; `chat` for each line the bot heard or said in the game's chat
(and the dashboard's own, agency.chat.handler). The state is built from what the daemon already holds (the
perception job's last snapshot): a page costs no bridge call. The stream ends with `end`
when the daemon stops; the state at least every 5 s keeps proxies from closing it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot.runtime.api.payloads import sse

PERIOD_S = 1.0
STATE_EVERY_S = 5.0
TASKS_SHOWN = 30
THOUGHTS_SEEN_KEPT = 500


@dataclass
class LiveSources:
    """What the live stream reads; every callable is cheap and runs on the event loop."""

    state: Callable[[], dict[str, Any]]
    tasks: Callable[[int], list[dict[str, Any]]]  # newest first
    thoughts: Callable[[int], list[dict[str, Any]]]  # newest first, each with an `id`
    logs: Callable[[int], list[dict[str, Any]]]  # lines after a seq, oldest first, each with `seq`
    chat: Callable[[int], list[dict[str, Any]]] = lambda _after: []  # chat lines after a seq, oldest first


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _steady(state: dict[str, Any]) -> dict[str, Any]:
    """The state without what changes every second by itself (the daemon's uptime)."""
    health = state.get("health")
    return (
        {**state, "health": {k: v for k, v in health.items() if k != "uptimeS"}} if isinstance(health, dict) else state
    )


async def live_stream(
    src: LiveSources,
    *,
    stopping: Callable[[], bool],
    disconnected: Callable[[], Awaitable[bool]],
    period_s: float = PERIOD_S,
    state_every_s: float = STATE_EVERY_S,
    log_after: int = 0,
) -> AsyncIterator[str]:
    last_state: Any = None
    last_tasks: Any = None
    seen_thoughts: list[str] = []
    chat_after = 0
    since_state = state_every_s
    first = True
    while True:
        state = src.state()
        if first or since_state >= state_every_s or not _same(_steady(state), last_state):
            yield sse("state", state)
            last_state, since_state = _steady(state), 0.0
        tasks = src.tasks(TASKS_SHOWN)
        if not _same(tasks, last_tasks):
            yield sse("tasks", {"count": len(tasks), "tasks": tasks})
            last_tasks = tasks
        fresh = [t for t in src.thoughts(50) if t.get("id") not in seen_thoughts]
        for thought in reversed(fresh):  # oldest first
            seen_thoughts.append(thought.get("id"))
            yield sse("thought", thought)
        del seen_thoughts[:-THOUGHTS_SEEN_KEPT]
        for line in src.logs(log_after):
            log_after = line["seq"]
            yield sse("log", line, line["seq"])
        for said in src.chat(chat_after):
            chat_after = said["seq"]
            yield sse("chat", said)
        first = False
        if stopping():
            yield sse("end", {"reason": "daemon stopping"})
            return
        if await disconnected():
            return
        await asyncio.sleep(period_s)
        since_state += period_s
