"""What survival never gives is refused saying so, and the table names items the game has."""

from __future__ import annotations

import pytest

from agency.execution.agents.obtain import Unobtainable, resolve_obtain
from agency.game import mcdata
from agency.game.creative import CREATIVE_ONLY, creative_only
from agency.goal_tag import ExtractedGoal
from tests.unit.game.test_mcdata_recipes import CLAIMED


def test_every_name_is_an_item_of_a_claimed_version():
    items = set().union(*(mcdata.load(v).items for v in CLAIMED))
    assert sorted(n for n in CREATIVE_ONLY if n not in items) == []


@pytest.mark.parametrize("item", ["zombie_spawn_egg", "bedrock", "command_block", "debug_stick", "infested_stone"])
def test_an_item_survival_never_gives_is_refused_saying_so(item):
    got = resolve_obtain(ExtractedGoal(action="obtain", target=item, amount=1))
    assert isinstance(got, Unobtainable) and "only creative mode or a command gives it" in got.reason, got


@pytest.mark.parametrize("item", ["stone", "egg", "oak_log", "diamond", "chest_minecart"])
def test_what_survival_gives_is_not_called_creative(item):
    assert not creative_only(item)
