"""The recipe book is minecraft-data's, for the version in use: variants merged into groups
(any planks, coal or charcoal, any stone-tool stone), storage blocks and smelted or dropped
items never crafted back, and every craftable item of every version we claim plans from
empty hands to an end (no loop)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agency.game import mcdata
from agency.game.recipes import CRAFTABLE, available, matches, recipe_for
from agency.tools.craft_planner import plan_craft
from bot.config.loader import ServerConfig

ROOT = Path(__file__).resolve().parents[3]
CLAIMED = re.search(r"^ALL_MC_VERSIONS\s*:=\s*(.+)$", (ROOT / "Makefile").read_text(), re.M).group(1).split()


@pytest.fixture
def version():
    """Restores the version in use after a test that switches it."""
    before = mcdata.current_version()
    yield
    mcdata.use_version(before)


def test_the_default_version_is_the_newest_we_claim_and_the_embedded_worlds_default():
    assert mcdata.DEFAULT_VERSION == CLAIMED[0] == ServerConfig().embedded_version


@pytest.mark.parametrize("v", CLAIMED)
def test_every_claimed_version_loads_its_items_and_recipes(v):
    data = mcdata.load(v)
    assert data.version == v and len(data.items) > 700 and len(data.recipes) > 600
    assert "crafting_table" in data.items and data.foods["bread"]["foodPoints"] == 5


def test_the_tool_recipes_read_as_a_player_knows_them():
    assert recipe_for("crafting_table").ingredients == (("planks", 4),) and not recipe_for("crafting_table").needs_table
    assert recipe_for("stick").ingredients == (("planks", 2),) and recipe_for("stick").makes == 4
    assert recipe_for("wooden_pickaxe").ingredients == (("planks", 3), ("stick", 2))
    assert recipe_for("wooden_pickaxe").needs_table
    stone = dict(recipe_for("stone_pickaxe").ingredients)
    assert stone == {"blackstone|cobbled_deepslate|cobblestone": 3, "stick": 2}
    assert recipe_for("torch").ingredients == (("coal", 1), ("stick", 1)) and recipe_for("torch").makes == 4
    assert recipe_for("oak_door").ingredients == (("oak_planks", 6),)  # a door of one wood
    assert recipe_for("birch_planks").ingredients == (("birch_log", 1),)
    assert not matches("birch_log", "oak_log") and matches("log", "birch_log")
    # each recipe variant fills its cells with one item: a group counts its most-held member
    assert available({"cobbled_deepslate": 2, "cobblestone": 1}, "blackstone|cobbled_deepslate|cobblestone") == 2
    assert available({"birch_planks": 2, "oak_planks": 2}, "planks") == 4  # vanilla's planks tag mixes


def test_items_the_game_has_recipes_for_and_we_never_typed():
    for item in ("compass", "bucket", "shield", "bookshelf", "cake", "golden_apple", "clock", "shears"):
        assert item in CRAFTABLE, item
    assert dict(recipe_for("compass").ingredients) == {"iron_ingot": 4, "redstone": 1}
    assert dict(recipe_for("book").ingredients) == {"paper": 3, "leather": 1}


def test_what_is_smelted_mined_or_dropped_is_never_crafted_back_and_storage_packs_one_way():
    for item in ("iron_ingot", "coal", "redstone", "diamond", "white_wool", "leather"):
        assert recipe_for(item) is None, item
    assert recipe_for("iron_block").ingredients == (("iron_ingot", 9),)
    assert recipe_for("wheat") is None and recipe_for("hay_block").ingredients == (("wheat", 9),)
    assert recipe_for("bone_meal").ingredients == (("bone", 1),)  # not from a bone block
    assert recipe_for("sugar").ingredients == (("sugar_cane", 1),)  # a tie: the rawer recipe, not honey bottles
    assert recipe_for("white_bed").ingredients == (("white_wool", 3), ("planks", 3))  # not by dyeing a bed


def test_the_planner_makes_a_compass_from_what_minecraft_data_says():
    plan = plan_craft("compass", 1, {"iron_ingot": 4, "redstone": 1}, table_nearby=True)
    assert plan.feasible and [(s.item, s.crafts) for s in plan.steps] == [("compass", 1)]
    short = plan_craft("compass", 1, {"oak_log": 1})
    assert short.missing == {"iron_ingot": 4, "redstone": 1}


def test_a_fence_of_oak_makes_every_plank_of_oak():
    plan = plan_craft("oak_fence", 2, {})
    assert {s.item for s in plan.steps if s.item.endswith("planks")} == {"oak_planks"}
    assert plan.missing == {"oak_log": 3}


def test_the_version_in_use_decides_what_exists(version):
    mcdata.use_version("1.18.2")
    assert "cherry_planks" not in CRAFTABLE and "oak_planks" in CRAFTABLE
    assert "copper_pickaxe" not in CRAFTABLE
    mcdata.use_version("26.1")
    assert "cherry_planks" in CRAFTABLE and "copper_pickaxe" in CRAFTABLE


def test_a_version_minecraft_data_lacks_or_a_missing_package_is_a_clear_error(version, tmp_path, monkeypatch):
    with pytest.raises(mcdata.GameDataMissing, match=r"minecraft-data has no Minecraft 0\.1"):
        mcdata.use_version("0.1")
    assert mcdata.current_version() != "0.1"
    monkeypatch.setenv("MCBOT_MINECRAFT_DATA", str(tmp_path / "nowhere"))
    mcdata.load.cache_clear()
    try:
        with pytest.raises(mcdata.GameDataMissing, match=r"not installed: .*nowhere.* \(run `make install`\)"):
            mcdata.load("26.1")
    finally:
        monkeypatch.delenv("MCBOT_MINECRAFT_DATA")
        mcdata.load.cache_clear()


@pytest.mark.parametrize("v", CLAIMED)
def test_every_craftable_item_of_every_version_plans_from_empty_hands_to_an_end(version, v):
    mcdata.use_version(v)
    for item in sorted(CRAFTABLE):
        plan = plan_craft(item, 1, {})
        made = [s.item for s in plan.steps if not s.place_table]
        assert made and made[-1] in (item, plan_craft(item, 1, {}).steps[-1].item), item
        assert all(n > 0 for n in plan.missing.values()), (item, plan.missing)


def test_a_variant_that_closes_a_cycle_is_dropped_not_the_recipe():
    """minecraft-data makes sandstone slabs of sandstone or of chiseled sandstone, and
    chiseled sandstone of slabs: the slab keeps its sandstone recipe."""
    mcdata.use_version("26.1")
    slab = recipe_for("sandstone_slab")
    assert slab is not None and slab.ingredients == (("sandstone", 3),) and slab.makes == 6
    plan = plan_craft("chiseled_sandstone", 1, {"sandstone": 3, "crafting_table": 1}, table_nearby=True)
    assert not plan.missing and [s.item for s in plan.steps] == ["sandstone_slab", "chiseled_sandstone"]


COLOURS = ("orange", "magenta", "light_blue", "yellow", "lime", "pink", "gray", "light_gray", "cyan", "purple")
COLOURS += ("blue", "brown", "green", "red", "black")


@pytest.mark.parametrize("v", CLAIMED)
def test_every_colour_of_wool_is_its_dye_and_white_wool_at_every_version(version, v):
    """minecraft-data 1.21.4 and 26.1 name vanilla's 'any wool but this colour' by one colour
    (blue wool of black wool, black of blue): blue wool had no recipe left, and red wool was
    planned of black wool of a wither rose."""
    mcdata.use_version(v)
    for colour in COLOURS:
        rec = recipe_for(f"{colour}_wool")
        assert rec is not None and sorted(rec.ingredients) == sorted([(f"{colour}_dye", 1), ("white_wool", 1)]), colour
    missing = plan_craft("red_wool", 1, {}).missing
    assert "white_wool" in missing and not any("wool" in m and m != "white_wool" for m in missing), missing
