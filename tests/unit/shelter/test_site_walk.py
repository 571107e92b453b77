"""The builder's walks at its site (over the fake block world): from underground, up to the
surface first when no walk from down there gets to the site; to fill a hole, only to a cell the
bot can stand in, the next when no walk gets to one; a walk that fails where the bot can do its job is none."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agency.execution.builtin_tools import default_tool_registry
from agency.shelter.blueprint import basic_shelter
from agency.shelter.site_walk import back_to_site, walk_site
from agency.tools.base import ToolFailure
from agency.tools.testing import GROUND_Y, FakeBody
from agency.world import BodyError, Vec3
from tests.unit.conftest import run

ORIGIN = (8, GROUND_Y, -2)
SPOT = (10.5, GROUND_Y, 3.5)  # the cell outside the doorway


def _blocked_below(body: FakeBody, surface_only: bool) -> None:
    """Every walk to the spot stalls while the bot is below the surface (all of them, if not
    surface_only); other walks (the climb) go."""
    walk = body._do_move_to

    def move_to(a):
        if (a["x"], a["z"]) == (SPOT[0], SPOT[2]) and (body.position.y < GROUND_Y - 1 or not surface_only):
            raise BodyError(f"no progress toward {SPOT[0]},{SPOT[1]},{SPOT[2]} for 160 ticks (distance 12.0)")
        return walk(a)

    body._do_move_to = move_to  # type: ignore[method-assign]


def test_a_bot_in_its_tunnels_under_the_site_climbs_out_then_walks_to_the_spot(ctx, body):
    body.position = Vec3(x=0.5, y=GROUND_Y - 10, z=0.5)
    for y in (GROUND_Y - 10, GROUND_Y - 9):
        body.blocks[(0, y, 0)] = "air"
    _blocked_below(body, surface_only=True)
    run(walk_site(ctx, ORIGIN, SPOT, 0))
    walks = [(a["x"], a["y"], a["z"]) for k, a in body.started if k == "move_to"]
    assert body.pillars == [(0.5, GROUND_Y, 0.5)]  # straight up its column, onto the ground over it
    assert walks == [SPOT] * 4  # the three tries from below, then once more
    assert (body.position.x, body.position.z) == (SPOT[0], SPOT[2])


def test_on_the_surface_a_blocked_walk_fails_as_before_without_a_climb(ctx, body):
    body.position = Vec3(x=0.5, y=GROUND_Y, z=0.5)
    _blocked_below(body, surface_only=False)
    with pytest.raises(ToolFailure, match="no progress toward"):
        run(walk_site(ctx, ORIGIN, SPOT, 0))
    assert [(a["x"], a["z"]) for k, a in body.started if k == "move_to"] == [(SPOT[0], SPOT[2])] * 3


def test_under_the_site_itself_no_climb_digs_up_through_the_hut(ctx, body):
    body.position = Vec3(x=10.5, y=GROUND_Y - 10, z=0.5)  # under the footprint (x 8..12, z -2..2)
    for y in (GROUND_Y - 10, GROUND_Y - 9):
        body.blocks[(10, y, 0)] = "air"
    _blocked_below(body, surface_only=True)
    with pytest.raises(ToolFailure, match="no progress toward"):
        run(walk_site(ctx, ORIGIN, SPOT, 0))
    assert [(a["x"], a["z"]) for k, a in body.started if k == "move_to"] == [(SPOT[0], SPOT[2])] * 3
    # up the staircase it came down by day, though: that digs nothing
    body.started.clear()
    body.position = Vec3(x=10.5, y=GROUND_Y - 10, z=0.5)
    run(walk_site(replace(ctx, hooks={"staircases": [(20.5, GROUND_Y, 0.5)]}), ORIGIN, SPOT, 0))
    walks = [(a["x"], a["z"], "digOnly" in a) for k, a in body.started if k == "move_to"]
    assert walks[3] == (20.5, 0.5, False) and walks[-1][:2] == (SPOT[0], SPOT[2])


def _hut_over_a_tunnel(body):
    """A hut standing (no door yet) over the bot's own tunnel, two high, under its west wall."""
    origin = (2, GROUND_Y, 2)
    bp = basic_shelter(origin, "south")
    for m in bp.modules:
        if m.name not in ("door", "light"):
            for x, y, z, block in m.placements:
                body.blocks[(x, y, z)] = block
    tunnel = {(x, y, z) for x in range(1, 5) for z in range(3, 6) for y in (GROUND_Y - 2, GROUND_Y - 1)}
    for cell in tunnel:
        body.blocks[cell] = "air"
    body.position = Vec3(x=0.5, y=GROUND_Y, z=4.5)  # west of the ring, beside the tunnel's mouth
    return origin, bp, tunnel


def _prepare(ctx, origin):
    args = {"origin": list(origin), "facing": "south"}
    return run(default_tool_registry().execute("prepare_shelter_site", args, ctx))


def test_a_repair_fills_the_tunnel_under_its_hut_standing_only_where_the_bot_can_stand(ctx, body):
    """Never in a wall cell of the hut, nor on a ring cell over the tunnel: the walk there
    gets nowhere (a bench hut's levelling walked to one for a minute, three times, and failed)."""
    origin, bp, tunnel = _hut_over_a_tunnel(body)
    body.inventory["dirt"] = 20
    res = _prepare(ctx, origin)
    assert res.success, res.error
    assert res.output["filled"] >= 6
    walls = {(x, z) for x, y, z, _ in bp.module("walls_layer_1").placements}
    spots = [(int(a["x"] // 1), int(a["z"] // 1)) for k, a in body.started if k == "move_to"]
    assert spots and not [s for s in spots if s in walls or s in {(x, z) for x, _, z in tunnel}]


def test_a_repair_with_no_dirt_fills_with_the_planks_its_standing_hut_does_not_need(ctx, body):
    """Spare planks are counted against the blocks still to place, not the whole hut's."""
    origin, _, _ = _hut_over_a_tunnel(body)
    body.inventory["oak_planks"] = 20
    res = _prepare(ctx, origin)
    assert res.success, res.error
    assert body.inventory["oak_planks"] == 20 - res.output["filled"]


def test_a_climb_out_whose_last_walk_fails_is_no_failure_where_the_bot_can_do_its_job(ctx, body):
    body.position = Vec3(x=0.5, y=GROUND_Y - 10, z=0.5)
    for y in (GROUND_Y - 10, GROUND_Y - 9):
        body.blocks[(0, y, 0)] = "air"
    _blocked_below(body, surface_only=False)  # the walk after the climb fails too

    async def on_the_surface() -> bool:
        return body.position.y >= GROUND_Y

    run(walk_site(ctx, ORIGIN, SPOT, 0, on_the_surface))
    walks = [(a["x"], a["y"], a["z"]) for k, a in body.started if k == "move_to"]
    assert body.pillars == [(0.5, GROUND_Y, 0.5)] and walks[-1] == SPOT  # climbed, tried once more, failed
    with pytest.raises(ToolFailure, match="no progress toward"):  # not good enough there: it fails
        body.position = Vec3(x=0.5, y=GROUND_Y - 10, z=0.5)
        run(walk_site(ctx, ORIGIN, SPOT, 0))


def test_a_fill_spot_no_walk_gets_to_gives_way_to_the_next(ctx, body):
    """FILL_SPOTS cells are tried in turn: the first one's walk fails, the hole is filled from
    another."""
    origin, _, _ = _hut_over_a_tunnel(body)
    body.inventory["dirt"] = 20
    refused = body.refuse_first_walk_target()
    res = _prepare(ctx, origin)
    assert res.success, res.error
    spots = {(a["x"], a["z"]) for k, a in body.started if k == "move_to"}
    assert spots - set(refused)  # filled from somewhere else


def test_back_to_a_far_site_from_under_ground_the_bot_climbs_out_before_the_walk(ctx, body):
    """A 26.1 bench bot took six minutes from its mine at y 4 up to its hut's repair, the walk
    digging its way up; the climb's pillar goes a block a second."""
    body.position = Vec3(x=40.5, y=GROUND_Y - 30, z=0.5)
    for y in (GROUND_Y - 30, GROUND_Y - 29):
        body.blocks[(40, y, 0)] = "air"
    run(back_to_site(ctx, ORIGIN, "the site not loaded"))
    assert [k for k, _ in body.started][:2] == ["pillar", "move_to"]
    assert body.pillars == [(40.5, GROUND_Y, 0.5)]
    near = next(a for k, a in body.started if k == "move_to")
    assert (near["x"], near["z"]) == (ORIGIN[0] + 2.5, ORIGIN[2] + 2.5)


def test_back_to_a_far_site_on_the_surface_the_bot_just_walks(ctx, body):
    body.position = Vec3(x=40.5, y=GROUND_Y, z=0.5)
    run(back_to_site(ctx, ORIGIN, "the site not loaded"))
    assert [k for k, _ in body.started] == ["move_to"] and not body.pillars
