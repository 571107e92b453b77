"""The tools a session offers: specs from any source (the bot registry, MCP servers),
executed through named queues with concurrency limits, a timeout and response truncation.
Every outcome is a ToolOutcome; execute() never raises for a tool failure."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from loguru import logger

from agency.llm.errors import LlmConfigError, LlmError
from agency.llm.messages import ToolSchema
from agency.llm.truncate import truncate_response

ToolFn = Callable[[dict[str, Any]], Awaitable[str]]


class ToolCallFailed(LlmError):
    """Raised by a tool adapter for an expected failure; the message reaches the model."""


def failed(reason: str) -> str:
    return f"(tool failed: {reason})"


@dataclass(frozen=True)
class ToolSpec:
    server: str
    name: str
    description: str
    parameters: dict[str, Any]
    call: ToolFn
    queue: str = "default"

    @property
    def exposed(self) -> str:
        """The name the model sees: `<server>__<tool>` (like agent__final_report)."""
        return f"{self.server}__{self.name}"

    def schema(self) -> ToolSchema:
        return ToolSchema(name=self.exposed, description=self.description, parameters=self.parameters)


@dataclass
class ToolOutcome:
    ok: bool
    text: str  # what the model receives
    server: str
    command: str
    latency_ms: int
    chars_in: int
    chars_out: int
    error: str | None = None
    truncated: bool = False


@dataclass
class _Queue:
    limit: int
    sem: asyncio.Semaphore | None = None
    in_flight: int = 0
    waiting: int = 0
    max_waiting: int = 0


@dataclass
class ToolBox:
    specs: list[ToolSpec]
    queues: dict[str, int]
    timeout_ms: int = 60000
    max_bytes: int = 12288
    _by_name: dict[str, ToolSpec] = field(init=False)
    _queues: dict[str, _Queue] = field(init=False)

    def __post_init__(self) -> None:
        self._by_name = {}
        for spec in self.specs:
            if spec.exposed in self._by_name:
                raise LlmConfigError(f"tool {spec.exposed} is defined twice")
            if spec.queue not in self.queues:  # docs/contracts.md LLM-8: bindings checked at startup
                raise LlmConfigError(f"tool {spec.exposed} is bound to queue {spec.queue!r}, which does not exist")
            self._by_name[spec.exposed] = spec
        self._queues = {name: _Queue(limit) for name, limit in self.queues.items()}

    def has(self, name: str) -> bool:
        return name in self._by_name

    def schemas(self) -> list[ToolSchema]:
        return [s.schema() for s in self.specs]

    def names(self) -> list[str]:
        return [s.exposed for s in self.specs]

    def queue_stats(self) -> dict[str, dict[str, int]]:
        """Queue depth telemetry (LLM-8)."""
        return {
            n: {"concurrent": q.limit, "inFlight": q.in_flight, "waiting": q.waiting, "maxWaiting": q.max_waiting}
            for n, q in self._queues.items()
        }

    def add(self, specs: Iterable[ToolSpec]) -> None:
        for spec in specs:
            self.specs.append(spec)
        self.__post_init__()

    async def execute(self, name: str, args: dict[str, Any]) -> ToolOutcome:
        spec = self._by_name[name]
        chars_in = len(json.dumps(args, ensure_ascii=False))
        q = self._queues[spec.queue]
        if q.sem is None:  # created lazily: it must belong to the running loop
            q.sem = asyncio.Semaphore(q.limit)
        q.waiting += 1
        q.max_waiting = max(q.max_waiting, q.waiting)
        async with q.sem:
            q.waiting -= 1
            q.in_flight += 1
            started = time.perf_counter()
            try:
                ok, text, error = await self._call(spec, args)
            finally:
                q.in_flight -= 1
            latency = int((time.perf_counter() - started) * 1000)
        text, truncated = truncate_response(text, self.max_bytes, name)
        return ToolOutcome(ok, text, spec.server, name, latency, chars_in, len(text), error, truncated)

    async def _call(self, spec: ToolSpec, args: dict[str, Any]) -> tuple[bool, str, str | None]:
        try:
            text = await asyncio.wait_for(spec.call(args), timeout=self.timeout_ms / 1000)
            return True, text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str), None
        except TimeoutError:
            return False, failed("timeout"), "timeout"
        except ToolCallFailed as e:
            return False, failed(str(e)), str(e)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - a tool bug becomes a failed tool, never a crashed session
            logger.exception("tool {} raised", spec.exposed)
            return False, failed(f"{type(e).__name__}: {e}"), f"{type(e).__name__}: {e}"
