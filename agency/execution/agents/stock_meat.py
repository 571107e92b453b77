"""A drive tick's food stock is cooked from the meat to be had when its plan is made.

The drive tick asks for the cooked meat of the animals it sees (agency.cognition.survival_steps:
`smelt cooked_porkchop 4` for a pig by the bot), but the task may be planned minutes later and
elsewhere: held for the night, for the surface, or by reflexes. Bench bots' stocks then hunted a
pig gone from sight, explored, and failed ("no pig within 32 blocks to hunt") with three sheep
in sight. The stock is food, not pork: with none of its meat held and none of its animal in
sight, it is planned for other raw meat held (the most of it), else for the best meat in sight
(agency.tools.hunting.meats_in_sight), the same amount, and the log says so; one that settles
(its hunt found no more: agency.execution.replans) takes the meat held first, so what an earlier
run of it hunted is cooked. Only a stock: a drive tick's smelt of at most FOOD_STOCK (a raw_meat
smelt of more cooks what is held); a user's smelt is always what the user asked for.
"""

from __future__ import annotations

from loguru import logger

from agency.execution.agents.task_spec import TaskSpec
from agency.execution.hunger import FOOD_STOCK, raw_meats_held
from agency.game.animals import animal_for
from agency.game.foods import RAW_MEATS
from agency.game.furnace import inputs_for, output_of
from agency.tools.base import ToolContext
from agency.tools.hunting import HUNT_RADIUS, game_in_sight, meats_in_sight
from agency.world import BodyLost


async def stock_in_sight(ctx: ToolContext, task: TaskSpec) -> TaskSpec:
    """The task, or its food stock retargeted to the meat to be had (module docstring)."""
    stock = task.drive and task.action == "smelt" and task.amount <= FOOD_STOCK
    meat = next((m for m in inputs_for(task.target) if m in RAW_MEATS), None) if stock else None
    animal = animal_for(meat) if meat is not None else None
    if meat is None or animal is None:
        return task
    try:
        snap = await ctx.snapshot()
    except BodyLost:
        return task  # the run reads the body again and reports it
    if snap.count_of(meat) > 0 or game_in_sight(snap.entities, animal):
        return task
    held = raw_meats_held(snap)
    seen = meats_in_sight(snap.entities, task.amount)
    if held and (task.settle or not seen):
        other, why = held[0][1], f"{held[0][0]} {held[0][1]} held"
    elif seen:
        other, why = seen[0][1], f"{seen[0][0].name} in sight"
    else:
        return task
    cooked = output_of(other)
    if cooked is None or cooked == task.target:
        return task
    logger.info(
        "[Executor] task={} {}: no {} within {:.0f} blocks and none of its {} held; {}: a stock of {} instead",
        task.id,
        task.text(),
        animal,
        HUNT_RADIUS,
        meat,
        why,
        cooked,
    )
    return task.model_copy(update={"target": cooked})
