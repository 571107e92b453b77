"""The standard tool set, registered in one place (switch one off with set_enabled)."""

from __future__ import annotations

from typing import Mapping

from agency.tools import building, combat, crafting, gathering, movement, queries, shelter, shelter_door
from agency.tools.registry import ToolRegistry


def default_tool_registry(queue_limits: Mapping[str, int] | None = None) -> ToolRegistry:
    reg = ToolRegistry(queue_limits)
    for module in (queries, movement, gathering, crafting, building, combat, shelter, shelter_door):
        for tool in module.TOOLS:
            reg.register(tool)
    return reg
