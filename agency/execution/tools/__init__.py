"""Bot actions as validated, queued, time-boxed tools over the Body protocol: the bottom of
the execution room. The standard set is assembled in agency.execution.builtin_tools."""

from agency.execution.tools.base import BODY_QUEUE, StopFlag, Tool, ToolCancelled, ToolContext, ToolFailure, ToolInput, ToolTimeout
from agency.execution.tools.registry import DuplicateToolError, ToolRegistry
from agency.execution.tools.results import (
    TOOL_NOT_FOUND,
    VALIDATION_ERROR,
    FrozenDict,
    ToolError,
    ToolExecutionResult,
    thaw,
    tool_failure,
    tool_not_found,
    tool_success,
)

__all__ = [
    "BODY_QUEUE", "DuplicateToolError", "FrozenDict", "StopFlag", "TOOL_NOT_FOUND", "Tool", "ToolCancelled",
    "ToolContext", "ToolError", "ToolExecutionResult", "ToolFailure", "ToolInput", "ToolRegistry", "ToolTimeout",
    "VALIDATION_ERROR", "thaw", "tool_failure", "tool_not_found", "tool_success",
]
