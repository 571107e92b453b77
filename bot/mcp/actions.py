"""One daemon action run for one MCP tool call: started, polled, reported, cancelled.

The daemon runs the action (POST /api/actions); the MCP call only watches it, so a call
the client cancels must cancel the action too, or the bot would walk on for nobody. The
action ids a client started are kept while they run, so `stop` can end that client's own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from loguru import logger

from bot.mcp.daemon_client import DaemonClient, DaemonRefused
from bot.runtime.errors import BotRuntimeError

Report = Callable[[float, float | None, str], Awaitable[None]]  # progress, total, message
CANCEL_BUDGET_S = 5.0  # a cancelled call waits this long at most for the daemon to take the cancel


class ActionFailed(BotRuntimeError):
    """The action ended failed or cancelled; str() carries the daemon's code and message."""


def outcome(record: dict[str, Any]) -> dict[str, Any]:
    """A finished action's output, or ActionFailed with its error code and message."""
    if record.get("status") == "succeeded":
        return record.get("output") or {}
    error = record.get("error") or {}
    raise ActionFailed(
        f"{record.get('tool')} {record.get('status')} ({record.get('actionId')}): "
        f"{error.get('code', 'failed')}: {error.get('message', '')}"
    )


def progress_of(record: dict[str, Any]) -> tuple[float, float | None, str]:
    elapsed_s = (record.get("elapsedMs") or 0) / 1000.0
    return elapsed_s, record.get("timeoutS"), f"{record.get('tool')} running {int(elapsed_s)} s"


class ActionRunner:
    def __init__(
        self,
        daemon: DaemonClient,
        poll_s: float = 0.5,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        actions: str = "/api/actions",
    ) -> None:
        self.daemon = daemon
        self.actions = actions  # the bot's action routes: /api/actions (the first bot's) or /api/bots/{name}/actions
        self.poll_s = poll_s
        self.sleep = sleep
        self.running: dict[str, set[str]] = {}  # client -> ids of the actions it started that still run

    async def run(self, client: str, tool: str, args: dict[str, Any], report: Report) -> dict[str, Any]:
        with anyio.CancelScope(shield=True):  # a cancel mid-POST lands after it: the action then gets cancelled
            record = await self.daemon.post(self.actions, {"tool": tool, "args": args})
        action_id = record["actionId"]
        logger.info("[MCP] {} started: {} {} (client {})", action_id, tool, args, client)
        mine = self.running.setdefault(client, set())
        mine.add(action_id)
        try:
            while record.get("status") == "running":
                await report(*progress_of(record))
                await self.sleep(self.poll_s)
                record = await self._poll(action_id)
        except anyio.get_cancelled_exc_class():
            # The client gave up on the call: end the action before the cancellation goes on.
            logger.info("[MCP] {} ({}): the client cancelled the call", action_id, tool)
            await self._cancel_shielded(action_id, tool)
            raise
        except BotRuntimeError:
            # The daemon stopped answering about it: no one watches the action any more, end it.
            await self._cancel_shielded(action_id, tool)
            raise
        finally:
            mine.discard(action_id)
            if not mine:
                self.running.pop(client, None)
        logger.info("[MCP] {} {}: {}", action_id, record.get("status"), tool)
        return outcome(record)

    async def stop(self, client: str) -> dict[str, Any]:
        """Cancel the running actions this client started; when it started none, every
        running action (one from the dashboard or another client)."""
        own = sorted(self.running.get(client, ()))
        if own:
            targets, whose = own, "this client's"
        else:
            listed = await self.daemon.get(self.actions, limit=50)  # every record the daemon keeps
            targets = [a["actionId"] for a in listed.get("actions", []) if a.get("status") == "running"]
            whose = "every running"
        stopped = [r for r in [await self._cancel(action_id) for action_id in targets] if r is not None]
        if not stopped:
            return {"stopped": [], "message": "nothing was running"}
        names = ", ".join(f"{r['actionId']} ({r.get('tool')})" for r in stopped)
        return {
            "stopped": [{"actionId": r["actionId"], "tool": r.get("tool")} for r in stopped],
            "message": f"stopped {whose} action(s): {names}",
        }

    async def _poll(self, action_id: str) -> dict[str, Any]:
        """The action's record; one failed read (a reconnecting bot, a slow answer) is retried."""
        try:
            return await self.daemon.get(f"{self.actions}/{action_id}")
        except BotRuntimeError as e:
            logger.info("[MCP] polling {} failed ({}); once more", action_id, e)
            await self.sleep(self.poll_s)
            return await self.daemon.get(f"{self.actions}/{action_id}")

    async def _cancel_shielded(self, action_id: str, tool: str) -> None:
        with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_BUDGET_S):
            try:
                await self._cancel(action_id)
            except BotRuntimeError as e:
                logger.warning("[MCP] could not cancel {} ({}): {}", action_id, tool, e)

    async def _cancel(self, action_id: str) -> dict[str, Any] | None:
        """The cancelled action's record; None when it had ended already (or is unknown)."""
        try:
            return await self.daemon.post(f"{self.actions}/{action_id}/cancel")
        except DaemonRefused as e:
            if e.status in (404, 409):
                return None
            raise
