"""The LLM session runtime (docs/contracts.md LLM-1..15, CONFIG-1..3, EXIT-1).

Public API: run_session -> AgentResult, LlmSettings (the [llm] config), ToolBox/ToolSpec
(+ bot_tool_specs, open_mcp_servers), AutonomyBudget, exit_code. Imports are lazy so
`import agency.llm.settings` stays cheap."""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "run_session": "agency.llm.session",
    "AgentResult": "agency.llm.result",
    "exit_code": "agency.llm.result",
    "LlmSettings": "agency.llm.settings",
    "TargetConfig": "agency.llm.settings",
    "ToolBox": "agency.llm.toolbox",
    "ToolSpec": "agency.llm.toolbox",
    "ToolCallFailed": "agency.llm.toolbox",
    "bot_tool_specs": "agency.llm.bot_tools",
    "open_mcp_servers": "agency.llm.mcp_tools",
    "AutonomyBudget": "agency.llm.budgets",
    "BudgetExceeded": "agency.llm.errors",
    "LlmConfigError": "agency.llm.errors",
    "ProviderError": "agency.llm.errors",
    "ToolSetupError": "agency.llm.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'agency.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
