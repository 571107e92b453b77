"""Tools: bot actions as validated, queued, time-boxed tools over the Body protocol, below
the shelter room (whose tools build on them) and execution (which runs them). The standard
set is assembled in agency.execution.builtin_tools.

May import perception, places, llm, stream and planning. See agency/layers.py."""

from agency.tools.base import (
    BODY_QUEUE,
    StopFlag,
    Tool,
    ToolCancelled,
    ToolContext,
    ToolFailure,
    ToolInput,
    ToolTimeout,
)
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
    "BODY_QUEUE",
    "TOOL_NOT_FOUND",
    "VALIDATION_ERROR",
    "DuplicateToolError",
    "FrozenDict",
    "StopFlag",
    "Tool",
    "ToolCancelled",
    "ToolContext",
    "ToolError",
    "ToolExecutionResult",
    "ToolFailure",
    "ToolInput",
    "ToolRegistry",
    "ToolTimeout",
    "thaw",
    "tool_failure",
    "tool_not_found",
    "tool_success",
]
