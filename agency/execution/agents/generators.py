"""Workflow generators by the name profiles use (`generator = "..."` in config/agents)."""

from __future__ import annotations

from agency.execution.agents.build_plan import build_plan
from agency.execution.agents.deliver_plan import deliver_plan
from agency.execution.agents.planning import craft_plan
from agency.execution.agents.smelt_plan import smelt_plan

GENERATORS = {"craft_plan": craft_plan, "build_plan": build_plan, "smelt_plan": smelt_plan, "deliver_plan": deliver_plan}
