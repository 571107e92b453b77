"""What the bot eats: the foods in the order it eats them, the harmful ones, the raw meats
a furnace cooks, and the food level natural regeneration needs."""

from __future__ import annotations

REGEN_FOOD = 18  # vanilla: natural regeneration needs this much food
# Eaten in this order (the cooked first); the raw meats are the ones the hunt tool brings.
FOODS = (
    "cooked_beef",
    "cooked_porkchop",
    "bread",
    "cooked_chicken",
    "cooked_mutton",
    "cooked_rabbit",
    "baked_potato",
    "apple",
    "carrot",
    "beef",
    "porkchop",
    "mutton",
    "rabbit",
    "chicken",
    "potato",
    "rotten_flesh",
)
HARMFUL = frozenset({"rotten_flesh", "chicken"})  # vanilla: a chance of Hunger (food drains)
RAW_MEATS = ("beef", "porkchop", "mutton", "chicken", "rabbit")  # each smelts into cooked_<meat>
