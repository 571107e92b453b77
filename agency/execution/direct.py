"""Direct actions: one tool call asked for from outside (the dashboard, an MCP client), run
on the bot while the daemon's own executor and reflexes stay in charge.

A call that moves the body pauses the running task through the executor's safe stop (goal
tasks through the hold protocol, reason `direct`), runs, and gives the task back. The
executor claims nothing while it runs. Reflexes win: one that needs the body stops the
direct action first (`yield_body`), and a direct action is refused while the reflexes hold
the body (a threat, the night in the shelter, a death's items).
Queries (snapshot, inventory, find_blocks, chat) run beside anything.

Records of the last `KEPT` actions stay in memory; they are the caller's view, not state
that must survive a restart (a restart ends the action and resumes the paused task)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from loguru import logger
from pydantic import ValidationError

from agency.clock import Clock, system_clock_ms
from agency.errors import InvalidInputError
from agency.execution.executor import Executor
from agency.tools.base import StopFlag, ToolContext
from agency.tools.registry import ToolRegistry
from agency.tools.results import CANCELLED

DIRECT = "direct"  # the pause reason of a task held for a direct action
KEPT = 50
YIELD_BUDGET_S = 10.0  # a reflex waits this long at most for a direct action to come to rest
MAX_TIMEOUT_S = 900.0

Status = Literal["running", "succeeded", "failed", "cancelled"]


class DirectActionError(InvalidInputError):
    """Refused before anything ran: `kind` says why (unknown_tool, invalid_args, busy,
    unavailable: no bot connected)."""

    def __init__(self, kind: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.details = details


@dataclass
class DirectAction:
    action_id: str
    tool: str
    args: dict[str, Any]
    moves_body: bool
    timeout_s: float
    started_at: int
    status: Status = "running"
    ended_at: int | None = None
    paused_task_id: str | None = None
    output: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    stop: StopFlag = field(default_factory=StopFlag)
    task: asyncio.Task[None] | None = None

    def view(self, now_ms: int) -> dict[str, Any]:
        return {
            "actionId": self.action_id,
            "tool": self.tool,
            "args": self.args,
            "status": self.status,
            "startedAt": self.started_at,
            "endedAt": self.ended_at,
            "elapsedMs": (self.ended_at or now_ms) - self.started_at,
            "timeoutS": self.timeout_s,
            "movesBody": self.moves_body,
            "pausedTaskId": self.paused_task_id,
            "output": self.output,
            "error": self.error,
        }


class HoldsBody(Protocol):
    """The reflexes (agency.execution.reflexes.Reflexes), as a direct action defers to them."""

    @property
    def hold_reason(self) -> str | None: ...


class DirectActions:
    def __init__(
        self,
        tools: ToolRegistry,
        ctx: ToolContext,
        executor: Executor,
        *,
        connected: Callable[[], bool] = lambda: True,
        clock: Clock = system_clock_ms,
    ) -> None:
        self.tools = tools
        self.ctx = ctx
        self.executor = executor
        self._reflexes: HoldsBody | None = None  # defer_to()
        self.connected = connected
        self.clock = clock
        self._actions: dict[str, DirectAction] = {}
        self._seq = 0

    def defer_to(self, reflexes: HoldsBody) -> None:
        """The reflexes this defers to: a body action is refused while they hold the body.
        Bound once, after both are built: the reflexes take this in their constructor (to
        stop a direct action when they need the body), so one of the two must come second."""
        self._reflexes = reflexes

    def reflex_holding(self) -> str | None:
        """Why the reflexes hold the body, None when they do not (or there are none)."""
        return self._reflexes.hold_reason if self._reflexes is not None else None

    # ---- asking ------------------------------------------------------------------------
    def catalog(self) -> list[dict[str, Any]]:
        """The tools a caller may ask for, with their input schema."""
        out = []
        for name in self.tools.names():
            tool = self.tools.get(name)
            if tool is None or not tool.enabled:
                continue
            out.append(
                {
                    "name": name,
                    "description": tool.description,
                    "inputSchema": tool.input_model.model_json_schema(),
                    "timeoutS": tool.timeout_s,
                    "movesBody": tool.queue is not None,
                }
            )
        return out

    @property
    def body_busy(self) -> DirectAction | None:
        """The running direct action that holds the body, if any."""
        return next((a for a in self._actions.values() if a.status == "running" and a.moves_body), None)

    def start(self, tool_name: str, args: dict[str, Any] | None = None, timeout_s: float | None = None) -> DirectAction:
        """Validate and start; DirectActionError when refused (nothing ran, no task touched)."""
        tool = self.tools.get(tool_name)
        if tool is None or not tool.enabled:
            known = ", ".join(t["name"] for t in self.catalog())
            raise DirectActionError("unknown_tool", f"no tool '{tool_name}' (known: {known})")
        args = dict(args or {})
        try:
            tool.input_model.model_validate(args)
        except ValidationError as e:
            errors = [{"loc": ".".join(str(p) for p in err["loc"]), "msg": err["msg"]} for err in e.errors()]
            msg = "; ".join(f"{er['loc'] or '(input)'}: {er['msg']}" for er in errors)
            raise DirectActionError("invalid_args", f"invalid input for '{tool_name}': {msg}", errors) from None
        if timeout_s is not None and not 0 < timeout_s <= MAX_TIMEOUT_S:
            raise DirectActionError("invalid_args", f"timeoutS must be in (0, {MAX_TIMEOUT_S:g}], got {timeout_s}")
        if not self.connected():
            raise DirectActionError("unavailable", "bot is not connected; nothing was started")
        moves_body = tool.queue is not None
        if moves_body:
            running = self.body_busy
            if running is not None:
                raise DirectActionError(
                    "busy",
                    f"action {running.action_id} ({running.tool}) has the body; cancel it or wait",
                    {"actionId": running.action_id},
                )
            held = self.reflex_holding()
            if held:
                raise DirectActionError("busy", f"the reflexes have the body: {held}")
        self._seq += 1
        action = DirectAction(
            action_id=f"act-{self.clock()}-{self._seq}",
            tool=tool_name,
            args=args,
            moves_body=moves_body,
            timeout_s=timeout_s or tool.timeout_s,
            started_at=self.clock(),
        )
        self._actions[action.action_id] = action
        self._prune()
        action.task = asyncio.create_task(self._run(action), name=f"direct-{action.action_id}")
        logger.info("[Direct] {} started: {} {}", action.action_id, tool_name, args)
        return action

    def get(self, action_id: str) -> DirectAction | None:
        return self._actions.get(action_id)

    def recent(self, limit: int = 20) -> list[DirectAction]:
        return list(reversed(self._actions.values()))[:limit]

    def cancel(self, action_id: str, reason: str = "cancelled by the caller") -> DirectAction:
        """Ask a running action to stop (it ends at its next poll point). KeyError: unknown;
        ValueError: already ended."""
        action = self._actions[action_id]
        if action.status != "running":
            raise ValueError(f"action {action_id} already {action.status}")
        action.stop.set(reason)
        return action

    async def yield_body(self, why: str) -> None:
        """A reflex needs the body: the direct action holding it stops and comes to rest."""
        action = self.body_busy
        if action is None:
            return
        logger.info("[Direct] {} ({}) stopped: {}", action.action_id, action.tool, why)
        action.stop.set(why)
        if action.task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(action.task), timeout=YIELD_BUDGET_S)
            except TimeoutError:
                logger.warning("[Direct] {} did not stop within {} s", action.action_id, YIELD_BUDGET_S)

    async def shutdown(self) -> None:
        for action in list(self._actions.values()):
            if action.status == "running":
                action.stop.set("daemon stopping")
                if action.task is not None:
                    await asyncio.wait([action.task], timeout=YIELD_BUDGET_S)

    # ---- running -----------------------------------------------------------------------
    async def _run(self, action: DirectAction) -> None:
        try:
            if action.moves_body:
                action.paused_task_id = await self.executor.preempt(DIRECT)
            ctx = replace(self.ctx, stop=action.stop, memory={})
            result = await self.tools.execute(action.tool, action.args, ctx, timeout_s=action.timeout_s)
            if result.success:
                action.status, action.output = "succeeded", result.to_json().get("output") or {}
            else:
                err = result.error
                code = err.code if err else "failed"
                action.status = "cancelled" if code == CANCELLED else "failed"
                action.error = {"code": code, "message": err.message if err else "failed"}
        except asyncio.CancelledError:
            action.status, action.error = "cancelled", {"code": CANCELLED, "message": "daemon stopping"}
            raise
        except Exception as e:  # noqa: BLE001 - a record must end whatever happened
            logger.exception("[Direct] {} raised", action.action_id)
            action.status, action.error = "failed", {"code": "execution_error", "message": f"{type(e).__name__}: {e}"}
        finally:
            action.ended_at = self.clock()
            if action.moves_body:
                self.give_back_orphans()
            logger.info(
                "[Direct] {} {}: {}{}",
                action.action_id,
                action.status,
                action.tool,
                f" ({action.error['message']})" if action.error else "",
            )

    def give_back_orphans(self) -> list[str]:
        """Tasks paused for a direct action go back in the queue: after each body action, and
        at a start (a daemon stopped mid-action left its task paused)."""
        try:
            return self.executor.resume_paused(DIRECT)
        except Exception as e:  # noqa: BLE001 - the store closed under a shutdown: the next start does it
            logger.warning("[Direct] could not give the paused task back: {}", e)
            return []

    def _prune(self) -> None:
        ended = [k for k, a in self._actions.items() if a.status != "running"]
        for k in ended[: max(0, len(self._actions) - KEPT)]:
            del self._actions[k]
