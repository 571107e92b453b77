"""ToolRegistry: look up, validate, queue, time-box and run tools. `execute` never raises
for anything a caller did wrong or a tool hit: every outcome is a ToolExecutionResult
(docs/contracts.md TOOL-1..3). Only cancellation of the calling task propagates.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from collections.abc import Mapping
from typing import Any

from loguru import logger
from pydantic import ValidationError

from agency.errors import InvalidInputError
from agency.tools.base import Tool, ToolCancelled, ToolContext, ToolFailure, ToolTimeout
from agency.tools.results import (
    BODY_ERROR,
    BODY_LOST,
    CANCELLED,
    EXECUTION_ERROR,
    TIMEOUT,
    TOOL_DISABLED,
    VALIDATION_ERROR,
    ToolExecutionResult,
    tool_failure,
    tool_not_found,
    tool_success,
)
from agency.world import BodyError, BodyLost

DEFAULT_QUEUE_LIMITS = {"body": 1}
# Real-time backstop over the injected-clock deadline, for tool code that never yields
# to ctx.check(): generous, because the clock-based deadline is the one meant to fire.
BACKSTOP_FACTOR = 2.0


class DuplicateToolError(InvalidInputError):
    pass


class ToolRegistry:
    def __init__(self, queue_limits: Mapping[str, int] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self.queue_limits = dict(DEFAULT_QUEUE_LIMITS if queue_limits is None else queue_limits)
        self._sems: dict[tuple[int, str], asyncio.Semaphore] = {}
        # Calls that passed validation and ran, by tool name (resume tests count these).
        self.call_counts: Counter[str] = Counter()

    # ---- registration ----------------------------------------------------------------
    def register(self, tool: Tool) -> Tool:
        if tool.name in self._tools:
            raise DuplicateToolError(f"tool '{tool.name}' is already registered")
        self._tools[tool.name] = tool
        return tool

    def replace(self, tool: Tool) -> Tool:
        """Explicit update path (e.g. a test double for one tool)."""
        if tool.name not in self._tools:
            raise KeyError(f"no tool '{tool.name}' to replace")
        self._tools[tool.name] = tool
        return tool

    def set_enabled(self, name: str, enabled: bool) -> None:
        self._tools[name] = dataclasses.replace(self._tools[name], enabled=enabled)

    def is_tool_available(self, name: str) -> bool:
        tool = self._tools.get(name)
        return tool is not None and tool.enabled

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return sorted(self._tools)

    # ---- execution -------------------------------------------------------------------
    def _semaphore(self, queue: str) -> asyncio.Semaphore:
        key = (id(asyncio.get_running_loop()), queue)
        if key not in self._sems:
            self._sems[key] = asyncio.Semaphore(max(1, self.queue_limits.get(queue, 1)))
        return self._sems[key]

    async def execute(
        self, name: str, args: Mapping[str, Any] | None, ctx: ToolContext, *, timeout_s: float | None = None
    ) -> ToolExecutionResult:
        if not self.is_tool_available(name):
            if name in self._tools:
                return tool_failure(name, TOOL_DISABLED, f"tool '{name}' is disabled", details={"toolName": name})
            logger.warning("unknown tool requested: {}", name)
            return tool_not_found(name, self.names())
        tool = self._tools[name]
        try:
            params = tool.input_model.model_validate(dict(args or {}))
        except ValidationError as e:
            errors = [{"loc": ".".join(str(p) for p in err["loc"]), "msg": err["msg"]} for err in e.errors()]
            msg = "; ".join(f"{er['loc'] or '(input)'}: {er['msg']}" for er in errors)
            return tool_failure(name, VALIDATION_ERROR, f"invalid input for '{name}': {msg}", details=errors)
        if tool.queue is None:
            return await self._run(tool, params, ctx, timeout_s)
        async with self._semaphore(tool.queue):
            return await self._run(tool, params, ctx, timeout_s)

    async def _run(self, tool: Tool, params: Any, ctx: ToolContext, timeout_s: float | None) -> ToolExecutionResult:
        limit = tool.timeout_s if timeout_s is None else timeout_s
        call_ctx = ctx.for_call(limit)
        started = ctx.clock()
        self.call_counts[tool.name] += 1

        def took() -> int:
            return ctx.clock() - started

        try:
            call_ctx.check()
            output = await asyncio.wait_for(tool.run(call_ctx, params), timeout=limit * BACKSTOP_FACTOR + 1)
        except ToolFailure as e:
            return tool_failure(tool.name, e.code, e.message, details=e.details, duration_ms=took())
        except ToolTimeout as e:
            return tool_failure(
                tool.name, TIMEOUT, f"'{tool.name}' timed out after {limit:g} s: {e}", duration_ms=took()
            )
        except TimeoutError:
            return tool_failure(tool.name, TIMEOUT, f"'{tool.name}' timed out after {limit:g} s", duration_ms=took())
        except ToolCancelled as e:
            return tool_failure(tool.name, CANCELLED, f"'{tool.name}' cancelled: {e}", duration_ms=took())
        except BodyLost as e:
            return tool_failure(tool.name, BODY_LOST, str(e), duration_ms=took())
        except BodyError as e:
            return tool_failure(tool.name, BODY_ERROR, str(e), duration_ms=took())
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - a tool bug must not break the workflow loop
            logger.exception("tool {} raised", tool.name)
            return tool_failure(tool.name, EXECUTION_ERROR, f"{type(e).__name__}: {e}", duration_ms=took())
        out = dict(output or {})
        compensation = tool.compensate(params, out) if tool.compensate else None
        return tool_success(tool.name, out, duration_ms=took(), compensation=compensation)
