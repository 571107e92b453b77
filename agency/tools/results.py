"""Tool results: immutable values made only by the factory functions below
(docs/contracts.md TOOL-2).

A result is a frozen pydantic model and its payload is deep-frozen (dicts become
FrozenDict, lists become tuples), so neither the result nor anything inside it can be
changed after it is returned. Callers that need to edit a payload copy it (`thaw`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# Error codes a caller may branch on. Stable strings: they end up in checkpoints and logs.
TOOL_NOT_FOUND = "TOOL_NOT_FOUND"
TOOL_DISABLED = "TOOL_DISABLED"
VALIDATION_ERROR = "VALIDATION_ERROR"
TIMEOUT = "TIMEOUT"
CANCELLED = "CANCELLED"
EXECUTION_ERROR = "EXECUTION_ERROR"
BODY_ERROR = "BODY_ERROR"
BODY_LOST = "BODY_LOST"  # the body went away mid-call (agency.world.BodyLost): hold, never fail
PRECONDITION_FAILED = "PRECONDITION_FAILED"  # e.g. missing materials, nothing found
# surface work met under cover at night (logs above, animals on the surface): its task is held
# until the morning (agency.execution.executor), not failed
WAITS_FOR_MORNING = "WAITS_FOR_MORNING"
# a drive tick's craft or smelt whose plan hunts, claimed underground: held until the bot is up
# on the surface again (agency.execution.executor), not failed
WAITS_FOR_SURFACE = "WAITS_FOR_SURFACE"


class FrozenDict(dict[Any, Any]):
    """A dict that refuses every mutation; still a dict for JSON and pydantic dumps."""

    def _readonly(self, *_a: Any, **_k: Any) -> None:
        raise TypeError("tool results are immutable (INV-TOOL-002)")

    # One refusal for every mutator, whatever its signature.
    __setitem__ = __delitem__ = clear = pop = _readonly
    popitem = setdefault = update = __ior__ = _readonly  # type: ignore[assignment]  # their signatures differ

    def __hash__(self) -> int:  # type: ignore[override]  # a dict has none; a frozen one hashes its items
        return hash(tuple(sorted(self.items(), key=lambda kv: str(kv[0]))))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, _memo: Any) -> FrozenDict:
        return self


def deep_freeze(value: Any) -> Any:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return FrozenDict({str(k): deep_freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(deep_freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """A mutable deep copy of a frozen payload (for building the next call's arguments)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


class ToolError(BaseModel):
    model_config = ConfigDict(frozen=True)

    code: str
    message: str
    toolName: str
    details: Any = None


class ToolExecutionResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    toolName: str
    success: bool
    output: Any = None
    error: ToolError | None = None
    durationMs: int = Field(default=0, ge=0)
    # For rollback: the call that undoes this one, as {"tool": ..., "args": {...}} (or None).
    compensation: Any = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = thaw(self.model_dump(mode="json"))
        return out


def tool_success(
    tool_name: str, output: Any = None, *, duration_ms: int = 0, compensation: Any = None
) -> ToolExecutionResult:
    return ToolExecutionResult(
        toolName=tool_name,
        success=True,
        output=deep_freeze(output),
        durationMs=max(0, duration_ms),
        compensation=deep_freeze(compensation),
    )


def tool_failure(
    tool_name: str, code: str, message: str, *, details: Any = None, duration_ms: int = 0, output: Any = None
) -> ToolExecutionResult:
    return ToolExecutionResult(
        toolName=tool_name,
        success=False,
        output=deep_freeze(output),
        error=ToolError(code=code, message=message, toolName=tool_name, details=deep_freeze(details)),
        durationMs=max(0, duration_ms),
    )


def tool_not_found(tool_name: str, known: list[str] | None = None) -> ToolExecutionResult:
    return tool_failure(
        tool_name,
        TOOL_NOT_FOUND,
        f"unknown tool '{tool_name}'",
        details={"toolName": tool_name, "known": sorted(known or [])},
    )
