"""A drive tick's food stock is cooked from the meat of an animal in sight when its plan is made.

The drive tick asks for the cooked meat of the animals it sees (agency.cognition.survival_steps:
`smelt cooked_porkchop 4` for a pig by the bot), but the task may be planned minutes later and
elsewhere: held for the night, for the surface, or by reflexes. Bench bots' stocks then hunted a
pig gone from sight, explored, and failed ("no pig within 32 blocks to hunt") with three sheep
in sight. The stock is food, not pork: with none of its meat held and none of its animal in
sight, it is planned for the best meat in sight instead (agency.tools.hunting.meats_in_sight),
the same amount, and the log says so. A user's smelt is always what the user asked for.
"""

from __future__ import annotations

from loguru import logger

from agency.execution.agents.task_spec import TaskSpec
from agency.game.animals import animal_for
from agency.game.foods import RAW_MEATS
from agency.game.furnace import inputs_for, output_of
from agency.tools.base import ToolContext
from agency.tools.hunting import HUNT_RADIUS, game_in_sight, meats_in_sight
from agency.world import BodyLost


async def stock_in_sight(ctx: ToolContext, task: TaskSpec) -> TaskSpec:
    """The task, or its food stock retargeted to the best meat in sight (module docstring)."""
    meat = next((m for m in inputs_for(task.target) if m in RAW_MEATS), None) if task.drive else None
    animal = animal_for(meat) if meat is not None and task.action == "smelt" else None
    if meat is None or animal is None:
        return task
    try:
        snap = await ctx.snapshot()
    except BodyLost:
        return task  # the run reads the body again and reports it
    if snap.count_of(meat) > 0 or game_in_sight(snap.entities, animal):
        return task
    choices = meats_in_sight(snap.entities, task.amount)
    cooked = output_of(choices[0][1]) if choices else None
    if cooked is None or cooked == task.target:
        return task
    logger.info(
        "[Executor] task={} {}: no {} within {:.0f} blocks and none of its {} held; {} in sight: a stock of {} instead",
        task.id,
        task.text(),
        animal,
        HUNT_RADIUS,
        meat,
        choices[0][0].name,
        cooked,
    )
    return task.model_copy(update={"target": cooked})
