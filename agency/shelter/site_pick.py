"""shelter_site: pick and anchor a site for a hut. One region read around the bot picks the
site needing the least earthwork (agency.shelter.site_finder), reading again over the bot when
its level has none, and walking away to look when nothing near will do; a bot underground
climbs out first. A goal already anchored
gets its site back, so a resumed or repair run builds in the same place."""

from __future__ import annotations

from typing import Any

from loguru import logger

from agency.blocks import is_leaves, is_log, is_solid
from agency.shelter.earthwork import MAX_COST
from agency.shelter.site_finder import SCAN_RADIUS, SiteChoice, choose_site, scan_box
from agency.shelter.tool_inputs import ShelterSiteInput, blueprint_for, shelter_hooks
from agency.tools.base import ToolContext, ToolFailure
from agency.tools.climb_out import climb_out
from agency.tools.movement import ExploreInput, explore
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.spatial import block_pos

GROUND_SEARCH = 8
# Floors looked at when none within the site finder's reach of the feet will do: a slope has
# no level spot at the bot's height, but a terrace up it may (a bench bot on a hillside failed
# two shelters in a row and burrowed for the night). Not down: a cave's floor under the hill
# would score as a site whose walls are already there.
LEVEL_SHIFTS = (0, 4, 8)


async def _ground_feet(ctx: ToolContext, feet: tuple[int, int, int]) -> tuple[int, int, int]:
    """Feet level on the ground below the bot: a bot that just cut a treetop stands in the
    canopy, and the site search looks for floors within 2 blocks of the feet."""
    x, y, z = feet
    column = await ctx.region((x, y - GROUND_SEARCH, z), (1, GROUND_SEARCH, 1))
    for below in range(y - 1, y - GROUND_SEARCH - 1, -1):
        name = column.block_at(x, below, z)
        if is_solid(name) and not is_leaves(name) and not is_log(name):
            return (x, below + 1, z)
    return feet


FARTHER_LEGS = 2  # walks away to look for a site when none is near the bot
FARTHER_LEG = 24  # blocks: beyond what the scan around the bot saw


async def _site_near_bot(ctx: ToolContext) -> SiteChoice | None:
    feet = await _ground_feet(ctx, block_pos((await ctx.snapshot()).position))
    for dy in LEVEL_SHIFTS:
        level = (feet[0], feet[1] + dy, feet[2])
        choice = choose_site(await ctx.region(*scan_box(level)), level)
        if choice is not None:
            if dy:
                logger.info("[Shelter] no site at the bot's level (y {}): one {} blocks up", feet[1], dy)
            return choice
    return None


async def shelter_site(ctx: ToolContext, p: ShelterSiteInput) -> dict[str, Any]:
    hooks = shelter_hooks(ctx)
    if hooks is not None and p.taskId:
        known = hooks.anchored_site(p.taskId)
        if known is not None:  # anchored once, for good: resume and repair build here
            return {**known, "anchored": True, "reused": True}
    # from the surface: a 26.1 bench bot in a pit (ground over its head up to 5 blocks up)
    # anchored its hut on the ground over it, then failed every walk to the site for a night
    await climb_out(ctx, for_what="builder")
    choice = await _site_near_bot(ctx)
    for leg in range(1, FARTHER_LEGS + 1):
        if choice is not None:
            break
        # steep or wooded ground: a walk of FARTHER_LEG blocks, where the scan has not looked,
        # and a scan from there (a 26.1 bench bot failed its hut twice in 30 s on a slope)
        logger.info("[Shelter] no site within {} blocks of the bot: looking {} blocks away", SCAN_RADIUS, FARTHER_LEG)
        try:
            await explore(ctx, ExploreInput(legs=1, leg_distance=FARTHER_LEG, max_distance=FARTHER_LEG * FARTHER_LEGS))
        except ToolFailure as e:
            logger.info("[Shelter] could not walk away to look: {}", e.message)
            break
        choice = await _site_near_bot(ctx)
        if choice is not None:
            logger.info("[Shelter] a site found after {} walk(s) away", leg)
    if choice is None:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"no 7x7 spot within {SCAN_RADIUS} blocks of the bot, at its level or up to "
            f"{max(LEVEL_SHIFTS)} blocks over it, can be cleared "
            f"and levelled with under {MAX_COST:g} units of earthwork",
        )
    bp = blueprint_for(p, choice.origin, choice.facing)
    materials = {"wallBlock": p.wallBlock, "doorBlock": p.doorBlock, "lightBlock": p.lightBlock}
    if hooks is not None and p.taskId:
        hooks.anchor(p.taskId, bp, materials)
    return {
        "origin": list(choice.origin),
        "facing": choice.facing,
        "modules": [m.name for m in bp.modules],
        "anchored": bool(hooks and p.taskId),
        "reused": False,
        "digs": len(choice.work.digs),
        "fills": len(choice.work.fills),
        "earthwork": choice.work.cost,
        **materials,
    }
