"""DRIVE-3 (docs/contracts.md): which goal a drive tick asks for, first match wins. The
contract's first five rules (logs, the night's shelter, a table, a pickaxe, 16 logs), then the
progression (agency.cognition.progression) and the survival steps
(agency.cognition.survival_steps) where the contract's plain `explore nearby` was, in the order
the select_drive docstring gives."""

from __future__ import annotations

from collections.abc import Callable

from agency.blocks import is_log
from agency.cognition.drive_selection import DriveSelection
from agency.cognition.progression import IRON_AGE_RULES, STONE_AGE_RULES, next_progression_step
from agency.cognition.survival_steps import food_stock_step, next_survival_step, waits_for_wool_hunt
from agency.execution.agents.build_plan import NIGHT_KIT_LOGS
from agency.tools.movement import NEAR_HOME
from agency.world import WorldSnapshot, night_approaching, shelter_due, under_cover_at_night, underground

DEFAULT_RULE = "default"  # the last rule: nothing else to do, explore nearby

LOW_LOG_STOCK = 16
# Under a roof at night with this many logs, the fifth rule (16 logs) waits for the morning: a
# table, sticks and a furnace's fuel for the work down there (agency.cognition.night_work).
NIGHT_LOG_FLOOR = NIGHT_KIT_LOGS  # what the first hut leaves (agency.execution.agents.build_plan)


def logs_wait_for_morning(snapshot: WorldSnapshot, logs: int) -> bool:
    """Under cover at night (a block over the head: in the hut, dug in or underground) logs are
    not had; with NIGHT_LOG_FLOOR held the low-log rule is passed over until the morning and
    the night goes to the next rule's work (a bench bot short of 16 logs at dusk spent whole
    nights in its hut with a pickaxe and the stone sword's and iron pickaxe's work to do)."""
    return under_cover_at_night(snapshot) and logs >= NIGHT_LOG_FLOOR


def select_drive(
    snapshot: WorldSnapshot,
    shelter_nearby: bool | None,
    table_nearby: bool | None = None,
    furnace_nearby: bool | None = None,
    bed_known: bool | None = None,
    held: Callable[[DriveSelection], bool] = lambda _sel: False,
) -> DriveSelection:
    """DRIVE-3, first match wins. shelter_nearby None means unknown = no shelter.
    A crafting table placed within reach counts as had (table_nearby): crafts place the
    table they need, and judging by the inventory alone crafted a new one after each.
    Where the plain `explore nearby` was, the progression picks the next missing tech-tree step
    (module docstring); furnace_nearby (a furnace in sight, or remembered and still standing
    within the places' reuse distance) counts as a furnace held. A survival or progression step
    `held` back (its last tasks failed: retry_backoff) lets the next one have its turn. Under
    cover at night with a few logs held, the low-log rule waits for the morning
    (logs_wait_for_morning)."""
    logs = sum(i.count for i in snapshot.inventory if is_log(i.name))  # what the crafter can make planks of
    has_table = snapshot.count_of("crafting_table") > 0 or table_nearby is True
    has_pickaxe = snapshot.count_matching("_pickaxe") > 0
    if not snapshot.inventory or logs == 0:
        return DriveSelection("collect", "log", 8, "no_logs", "I have no logs; I should gather some wood.")
    # underground at dusk or night, the rock overhead is the night's shelter (agency.world.underground)
    sheltered = shelter_nearby is True or (night_approaching(snapshot) and underground(snapshot))
    if shelter_due(snapshot) and not sheltered:
        return DriveSelection(
            "build", "basic_shelter", 1, "night_no_shelter", "Night is coming and I have no shelter nearby."
        )
    if not has_table:
        return DriveSelection("craft", "crafting_table", 1, "no_crafting_table", "I have logs but no crafting table.")
    if not has_pickaxe:
        return DriveSelection("craft", "wooden_pickaxe", 1, "no_pickaxe", "I have a crafting table but no pickaxe.")
    if logs < LOW_LOG_STOCK and not logs_wait_for_morning(snapshot, logs):
        return DriveSelection("collect", "log", 8, "low_logs", "My log stock is low; I should gather more wood.")
    progression = next_progression_step(snapshot, furnace_nearby, bed_known)
    survival = next_survival_step(snapshot, furnace_nearby=furnace_nearby, bed_known=bed_known, held=held)
    # Stone first: a stone pickaxe is a couple of minutes' work and the furnace that cooks the
    # hunt's meat is made of the same stone, so hunting and the bed wait for it. The iron pickaxe
    # comes after a stock of food (cooked in the same goal where a furnace can be had) and before
    # the cooking of other meat held and the bed (progression.IRON_AGE_RULES).
    rule = progression.rule if progression is not None else None
    order: tuple[DriveSelection | None, ...]
    if rule in STONE_AGE_RULES:
        order = (progression, survival)
    elif rule in IRON_AGE_RULES:
        order = (food_stock_step(snapshot, furnace_nearby, held), progression, survival)
    else:
        order = (survival, progression)
    for step in order:
        if step is not None and not held(step) and not waits_for_wool_hunt(step, snapshot, held):
            return step
    return DriveSelection("explore", NEAR_HOME, 1, DEFAULT_RULE, "Things are calm; I will explore nearby.")
