"""Fighting: attack the nearest hostile (or a given entity) with the best weapon held."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolInput


class AttackInput(ToolInput):
    entityId: int | None = Field(default=None, description="entity to attack; none = nearest hostile")
    radius: float = Field(default=8.0, gt=0, le=32, description="how far to look for a hostile")


async def attack(ctx: ToolContext, p: AttackInput) -> dict[str, Any]:
    args: dict[str, Any] = {"radius": p.radius}
    if p.entityId is not None:
        args["entityId"] = p.entityId
    return await run_action(ctx, "attack", args)


TOOLS = [
    Tool("attack", "Fight the nearest hostile mob (or the given entity) until it is gone.", AttackInput, attack,
         timeout_s=25, queue=BODY_QUEUE),
]
