"""The crafter's plans for the shelter's furniture: torches from coal or charcoal, a white bed
from wool and planks (any wood kind), each on the table it needs; an item with several
recipes made of what is held."""

from __future__ import annotations

import pytest

from agency.game.recipes import recipe_for
from agency.tools.craft_planner import _Sim, plan_craft


def test_torch_from_coal_or_charcoal_in_the_inventory_grid() -> None:
    for fuel in ("coal", "charcoal"):
        plan = plan_craft("torch", 4, {fuel: 1, "stick": 1})
        assert plan.feasible and not plan.needs_table
        assert [(s.item, s.crafts, s.makes) for s in plan.steps] == [("torch", 1, 4)]
        assert plan.after == {"torch": 4}


def test_torch_sticks_from_planks_and_coal_missing_when_none_held() -> None:
    plan = plan_craft("torch", 8, {"oak_planks": 2})
    assert [(s.item, s.makes) for s in plan.steps] == [("stick", 4), ("torch", 8)]
    assert plan.missing == {"coal": 2}


def test_white_bed_takes_wool_and_any_planks_on_a_table() -> None:
    plan = plan_craft("white_bed", 1, {"white_wool": 3, "birch_planks": 3}, table_nearby=True)
    assert plan.feasible and plan.needs_table
    assert [(s.item, s.crafts) for s in plan.steps] == [("white_bed", 1)]
    assert plan.after == {"white_bed": 1}


def test_white_bed_from_logs_places_a_table_first_and_names_the_missing_wool() -> None:
    plan = plan_craft("white_bed", 1, {"oak_log": 2, "white_wool": 1})
    assert [s.item for s in plan.steps][:2] == ["oak_planks", "crafting_table"]
    assert plan.steps[2].place_table and plan.steps[-1].item == "white_bed"
    assert plan.missing == {"white_wool": 2}


# -- the cheapest recipe from what is held ---------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "count", "held", "made_of"),
    [
        ("sugar", 3, {"honey_bottle": 1}, "honey_bottle"),  # held: nothing to gather
        ("sugar", 3, {}, "sugar_cane"),  # nothing held: the default, cane to gather
        ("sugar", 6, {"honey_bottle": 1}, "sugar_cane"),  # one bottle makes 3, not 6: the default
        ("stick", 4, {"bamboo": 8}, "bamboo"),
        ("stick", 4, {"bamboo": 8, "oak_planks": 2}, "bamboo"),
        ("stick", 4, {"oak_log": 1}, "planks"),
    ],
)
def test_an_item_with_several_recipes_is_made_of_what_is_held(item, count, held, made_of):
    rec = _Sim(held).cheapest(item, count)
    assert rec is not None and rec.ingredients[0][0] == made_of
    plan = plan_craft(item, count, held)
    assert plan.feasible is (made_of in held or made_of == "planks")  # held covers it: nothing missing


def test_any_wooden_slab_is_made_of_the_plans_planks_and_any_wool_is_never_made_of_string() -> None:
    barrel = plan_craft("barrel", 1, {"birch_log": 5})
    assert barrel.missing == {} and [s.item for s in barrel.steps][-2:] == ["birch_slab", "barrel"]
    spruce = plan_craft("composter", 1, {"spruce_planks": 20}, table_nearby=True)  # the planks held: no log
    assert spruce.missing == {} and "spruce_slab" in [s.item for s in spruce.steps]
    composter = plan_craft("composter", 1, {})
    assert composter.missing == {"oak_log": 3} and "oak_slab" in [s.item for s in composter.steps]
    painting = plan_craft("painting", 1, {})  # any wool: hunted for (a sheep), not crafted of string
    assert "string" not in painting.missing and any("white_wool" in k.split("|") for k in painting.missing)
    assert not any(s.item.endswith("_wool") for s in painting.steps)


@pytest.mark.parametrize(
    "logs",
    [{"oak_log": 3, "birch_log": 2}, {"spruce_log": 1, "oak_log": 1, "birch_log": 2}, {"acacia_log": 4}],
)
def test_any_planks_are_crafted_of_each_woods_own_logs(logs: dict[str, int]) -> None:
    """minecraft-data's recipe for a wood's planks takes that wood's logs only: a plan making
    16 planks of 3 oak and 2 birch logs as 'oak planks x4' failed on its fourth craft."""
    plan = plan_craft("chest", 2, logs, table_nearby=True)
    assert plan.feasible, plan.missing
    have = dict(logs)
    for step in plan.steps:
        if step.item == "chest":
            continue
        [(log, per_craft)] = recipe_for(step.item).ingredients  # the game's own recipe for that wood
        assert have.get(log, 0) >= per_craft * step.crafts, f"{step.item} x{step.crafts} from {have}"
        have[log] -= per_craft * step.crafts
    assert sum(s.makes for s in plan.steps if s.item.endswith("_planks")) == 16
    assert plan.after == {"chest": 2} | {log: n for log, n in have.items() if n}
