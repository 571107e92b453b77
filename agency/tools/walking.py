"""Walking primitives every tool moving the bot uses: walk (one pathfinder action, tried once
more through natural ground when it makes no progress) and dig_walk (digging where the path
needs it, never in a box kept out)."""

from __future__ import annotations

from typing import Any

from loguru import logger

from agency.blocks import natural_ground
from agency.tools.actions import run_action
from agency.tools.base import ToolContext, ToolFailure

NO_PROGRESS = "no progress toward"  # move_to.js's stall error
DIG_OUT_STALL_MS = 20000  # digging up out of a pit gets no closer for a while: stone by hand is slow

Box = tuple[int, int, int, int, int, int]  # x0 y0 z0 x1 y1 z1: min corner inclusive, max exclusive


def time_to_dig(ctx: ToolContext) -> bool:
    """Is there time left for a walk that digs (it may get no closer for DIG_OUT_STALL_MS)?"""
    remaining = ctx.remaining_ms()
    return remaining is None or remaining >= DIG_OUT_STALL_MS


async def dig_walk(
    ctx: ToolContext, x: float, y: float, z: float, rng: float = 1.0, keep_out: Box | None = None
) -> dict[str, Any]:
    """Walk digging through natural ground where the path needs it (out of a pit, through a
    hill), never in keep_out (a hut and its site: its floor stays whole)."""
    args: dict[str, Any] = {"x": x, "y": y, "z": z, "range": rng}
    args |= {"digOnly": list(natural_ground()), "stallMs": DIG_OUT_STALL_MS}
    if keep_out is not None:
        args["keepOut"] = list(keep_out)
    return await run_action(ctx, "move_to", args)


async def walk(
    ctx: ToolContext,
    x: float,
    y: float,
    z: float,
    rng: float = 1.0,
    *,
    dig_out: bool = True,
    stall_ms: int | None = None,
    sprint: bool = False,
    stop_at_health: float | None = None,
    break_off_near: tuple[str, float] | None = None,
) -> dict[str, Any]:
    """Walk without digging; a walk that makes no progress (in a pit the bot dug collecting
    stone, behind a tree) is tried once more through natural ground (dig_out). A caller
    whose path must not be dug anywhere says dig_out=False (one near a hut uses dig_walk with
    the hut kept out); one with no time to wait on a blocked path (a flight) gives up sooner
    (stall_ms; move_to.js: 8 s). Only a flight sprints (sprint; node/lib/walking.js: a metre
    sprinted costs food, one walked does not), and only a flight stops when hurt down to a
    health (stop_at_health) or when a mob of a kind comes within a distance (break_off_near:
    name, blocks); move_to.js's error then starts 'broke off'."""
    args: dict[str, Any] = {"x": x, "y": y, "z": z, "range": rng}
    if stall_ms is not None:
        args["stallMs"] = stall_ms
    if sprint:
        args["sprint"] = True
    if stop_at_health is not None:
        args["stopAtHealth"] = stop_at_health
    if break_off_near is not None:
        args["breakOffNear"] = {"name": break_off_near[0], "within": break_off_near[1]}
    try:
        return await run_action(ctx, "move_to", args)
    except ToolFailure as e:
        if not dig_out or NO_PROGRESS not in e.message or not time_to_dig(ctx):
            raise  # (too little time left for a walk that may dig for 20 s)
        logger.info(
            "[Tools] move_to made no progress toward {:.0f} {:.0f} {:.0f}; trying again, "
            "digging through natural ground",
            x,
            y,
            z,
        )
    return await dig_walk(ctx, x, y, z, rng)
