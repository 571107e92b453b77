"""What a workflow generator is told (agency.goals.plan_facts): the goal store's facts, a
build's helpers, where a delivery goes; nothing for a build no other bot can help with."""

from __future__ import annotations

from types import SimpleNamespace

from agency.execution.agents.runtime import TaskSpec
from agency.goals.plan_facts import PlanFacts


def _facts(helpers: list[str], near: dict[str, list[int]], goal_facts: dict | None = None) -> PlanFacts:
    hooks = SimpleNamespace(plan_facts=lambda spec: goal_facts)
    board = SimpleNamespace(helpers=lambda: helpers, near=lambda task_id: near.get(task_id))
    return PlanFacts(hooks, board)


def test_a_build_is_told_the_goal_store_s_facts_and_its_helpers():
    facts = _facts(["g1", "g2"], {}, {"needed": {"oak_planks": 9}})
    assert facts(TaskSpec(action="build", target="basic_shelter", id="t1")) == {
        "needed": {"oak_planks": 9},
        "helpers": ["g1", "g2"],
    }


def test_a_build_with_no_other_bot_to_help_is_told_no_helpers():
    assert _facts([], {})(TaskSpec(action="Build", target="basic_shelter", id="t1")) == {}


def test_a_delivery_is_told_where_its_asker_was_and_only_a_delivery_is():
    facts = _facts(["g1"], {"d1": [10, 64, -3]})
    assert facts(TaskSpec(action="deliver", target="oak_planks", id="d1", to="builder")) == {"near": [10, 64, -3]}
    assert facts(TaskSpec(action="deliver", target="oak_planks", id="d2", to="builder")) == {}
    assert facts(TaskSpec(action="collect", target="oak_log", id="d1")) == {}
