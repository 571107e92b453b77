"""What a workflow generator is told beyond the inventory and what it reads of the world
itself (agency.execution.agents.generators.WORLD_FACTS: the table a craft uses): the goal
store's facts (a shelter's missing blocks), a build's or a craft's helpers (the other bots
that can deliver; for a craft, what they hold), where a delivery goes (where its asker was)."""

from __future__ import annotations

from typing import Any

from agency.execution.agents.runtime import TaskSpec
from agency.goals.run_hooks import GoalRunHooks
from agency.planning.delivery import DELIVER, DeliveryBoard


class PlanFacts:
    def __init__(self, goal_hooks: GoalRunHooks, delivery: DeliveryBoard) -> None:
        self.goal_hooks = goal_hooks
        self.delivery = delivery

    def __call__(self, task: TaskSpec) -> dict[str, Any]:
        facts = dict(self.goal_hooks.plan_facts(task) or {})
        if task.action.lower() == "build" and (helpers := self.delivery.helpers()):
            facts["helpers"] = helpers
        if task.action.lower() == "craft" and (helpers := self.delivery.helpers()):
            facts["helpers"], facts["helpersHold"] = helpers, self.delivery.helpers_hold()
        if task.action.lower() == DELIVER and (near := self.delivery.near(task.id)):
            facts["near"] = near
        return facts
