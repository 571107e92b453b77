"""The standard tool set, registered in one place (switch one off with set_enabled): the
generic tools of agency.tools and the shelter room's tools."""

from __future__ import annotations

from collections.abc import Mapping

from agency.shelter import (
    bed as shelter_bed,
    burrow as shelter_burrow,
    cover as shelter_cover,
    dig_in as shelter_dig_in,
    door as shelter_door,
    tools as shelter,
)
from agency.tools import (
    buckets,
    building,
    combat,
    crafting,
    delivery,
    gathering,
    head_free,
    hunting,
    mining,
    movement,
    queries,
    smelting,
)
from agency.tools.registry import ToolRegistry


def default_tool_registry(queue_limits: Mapping[str, int] | None = None) -> ToolRegistry:
    reg = ToolRegistry(queue_limits)
    for module in (
        queries,
        movement,
        head_free,
        gathering,
        mining,
        crafting,
        smelting,
        building,
        combat,
        hunting,
        buckets,
        delivery,
        shelter,
        shelter_door,
        shelter_dig_in,
        shelter_burrow,
        shelter_cover,
        shelter_bed,
    ):
        for tool in module.TOOLS:
            reg.register(tool)
    return reg
