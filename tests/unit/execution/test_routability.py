"""Routable = some enabled agent has a workflow for the action: derived from the agent
registry, never a hand-kept list. Every action the goal allowlist accepts is driven
through the daemon's own path (sanitizer -> eligibility.decide with the default routing ->
convert_thought -> Executor over the real agent runtime and a fake body): a goal becomes
a task only when the executor can plan it, and no task ends `unplannable` for lack of a
workflow."""

from __future__ import annotations

import asyncio

import pytest

from agency.cognition.eligibility import apply_decision, decide, routable_by
from agency.cognition.grounding import FrameFacts
from agency.cognition.sanitizer import build_llm_thought
from agency.execution.agents import load_default_registry
from agency.execution.agents.runtime import NO_WORKFLOW
from agency.goal_tag import CANONICAL_ACTIONS, ExtractedGoal
from agency.planning.converter import convert_thought
from agency.planning.tasks.models import TaskStatus
from agency.tools.testing import FakeBody, FakeTime, Mob
from tests.unit.execution.world import add_task, executor_env

# A target per allowlisted action that grounds in FACTS, so routing alone decides.
TARGETS = {
    "collect": "oak_log",
    "gather": "oak_log",
    "mine": "stone",
    "find": "oak_log",
    "craft": "stick",
    "smelt": "charcoal",
    "build": "pillar",
    "place": "dirt",
    "eat": "bread",
    "explore": "nearby",
    "navigate": "nearby",
    "attack": "zombie",
    "flee": "zombie",
    "sleep": "bed",
    "pause": "now",
    "continue": "work",
    "hunt": "cow",
    "descend": "y40",
}
FACTS = FrameFacts(
    inventory=frozenset({"bread", "dirt", "oak_log"}),
    entities=frozenset({"zombie", "cow"}),
    blocks=frozenset({"oak_log", "stone"}),
    hostiles=1,
)


def test_every_allowlisted_action_has_a_target_here():
    assert set(TARGETS) == CANONICAL_ACTIONS


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    body = FakeBody(ftime.clock, inventory={"bread": 2, "dirt": 4, "oak_log": 2})
    body.food = 12
    body.mobs.append(Mob("zombie", hostile=True, x=3.5, z=0.5))
    body.mobs.append(Mob("cow", hostile=False, x=-3.5, z=0.5))
    body.add_tree(4, 4)
    e = executor_env(tmp_path, ftime, body)
    yield e
    e["tasks"].close()


@pytest.mark.parametrize("action", sorted(CANONICAL_ACTIONS))
def test_an_allowlisted_action_is_routable_iff_the_executor_can_plan_it(env, action):
    ex, tasks, ftime = env["ex"], env["tasks"], env["ftime"]
    target = TARGETS[action]
    draft = build_llm_thought(
        f"Time to act. [GOAL: {action} {target}]", now_ms=ftime.clock(), cognitive_system="keepalive"
    )
    assert draft.metadata.extractedGoal == ExtractedGoal(action=action, target=target)
    decision = decide(draft, FACTS)  # the default routing, as keep-alive and the eval harness use it
    assert decision.grounding is not None and decision.grounding.passed
    outcome = convert_thought(apply_decision(draft, decision), tasks, ftime.clock())

    async def first_tick():
        out = await ex.tick()
        result = None
        if ex.current is not None:  # planned and started: stop it at once, keep what was planned
            ex.current.handle.stop("test")
            result = await ex.current.handle.result()
            ex.current = None
        return out, result

    if decision.eligible:
        assert outcome.status == "converted"
        out, result = asyncio.run(first_tick())
        assert out == "claimed", f"{action}: routable, yet the executor said {out}"
        assert result.workflowId != "none" and all(e.code != NO_WORKFLOW for e in result.errors)
    else:
        assert decision.reason == "not_routable" and decision.routable is False
        assert outcome.status == "skipped" and tasks.list_by_status(TaskStatus.pending) == []
        # the other half of "iff": forced past eligibility, the executor could not plan it either
        tid = add_task(tasks, action, target)
        assert asyncio.run(first_tick())[0] == "unplannable"
        assert tasks.get_task(tid).status is TaskStatus.unplannable


def test_eat_attack_flee_and_smelt_are_routable_and_sleep_is_not_until_an_agent_can_sleep():
    agents = load_default_registry()
    routable = agents.routable_actions()
    assert {"eat", "attack", "flee", "collect", "craft", "smelt", "build", "explore", "hunt"} <= routable
    assert not {"sleep", "find", "pause", "continue"} & routable


def test_routability_follows_the_registry_it_is_derived_from():
    agents = load_default_registry()
    is_routable = routable_by(agents)
    craft, sleep = ExtractedGoal(action="craft", target="stick"), ExtractedGoal(action="sleep", target="bed")
    assert is_routable(craft) and not is_routable(sleep)
    crafter = agents.require("crafter")
    agents.update(crafter.model_copy(update={"enabled": False}))  # a disabled agent routes nothing
    assert not is_routable(craft)
    sleeper = {
        "id": "sleeper",
        "displayName": "Sleeper",
        "description": "Sleeps in a bed.",
        "exampleTasks": ["sleep bed"],
        "workflows": {"sleep": {"steps": [{"id": "sleep", "tool": "inventory"}]}},
    }
    agents.register(sleeper)
    assert is_routable(sleep)
