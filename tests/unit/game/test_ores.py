"""Where the ores lie (agency.game.ores): each level inside a range the embedded world places
its ore in (node/plugins/underground.js ORE_FEATURES), no deeper than the descent's floor, and
an ore found in its deepslate kind too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agency.game.ores import ORE_FLOORS, ORE_LEVELS, ore_floor, ore_level
from agency.game.recipes import matches
from agency.tools.mining import SAFE_FLOOR_Y

UNDERGROUND_JS = Path(__file__).resolve().parents[3] / "node" / "plugins" / "underground.js"
WORLD_BOTTOM = -64  # 1.18+
FEATURE = re.compile(r"\{ ore: '(\w+)', count: [\d./ ]+, dist: '(\w+)', lo: (-?\d+), hi: (-?\d+)")


def _ranges() -> dict[str, list[tuple[int, int]]]:
    out: dict[str, list[tuple[int, int]]] = {}
    for ore, _dist, lo, hi in FEATURE.findall(UNDERGROUND_JS.read_text(encoding="utf-8")):
        out.setdefault(f"{ore}_ore", []).append((int(lo), int(hi)))
    return out


def test_the_world_file_is_read():
    ranges = _ranges()
    assert {"coal_ore", "iron_ore", "diamond_ore", "redstone_ore", "emerald_ore"} <= set(ranges)


@pytest.mark.parametrize("ore", sorted(ORE_LEVELS))
def test_each_level_lies_where_the_world_places_its_ore_and_above_the_floor(ore):
    level = ORE_LEVELS[ore]
    assert any(lo <= level <= hi for lo, hi in _ranges()[ore]), (ore, level, _ranges()[ore])
    assert level >= SAFE_FLOOR_Y


def test_an_ore_is_known_by_its_deepslate_kind_and_emeralds_are_not_dug_down_for():
    assert ore_level("deepslate_diamond_ore") == ore_level("diamond_ore") == -48
    assert ore_level("iron_ore") == 16
    assert ore_level("emerald_ore") is None and ore_level("oak_log") is None and ore_level("stone") is None
    assert matches("iron_ore", "deepslate_iron_ore") and matches("diamond_ore", "deepslate_diamond_ore")
    assert not matches("deepslate_iron_ore", "iron_ore")  # the plain kind is asked for by its own name
    assert not matches("iron_ore", "deepslate") and not matches("coal", "deepslate_coal_ore")


def test_the_deep_rock_is_dug_down_for_by_its_own_name():
    assert ore_level("deepslate") == ore_level("tuff") == -8
    assert ore_level("lava") == -48 and ore_level("water") is None


@pytest.mark.parametrize("ore", sorted(ORE_LEVELS))
def test_a_floor_is_the_lowest_level_the_world_places_its_ore_at_and_none_lies_to_the_bottom(ore):
    lowest = max(min(lo for lo, _hi in _ranges()[ore]), WORLD_BOTTOM)
    assert ore_floor(ore) == (None if lowest == WORLD_BOTTOM else lowest), (ore, lowest)
    assert ore_floor(f"deepslate_{ore}") == ore_floor(ore)


def test_the_floors_are_under_their_levels():
    assert ORE_FLOORS == {"coal_ore": 0, "copper_ore": -16}
    assert all(floor < ORE_LEVELS[ore] for ore, floor in ORE_FLOORS.items())
