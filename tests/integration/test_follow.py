"""`follow`, the direct action that keeps near a player, through the real bridge: a second
bot walks away across a stone pad and the follower ends within reach of it; a player who is
not there fails at once with the reason."""

from __future__ import annotations

import asyncio

import pytest

from agency.execution.builtin_tools import default_tool_registry
from agency.tools import ToolContext
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import stone_pad, teleport

LEADER, FOLLOWER = "leader_bot", "follower_bot"


@pytest.fixture(scope="module")
def pair(bridge, embedded_server):  # one login each for the module: quick relogs get refused
    leader = make_body(bridge, embedded_server.port, LEADER)
    follower = make_body(bridge, embedded_server.port, FOLLOWER)
    yield leader, follower
    follower.close()
    leader.close()


def test_the_follower_keeps_near_a_player_who_walks_away(pair):
    leader, follower = pair
    x, y, z = 900, 70, 760
    stone_pad(leader, LEADER, x, y, z, r=12, headroom=3)
    teleport(follower, FOLLOWER, x - 2, y, z)
    wait_until(
        lambda: any(e.name == LEADER or e.type == "player" for e in follower.snapshot().entities),
        10,
        "the leader in the follower's sight",
    )

    async def both() -> tuple:
        follow = default_tool_registry().execute(
            "follow",
            {"username": LEADER, "distance": 2, "duration_s": 14},
            ToolContext(body=follower, poll_interval_s=0.2),
        )
        walk = default_tool_registry().execute(
            "move_to", {"x": x + 10, "y": y, "z": z + 6}, ToolContext(body=leader, poll_interval_s=0.2)
        )
        return await asyncio.gather(follow, walk)

    followed, walked = asyncio.run(both())
    assert walked.success, walked.error
    assert followed.success, followed.error
    out = followed.output
    assert out["followed"] == LEADER and out["ms"] >= 14000
    a, b = leader.snapshot().position, follower.snapshot().position
    gap = ((a.x - b.x) ** 2 + (a.z - b.z) ** 2) ** 0.5
    assert gap <= 4.0, f"the follower ended {gap:.1f} blocks from the leader"
    assert abs(b.x - (x - 2)) > 5  # it walked: it did not just stand where it started


def test_following_a_player_who_is_not_there_fails_with_the_reason(pair):
    _leader, follower = pair
    result = asyncio.run(
        default_tool_registry().execute(
            "follow", {"username": "nobody_here", "duration_s": 5}, ToolContext(body=follower, poll_interval_s=0.2)
        )
    )
    assert not result.success and "no entity 'nobody_here' in view" in result.error.message
