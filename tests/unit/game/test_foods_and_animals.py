"""Foods and the hunted animals' drops come from minecraft-data, and one table answers every
version we claim: the drops are the same everywhere, the eating order's head too."""

from __future__ import annotations

import pytest

from agency.game import mcdata
from agency.game.animals import ANIMAL_DROPS, HUNTED, animal_drops, animal_for
from agency.game.foods import FOODS, HARMFUL, NEVER_EATEN, RAW_MEATS, RESERVED, _eating_order
from agency.game.furnace import output_of
from tests.unit.game.test_mcdata_recipes import CLAIMED


@pytest.mark.parametrize("v", CLAIMED)
def test_the_hunted_animals_drop_the_same_at_every_version(v):
    assert animal_drops(v) == ANIMAL_DROPS


def test_the_drops_are_minecraft_datas_plus_the_sheeps_wool():
    assert ANIMAL_DROPS["cow"] == ("beef", "leather") and ANIMAL_DROPS["chicken"] == ("chicken", "feather")
    assert ANIMAL_DROPS["sheep"] == ("mutton", "white_wool")  # the wool: vanilla's colour table, not in the data
    assert "rabbit_foot" not in ANIMAL_DROPS["rabbit"]  # one kill in ten: not planned on
    assert tuple(ANIMAL_DROPS) == HUNTED and animal_for("leather") == "cow" and animal_for("string") is None


def test_every_food_eaten_is_a_food_of_minecraft_data_and_best_comes_first():
    foods = mcdata.load(mcdata.DEFAULT_VERSION).foods
    assert set(FOODS) <= set(foods) and not set(FOODS) & NEVER_EATEN
    assert not [f for f in FOODS if f.endswith("_bucket")]  # a bucket of fish is not eaten
    safe = [f for f in FOODS if f not in HARMFUL and f not in RESERVED]
    quality = [foods[f]["effectiveQuality"] for f in safe]
    assert quality == sorted(quality, reverse=True)
    assert FOODS.index("cooked_beef") < FOODS.index("bread") < FOODS.index("apple") < FOODS.index("beef")
    assert all(FOODS.index(r) > FOODS.index(s) for r in RESERVED for s in safe)  # golden apples kept back
    assert set(FOODS[-len(HARMFUL & set(FOODS)) :]) == HARMFUL & set(FOODS)  # harmful food last


@pytest.mark.parametrize("v", CLAIMED)
def test_the_eating_orders_head_is_the_same_at_every_version(v):
    mine = _eating_order(mcdata.load(v).foods)
    assert mine[:14] == FOODS[:14] and set(mine) <= set(FOODS)


def test_the_raw_meats_are_the_hunted_animals_meats_a_furnace_cooks():
    assert RAW_MEATS == ("beef", "porkchop", "chicken", "mutton", "rabbit")
    assert all(output_of(m) == f"cooked_{m}" for m in RAW_MEATS)
