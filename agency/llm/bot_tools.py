"""Adapter: the bot's ToolRegistry (agency.tools) exposed to the model as server `bot`.

The registry validates arguments with its pydantic input models and returns a
ToolExecutionResult; a failure's message goes back to the model so it can correct the
call."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from agency.llm.toolbox import ToolCallFailed, ToolSpec

BOT_SERVER = "bot"


def bot_tool_specs(registry: Any, ctx: Any, queue: str = "default") -> list[ToolSpec]:
    """One ToolSpec per enabled tool; `ctx` is the agency.tools.ToolContext (the body)."""
    specs = []
    for name in registry.names():
        tool = registry.get(name)
        if tool is None or not tool.enabled:
            continue
        specs.append(
            ToolSpec(
                server=BOT_SERVER,
                name=name,
                description=tool.description,
                parameters=tool.input_model.model_json_schema(),
                call=_caller(registry, ctx, name),
                queue=queue,
            )
        )
    return specs


def _caller(registry: Any, ctx: Any, name: str) -> Callable[[dict[str, Any]], Awaitable[str]]:
    async def call(args: dict[str, Any]) -> str:
        result = await registry.execute(name, args, ctx)
        if not result.success:
            err = result.error
            raise ToolCallFailed(f"{err.code}: {err.message}" if err else "failed")
        return json.dumps(result.to_json().get("output"), ensure_ascii=False, default=str)

    return call
