"""Pure queries (no queue: they may run in parallel with anything) and chat."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agency.tools.base import Tool, ToolContext, ToolInput
from agency.tools.spatial import block_pos, find_in_region, read_around


class NoInput(ToolInput):
    pass


class FindBlocksInput(ToolInput):
    block: str = Field(min_length=1, description="block name, or generic 'log' / 'planks'")
    radius: int = Field(default=16, ge=1, le=32)
    count: int = Field(default=16, ge=1, le=256)
    vertical: int = Field(default=8, ge=1, le=32)
    up: int | None = Field(default=None, ge=0, le=32, description="blocks above the bot searched (default: vertical)")


class ChatInput(ToolInput):
    message: str = Field(min_length=1, max_length=256)


async def inventory(ctx: ToolContext, _p: NoInput) -> dict[str, Any]:
    snap = await ctx.snapshot()
    items: dict[str, int] = {}
    for it in snap.inventory:
        items[it.name] = items.get(it.name, 0) + it.count
    return {"items": items, "slotsUsed": len(snap.inventory)}


async def snapshot(ctx: ToolContext, _p: NoInput) -> dict[str, Any]:
    return (await ctx.snapshot()).model_dump(mode="json")


async def find_blocks_now(ctx: ToolContext, p: FindBlocksInput, *, dry: bool = False) -> dict[str, Any]:
    """`dry`: none with water or lava on a face, as a collect of a block dug with a tool takes
    (node/lib/actions/collect.js `dryOnly`)."""
    pos = (await ctx.snapshot()).position
    up = p.vertical if p.up is None else p.up
    region = await ctx.io(read_around, ctx.body, block_pos(pos), p.radius, up, p.vertical)
    blocks = find_in_region(region, p.block, pos, p.count, dry=dry)
    return {"block": p.block, "found": len(blocks), "blocks": blocks}


async def find_blocks(ctx: ToolContext, p: FindBlocksInput) -> dict[str, Any]:
    return await find_blocks_now(ctx, p)


async def chat(ctx: ToolContext, p: ChatInput) -> dict[str, Any]:
    await ctx.io(ctx.body.chat, p.message)
    return {"said": p.message}


TOOLS = [
    Tool("inventory", "Items held, summed by name.", NoInput, inventory, timeout_s=5),
    Tool("snapshot", "Vitals, position, inventory and nearby entities.", NoInput, snapshot, timeout_s=5),
    Tool(
        "find_blocks",
        "Nearest blocks of a kind within a radius (one region read).",
        FindBlocksInput,
        find_blocks,
        timeout_s=10,
    ),
    Tool("chat", "Say something in chat.", ChatInput, chat, timeout_s=5),
]
