"""The MCP tools that run a daemon tool as a direct action (move and act groups).

Their input schema is the daemon's own (GET /api/tools: the agency tool's pydantic input
model), fetched at start-up, so a client sees exactly the arguments the bot takes and the
daemon's validation is the one answer: its 400 detail, naming the fields, comes back
verbatim in the tool error. The SDK's own argument model is bypassed for these tools for
that reason (it would drop or re-word what the daemon checks).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
from loguru import logger
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from mcp.types import ToolAnnotations

from bot.mcp.daemon_client import DaemonClient, DaemonRefused
from bot.runtime.errors import BotRuntimeError, InitError

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

GROUP_META = "mcbot/group"  # each tool's group (look, move, act, direct) in its `_meta`
CATALOG_WAIT_S = 60.0  # a daemon whose bot is not attached yet answers /api/tools with 503 for a while


@dataclass(frozen=True)
class ActionSpec:
    name: str  # the MCP tool
    tool: str  # the daemon tool it runs
    group: str


ACTION_TOOLS: tuple[ActionSpec, ...] = (
    ActionSpec("go_to", "move_to", "move"),
    ActionSpec("follow", "follow", "move"),
    ActionSpec("explore", "explore", "move"),
    ActionSpec("collect", "collect_block", "act"),
    ActionSpec("dig", "mine_block", "act"),
    ActionSpec("place", "place_block", "act"),
    ActionSpec("craft", "craft", "act"),
    ActionSpec("equip", "equip", "act"),
    ActionSpec("eat", "eat", "act"),
    ActionSpec("attack", "attack", "act"),
    ActionSpec("chat", "chat", "act"),
)

# (the daemon tool, the arguments as the client sent them, the SDK's context) -> the action's output
RunAction = Callable[[str, dict[str, Any], "Context"], Awaitable[dict[str, Any]]]


async def _no_arguments() -> None:
    """The SDK wants an argument model; the daemon's schema is the real one."""


class DaemonActionTool(Tool):
    """A tool whose published schema is the daemon tool's and whose arguments go to the
    daemon as given."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:
            result = await self.fn(json_in_strings(arguments, self.parameters), context)
        except BotRuntimeError as e:  # refused, failed, cancelled, unreachable: the reason is the message
            raise ToolError(f"Error executing tool {self.name}: {e}") from e
        return self.fn_metadata.convert_result(result) if convert_result else result


async def daemon_catalog(
    daemon: DaemonClient, wait_s: float = CATALOG_WAIT_S, sleep: Callable[[float], Awaitable[None]] = anyio.sleep
) -> list[dict[str, Any]]:
    """The daemon's tools (GET /api/tools), waiting while its bot attaches; [] from a daemon
    that has no direct actions (404): the look and direct tools still work then."""
    waited = 0.0
    while True:
        try:
            return list((await daemon.get("/api/tools")).get("tools", []))
        except DaemonRefused as e:
            if e.status == 404:
                logger.warning(
                    "[MCP] the daemon at {} has no direct actions ({}): no move or act tools", daemon.base, e
                )
                return []
            if e.status != 503 or waited >= wait_s:
                raise InitError(f"the daemon at {daemon.base} did not list its tools: {e}") from None
        if waited == 0.0:
            logger.info("[MCP] waiting up to {:.0f} s for the daemon's bot to attach", wait_s)
        await sleep(1.0)
        waited += 1.0


def json_in_strings(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Some clients send a list or object argument as a JSON string (as the SDK notes of its
    own argument models): parse those for the arguments the schema says are lists or objects."""
    out = dict(arguments)
    for name, value in arguments.items():
        spec = (schema.get("properties") or {}).get(name) or {}
        kinds = {spec.get("type"), *(alt.get("type") for alt in spec.get("anyOf", []))}
        if isinstance(value, str) and kinds & {"array", "object"}:
            try:
                parsed = json.loads(value)
            except ValueError:
                continue  # not JSON: the daemon says what is wrong with it
            if isinstance(parsed, list | dict):
                out[name] = parsed
    return out


def describe(spec: ActionSpec, entry: dict[str, Any]) -> str:
    how = (
        "It pauses the bot's own task while it runs and gives it back after; a reflex (a threat, hunger) may stop it. "
        if entry.get("movesBody")
        else ""
    )
    return (
        f"{entry.get('description', spec.tool)} (the bot's `{spec.tool}` tool, run as a direct action. {how}"
        f"Progress is reported while it runs, at most {entry.get('timeoutS', '?')} s; cancelling the call, "
        f"or the `stop` tool, stops it.)"
    )


def action_tools(catalog: list[dict[str, Any]], run_action: RunAction) -> list[Tool]:
    """One MCP tool per ActionSpec whose daemon tool the catalog lists."""
    by_name = {entry["name"]: entry for entry in catalog}
    tools: list[Tool] = []
    for spec in ACTION_TOOLS:
        entry = by_name.get(spec.tool)
        if entry is None:
            logger.warning("[MCP] the daemon has no tool {}: {} is not offered", spec.tool, spec.name)
            continue
        tools.append(_action_tool(spec, entry, run_action))
    return tools


def _action_tool(spec: ActionSpec, entry: dict[str, Any], run_action: RunAction) -> Tool:
    async def call(arguments: dict[str, Any], ctx: Context) -> dict[str, Any]:
        return await run_action(spec.tool, arguments, ctx)

    schema = dict(entry.get("inputSchema") or {"type": "object", "properties": {}})
    schema.setdefault("type", "object")
    return DaemonActionTool(
        fn=call,
        name=spec.name,
        title=spec.name.replace("_", " "),
        description=describe(spec, entry),
        parameters=schema,
        fn_metadata=func_metadata(_no_arguments, structured_output=False),
        is_async=True,
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=spec.tool in ("mine_block", "attack"), open_world_hint=True
        ),
        meta={GROUP_META: spec.group, "mcbot/daemonTool": spec.tool},
    )
