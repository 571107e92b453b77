"""Tool registry invariants (docs/contracts.md TOOL-1..3), timeouts, queues, and the built-in tools
on a fake block world."""

from __future__ import annotations

import asyncio
import itertools
import math
from dataclasses import replace
from typing import Any

import pytest
from loguru import logger
from pydantic import ValidationError

from agency.execution.builtin_tools import default_tool_registry
from agency.places.home import HOOK as HOME_HOOK
from agency.shelter.blueprint import basic_shelter
from agency.shelter.earthwork import PATH_DIGGABLE, keep_box, site_work, work_box
from agency.tools import TOOL_NOT_FOUND, VALIDATION_ERROR, FrozenDict, ToolExecutionResult, tool_success
from agency.tools.base import ToolContext
from agency.tools.gathering import none_near
from agency.tools.registry import ToolRegistry
from agency.tools.results import CANCELLED, PRECONDITION_FAILED, TIMEOUT, WAITS_FOR_MORNING
from agency.tools.testing import GROUND_Y, CoveredNightBody, FakeBody
from agency.world import BodyError, Vec3
from tests.unit.conftest import Probe, run


def test_INV_TOOL_001_invalid_inputs_rejected_before_any_tool_code(
    ctx: ToolContext, body: FakeBody, tools: ToolRegistry, probe: Probe
) -> None:
    res = run(tools.execute("work", {"ticks": -1}, ctx))  # missing name, negative ticks
    assert isinstance(res, ToolExecutionResult) and res.success is False
    assert res.error is not None and res.error.code == VALIDATION_ERROR
    assert "name" in res.error.message and "ticks" in res.error.message
    assert probe.calls == {} and tools.call_counts["work"] == 0
    # unknown arguments are invalid too, and a real body tool never starts an action
    reg = default_tool_registry()
    bad = run(reg.execute("move_to", {"x": 1, "y": 2, "z": "three", "speed": 9}, ctx))
    assert bad.success is False and bad.error.code == VALIDATION_ERROR
    assert body.started == []


def test_INV_TOOL_002_results_are_frozen(ctx: ToolContext, tools: ToolRegistry) -> None:
    res = run(tools.execute("work", {"name": "a", "value": {"list": [1, 2], "nested": {"k": 1}}}, ctx))
    assert res.success
    with pytest.raises(ValidationError):  # a frozen model
        res.success = False
    assert isinstance(res.output, FrozenDict)
    with pytest.raises(TypeError):
        res.output["name"] = "b"
    with pytest.raises(TypeError):
        res.output["value"]["nested"]["k"] = 2
    assert isinstance(res.output["value"]["list"], tuple)
    # built by the factory from a caller's dict: later edits of that dict change nothing
    src = {"a": [1]}
    made = tool_success("t", src)
    src["a"].append(2)
    assert made.output["a"] == (1,)
    assert made.to_json()["output"] == {"a": [1]}


def test_INV_TOOL_003_unknown_tool_returns_error_not_exception(ctx: ToolContext, tools: ToolRegistry) -> None:
    assert tools.is_tool_available("teleport") is False
    res = run(tools.execute("teleport", {"x": 1}, ctx))
    assert res.success is False
    assert res.error is not None and res.error.code == TOOL_NOT_FOUND
    assert "teleport" in res.error.message and res.error.toolName == "teleport"
    assert res.error.details["toolName"] == "teleport"


def test_tool_timeout_cancels_the_body_action(ctx: ToolContext, body: FakeBody) -> None:
    reg = default_tool_registry()
    body.hang.add("move_to")
    res = run(reg.execute("move_to", {"x": 5, "y": GROUND_Y, "z": 5}, ctx, timeout_s=2))
    assert res.success is False and res.error.code == TIMEOUT
    assert body.cancelled == ["a1"]
    assert res.durationMs >= 2000


def test_stop_flag_cancels_running_action(ctx: ToolContext, body: FakeBody) -> None:
    reg = default_tool_registry()
    body.hang.add("move_to")

    async def go() -> ToolExecutionResult:
        call = asyncio.ensure_future(reg.execute("move_to", {"x": 5, "y": GROUND_Y, "z": 5}, ctx))
        for _ in range(5):
            await asyncio.sleep(0)
        ctx.stop.set("operator asked")
        return await call

    res = run(go())
    assert res.error.code == CANCELLED and body.cancelled == ["a1"]


def test_body_queue_runs_one_at_a_time_queries_in_parallel(
    ctx: ToolContext, body: FakeBody, tools: ToolRegistry, probe: Probe
) -> None:
    body.polls_to_finish = 3
    reg = default_tool_registry()

    async def go() -> list[ToolExecutionResult]:
        moves = [reg.execute("move_to", {"x": i, "y": GROUND_Y, "z": 0}, ctx) for i in range(3)]
        queries = [tools.execute("work", {"name": f"q{i}", "ticks": 3}, ctx) for i in range(3)]
        return await asyncio.gather(*moves, *queries)

    results = run(go())
    assert all(r.success for r in results)
    assert body.peak_running == 1  # the body queue: never two moves at once
    assert probe.peak == 3  # queue-less tools overlap

    body_calls = [tools.execute("body_work", {"name": f"b{i}", "ticks": 2}, ctx) for i in range(3)]

    async def go2() -> None:
        await asyncio.gather(*body_calls)

    probe.peak = 0
    run(go2())
    assert probe.peak == 1


def test_find_collect_craft_and_place_on_fake_world(ctx: ToolContext, body: FakeBody) -> None:
    reg = default_tool_registry()
    body.add_tree(3, 3, height=4)
    found = run(reg.execute("find_blocks", {"block": "log", "radius": 8}, ctx))
    assert found.success and found.output["found"] == 4 and found.output["blocks"][0]["name"] == "oak_log"
    got = run(reg.execute("collect_block", {"block": "log", "count": 3}, ctx))
    assert got.success, got.error
    assert body.inventory["oak_log"] == 3
    crafted = run(reg.execute("craft", {"item": "wooden_pickaxe"}, ctx))
    assert crafted.success, crafted.error
    assert body.inventory["wooden_pickaxe"] == 1
    assert crafted.output["placedTable"] is not None  # a 3x3 recipe: the table was placed
    assert [k for k, _ in body.started].count("place") == 1
    assert crafted.compensation["tool"] == "mine_block"
    missing = run(reg.execute("craft", {"item": "stone_pickaxe"}, ctx))
    assert missing.error.code == PRECONDITION_FAILED and "cobblestone" in missing.error.message


def test_explore_prefers_unseen_chunks(ctx: ToolContext, body: FakeBody) -> None:
    reg = default_tool_registry()
    res = run(reg.execute("explore", {"legs": 4, "leg_distance": 16, "max_distance": 64}, ctx))
    assert res.success, res.error
    chunks = {(leg["x"] >> 4, leg["z"] >> 4) for leg in res.output["legs"]}
    assert len(chunks) == 4  # every leg went somewhere new
    assert res.output["seenChunks"] == 5
    assert all(abs(leg["x"]) <= 64 and abs(leg["z"]) <= 64 for leg in res.output["legs"])


def test_explore_nearby_keeps_its_legs_within_64_blocks_of_the_hut_and_heads_back_from_farther(
    ctx: ToolContext, body: FakeBody
) -> None:
    """Unseen ground first leads an explore ever farther off; `nearby` keeps each leg within
    64 m of the home the hook names (the hut), and one that starts farther heads back. The
    drive tick's stand-in explores (`farther`: looking for what is missing) go anywhere."""
    home = replace(ctx, hooks={HOME_HOOK: lambda snap: (0.5, 0.5)})
    legs = {"legs": 8, "leg_distance": 32, "max_distance": 256}
    free = run(default_tool_registry().execute("explore", {**legs, "area": "farther"}, replace(home, memory={})))
    assert free.success and free.output["home"] is None
    assert max(math.dist((leg["x"], leg["z"]), (0.5, 0.5)) for leg in free.output["legs"]) > 64
    body.position = Vec3(x=0.5, y=GROUND_Y, z=0.5)
    near = run(default_tool_registry().execute("explore", {**legs, "area": "nearby"}, replace(home, memory={})))
    assert near.success, near.error
    assert near.output["home"] == {"x": 0.5, "z": 0.5, "within": 64}
    assert all(math.dist((leg["x"], leg["z"]), (0.5, 0.5)) <= 64 for leg in near.output["legs"])
    body.position = Vec3(x=150.5, y=GROUND_Y, z=0.5)  # a hunt took it 150 m off
    back = run(default_tool_registry().execute("explore", {**legs, "legs": 3, "area": "Nearby"}, home))
    steps = [150.0] + [math.dist((leg["x"], leg["z"]), (0.5, 0.5)) for leg in back.output["legs"]]
    assert all(b < a for a, b in itertools.pairwise(steps)), steps


def test_explore_on_a_shore_takes_the_heading_with_ground_and_a_shorter_leg(ctx: ToolContext, body: FakeBody) -> None:
    """On a spit of land in a sea, no heading has ground 16 blocks off: the leg goes half as
    far, the one way there is land (a coastal spawn's explore once failed every leg)."""

    def land(x: int, z: int) -> bool:
        return (abs(x) <= 2 and abs(z) <= 2) or (6 <= x <= 10 and abs(z) <= 1)

    def block(x: int, y: int, z: int) -> str:
        if y >= GROUND_Y:
            return "air"
        return "dirt" if land(x, z) or y < GROUND_Y - 20 else "water"

    body.block = block  # type: ignore[method-assign]
    res = run(default_tool_registry().execute("explore", {"legs": 1}, ctx))
    assert res.success, res.error
    leg = res.output["legs"][0]
    assert (leg["x"], leg["z"], leg["ok"]) == (8, 0, True)
    body.block = lambda x, y, z: "air" if y >= GROUND_Y else "water"  # type: ignore[method-assign]
    res = run(default_tool_registry().execute("explore", {"legs": 1}, ctx))
    assert res.success is False and res.error.message.endswith("no standable ground in any direction")


def test_explore_underground_climbs_out_to_the_surface_first(ctx: ToolContext, body: FakeBody) -> None:
    """At the foot of a staircase dug for ore (ground over the head), the surface's legs are
    out of reach: the explore pillars up to the top of its column first."""
    body.position = Vec3(x=0.5, y=GROUND_Y - 20, z=0.5)
    for y in range(GROUND_Y - 20, GROUND_Y - 18):
        body.blocks[(0, y, 0)] = "air"  # the cell the bot stands in
    res = run(default_tool_registry().execute("explore", {"legs": 2}, ctx))
    assert res.success, res.error
    assert body.pillars[0] == (0.5, GROUND_Y, 0.5)  # onto the ground over it
    assert tuple(res.output["climbedOut"]["from"]) == (0, GROUND_Y - 20, 0)
    assert all(leg["ok"] for leg in res.output["legs"])


def test_explore_underground_walks_back_up_the_staircase_it_dug_first(ctx: ToolContext, body: FakeBody) -> None:
    body.position = Vec3(x=30.5, y=GROUND_Y, z=0.5)
    staircases: list = []
    ctx = replace(ctx, hooks={"staircases": staircases})
    # no pickaxe
    assert run(default_tool_registry().execute("descend", {"target_y": GROUND_Y - 10}, ctx)).success is False
    body.inventory["stone_pickaxe"] = 1
    body._do_staircase = lambda a: body.__setattr__("position", Vec3(x=10.5, y=a["targetY"], z=0.5)) or {"steps": 10}
    assert run(default_tool_registry().execute("descend", {"target_y": GROUND_Y - 10}, ctx)).success
    assert staircases == [(30.5, GROUND_Y, 0.5)]  # where the descend started
    res = run(default_tool_registry().execute("explore", {"legs": 1}, ctx))
    assert res.success, res.error
    walks = [a for k, a in body.started if k == "move_to"]
    assert (walks[0]["x"], walks[0]["y"], walks[0]["z"]) == (30.5, GROUND_Y, 0.5) and "digOnly" not in walks[0]
    assert res.output["climbedOut"]["how"] == "staircase" and res.output["climbedOut"]["failed"] is None


def test_a_staircase_no_walk_gets_to_gives_way_to_digging_straight_up(ctx: ToolContext, body: FakeBody) -> None:
    """A 26.1 bench bot in a pit failed the walk to a staircase 86 blocks off, and with it every
    climb for a night."""
    body.position = Vec3(x=0.5, y=GROUND_Y - 20, z=0.5)
    for y in range(GROUND_Y - 20, GROUND_Y - 18):
        body.blocks[(0, y, 0)] = "air"
    ctx = replace(ctx, hooks={"staircases": [(80.5, GROUND_Y, 0.5)]})
    walk = body._do_move_to

    def no_way_to_the_staircase(a):
        if a["x"] == 80.5:
            raise BodyError("no progress toward 80.5,64,0.5 for 160 ticks (distance 80.0)")
        return walk(a)

    body._do_move_to = no_way_to_the_staircase  # type: ignore[method-assign]
    res = run(default_tool_registry().execute("explore", {"legs": 1}, ctx))
    assert res.success, res.error
    walks = [(a["x"], a["y"], a["z"]) for k, a in body.started if k == "move_to"]
    assert walks[0][0] == 80.5 and body.pillars == [(0.5, GROUND_Y, 0.5)]  # the staircase, then up its column
    assert res.output["climbedOut"]["how"] == "dug" and res.output["climbedOut"]["failed"] is None


def test_a_bot_underground_climbs_out_before_it_picks_a_hut_site(ctx: ToolContext, body: FakeBody) -> None:
    """A 26.1 bench bot in a pit anchored its hut on the ground over it, then failed every walk
    to the site for a night."""
    body.position = Vec3(x=0.5, y=GROUND_Y - 6, z=0.5)
    for y in range(GROUND_Y - 6, GROUND_Y - 4):
        body.blocks[(0, y, 0)] = "air"
    res = run(default_tool_registry().execute("shelter_site", {}, ctx))
    assert res.success, res.error
    assert body.pillars[0] == (0.5, GROUND_Y, 0.5) and body.position.y == GROUND_Y  # up first
    assert res.output["origin"][1] == GROUND_Y


def test_a_staircase_started_under_cover_at_night_is_not_the_way_back_up(ctx: ToolContext, ftime) -> None:
    """One started in the pocket dug under the hut led a bench bot back into the closed pocket
    in the morning, out of reach of the animals it saw. (By day one started in a cave is:
    tests/integration/test_dig_down.py.)"""
    body = CoveredNightBody(ftime.clock, inventory={"stone_pickaxe": 1})
    staircases: list = []
    ctx = replace(ctx, body=body, hooks={"staircases": staircases})
    assert run(default_tool_registry().execute("descend", {"target_y": GROUND_Y - 10}, ctx)).success
    assert staircases == []


def test_a_staircase_blocked_all_round_at_a_caves_edge_goes_down_the_cave(ctx: ToolContext, body: FakeBody) -> None:
    body.inventory["stone_pickaxe"] = 1
    for y in (GROUND_Y - 8, GROUND_Y - 7):
        body.blocks[(3, y, 2)] = "air"  # a cave's floor 8 below, 3 and 2 blocks off (dirt under it)
    first = {"blocked": True}
    dig = body._do_staircase

    def staircase(a):
        if first.pop("blocked", False):
            raise BodyError("staircase blocked at 0,64,0 after 0 steps: south: a hole (cave_air) over open ground")
        return dig(a)

    body._do_staircase = staircase  # type: ignore[method-assign]
    res = run(default_tool_registry().execute("descend", {"target_y": GROUND_Y - 20}, ctx))
    assert res.success, res.error
    walks = [a for k, a in body.started if k == "move_to"]
    assert (walks[0]["x"], walks[0]["y"], walks[0]["z"]) == (3.5, GROUND_Y - 8, 2.5)  # down to the floor
    assert [a["targetY"] for k, a in body.started if k == "staircase"] == [GROUND_Y - 20, GROUND_Y - 20]
    assert res.output["y"] == GROUND_Y - 20
    # with no cave floor in reach: a short tunnel a way not found blocked, and down from there
    body.position = Vec3(x=30.5, y=GROUND_Y, z=0.5)
    body.started.clear()
    first["blocked"] = True
    res = run(default_tool_registry().execute("descend", {"target_y": GROUND_Y - 20}, ctx))
    assert res.success, res.error
    moves = [(k, a.get("direction")) for k, a in body.started if k in ("staircase", "tunnel")]
    assert moves == [("staircase", None), ("tunnel", "north"), ("staircase", "north")]  # south was blocked
    # and when that is blocked too, the first failure stands
    body.position = Vec3(x=60.5, y=GROUND_Y, z=0.5)
    body.fail["staircase"] = "staircase blocked at 0,64,0 after 0 steps: south: a hole (cave_air) over open ground"
    res = run(default_tool_registry().execute("descend", {"target_y": GROUND_Y - 20}, ctx))
    assert res.success is False and "staircase blocked at 0,64,0 after 0 steps" in res.error.message


def test_a_climb_that_fails_leaves_the_explore_to_its_legs_and_says_so(ctx: ToolContext, body: FakeBody) -> None:
    body.position = Vec3(x=0.5, y=GROUND_Y - 20, z=0.5)
    body.fail["pillar"] = "pillar blocked at 0,44,0 after 3 steps: water at 0,49,0"
    walk = body._do_move_to

    def walks_up_fail(a):
        if a["y"] == GROUND_Y:  # up to the surface
            raise BodyError("no progress toward the surface for 8000 ms (distance 20.0)")
        return walk(a)

    body._do_move_to = walks_up_fail  # type: ignore[method-assign]
    res = run(default_tool_registry().execute("explore", {"legs": 1}, ctx))
    # the climb was tried (up the 3 nearest columns, each walked to first, then a walk up the
    # last one, digging), then the legs (no standable ground down here)
    assert [k for k, _ in body.started].count("pillar") == 3
    assert [a["y"] for k, a in body.started if k == "move_to"].count(GROUND_Y) == 2  # walked, then digging
    assert res.success is False and "underground; climbing out failed: " in res.error.message
    assert "no progress" in res.error.details["climbedOut"]["failed"]
    # each leg's why, in the message the log shows
    assert res.error.message.endswith(": no standable ground in any direction")


def test_explore_under_a_thin_roof_or_the_sky_does_not_climb(ctx: ToolContext, body: FakeBody) -> None:
    body.blocks[(0, GROUND_Y + 2, 0)] = "dirt"  # a hut's dirt roof: one block
    res = run(default_tool_registry().execute("explore", {"legs": 1}, ctx))
    assert res.success and res.output["climbedOut"] is None


def test_build_blueprint_skips_what_stands_and_compensates(ctx: ToolContext, body: FakeBody) -> None:
    reg = default_tool_registry()
    body.inventory["cobblestone"] = 10
    body.blocks[(2, GROUND_Y, 0)] = "cobblestone"  # already built
    plan = [{"x": x, "y": GROUND_Y, "z": 0, "block": "cobblestone"} for x in range(1, 5)]
    res = run(reg.execute("build_blueprint", {"name": "wall", "placements": plan, "module_size": 2}, ctx))
    assert res.success, res.error
    assert res.output["skipped"] == 1 and len(res.output["placed"]) == 3 and res.output["modules"] == 2
    assert ctx.memory["blueprints"]["wall"]["modulesDone"] == 2
    assert res.compensation["tool"] == "mine_block" and len(res.compensation["args"]["positions"]) == 3


def test_collect_block_counts_what_it_holds_after_a_failed_collect(ctx: ToolContext, body: FakeBody) -> None:
    # seen on the real server: collectblock gathers some logs, then fails pathing to a treetop
    reg = default_tool_registry()
    body.add_tree(3, 3, height=4)
    original = body._do_collect

    def partial_then_fail(a: dict) -> dict:
        original({**a, "count": 3})
        raise BodyError("Took to long to decide path to goal!")

    body._do_collect = partial_then_fail  # type: ignore[method-assign]  # the test's stand-in
    res = run(reg.execute("collect_block", {"block": "log", "count": 3, "ensure": True}, ctx))
    assert res.success, res.error
    assert res.output["have"] == 3 and body.inventory["oak_log"] == 3


def test_collect_block_says_when_the_collect_let_go_of_a_collectblock_task_that_never_ended(
    ctx: ToolContext, body: FakeBody
) -> None:
    reg = default_tool_registry()
    body.add_tree(3, 3, height=4)
    original = body._do_collect
    body._do_collect = lambda a: {**original(a), "staleTasks": 1}  # type: ignore[method-assign]
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    try:
        res = run(reg.execute("collect_block", {"block": "log", "count": 2, "ensure": True}, ctx))
    finally:
        logger.remove(sink)
    assert res.success, res.error
    assert "[Tools] collect oak_log: a collectblock task that never ended was let go of first" in lines


def test_collect_block_reaches_as_far_as_the_block_it_saw_in_a_corner_of_the_sight_box(
    ctx: ToolContext, body: FakeBody
) -> None:
    body.inventory["iron_pickaxe"] = 1
    body.blocks[(30, GROUND_Y - 8, 30)] = "diamond_ore"  # in the box (32 around, 8 down), 43 blocks off
    res = run(default_tool_registry().execute("collect_block", {"block": "diamond_ore", "count": 1}, ctx))
    assert res.success, res.error
    collect = next(a for k, a in body.started if k == "collect")
    assert collect["maxDistance"] >= 43  # the JS search is a sphere: 32 would not reach it


def test_collect_block_looks_farther_than_the_sight_box_before_it_explores(ctx: ToolContext, body: FakeBody) -> None:
    """A tree 50 blocks off, or 12 blocks up a hill, is out of the sight box (32 around, 8 up
    and down) but in the loaded chunks: walked to, then collected, no explore."""
    body.add_tree(50, 0, height=4)
    res = run(default_tool_registry().execute("collect_block", {"block": "log", "count": 2}, ctx))
    assert res.success, res.error
    assert body.inventory["oak_log"] == 2
    kinds = [k for k, _ in body.started]
    assert kinds[:3] == ["find", "move_to", "collect"], kinds
    assert "birch_log" in body.started[0][1]["names"] and "stripped_oak_log" not in body.started[0][1]["names"]
    hill = FakeBody(body.clock)
    for dy in range(4):
        hill.blocks[(10, GROUND_Y + 12 + dy, 0)] = "birch_log"
    hill_ctx = ToolContext(body=hill, clock=ctx.clock, sleep=ctx.sleep, poll_interval_s=0.1)
    assert run(default_tool_registry().execute("collect_block", {"block": "log", "count": 1}, hill_ctx)).success


def test_collect_block_with_nothing_in_the_loaded_chunks_explores_and_says_how_far_it_looked(
    ctx: ToolContext, body: FakeBody
) -> None:
    res = run(default_tool_registry().execute("collect_block", {"block": "log", "count": 1}, ctx))
    assert not res.success and res.error.code == PRECONDITION_FAILED
    assert res.error.message == "no log within 32 blocks nor in sight within 64 (explored 2 times)"
    assert none_near(res.error.message) == "log"  # what a replan reads of it (agency.execution.replans)
    kinds = [k for k, _ in body.started]
    assert kinds.count("find") == 3  # from where it stood, and after each explore


def test_collect_block_walks_to_no_block_seen_deep_under_it_nor_looks_farther_from_a_mine(
    ctx: ToolContext, body: FakeBody
) -> None:
    """Gravel 20 blocks down is a shaft, not a walk: the far look stops 8 under the feet (the
    sight box's depth); in a mine by day it looks no farther (the explore climbs out first)."""
    body.blocks[(20, GROUND_Y - 20, 0)] = "gravel"
    res = run(default_tool_registry().execute("collect_block", {"block": "gravel", "count": 1}, ctx))
    assert not res.success and "nor in sight within 64" in res.error.message
    assert body.started[0] == ("find", {"names": ["gravel"], "maxDistance": 64, "count": 1, "minY": GROUND_Y - 8})
    assert "collect" not in [k for k, _ in body.started]
    mine = FakeBody(body.clock)
    seen = mine.snapshot
    mine.snapshot = lambda: seen().model_copy(update={"cover": 6})  # type: ignore[method-assign]
    mine_ctx = ToolContext(body=mine, clock=ctx.clock, sleep=ctx.sleep, poll_interval_s=0.1)
    run(default_tool_registry().execute("collect_block", {"block": "log", "count": 1, "explore_attempts": 0}, mine_ctx))
    assert "find" not in [k for k, _ in mine.started]


def test_prepare_shelter_site_digs_what_is_in_the_way_fills_holes_then_a_rerun_does_nothing(
    ctx: ToolContext, body: FakeBody
) -> None:
    origin = (3, GROUND_Y, 3)  # footprint x,z 3..7; the door faces north: doorway (5, 64..65, 3)
    body.blocks[(5, GROUND_Y, 5)] = "dirt"  # a bump in the middle of the floor
    body.add_tree(4, 6, height=4)  # a trunk inside, up through the roof layer
    body.blocks[(6, GROUND_Y - 1, 4)] = "air"  # a 1-deep hole in the floor
    body.blocks[(5, GROUND_Y, 3)] = "dirt"  # dirt in the doorway: a wall cell may keep it, a doorway may not
    body.blocks[(3, GROUND_Y + 1, 7)] = "dirt"  # in a wall: solid enough, kept
    reg = default_tool_registry()
    args = {"origin": list(origin), "facing": "north"}
    res = run(reg.execute("prepare_shelter_site", args, ctx))
    assert res.success, res.error
    assert res.output["dug"] == 6 and res.output["filled"] == 1  # bump, 4 logs, doorway
    # the roof layer's log too: the bot's own collects would take it (agency.shelter.earthwork._shell)
    assert body.block(4, GROUND_Y + 3, 6) == "air"
    assert body.block(3, GROUND_Y + 1, 7) == "dirt" and body.block(5, GROUND_Y, 3) == "air"
    assert body.block(6, GROUND_Y - 1, 4) == "dirt"  # filled with the dirt it dug
    assert site_work(body.region(*work_box(origin)), origin, keep={(3, GROUND_Y + 1, 7)}).empty
    before = len(body.started)
    again = run(reg.execute("prepare_shelter_site", args, ctx))
    assert again.success and again.output["dug"] == again.output["filled"] == 0 and len(body.started) == before


def test_prepare_shelter_site_walks_back_to_a_site_out_of_sight_then_prepares_it(
    ctx: ToolContext, body: FakeBody
) -> None:
    body.view_distance = 48  # the site, 95 blocks off, is in chunks the bot has not loaded
    origin = (95, GROUND_Y, 3)
    body.blocks[(97, GROUND_Y, 5)] = "dirt"  # a bump in the middle of the floor
    res = run(default_tool_registry().execute("prepare_shelter_site", {"origin": list(origin), "facing": "north"}, ctx))
    assert res.success, res.error
    assert res.output["dug"] == 1 and body.block(97, GROUND_Y, 5) == "air"
    walks = [a for k, a in body.started if k == "move_to"]
    assert walks and math.dist((walks[0]["x"], walks[0]["z"]), (97.5, 5.5)) < 1  # to the site first
    assert body.position.x > 80


def test_a_module_resumed_far_from_its_site_walks_back_before_reading_it(ctx: ToolContext, body: FakeBody) -> None:
    body.view_distance = 48  # the site, 95 blocks off, is in chunks the bot has not loaded
    body.inventory["oak_planks"] = 64
    args = {"origin": [95, GROUND_Y, 3], "facing": "north", "module": "walls_layer_1"}
    res = run(default_tool_registry().execute("build_shelter_module", args, ctx))
    assert res.success, res.error
    walks = [a for k, a in body.started if k == "move_to"]
    assert math.dist((walks[0]["x"], walks[0]["z"]), (97.5, 5.5)) < 1  # to the site first
    assert body.block(95, GROUND_Y, 3) == "oak_planks" and res.output["skipped"] == 0


class OneCellCutOffBody(FakeBody):
    """The first ring cell a builder walks to cannot be got to (a crater beside the hut)."""

    cut_off: tuple[float, float] | None = None

    def _do_move_to(self, a):
        if self.cut_off is None and a.get("range") == 0:
            self.cut_off = (a["x"], a["z"])
        if (a["x"], a["z"]) == self.cut_off:
            raise BodyError(f"no progress toward {a['x']},{a['y']},{a['z']} (distance 1.0): no path")
        return super()._do_move_to(a)


def test_a_ring_cell_the_builder_cannot_get_to_gives_way_to_the_next(ctx: ToolContext) -> None:
    body = OneCellCutOffBody(ctx.clock, inventory={"oak_planks": 64})
    ctx.body = body
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    try:
        args = {"origin": [3, GROUND_Y, 3], "facing": "north", "module": "walls_layer_1"}
        res = run(default_tool_registry().execute("build_shelter_module", args, ctx))
    finally:
        logger.remove(sink)
    assert res.success, res.error
    assert body.cut_off is not None and any("[Builder] no way to the ring cell" in line for line in lines)
    walks = [(a["x"], a["z"]) for k, a in body.started if k == "move_to" and a.get("range") == 0]
    assert any(w != body.cut_off for w in walks)  # another cell reached the placements
    assert body.block(3, GROUND_Y, 3) == "oak_planks"


def test_prepare_shelter_site_refuses_a_site_someone_built_on(ctx: ToolContext, body: FakeBody) -> None:
    body.blocks[(5, GROUND_Y, 5)] = "chest"
    res = run(
        default_tool_registry().execute("prepare_shelter_site", {"origin": [3, GROUND_Y, 3], "facing": "north"}, ctx)
    )
    assert res.success is False and res.error.code == PRECONDITION_FAILED
    assert "chest" in res.error.message and not any(kind == "dig" for kind, _ in body.started)


def test_a_blocked_walk_to_the_site_is_retried_through_trees_then_the_ground_outside_the_site(
    ctx: ToolContext, body: FakeBody
) -> None:
    body.blocks[(20, GROUND_Y, 20)] = "dirt"  # a bump at a site far out of reach
    body.fail["move_to"] = "no progress toward the site for 8000 ms"
    res = run(
        default_tool_registry().execute("prepare_shelter_site", {"origin": [18, GROUND_Y, 18], "facing": "north"}, ctx)
    )
    assert res.success is False and "no progress" in res.error.message
    walks = [args for kind, args in body.started if kind == "move_to"]
    assert len(walks) == 3 and "digOnly" not in walks[0]
    assert set(walks[1]["digOnly"]) == set(PATH_DIGGABLE) and all(
        n.endswith(("_log", "_leaves")) for n in PATH_DIGGABLE
    )
    assert {"stone", "dirt"} <= set(walks[2]["digOnly"]) and "keepOut" not in walks[1]
    assert walks[2]["keepOut"] == list(keep_box((18, GROUND_Y, 18)))


class DeepPitBody(FakeBody):
    """A bot in a pit 4 deep: a walk gets out only if it may dig soil and rock."""

    def _do_move_to(self, a):
        if "stone" not in a.get("digOnly", ()):
            raise BodyError(f"no progress toward {a['x']},{a['y']},{a['z']} for 160 ticks (distance 4.8); no path")
        return super()._do_move_to(a)


def test_a_builder_in_a_pit_walks_digging_with_the_site_box_kept_out(ctx: ToolContext) -> None:
    """(The fake body only records keepOut; node/test/dig_walk.test.js shows the pathfinder keeps
    out of the box.)"""
    body = DeepPitBody(ctx.clock)
    ctx.body = body
    body.blocks[(20, GROUND_Y, 20)] = "dirt"  # a bump at the site to dig, out of reach from the pit
    res = run(
        default_tool_registry().execute("prepare_shelter_site", {"origin": [18, GROUND_Y, 18], "facing": "north"}, ctx)
    )
    assert res.success, res.error
    assert body.block(20, GROUND_Y, 20) == "air"
    x0, y0, z0, x1, y1, z1 = body.started[-2][1]["keepOut"]  # the walk that got there, then the dig
    assert (x0, z0, x1, z1) == (17, 17, 24, 24)  # the 5x5 footprint and its ring
    assert y0 < GROUND_Y - 1 and y1 > GROUND_Y + 4  # from under its floor to over its roof


def test_shelter_site_searches_from_the_ground_under_a_bot_standing_in_the_canopy(
    ctx: ToolContext, body: FakeBody
) -> None:
    for y in range(GROUND_Y, GROUND_Y + 4):
        body.blocks[(0, y, 0)] = "oak_log"  # a trunk under the bot, whose top it just cut
    body.blocks[(0, GROUND_Y + 4, 0)] = "oak_leaves"
    body.position = Vec3(x=0.5, y=GROUND_Y + 5, z=0.5)
    res = run(default_tool_registry().execute("shelter_site", {}, ctx))
    assert res.success, res.error
    assert res.output["origin"][1] == GROUND_Y  # the floor is the ground, not the treetop


class PitBody(FakeBody):
    """A bot in a pit: a walk gets nowhere unless it may dig."""

    def _do_move_to(self, a):
        if "digOnly" not in a:
            raise BodyError(f"no progress toward {a['x']},{a['y']},{a['z']} for 8000 ms (distance 6.0)")
        return super()._do_move_to(a)


def test_a_walk_that_makes_no_progress_is_tried_again_digging_through_natural_ground_only(ctx: ToolContext) -> None:
    body = PitBody(ctx.clock)
    ctx.body = body
    res = run(default_tool_registry().execute("move_to", {"x": 9, "y": GROUND_Y, "z": 9}, ctx))
    assert res.success is True and body.position.x == 9
    walks = [args for kind, args in body.started if kind == "move_to"]
    assert len(walks) == 2 and "digOnly" not in walks[0] and "stallMs" not in walks[0]
    assert walks[1]["stallMs"] > 8000  # digging out gets no closer for a while
    dig = set(walks[1]["digOnly"])
    assert {"stone", "dirt", "grass_block", "oak_log"} <= dig
    assert not dig & {"cobblestone", "oak_planks", "crafting_table", "furnace", "oak_door", "torch"}  # nothing built


def test_a_walk_failing_for_another_reason_is_not_tried_again(ctx: ToolContext, body: FakeBody) -> None:
    body.fail["move_to"] = "move_to needs numeric x, y, z"
    res = run(default_tool_registry().execute("move_to", {"x": 9, "y": GROUND_Y, "z": 9}, ctx))
    assert res.success is False
    assert [kind for kind, _ in body.started] == ["move_to"]


def test_placing_an_item_the_bot_does_not_hold_is_a_precondition_and_starts_nothing(
    ctx: ToolContext, body: FakeBody
) -> None:
    # A run resumed after the world restarted from its last save can find the table it crafted
    # gone: a precondition, which the executor answers by replanning.
    res = run(
        default_tool_registry().execute("place_block", {"block": "crafting_table", "x": 2, "y": GROUND_Y, "z": 0}, ctx)
    )
    assert res.success is False and res.error.code == PRECONDITION_FAILED
    assert "no crafting_table in inventory" in res.error.message
    assert body.started == []
    body.inventory["crafting_table"] = 1
    res = run(
        default_tool_registry().execute("place_block", {"block": "crafting_table", "x": 2, "y": GROUND_Y, "z": 0}, ctx)
    )
    assert res.success, res.error


@pytest.mark.parametrize("logs,filled", [(1, True), (0, False)])
def test_holes_at_the_site_with_no_dirt_and_no_spare_planks_are_filled_with_planks_made_from_a_log(
    ctx: ToolContext, body: FakeBody, logs: int, filled: bool
) -> None:
    """A site on rock yields no dirt, and the spare planks went into an earlier pass: a log held
    makes four more (a bench build failed on two holes with logs in its pack)."""
    origin = (3, GROUND_Y, 3)
    body.blocks[(6, GROUND_Y - 1, 4)] = "air"
    body.blocks[(4, GROUND_Y - 1, 5)] = "air"
    need = basic_shelter(origin, "north").materials()["oak_planks"]
    body.inventory.update({"oak_planks": need, "oak_log": logs})
    res = run(default_tool_registry().execute("prepare_shelter_site", {"origin": list(origin), "facing": "north"}, ctx))
    if filled:
        assert res.success, res.error
        assert res.output["filled"] == 2 and body.block(6, GROUND_Y - 1, 4) == "oak_planks"
        assert body.inventory["oak_planks"] == need + 2 and body.inventory["oak_log"] == 0  # the walls still all there
    else:
        assert res.success is False and "nothing to fill them with" in res.error.message
        assert body.inventory["oak_planks"] == need  # the walls' planks are not used up


def test_a_craft_keeps_the_planks_a_later_step_takes_by_name(ctx: ToolContext, body: FakeBody) -> None:
    """A birch fence is four birch planks and two sticks of any planks: the sticks are made of
    the oak held, or the fence would be short of birch (the craft action's `keep`)."""
    body.blocks[(1, GROUND_Y, 0)] = "crafting_table"
    body.inventory.update({"birch_planks": 4, "oak_planks": 2})
    res = run(default_tool_registry().execute("craft", {"item": "birch_fence", "count": 3}, ctx))
    assert res.success, res.error
    crafts = [args for kind, args in body.started if kind == "craft"]
    assert [(c["item"], c.get("keep")) for c in crafts] == [
        ("stick", ["birch_planks"]),
        ("birch_fence", ["birch_planks"]),
    ]
    assert body.inventory["birch_fence"] == 3 and body.inventory["oak_planks"] == 0


def test_armour_a_craft_makes_and_the_body_puts_on_is_said_in_the_log(ctx: ToolContext, body: FakeBody) -> None:
    body.blocks[(1, GROUND_Y, 0)] = "crafting_table"
    body.inventory.update({"iron_ingot": 8})
    original = body._do_craft
    body._do_craft = lambda a: {**original(a), "worn": [a["item"]]}  # type: ignore[method-assign]
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    try:
        res = run(default_tool_registry().execute("craft", {"item": "iron_chestplate"}, ctx))
    finally:
        logger.remove(sink)
    assert res.success, res.error
    assert "[Tools] craft iron_chestplate: put on iron_chestplate" in lines


def test_a_table_in_sight_no_walk_gets_to_gives_way_to_one_put_down_by_the_bot(
    ctx: ToolContext, body: FakeBody
) -> None:
    """As a furnace's (test_smelting.py): the craft puts a table down by the bot, made of its
    planks, and crafts there."""
    body.blocks[(6, GROUND_Y, 3)] = "crafting_table"
    body.inventory.update({"oak_planks": 7, "stick": 2})
    refused = body.refuse_first_walk_target()
    res = run(default_tool_registry().execute("craft", {"item": "wooden_pickaxe"}, ctx))
    assert res.success, res.error
    assert refused == [(6.5, 3.5)] and body.inventory["wooden_pickaxe"] == 1
    placed = res.output["placedTable"]
    assert placed is not None and body.block(placed["x"], placed["y"], placed["z"]) == "crafting_table"
    assert (placed["x"], placed["z"]) != (6, 3) and body.inventory["oak_planks"] == 0  # 4 for the table, 3 for the head


def test_under_cover_at_night_a_collect_takes_only_blocks_at_its_level_or_below(ftime) -> None:
    """A dug-in bench bot walked up to stone on a hillside, into the dark, and back to its hut."""
    body = CoveredNightBody(ftime.clock, inventory={"wooden_pickaxe": 1})
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    body.blocks[(3, GROUND_Y + 4, 0)] = "stone"  # up on the hillside
    body.blocks[(2, GROUND_Y - 1, 0)] = "stone"  # in the pocket's wall
    body.blocks[(2, GROUND_Y + 2, 0)] = "stone"  # rock over rock is cover (a trunk's own logs are not)
    res = run(default_tool_registry().execute("collect_block", {"block": "stone", "count": 1}, ctx))
    assert res.success, res.error
    collect = next(a for kind, a in body.started if kind == "collect")
    assert (
        collect["maxY"] == GROUND_Y and collect["covered"] is True and body.block(3, GROUND_Y + 4, 0) == "stone"
    )  # the hillside left be
    for y in range(GROUND_Y + 3, GROUND_Y + 7):  # a tree on the surface over the pocket
        body.blocks[(5, y, 0)] = "oak_log"
    logs = run(default_tool_registry().execute("collect_block", {"block": "oak_log", "count": 1}, ctx))
    assert logs.success is False and logs.error.code == WAITS_FOR_MORNING  # not walked up to
    assert "waits for the morning" in logs.error.message
    assert body.block(5, GROUND_Y + 3, 0) == "oak_log"


def test_under_cover_at_night_a_tree_below_in_the_open_waits_for_the_morning(ftime) -> None:
    """A tree in a valley below the pocket is at the bot's level or below, but in the open: a
    dug-in 26.1 bench bot's collect took its trunk for logs under cover (its own logs over its
    foot) and walked 50 blocks through a cave at night to it, into skeletons."""
    body = CoveredNightBody(ftime.clock, inventory={"wooden_pickaxe": 1})
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    for y in range(GROUND_Y - 5, GROUND_Y - 1):  # the trunk, open to the sky over it
        body.blocks[(6, y, 0)] = "oak_log"
    for y in range(GROUND_Y - 1, GROUND_Y + 1):
        body.blocks[(6, y, 0)] = "air"
    res = run(default_tool_registry().execute("collect_block", {"block": "oak_log", "count": 1}, ctx))
    assert res.success is False and res.error.code == WAITS_FOR_MORNING, res.error
    assert "under cover" in res.error.message and "stand in the open" in res.error.message
    assert [a["covered"] for kind, a in body.started if kind == "collect"] == [True]  # asked once, not again
    assert body.block(6, GROUND_Y - 5, 0) == "oak_log"


def test_a_spot_filled_before_the_place_lands_gravel_falling_in_is_given_up_for_another(
    ctx: ToolContext, body: FakeBody
) -> None:
    body.inventory["furnace"] = 1
    place = body._do_place
    fell: list[tuple[int, int, int]] = []

    def gravel_falls_in_first(a: dict[str, Any]) -> dict[str, Any]:
        if not fell:
            fell.append((a["x"], a["y"], a["z"]))
            body.blocks[fell[0]] = "gravel"
        return place(a)

    body._do_place = gravel_falls_in_first  # type: ignore[method-assign]
    res = run(default_tool_registry().execute("place_block", {"block": "furnace"}, ctx))
    assert res.success, res.error
    assert body.blocks[fell[0]] == "gravel"
    spot = (res.output["x"], res.output["y"], res.output["z"])
    assert spot != fell[0] and body.blocks[spot] == "furnace"


def test_with_no_site_at_the_bots_level_a_terrace_over_it_is_taken(ctx: ToolContext, body: FakeBody) -> None:
    # a player's blocks from y 64 to 66 all round (never torn down): the floors the site
    # finder reaches from the bot's feet; the top of them, y 67, is a floor free of work
    body.blocks.update({(x, y, z): "oak_planks" for x in range(-20, 21) for z in range(-20, 21) for y in (64, 65, 66)})
    res = run(default_tool_registry().execute("shelter_site", {}, ctx))
    assert res.success, res.error
    assert res.output["origin"][1] == 67 and res.output["earthwork"] == 0
    body.blocks.update({(x, 67, z): "oak_planks" for x in range(-30, 31) for z in range(-30, 31)})
    body.blocks.update({(x, y, z): "oak_planks" for x in range(-30, 31) for z in range(-30, 31) for y in range(68, 76)})
    body.fail["move_to"] = "no progress toward it for 160 ticks"  # nowhere to walk to either
    res = run(default_tool_registry().execute("shelter_site", {}, ctx))
    assert not res.success and "up to 8 blocks over it" in res.error.message


def test_with_no_site_near_the_bot_it_walks_away_to_look_farther(ctx: ToolContext, body: FakeBody) -> None:
    # a player's blocks 12 high all round the bot, 20 blocks each way: no floor within the scan
    body.blocks.update({(x, y, z): "oak_planks" for x in range(-20, 21) for z in range(-20, 21) for y in range(64, 76)})
    res = run(default_tool_registry().execute("shelter_site", {}, ctx))
    assert res.success, res.error
    walks = [a for k, a in body.started if k == "move_to"]
    assert 1 <= len(walks) <= 2  # one or two walks of 24 blocks away
    x, _, z = res.output["origin"]
    assert max(abs(x), abs(z)) > 16  # beyond what the scan from the bot's spot saw
