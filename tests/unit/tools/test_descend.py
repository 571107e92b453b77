"""The `descend` tool on a fake world whose JS `staircase` action is simulated (one block down
per step, as node/lib/actions/staircase.js does), and the gatherer's `descend y<N>` workflow."""

from __future__ import annotations

from typing import Any

import pytest

from agency.cognition.grounding import FrameFacts, check_goal
from agency.execution.agents import load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.goal_tag import ExtractedGoal, parse_goal_text
from agency.tools.base import ToolContext
from agency.tools.mining import SAFE_FLOOR_Y, level_target, parse_level
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED, VALIDATION_ERROR
from agency.tools.testing import GROUND_Y, FakeBody
from agency.world import BodyError, Vec3
from tests.unit.conftest import run


class StairBody(FakeBody):
    """FakeBody whose staircase walks down to targetY, or stops short with a hazard."""

    def __init__(self, clock, inventory=None):
        super().__init__(clock, inventory)
        self.blocked_at: int | None = None  # the y where a hazard on every side stops it

    def _do_staircase(self, a: dict[str, Any]) -> dict[str, Any]:
        y, steps = int(self.position.y), 0
        while y > a["targetY"]:
            if self.blocked_at is not None and y <= self.blocked_at:
                self.position = Vec3(x=self.position.x + steps, y=y, z=self.position.z)
                raise BodyError(f"staircase blocked at 0,{y},0 after {steps} steps: east: lava at 1,{y - 1},0")
            y, steps = y - 1, steps + 1
        self.position = Vec3(x=self.position.x + steps, y=y, z=self.position.z)
        return {"steps": steps, "y": y, "turned": 0, "reason": "reached"}


@pytest.fixture
def sbody(ftime) -> StairBody:
    return StairBody(ftime.clock, inventory={"stone_pickaxe": 1})


@pytest.fixture
def sctx(sbody, ftime) -> ToolContext:
    return ToolContext(body=sbody, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)


def descend(ctx, **args):
    return run(default_tool_registry().execute("descend", args, ctx))


@pytest.mark.parametrize("text,y", [("y40", 40), ("Y40", 40), ("40", 40), (12, 12), ("y-8", -8)])
def test_a_level_is_read_from_its_goal_form(text, y):
    assert parse_level(text) == y
    assert parse_level(level_target(y)) == y


@pytest.mark.parametrize("bad", ["deep", "y", "y4o", "", True])
def test_anything_else_is_not_a_level(bad):
    with pytest.raises(ValueError, match="not a level"):
        parse_level(bad)


def test_descending_digs_down_to_the_level_in_one_staircase(sctx, sbody):
    res = descend(sctx, target_y="y40")
    assert res.success, res.error
    assert res.output == {"steps": GROUND_Y - 40, "y": 40, "turned": 0, "torches": 0, "targetY": 40}
    assert sbody.started == [("staircase", {"targetY": 40})]
    assert sbody.position.y == 40


def test_a_direction_is_passed_on_and_a_level_already_reached_digs_nothing(sctx, sbody):
    assert descend(sctx, target_y=GROUND_Y - 2, direction="west").success
    assert sbody.started[-1] == ("staircase", {"targetY": GROUND_Y - 2, "direction": "west"})
    res = descend(sctx, target_y=GROUND_Y)
    assert res.success and res.output["steps"] == 0
    assert len(sbody.started) == 1


@pytest.mark.parametrize(
    "args",
    [
        {"target_y": SAFE_FLOOR_Y - 1},
        {"target_y": "deep"},
        {"target_y": 40, "direction": "up"},
        {},
        {"target_y": 40, "depth": 3},
    ],
)
def test_bad_arguments_are_refused_before_anything_moves(sctx, sbody, args):
    res = descend(sctx, **args)
    assert not res.success and res.error.code == VALIDATION_ERROR
    assert sbody.started == []


def test_no_pickaxe_and_too_deep_are_clear_preconditions(sctx, sbody):
    sbody.position = Vec3(x=0.5, y=100, z=0.5)
    res = descend(sctx, target_y=40)
    assert not res.success and res.error.code == PRECONDITION_FAILED
    assert res.error.message == "y 40 is 60 blocks down from y 100; at most 48 in one descent"
    sbody.position = Vec3(x=0.5, y=GROUND_Y, z=0.5)
    sbody.inventory.clear()
    res = descend(sctx, target_y=40)
    assert not res.success and res.error.code == PRECONDITION_FAILED
    assert res.error.message == "no pickaxe to dig a staircase with"
    assert sbody.started == []


def test_a_hazard_on_every_side_fails_with_the_hazard_named(sctx, sbody):
    sbody.blocked_at = GROUND_Y - 3
    res = descend(sctx, target_y=40)
    assert not res.success and res.error.code == EXECUTION_ERROR
    assert "staircase blocked at" in res.error.message and "lava at" in res.error.message


def test_the_wait_is_bounded_by_the_steps_and_a_stop_cancels_the_staircase(sctx, sbody, ftime):
    sbody.hang.add("staircase")
    res = descend(sctx, target_y=GROUND_Y - 4)
    assert not res.success
    assert sbody.cancelled == ["a1"]
    assert ftime.slept <= 4 * 8.0 + 10 + 1  # 4 steps of 8 s and the margin, not the tool's whole timeout


def test_descend_is_a_goal_the_gatherer_carries_out_and_grounds_on_a_level():
    goal = parse_goal_text("descend y40")
    assert goal == ExtractedGoal(action="descend", target="y40")
    agents = load_default_registry()
    assert "descend" in agents.routable_actions()
    facts = FrameFacts()
    assert check_goal(goal, facts, scenario_id=None).passed
    assert check_goal(ExtractedGoal(action="descend", target="y-48"), facts, scenario_id=None).passed
    assert not check_goal(ExtractedGoal(action="descend", target="y-49"), facts, scenario_id=None).passed  # the lava
    assert (
        check_goal(ExtractedGoal(action="descend", target="iron"), facts, scenario_id=None).reason == "missing_location"
    )
