"""Bot actions as validated, queued, time-boxed tools over the Body protocol."""

from agency.tools.base import BODY_QUEUE, StopFlag, Tool, ToolCancelled, ToolContext, ToolFailure, ToolInput, ToolTimeout
from agency.tools.builtin import default_tool_registry
from agency.tools.registry import DuplicateToolError, ToolRegistry
from agency.tools.results import (
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
    "VALIDATION_ERROR", "default_tool_registry", "thaw", "tool_failure", "tool_not_found", "tool_success",
]
