"""Digging up out of the ground (over the fake block world, dirt under y 64): a pillar up the
bot's own column when nothing in it is in the way; up the nearest column that has no water,
lava, sand or gravel in the way when its own has; the next column when a pillar up one fails;
under a lake's bed, a level tunnel to the nearest clear column farther off; its own column when
none is, walking up when its pillar fails; a deep climb in rounds of what the bot can see over
its head."""

from __future__ import annotations

import pytest

from agency.tools.base import ToolContext
from agency.tools.climb_out import GROUND_ROOF, MAX_TUNNELS, climb_out
from agency.tools.climbing import TUNNEL_REACH, along, clear_column_along, climb_columns, safe_to_dig_up
from agency.tools.testing import GROUND_Y, FakeBody
from agency.world import Vec3
from tests.unit.conftest import run

FEET = GROUND_Y - 10
TOP = GROUND_Y - 1  # the fake world's highest dirt


@pytest.fixture
def body(ftime) -> FakeBody:
    b = FakeBody(ftime.clock)
    b.position = Vec3(x=0.5, y=FEET, z=0.5)
    for y in (FEET, FEET + 1):
        b.blocks[(0, y, 0)] = "air"
    return b


@pytest.fixture
def ctx(ftime, body) -> ToolContext:
    return ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)


def _climbs(body: FakeBody) -> list[tuple[float, float, float]]:
    return body.pillars


def _region(body: FakeBody):
    return body.region((-6, FEET, -6), (13, 43, 13))


def _lake(body: FakeBody, west: int, east: int, north: int, south: int) -> None:
    """Water over the fake world's top from x -west to east and z -north to south."""
    for x in range(-west, east + 1):
        for z in range(-north, south + 1):
            body.blocks[(x, TOP + 1, z)] = "water"


WIDE = TUNNEL_REACH + 2  # a lake no level tunnel gets out from under


def test_a_column_of_plain_ground_is_climbed_where_the_bot_stands(ctx, body):
    climb = run(climb_out(ctx))
    assert climb is not None and climb["failed"] is None, climb
    assert _climbs(body) == [(0.5, TOP + 1, 0.5)]


@pytest.mark.parametrize(
    ("block", "y"),
    [("gravel", TOP - 3), ("sand", TOP), ("water", TOP + 1), ("lava", FEET + 5)],
    ids=["gravel-overhead", "a-sandy-top", "a-lake-over-it", "lava-in-it"],
)
def test_a_column_with_something_in_the_way_is_left_for_the_nearest_clear_one(ctx, body, block, y):
    body.blocks[(0, y, 0)] = block
    assert not safe_to_dig_up(_region(body), 0, 0, FEET, TOP)
    climb = run(climb_out(ctx))
    assert climb is not None and climb["failed"] is None, climb
    (x, cy, z), *_ = _climbs(body)
    assert cy == TOP + 1 and (x, z) != (0.5, 0.5)
    assert abs(x - 0.5) + abs(z - 0.5) in (1, 2)  # a neighbour (beside the liquid: one farther)


def test_water_beside_a_column_rules_it_out_too(body):
    body.blocks[(1, TOP, 0)] = "water"  # a dug block next to a liquid lets it flow
    region = _region(body)
    assert not safe_to_dig_up(region, 0, 0, FEET, TOP)
    columns = climb_columns(region, (0, FEET, 0), GROUND_ROOF)
    assert columns and all((c.x, c.z) not in ((0, 0), (1, 0), (2, 0), (1, 1), (1, -1)) for c in columns)


def test_a_failed_pillar_up_one_column_goes_on_to_the_next(ctx, body):
    body.blocks[(0, FEET + 5, 0)] = "cobblestone"  # built, not natural ground: the pillar may not dig it
    climb = run(climb_out(ctx))
    assert climb is not None and climb["failed"] is None, climb
    assert _climbs(body)[0][0::2] == (0.5, 0.5)
    assert len(_climbs(body)) == 2 and _climbs(body)[1][0::2] != (0.5, 0.5)  # the next column taken
    assert body.position.y == TOP + 1


def test_a_column_beside_the_bot_is_walked_to_at_its_level_first(ctx, body):
    body.blocks[(0, TOP - 3, 0)] = "gravel"
    run(climb_out(ctx))
    walks = [(a["x"], a["y"], a["z"], a["range"]) for kind, a in body.started if kind == "move_to"]
    (x, _, z), *_ = _climbs(body)
    assert walks[0] == (x, FEET, z, 0)  # digging its way (natural ground only), to the column's foot
    assert [k for k, _ in body.started] == ["move_to", "pillar"] and "digOnly" in body.started[0][1]


@pytest.mark.parametrize(("depth", "pillars"), [(70, 1), (200, 2)])
def test_a_deep_climb_goes_up_in_rounds_of_what_is_read_over_the_head(ctx, body, depth, pillars):
    """SKY_READ blocks over the head are read at a time: from 70 under the top the climb digs
    straight up; from 200, up to the highest ground it read, looks again, and goes on."""
    body.position = Vec3(x=0.5, y=TOP - depth, z=0.5)
    for y in (TOP - depth, TOP - depth + 1):
        body.blocks[(0, y, 0)] = "air"
    climb = run(climb_out(ctx))
    assert climb is not None and climb["failed"] is None and climb["how"] == "dug", climb
    assert body.position.y == TOP + 1
    assert len(_climbs(body)) == pillars


def test_deep_down_a_column_beside_is_climbed_as_far_as_is_seen(ctx, body):
    """Ground over the whole window (SKY_CHECK): a clear column beside is taken up to the top of
    what is seen, not passed over for the bot's own column with gravel in it."""
    body.position = Vec3(x=0.5, y=TOP - 70, z=0.5)
    for y in (TOP - 70, TOP - 69):
        body.blocks[(0, y, 0)] = "air"
    body.blocks[(0, TOP - 60, 0)] = "gravel"
    region = body.region((-6, TOP - 70, -6), (13, 43, 13))
    (first, *_) = climb_columns(region, (0, TOP - 70, 0), GROUND_ROOF)
    assert (first.x, first.z) != (0, 0) and first.top == TOP - 70 + 43 - 3
    climb = run(climb_out(ctx))
    assert climb is not None and climb["failed"] is None, climb
    assert _climbs(body)[0][0::2] != (0.5, 0.5) and body.position.y == TOP + 1


def test_a_pillar_stopped_in_the_bots_own_column_walks_up_instead(ctx, body):
    _lake(body, WIDE, WIDE, WIDE, WIDE)  # under a lake's floor everywhere: no column is clear
    body.blocks[(0, FEET + 4, 0)] = "cobblestone"
    run(climb_out(ctx))
    assert _climbs(body)[0][0::2] == (0.5, 0.5)
    assert ("move_to", {"x": 0.5, "y": TOP + 1, "z": 0.5, "range": 1}) in body.started  # the pathfinder's way round


def test_with_no_clear_column_near_the_bot_digs_up_its_own_as_before(ctx, body):
    _lake(body, WIDE, WIDE, WIDE, WIDE)  # under a lake's floor everywhere
    assert climb_columns(_region(body), (0, FEET, 0), GROUND_ROOF) == []
    run(climb_out(ctx))
    assert _climbs(body)[0] == (0.5, TOP + 1, 0.5)
    assert not [a for kind, a in body.started if kind == "tunnel"]
    # no dam up into the lake over its top: walled in a tube under it is no way out
    assert [a.get("dam") for kind, a in body.started if kind == "pillar"] == [None]


def test_under_a_lake_the_bot_tunnels_to_the_nearest_clear_column_and_climbs_there(ctx, body):
    """The lake's shore is 12 blocks north and farther every other way: a level tunnel north to
    the first column with no water over or beside it (13 off: 12 has the lake beside it), then
    a pillar up there."""
    _lake(body, WIDE, WIDE, 11, WIDE)
    climb = run(climb_out(ctx))
    assert climb is not None and climb["failed"] is None, climb
    assert [a for kind, a in body.started if kind == "tunnel"] == [{"blocks": 13, "direction": "north"}]
    assert _climbs(body) == [(0.5, TOP + 1, -12.5)]
    assert body.position.y == TOP + 1


def test_water_out_of_the_old_sight_over_a_deep_bot_is_seen_before_digging_up_into_it(ctx, body):
    """70 blocks down, a lake's bed over every column near: not dug up 40 blocks toward it (what
    SKY_CHECK sees) but tunnelled out from under it first."""
    body.position = Vec3(x=0.5, y=TOP - 70, z=0.5)
    for y in (TOP - 70, TOP - 69):
        body.blocks[(0, y, 0)] = "air"
    _lake(body, WIDE, 20, WIDE, WIDE)  # its shore 21 blocks east
    climb = run(climb_out(ctx))
    assert climb is not None and climb["failed"] is None, climb
    assert [a for kind, a in body.started if kind == "tunnel"] == [{"blocks": 22, "direction": "east"}]
    assert all(x == 22.5 for x, _, _ in _climbs(body)) and body.position.y == TOP + 1


def test_tunnels_in_one_climb_are_bounded(ctx, body):
    """A tunnel that ends where every column is still under water (it turned at a hazard): one
    more look, and at most MAX_TUNNELS in all before the bot's own column is dug as before."""
    _lake(body, WIDE, WIDE, 11, WIDE)
    body._do_tunnel = lambda a: {"steps": 0, "y": FEET, "turned": 2, "torches": 0, "reason": "reached"}  # type: ignore[method-assign]
    run(climb_out(ctx))
    assert len([a for kind, a in body.started if kind == "tunnel"]) == MAX_TUNNELS
    assert _climbs(body)[0] == (0.5, TOP + 1, 0.5)  # then its own column, as with no tunnel


def test_a_failed_tunnel_falls_back_to_digging_up_the_bots_own_column(ctx, body):
    _lake(body, WIDE, WIDE, 11, WIDE)
    body.fail["tunnel"] = "no way on: every direction has a liquid or a falling block"
    climb = run(climb_out(ctx))
    assert [k for k, _ in body.started][:2] == ["tunnel", "pillar"], body.started
    assert climb is not None and _climbs(body)[0] == (0.5, TOP + 1, 0.5)


def test_water_over_the_bots_own_column_rules_out_the_first_column_along_a_way(body):
    """The look along a way reads the bot's own column too: the first column east, beside the
    bot's, is not clear while water lies over the bot's (1 block east would let it in)."""
    body.blocks[(0, TOP + 1, 0)] = "water"
    origin, size = along((0, FEET, 0), "east", 60)
    hit = clear_column_along(body.region(origin, size), (0, FEET, 0), "east", GROUND_ROOF)
    assert hit is not None and hit[0] == 2, hit
    west = clear_column_along(
        body.region(*along((0, FEET, 0), "west", 60)), (0, FEET, 0), "west", GROUND_ROOF, lambda feet: feet[0] < -3
    )
    assert west is not None and west[0] == 4, west  # the ones the caller keeps out skipped, the next taken


def test_a_column_the_caller_keeps_out_is_not_dug_up(ctx, body):
    """A builder's climb digs up nowhere under its hut's floor (dig_from), here all of x > 0."""
    body.blocks[(0, TOP - 3, 0)] = "gravel"
    run(climb_out(ctx, dig_from=lambda feet: feet[0] <= 0))
    (x, _, z), *_ = _climbs(body)
    assert x < 0 and (x, z) == (-0.5, 0.5), _climbs(body)  # the nearest allowed: west of the bot


def test_boxed_in_by_water_with_every_walk_refused_the_bot_digs_up_its_own_column_walling_the_water_off(ctx, body):
    """A 26.1 bench bot at the foot of a flooded ravine: water beside its head and in its column,
    every walk to a column near refused. Its own column is dug last, the water in the way walled
    off with the cobblestone it holds; with none held the pillar stops at the water as before."""
    wet = [(1, FEET + 1, 0), (-1, FEET + 1, 0), (0, FEET + 1, 1), (0, FEET + 6, 0)]
    for c in wet:
        body.blocks[c] = "water"
    assert climb_columns(_region(body), (0, FEET, 0), GROUND_ROOF)  # columns near, none of them its own
    body.fail["move_to"] = "no progress toward the column for 400 ticks (distance 2.0)"
    body.inventory["cobblestone"] = 16
    climb = run(climb_out(ctx))
    assert climb is not None and climb["failed"] is None, climb
    pillars = [a for kind, a in body.started if kind == "pillar"]
    assert pillars == [{"targetY": TOP + 1, "digOnly": pillars[0]["digOnly"], "dam": True}]
    assert _climbs(body) == [(0.5, TOP + 1, 0.5)] and body.position.y == TOP + 1
    assert body.inventory["cobblestone"] == 12  # the water beside the head and in the column walled off
    assert all(body.blocks[c] == "cobblestone" for c in wet)  # the column's: dug, and stood on


def test_boxed_in_by_water_with_nothing_to_wall_it_off_with_the_climb_fails_saying_so(ctx, body):
    body.blocks[(0, FEET + 6, 0)] = "water"
    body.fail["move_to"] = "no progress toward the column for 400 ticks (distance 2.0)"
    climb = run(climb_out(ctx))
    assert climb is not None and climb["failed"] is not None, climb
    assert [a.get("dam") for kind, a in body.started if kind == "pillar"] == [True]
    assert body.blocks[(0, FEET + 6, 0)] == "water" and body.position.y == FEET
