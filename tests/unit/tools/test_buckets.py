"""fill_bucket (agency.tools.buckets) on the fake world, whose JS `fill_bucket` action fills
a bucket when the bot stands within reach of a source it is told of; and the plans that
fill one (a lava bucket from empty hands, a cake's milk)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from agency.execution.agents.obtain import resolve_obtain
from agency.execution.agents.planning import craft_plan
from agency.execution.builtin_tools import default_tool_registry
from agency.goal_tag import ExtractedGoal
from agency.tools.base import ToolContext
from agency.tools.results import VALIDATION_ERROR
from agency.tools.testing import GROUND_Y, FakeBody, Mob
from agency.world import BodyError
from tests.unit.conftest import run


class BucketBody(FakeBody):
    """A fill works within 4.5 blocks of a source in `sources`, or of a cow."""

    def __init__(self, clock, inventory=None):
        super().__init__(clock, inventory)
        self.sources: set[tuple[int, int, int]] = set()

    def _do_fill_bucket(self, a: dict[str, Any]) -> dict[str, Any]:
        if self.inventory["bucket"] < 1:
            raise BodyError("no empty bucket held")
        me = (self.position.x, self.position.y, self.position.z)
        if a["fluid"] == "milk":
            if not any(m.name == "cow" and self.distance_to(m) <= 4.5 for m in self.mobs):
                raise BodyError("no cow within 4.5 blocks to milk")
        else:
            near = [s for s in self.sources if math.dist(me, (s[0] + 0.5, s[1] + 0.5, s[2] + 0.5)) <= 4.5]
            if not near:
                raise BodyError(f"no {a['fluid']} source within 4.5 blocks in view")
            self.sources.discard(near[0])
            self.blocks[near[0]] = "air"
        self.inventory["bucket"] -= 1
        filled = {"water": "water_bucket", "lava": "lava_bucket", "milk": "milk_bucket"}[a["fluid"]]
        self.inventory[filled] += 1
        return {"fluid": a["fluid"], "filled": filled, "have": self.inventory[filled]}


@pytest.fixture
def bbody(ftime) -> BucketBody:
    return BucketBody(ftime.clock, {"bucket": 2})


@pytest.fixture
def bctx(bbody, ftime) -> ToolContext:
    return ToolContext(body=bbody, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)


def fill(ctx, **args):
    return run(default_tool_registry().execute("fill_bucket", args, ctx))


def test_a_flowing_cell_is_passed_over_for_a_source_further_on(bctx, bbody):
    bbody.blocks[(3, GROUND_Y - 1, 0)] = "water"  # flowing: the action finds no source there
    bbody.blocks[(12, GROUND_Y - 1, 0)] = "water"
    bbody.sources.add((12, GROUND_Y - 1, 0))
    res = fill(bctx, fluid="water")
    assert res.success, res.error
    assert res.output["have"] == 1 and res.output["tried"] == 2
    assert bbody.inventory["bucket"] == 1 and bbody.block(12, GROUND_Y - 1, 0) == "air"


def test_milk_from_the_nearest_cow_and_the_count_is_a_total(bctx, bbody):
    bbody.mobs.append(Mob("cow", hostile=False, x=6.5, z=0.5))
    res = fill(bctx, fluid="milk", count=2)
    assert res.success and bbody.inventory["milk_bucket"] == 2 and bbody.inventory["bucket"] == 0
    again = fill(bctx, fluid="milk", count=2)
    assert again.success and [k for k, _ in bbody.started].count("fill_bucket") == 2  # nothing more to fill


def test_no_bucket_or_no_fluid_is_a_clear_failure(bctx, bbody):
    res = fill(bctx, fluid="water", explore_attempts=0)
    assert not res.success and res.error.message == "no water source in sight (explored 0 times)"
    bbody.inventory["bucket"] = 0
    res = fill(bctx, fluid="lava")
    assert not res.success and res.error.message == "no empty bucket to fill with lava"
    assert fill(bctx, fluid="honey").error.code == VALIDATION_ERROR


def test_lava_out_of_sight_is_dug_down_for(bctx, bbody):
    bbody.inventory["stone_pickaxe"] = 1
    bbody.blocks[(48, 15, 0)] = "lava"  # in sight once the staircases (east, 16 down each) end at y 16
    bbody.sources.add((48, 15, 0))
    res = fill(bctx, fluid="lava")
    assert res.success, res.error
    assert [a["targetY"] for k, a in bbody.started if k == "staircase"] == [48, 32, 16]
    assert bbody.inventory["lava_bucket"] == 1


def test_lava_not_in_sight_at_its_level_is_tunnelled_for_along_it(bctx, bbody):
    bbody.inventory["stone_pickaxe"] = 1
    # the staircases (east, 16 down each) end at lava's level, y -48, at x 112; the lava lies 38
    # blocks on, out of sight until a tunnel along the level comes within 32
    bbody.blocks[(150, -49, 0)] = "lava"
    bbody.sources.add((150, -49, 0))
    res = fill(bctx, fluid="lava")
    assert res.success, res.error
    started = [(k, a.get("targetY", a.get("blocks"))) for k, a in bbody.started if k in ("staircase", "tunnel")]
    assert started == [("staircase", y) for y in range(48, -49, -16)] + [("tunnel", 24)]
    assert bbody.inventory["lava_bucket"] == 1


def test_a_filled_bucket_is_a_plan_of_its_empty_bucket_and_the_fill():
    steps = craft_plan("crafter", {"target": "lava_bucket", "amount": 1}, {}).steps
    ids = [s.id for s in steps]
    assert ids[-3:] == ["craft-bucket", "seek-lava", "fill-lava"] and steps[-1].args == {"fluid": "lava", "count": 1}
    held = craft_plan("crafter", {"target": "water_bucket", "amount": 2}, {"bucket": 2}).steps
    assert [(s.id, s.args) for s in held] == [("fill-water", {"fluid": "water", "count": 2})]
    cake = craft_plan(
        "crafter",
        {"target": "cake", "amount": 1},
        {"bucket": 3, "sugar": 2, "egg": 1, "wheat": 3, "crafting_table": 1},
    ).steps
    assert ("fill-milk", {"fluid": "milk", "count": 3}) in [(s.id, s.args) for s in cake]
    goal = resolve_obtain(ExtractedGoal(action="obtain", target="lava_bucket", amount=1))
    assert goal == ExtractedGoal(action="craft", target="lava_bucket", amount=1)
