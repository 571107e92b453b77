"""Inventories the drive tick's tests share."""

from __future__ import annotations

from agency.cognition.progression import PROGRESSION

# Every step of the progression held but the bed, with logs, a table, a furnace and a food stock:
# the bed is the tick's goal, its plan hunting sheep.
EVERY_STEP_BUT_THE_BED = {
    "oak_log": 20,
    "crafting_table": 1,
    "wooden_pickaxe": 1,
    "cooked_beef": 10,
    **{step.item: step.amount for step in PROGRESSION if step.item != "white_bed"},
}
