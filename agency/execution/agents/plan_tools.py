"""The tool before the work (agency.execution.agents.plan_builder): the cheapest tool that
harvests a block and that the bot can make from nothing, crafted when none is held, and its
wear. Tools wear out: each block dug costs the tool the bot digs it with one use (the fastest
held that harvests it), so a batch stops where the last tool breaks and a new one is made
before the next. Tools held at the start count as new: the inventory says nothing of their
wear."""

from __future__ import annotations

from functools import cache

from agency.execution.agents.plan_steps import PlanSteps, WorkflowPlanError
from agency.execution.agents.sources import obtainable
from agency.game import mcdata
from agency.game.harvest import (
    can_harvest,
    durability,
    harvest_tools,
    needs_tool,
    ranked_tools,
    unless_dug_with,
    wear_order,
)
from agency.game.recipes import CRAFTABLE
from agency.tools.craft_planner import plan_craft


def _makeable(tool: str) -> bool:
    return _makeable_at(tool, mcdata.current_version())


@cache
def _makeable_at(tool: str, version: str) -> bool:
    return tool in CRAFTABLE and all(obtainable(raw) for raw in plan_craft(tool, 1, {}).missing)


def tool_to_make(block: str) -> str:
    """The cheapest tool that harvests `block` and that the bot can make from nothing: a
    recipe whose raw materials it can gather (NO_TOOL when there is none: a diamond
    pickaxe has a recipe, and no diamond source yet)."""
    tool = next((t for t in ranked_tools(block) if _makeable(t)), None)
    if tool is None:
        raise WorkflowPlanError("NO_TOOL", f"{unless_dug_with(block)}, and the bot cannot craft one yet")
    return tool


class ToolSteps(PlanSteps):
    """The tool a gather needs, made first, and the uses spent on the held ones."""

    def ensure_tool(self, block: str) -> None:
        """Make the cheapest craftable tool that harvests `block` when none is held."""
        if can_harvest(self.sim, block):
            return
        tool = tool_to_make(block)
        if tool in self._making:
            raise WorkflowPlanError("NO_TOOL", f"making a {tool} needs a {tool} first")
        self._making.add(tool)
        try:
            with self.serving(f"a tool for {block}"):
                self.craft(tool, 1)
        finally:
            self._making.discard(tool)
        assert can_harvest(self.sim, block), f"{tool} was planned and {block} is still not harvestable"

    def uses_left(self, block: str) -> int:
        """How many `block` the held tools dig before the last breaks."""
        return sum(
            self.sim[t] * durability(t) - self.worn.get(t, 0) for t in harvest_tools(block) if self.sim.get(t, 0) > 0
        )

    def _wear(self, block: str, digs: int) -> None:
        """Spend `digs` uses on the tools the bot digs `block` with, fastest first; a tool
        broken leaves the inventory."""
        if not needs_tool(block):
            return
        for tool in wear_order(block):
            while digs and self.sim.get(tool, 0) > 0:
                spent = min(digs, durability(tool) - self.worn.get(tool, 0))
                self.worn[tool] = self.worn.get(tool, 0) + spent
                digs -= spent
                if self.worn[tool] == durability(tool):
                    self.sim[tool] -= 1
                    self.worn[tool] = 0
        assert not digs, f"{digs} {block} dug with no tool left"
