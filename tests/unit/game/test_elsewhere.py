"""The items only the nether or the end has are names of every version we claim, and an
obtain goal for one of them, or for what needs one, is refused naming the place."""

from __future__ import annotations

import pytest

from agency.execution.agents.obtain import Unobtainable, resolve_obtain
from agency.game import mcdata
from agency.game.elsewhere import FOUND_ONLY_IN, found_only_in
from agency.goal_tag import ExtractedGoal
from tests.unit.game.test_mcdata_recipes import CLAIMED


@pytest.mark.parametrize("v", CLAIMED)
def test_every_name_is_an_item_of_every_claimed_version(v):
    items = mcdata.load(v).items
    assert [name for name in FOUND_ONLY_IN if name not in items] == []


def test_a_group_is_elsewhere_only_when_every_member_is():
    assert found_only_in("blaze_rod") == "the nether" and found_only_in("shulker_shell") == "the end"
    assert found_only_in("blackstone|cobbled_deepslate|cobblestone") is None
    assert found_only_in("crimson_stem|warped_stem") == "the nether"


def _obtain(item, amount=1):
    return resolve_obtain(ExtractedGoal(action="collect", target=item, amount=amount))


@pytest.mark.parametrize(
    "item, goal",
    [
        ("compass", ("craft", "compass")),
        ("diamond_pickaxe", ("craft", "diamond_pickaxe")),
        ("redstone", ("collect", "redstone_ore")),
        ("diamond", ("collect", "diamond_ore")),
        ("cobblestone", ("collect", "stone")),
        ("iron_ingot", ("smelt", "iron_ingot")),
        ("leather", ("hunt", "cow")),
        ("white_wool", ("hunt", "sheep")),
        ("sand", ("collect", "sand")),
        ("sugar", ("craft", "sugar")),
        ("cooked_beef", ("smelt", "cooked_beef")),  # a cow hunted, its beef cooked
    ],
)
def test_obtain_picks_the_way_that_gets_the_item(item, goal):
    got = _obtain(item, 3)
    assert isinstance(got, ExtractedGoal) and (got.action, got.target, got.amount) == (*goal, 3)


@pytest.mark.parametrize(
    "item, why",
    [
        ("nether_star", "nether_star is found only in the nether"),
        ("beacon", "beacon needs nether_star, which is found only in the nether"),
        ("purpur_block", "purpur_block needs popped_chorus_fruit, which is found only in the end"),
        ("lead", "lead needs string, which the bot cannot get on its own yet"),
        ("diamon_pickaxe", "diamon_pickaxe is not an item of Minecraft 26.1 (did you mean diamond_pickaxe"),
        ("cooked_cod", "the bot knows no way to get cooked_cod on its own yet"),  # fish are not caught yet
    ],
)
def test_obtain_refuses_what_it_cannot_get_saying_why(item, why):
    got = _obtain(item)
    assert isinstance(got, Unobtainable) and got.reason.startswith(why), got
