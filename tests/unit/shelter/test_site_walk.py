"""The builder's walk to a spot at its site from underground: up to the surface first when no
walk from down there gets to the site (over the fake block world)."""

from __future__ import annotations

import pytest

from agency.shelter.site_walk import walk_site
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
    assert walks[-2] == (0.5, GROUND_Y, 0.5)  # straight up its column, onto the ground over it
    assert walks[-1] == SPOT and walks[:-2] == [SPOT] * 3  # the three tries from below, then once more
    assert (body.position.x, body.position.z) == (SPOT[0], SPOT[2])


def test_on_the_surface_a_blocked_walk_fails_as_before_without_a_climb(ctx, body):
    body.position = Vec3(x=0.5, y=GROUND_Y, z=0.5)
    _blocked_below(body, surface_only=False)
    with pytest.raises(ToolFailure, match="no progress toward"):
        run(walk_site(ctx, ORIGIN, SPOT, 0))
    assert [(a["x"], a["z"]) for k, a in body.started if k == "move_to"] == [(SPOT[0], SPOT[2])] * 3
