"""seek_ore and a collect's look further for an ore (agency.tools.mining) on the fake world,
whose staircase and tunnel move the bot east (agency.tools.testing.FakeBody)."""

from __future__ import annotations

from agency.execution.builtin_tools import default_tool_registry
from agency.tools.base import ToolContext
from agency.tools.mining import SEEK_LEG, STAIRCASES_HOOK, TUNNEL_BLOCKS
from agency.tools.results import VALIDATION_ERROR
from agency.tools.testing import GROUND_Y, CoveredNightBody, FakeBody
from tests.unit.conftest import run


def _kinds(body: FakeBody) -> list[str]:
    return [k for k, _a in body.started]


def test_an_ore_in_sight_needs_no_staircase(ctx: ToolContext, body: FakeBody) -> None:
    body.inventory["stone_pickaxe"] = 1
    body.blocks[(5, GROUND_Y - 3, 2)] = "iron_ore"
    res = run(default_tool_registry().execute("seek_ore", {"block": "iron_ore"}, ctx))
    assert res.success and res.output["inSight"] and not res.output["descents"]
    assert _kinds(body) == []


def test_under_cover_at_night_an_ore_above_the_feet_is_not_in_sight(ftime) -> None:
    """A dug-in bench bot's seek stopped at an iron ore up in a hillside by its hut; its collect
    walked out of the hut into the night for it."""
    body = CoveredNightBody(ftime.clock, inventory={"stone_pickaxe": 1})
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    start = body.position
    body.blocks[(5, GROUND_Y + 3, 2)] = "iron_ore"  # up in the hillside
    res = run(default_tool_registry().execute("seek_ore", {"block": "iron_ore"}, ctx))
    assert res.success, res.error
    assert [a["targetY"] for k, a in body.started if k == "staircase"] == [48, 32, 16]  # dug down for one below
    body.started.clear()
    body.position = start  # back in the pocket
    body.blocks[(5, GROUND_Y + 1, 2)] = "iron_ore"  # at head height: its drop would lie a step up
    res = run(default_tool_registry().execute("seek_ore", {"block": "iron_ore"}, ctx))
    assert res.success and [a["targetY"] for k, a in body.started if k == "staircase"] == [48, 32, 16]
    body.started.clear()
    body.position = start
    body.blocks[(5, GROUND_Y, 2)] = "iron_ore"  # at the feet's level: the pocket's wall
    res = run(default_tool_registry().execute("seek_ore", {"block": "iron_ore"}, ctx))
    assert res.success and res.output["inSight"] and _kinds(body) == []


def test_out_of_sight_it_digs_down_in_legs_to_the_ores_level(ctx: ToolContext, body: FakeBody) -> None:
    body.inventory["stone_pickaxe"] = 1
    ctx.hooks[STAIRCASES_HOOK] = []
    res = run(default_tool_registry().execute("seek_ore", {"block": "iron_ore"}, ctx))
    assert res.success, res.error
    targets = [a["targetY"] for k, a in body.started if k == "staircase"]
    assert targets == [48, 32, 16]  # y 64 to 16 in legs of SEEK_LEG, a look after each
    assert res.output == {**res.output, "level": 16, "y": 16, "inSight": False}
    assert [s[1] for s in ctx.hooks[STAIRCASES_HOOK]] == [GROUND_Y]  # one staircase: the way up is its top
    body.position = body.position.model_copy(update={"y": 96.0})  # a mountain: nine legs to the floor
    res = run(default_tool_registry().execute("seek_ore", {"block": "deepslate_diamond_ore"}, ctx))
    assert [a["targetY"] for a in res.output["descents"]] == list(range(96 - SEEK_LEG, -48 - 1, -SEEK_LEG))


def test_it_stops_where_the_ore_comes_in_sight(ctx: ToolContext, body: FakeBody) -> None:
    """An integration test's bot, with legs of 48 blocks, dug 36 blocks down past the vein it
    was to find 12 blocks under it."""
    body.inventory["iron_pickaxe"] = 1
    body.position = body.position.model_copy(update={"y": 100.0})
    body.blocks[(48, 50, 0)] = "deepslate_diamond_ore"  # in sight after the third leg (x 48, y 52)
    res = run(default_tool_registry().execute("seek_ore", {"block": "diamond_ore"}, ctx))
    assert res.success and res.output["inSight"] and len(res.output["descents"]) == 3
    assert body.position.y == 52


def test_what_is_no_ore_to_dig_for_is_refused_and_no_pickaxe_fails_naming_it(ctx: ToolContext, body: FakeBody) -> None:
    reg = default_tool_registry()
    res = run(reg.execute("seek_ore", {"block": "oak_log"}, ctx))
    assert res.error.code == VALIDATION_ERROR and "not an ore found by digging down" in res.error.message
    assert "emerald" in run(reg.execute("seek_ore", {"block": "emerald_ore"}, ctx)).error.message
    res = run(reg.execute("seek_ore", {"block": "coal_ore"}, ctx))
    assert not res.success and "no pickaxe" in res.error.message and _kinds(body) == []


def test_a_collect_of_an_ore_out_of_sight_digs_on_instead_of_climbing_out(ctx: ToolContext, body: FakeBody) -> None:
    body.inventory["stone_pickaxe"] = 1
    body.position = body.position.model_copy(update={"y": 20.0})
    # beyond the sight box's 32 blocks until a tunnel brings it near
    body.blocks[(int(body.position.x) + TUNNEL_BLOCKS + 20, 18, 0)] = "iron_ore"
    res = run(default_tool_registry().execute("collect_block", {"block": "iron_ore", "count": 1}, ctx))
    assert res.success, res.error
    assert _kinds(body) == ["staircase", "tunnel", "collect"]  # y 20 -> 16, then along: never up to the surface
    assert body.inventory["raw_iron"] == 1


def test_a_collect_that_tunnels_in_vain_says_so(ctx: ToolContext, body: FakeBody) -> None:
    body.inventory["iron_pickaxe"] = 1
    body.position = body.position.model_copy(update={"y": 16.0})
    res = run(default_tool_registry().execute("collect_block", {"block": "gold_ore", "count": 1}, ctx))
    assert not res.success and "no gold_ore within 32 blocks" in res.error.message
    assert _kinds(body) == ["staircase", "staircase"]  # y 16 -> -8 -> -16 (gold's level), then out of tries


def test_an_ore_beside_water_or_lava_is_left_alone_by_seek_and_collect(ctx: ToolContext, body: FakeBody) -> None:
    """A 1.18.2 bench bot spent 8 minutes on iron ore in its flooded tunnel, 45 s a block
    (under water the bot digs five times slower), and took none."""
    body.inventory["stone_pickaxe"] = 1
    body.blocks[(3, GROUND_Y - 3, 2)] = "iron_ore"
    body.blocks[(3, GROUND_Y - 2, 2)] = "water"  # flooded over it
    body.blocks[(9, GROUND_Y - 3, 0)] = "iron_ore"
    body.blocks[(10, GROUND_Y - 3, 0)] = "lava"
    res = run(default_tool_registry().execute("seek_ore", {"block": "iron_ore"}, ctx))
    assert res.success and not res.output["inSight"] and set(_kinds(body)) == {"staircase"}  # dug on down instead
    body.started.clear()
    body.blocks[(int(body.position.x) + 4, int(body.position.y) - 2, 0)] = "iron_ore"  # a dry one
    res = run(default_tool_registry().execute("collect_block", {"block": "iron_ore", "count": 1}, ctx))
    assert res.success, res.error
    assert [a.get("dryOnly") for k, a in body.started if k == "collect"] == [True]
    assert body.block(3, GROUND_Y - 3, 2) == body.block(9, GROUND_Y - 3, 0) == "iron_ore"  # both left


def test_a_collect_with_only_wet_ore_in_sight_says_why_it_found_none(ctx: ToolContext, body: FakeBody) -> None:
    body.inventory["iron_pickaxe"] = 1
    body.position = body.position.model_copy(update={"y": 16.0})
    body.blocks[(2, 15, 0)] = "gold_ore"
    body.blocks[(2, 14, 0)] = "water"
    res = run(default_tool_registry().execute("collect_block", {"block": "gold_ore", "count": 1}, ctx))
    assert not res.success and "those seen lie beside water or lava, left alone" in res.error.message
    assert "collect" not in _kinds(body)


def test_a_collect_below_the_ores_band_rises_into_it_instead_of_tunnelling_where_none_lies(
    ctx: ToolContext, body: FakeBody
) -> None:
    """A 26.1 bench bot at y -31 in the deepslate tunnelled for a torch's coal three times in
    five minutes ("no coal_ore within 32 blocks (explored 2 times)"): none lies below y 0."""
    body.inventory["iron_pickaxe"] = 1
    body.position = body.position.model_copy(update={"y": -31.0})
    body.blocks[(2, 20, 0)] = "coal_ore"  # in sight from y 24 (8 down), not from y -31
    res = run(default_tool_registry().execute("collect_block", {"block": "coal_ore", "count": 1}, ctx))
    assert res.success, res.error
    assert _kinds(body) == ["pillar", "collect"]  # up into coal's band (y 0 + 24), then the collect
    assert [a["targetY"] for k, a in body.started if k == "pillar"] == [TUNNEL_BLOCKS]
    assert body.inventory["coal"] == 1


def test_in_the_band_or_for_an_ore_of_the_deep_there_is_no_rise(ctx: ToolContext, body: FakeBody) -> None:
    body.inventory["iron_pickaxe"] = 1
    body.position = body.position.model_copy(update={"y": -31.0})
    res = run(default_tool_registry().execute("collect_block", {"block": "iron_ore", "count": 1}, ctx))
    assert not res.success and "pillar" not in _kinds(body)  # iron lies down to the bottom: tunnels
    body.started.clear()
    body.position = body.position.model_copy(update={"y": 2.0})
    res = run(default_tool_registry().execute("collect_block", {"block": "coal_ore", "count": 1}, ctx))
    assert not res.success and _kinds(body) == ["tunnel", "tunnel"]  # y 2 is coal's band


def test_under_cover_at_night_a_bot_below_the_band_does_not_rise(ftime) -> None:
    body = CoveredNightBody(ftime.clock, inventory={"iron_pickaxe": 1})
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    body.position = body.position.model_copy(update={"y": -31.0})
    res = run(default_tool_registry().execute("collect_block", {"block": "coal_ore", "count": 1}, ctx))
    assert not res.success and "pillar" not in _kinds(body)


def test_a_rise_stopped_by_water_overhead_climbs_out_instead(ctx: ToolContext, body: FakeBody) -> None:
    body.inventory["iron_pickaxe"] = 1
    body.position = body.position.model_copy(update={"y": -31.0})
    x, z = int(body.position.x), int(body.position.z)
    body.blocks[(x, -20, z)] = "water"  # a flooded cave over the column
    run(default_tool_registry().execute("collect_block", {"block": "coal_ore", "count": 1}, ctx))
    assert _kinds(body)[0] == "pillar" and body.pillars[0][1] == TUNNEL_BLOCKS
    assert len(body.pillars) > 1 and body.position.y > -20  # climbed out up another column


def test_at_night_in_a_cave_with_no_roof_in_reach_a_stopped_rise_does_not_climb_out(ftime) -> None:
    """A cave's roof more than 16 blocks up reads as no cover: the rise runs, and a pillar
    stopped in the deep is no reason to go up to the surface in the dark."""
    body = CoveredNightBody(ftime.clock, inventory={"iron_pickaxe": 1})
    body.snapshot = lambda: CoveredNightBody.snapshot(body).model_copy(update={"cover": 0})  # type: ignore[method-assign]
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    body.position = body.position.model_copy(update={"y": -31.0})
    x, z = int(body.position.x), int(body.position.z)
    body.blocks[(x, -20, z)] = "water"  # the pillar stops under it
    run(default_tool_registry().execute("collect_block", {"block": "coal_ore", "count": 1}, ctx))
    assert _kinds(body)[0] == "pillar" and {(px, pz) for px, _, pz in body.pillars} == {(x + 0.5, z + 0.5)}
    assert body.position.y < -20  # no other column up: still down here
