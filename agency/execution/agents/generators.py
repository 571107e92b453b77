"""Workflow generators by the name profiles use (`generator = "..."` in config/agents), and
what of the world a generator is told beyond the inventory (task["facts"], read when a run
is planned; the daemon's plan_facts add theirs on top)."""

from __future__ import annotations

from agency.execution.agents.build_plan import build_plan
from agency.execution.agents.deliver_plan import deliver_plan
from agency.execution.agents.gather_plan import gather_plan
from agency.execution.agents.planning import craft_plan
from agency.execution.agents.smelt_plan import smelt_plan
from agency.tools.crafting import table_facts
from agency.tools.smelting import smelt_facts

GENERATORS = {
    "craft_plan": craft_plan,
    "build_plan": build_plan,
    "smelt_plan": smelt_plan,
    "deliver_plan": deliver_plan,
    "gather_plan": gather_plan,
}
# A table or furnace already standing (in sight, or remembered and found standing): a plan
# crafts neither (nor gathers their wood and stone). A gather plan's tools come from the
# crafter, whose craft plan is told of the table then.
# A craft may smelt (an iron pickaxe's ingots): it is told of a furnace too.
WORLD_FACTS = {"craft_plan": smelt_facts, "deliver_plan": table_facts, "smelt_plan": smelt_facts}
