"""`eat`, `attack` and `flee` tasks handled by the shipped survivor profile on the fake
world: the agent runtime picks the agent, runs its workflow of validated tool calls, and
the world changes as the task says (food up, the hostile gone, farther from the threat)."""

from __future__ import annotations

import math

import pytest

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.workflows import SqliteCheckpointStore
from agency.tools import ToolContext
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.testing import GROUND_Y, FakeBody, Mob
from tests.unit.conftest import run


@pytest.fixture
def rt(ctx: ToolContext, store: SqliteCheckpointStore) -> AgentRuntime:
    return AgentRuntime(load_default_registry(), default_tool_registry(), ctx, checkpoints=store)


def _distance(body: FakeBody, mob: Mob) -> float:
    return math.dist((body.position.x, body.position.z), (mob.x, mob.z))


@pytest.mark.parametrize("action", ["eat", "attack", "flee"])
def test_the_survivor_agent_carries_out_eat_attack_and_flee(rt: AgentRuntime, action: str) -> None:
    assert rt.choose_agent(TaskSpec(action=action, target="zombie")).id == "survivor"


def test_eat_food_eats_the_best_food_held_and_food_goes_up(rt: AgentRuntime, body: FakeBody) -> None:
    body.inventory.update({"bread": 2, "cooked_beef": 1})
    body.food = 6
    res = run(rt.run_task(TaskSpec(action="eat", target="food")))
    assert res.ok, res.errors
    assert body.eaten == ["cooked_beef"] and body.food == 14
    assert res.outputs["eat"]["foodBefore"] == 6 and res.outputs["eat"]["foodAfter"] == 14


def test_eat_a_named_food_eats_that_one_when_held_else_the_best(rt: AgentRuntime, body: FakeBody) -> None:
    body.inventory.update({"bread": 2, "cooked_beef": 1})
    body.food = 4
    assert run(rt.run_task(TaskSpec(action="eat", target="bread", amount=2))).ok
    assert body.eaten == ["bread", "bread"] and body.food == 14
    assert run(rt.run_task(TaskSpec(action="eat", target="apple"))).ok  # none held: the best there is
    assert body.eaten[-1] == "cooked_beef"


def test_eat_stops_when_full_and_fails_with_the_reason_when_nothing_can_be_eaten(
    rt: AgentRuntime, body: FakeBody
) -> None:
    body.inventory.update({"bread": 5})
    body.food = 15
    assert run(rt.run_task(TaskSpec(action="eat", target="bread", amount=100))).ok
    assert body.eaten == ["bread"] and body.food == 20  # full after one: no more
    full = run(rt.run_task(TaskSpec(action="eat", target="bread")))
    assert not full.ok and full.errors[0].code == PRECONDITION_FAILED and "not hungry" in full.errors[0].message
    body.food = 10
    body.inventory.clear()
    none = run(rt.run_task(TaskSpec(action="eat", target="food")))
    assert not none.ok and "no food" in none.errors[0].message  # the body knows what is edible


def test_eat_that_runs_out_of_food_after_eating_succeeds_with_what_was_eaten(rt: AgentRuntime, body: FakeBody) -> None:
    body.inventory.update({"bread": 2})
    body.food = 2
    res = run(rt.run_task(TaskSpec(action="eat", target="bread", amount=5)))
    assert res.ok, res.errors
    assert body.eaten == ["bread", "bread"] and res.outputs["eat"]["ate"] == ["bread", "bread"]
    assert res.outputs["eat"]["foodAfter"] == 12


def test_attack_a_named_hostile_fights_that_kind_not_the_nearest_one(rt: AgentRuntime, body: FakeBody) -> None:
    body.mobs += [Mob("zombie", hostile=True, x=2.5, z=0.5), Mob("husk", hostile=True, x=6.5, z=0.5)]
    res = run(rt.run_task(TaskSpec(action="attack", target="husk")))
    assert res.ok, res.errors
    assert [m.name for m in body.mobs] == ["zombie"] and body.started[-1][1]["name"] == "husk"


def test_attack_a_generic_target_fights_the_nearest_hostile(rt: AgentRuntime, body: FakeBody) -> None:
    body.mobs += [
        Mob("cow", hostile=False, x=1.5, z=0.5),
        Mob("zombie", hostile=True, x=3.5, z=0.5),
        Mob("husk", hostile=True, x=6.5, z=0.5),
    ]
    assert run(rt.run_task(TaskSpec(action="attack", target="hostiles"))).ok
    assert [m.name for m in body.mobs] == ["cow", "husk"] and "name" not in body.started[-1][1]


def test_attack_fails_with_the_reason_when_the_target_is_absent_or_not_hostile(
    rt: AgentRuntime, body: FakeBody
) -> None:
    body.mobs += [Mob("cow", hostile=False, x=1.5, z=0.5)]
    absent = run(rt.run_task(TaskSpec(action="attack", target="zombies")))
    assert not absent.ok and absent.errors[0].code == PRECONDITION_FAILED and "no zombie" in absent.errors[0].message
    cow = run(rt.run_task(TaskSpec(action="attack", target="cow")))
    assert not cow.ok and cow.errors[0].code == PRECONDITION_FAILED and "not hostile" in cow.errors[0].message
    assert body.started == [] and [m.name for m in body.mobs] == ["cow"]


def test_flee_moves_directly_away_from_the_threat_out_of_its_reach(rt: AgentRuntime, body: FakeBody) -> None:
    zombie = Mob("zombie", hostile=True, x=3.5, z=0.5)
    body.mobs.append(zombie)
    before = _distance(body, zombie)
    res = run(rt.run_task(TaskSpec(action="flee", target="zombie")))
    assert res.ok, res.errors
    after = _distance(body, zombie)
    assert after >= 16 > before and body.position.x < 0  # away from it, not past it
    out = res.outputs["flee"]
    assert out["threat"] == "zombie" and out["from"] == pytest.approx(before, abs=0.01)
    assert out["to"] == pytest.approx(after, abs=0.01)


def test_flee_a_generic_threat_runs_from_all_hostiles_and_takes_another_heading_when_blocked(
    rt: AgentRuntime, body: FakeBody
) -> None:
    body.mobs += [Mob("zombie", hostile=True, x=3.5, z=0.5), Mob("husk", hostile=True, x=0.5, z=3.5)]
    # no ground to stand on straight away from both (toward -x,-z): a pit
    for x in range(-20, -4):
        for z in range(-20, -4):
            for y in range(GROUND_Y - 20, GROUND_Y):
                body.blocks[(x, y, z)] = "air"
    res = run(rt.run_task(TaskSpec(action="flee", target="danger")))
    assert res.ok, res.errors
    assert min(_distance(body, m) for m in body.mobs) >= 12
    assert not (body.position.x < -4 and body.position.z < -4)


def test_flee_with_no_threat_in_range_has_nothing_to_do(rt: AgentRuntime, body: FakeBody) -> None:
    body.mobs.append(Mob("zombie", hostile=True, x=40.5, z=0.5))
    res = run(rt.run_task(TaskSpec(action="flee", target="zombie")))
    assert res.ok and res.outputs["flee"]["fled"] is False and body.started == []
