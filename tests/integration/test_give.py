"""One bot hands items to another through the real bridge and the embedded world: the
`give` tool walks up to the receiver and tosses; the server's pickup puts the items in the
receiver's inventory (a fleet's deliveries end this way)."""

from __future__ import annotations

import asyncio

import pytest

from agency.execution.builtin_tools import default_tool_registry
from agency.tools import ToolContext
from agency.tools.actions import run_action
from agency.world import Vec3
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import block_at, give, stone_pad, teleport


@pytest.fixture(scope="module")
def pair(bridge, embedded_server):  # one login each for the module: quick relogs get refused
    giver = make_body(bridge, embedded_server.port, "giver_bot")
    taker = make_body(bridge, embedded_server.port, "taker_bot")
    yield giver, taker
    giver.close()
    taker.close()


def _give(giver, item: str, count: int):
    """The give tool, as a delivery runs it: to taker_bot."""
    return asyncio.run(
        default_tool_registry().execute(
            "give",
            {"player": "taker_bot", "item": item, "count": count},
            ToolContext(body=giver, poll_interval_s=0.1),
        )
    )


def test_a_bot_walks_up_to_another_and_hands_it_planks(pair):
    giver, taker = pair
    stone_pad(giver, "giver_bot", 820, 70, 700, r=8, headroom=3)
    teleport(taker, "taker_bot", 826, 70, 700)  # 6 blocks away: the giver has to walk
    give(giver, "giver_bot", {"oak_planks": 64})
    give(giver, "giver_bot", {"oak_planks": 16})  # two stacks: a shelter's walls are 75
    before = taker.snapshot().count_of("oak_planks")
    held = giver.snapshot().count_of("oak_planks")
    res = _give(giver, "oak_planks", 75)
    assert res.success, res.error
    assert res.output["given"] == 75 and res.output["to"] == "taker_bot"
    wait_until(
        lambda: taker.snapshot().count_of("oak_planks") == before + 75, 10, "the planks in the taker's inventory"
    )
    assert giver.snapshot().count_of("oak_planks") == held - 75
    # more than it holds: refused before anything is tossed
    res = _give(giver, "oak_planks", 10)
    assert not res.success and "cannot give 10" in res.error.message
    assert giver.snapshot().count_of("oak_planks") == held - 75


def test_a_bot_standing_on_the_receiver_backs_off_and_hands_it_over(pair):
    """Bots that log in at one spawn stand in the same block: a toss from there flies past the
    receiver's reach, so the giver backs off first (a fleet's first delivery, found live)."""
    giver, taker = pair
    stone_pad(giver, "giver_bot", 820, 70, 760, r=8, headroom=3)
    teleport(taker, "taker_bot", 820, 70, 760)
    teleport(giver, "giver_bot", 820, 70, 760)  # the same block
    wait_until(lambda: giver.snapshot().position.distance_to(taker.snapshot().position) < 0.5, 10, "one spot")
    give(giver, "giver_bot", {"stick": 2})
    before = taker.snapshot().count_of("stick")
    res = _give(giver, "stick", 2)
    assert res.success, res.error
    wait_until(lambda: taker.snapshot().count_of("stick") == before + 2, 10, "the sticks in the taker's inventory")


def test_a_stack_of_the_item_already_lying_near_the_receiver_is_left_alone(pair):
    """Only the stacks a toss threw are waited for and taken back when they lie out of reach:
    a dirt stack that lay near the receiver before (out of both bots' reach) neither held the
    delivery up until its 10 s cap nor was walked over and taken by the giver."""
    giver, taker = pair
    stone_pad(giver, "giver_bot", 820, 70, 820, r=8, headroom=3)
    teleport(taker, "taker_bot", 826, 70, 820)
    teleport(giver, "giver_bot", 821, 70, 820)
    give(giver, "giver_bot", {"dirt": 3})
    giver.chat("/mcbot setblock 823 70 824 dirt")  # 4 blocks off the giver's way, 5 from the taker
    wait_until(lambda: giver.snapshot().position.distance_to(Vec3(x=821.5, y=70, z=820.5)) < 0.5, 10, "the start")
    wait_until(lambda: block_at(giver, 823, 70, 824) == "dirt", 10, "the dirt block")
    asyncio.run(run_action(ToolContext(body=giver, poll_interval_s=0.1), "dig", {"x": 823, "y": 70, "z": 824}))

    def stack_lies() -> bool:
        return any(
            e.name == "item" and e.position.distance_to(Vec3(x=823.5, y=70, z=824.5)) < 1.5
            for e in giver.snapshot().entities
        )

    wait_until(stack_lies, 10, "the dug dirt lying where it was dug")
    held, before = giver.snapshot().count_of("dirt"), taker.snapshot().count_of("dirt")
    res = _give(giver, "dirt", 2)
    assert res.success, res.error
    assert res.output["attempts"] == 1, res.output
    wait_until(lambda: taker.snapshot().count_of("dirt") == before + 2, 10, "the dirt in the taker's inventory")
    assert giver.snapshot().count_of("dirt") == held - 2  # the old stack was not taken back
    assert stack_lies()
