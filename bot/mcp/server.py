"""`mcbot mcp`: the bot as an MCP server (the official `mcp` SDK's MCPServer).

A thin client of the running daemon's HTTP API: the daemon's executor and reflexes stay in
charge, and every tool is one or a few API calls. Tools come in four groups (each tool's
`_meta` names its group): look (snapshot, blocks_around, nearby_entities, inventory), move
(go_to, follow, explore, stop), act (collect, dig, place, craft, equip, eat, attack, chat)
and direct (create_goal, list_tasks, plan_item, pause_task, resume_task, cancel_task). The move and act
tools run the daemon's tools as direct actions (tools.py, actions.py);
every tool call is counted against its client's budget (bot/mcp/limits.py).
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import quote

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from bot.mcp.actions import ActionRunner
from bot.mcp.daemon_client import DaemonClient, DaemonRefused
from bot.mcp.limits import Clock, RateLimiter, client_key
from bot.mcp.tools import GROUP_META, action_tools
from bot.mcp.views import entities_view, inventory_view, task_view
from bot.runtime.errors import BotRuntimeError

INSTRUCTIONS = (
    "mcbot: a Minecraft bot run by its own daemon, which keeps working on its tasks and reflexes. "
    "look: read the world (snapshot, inventory, nearby_entities, blocks_around). "
    "move/act: one action at a time on the bot's body (it pauses the bot's own task and gives it back); "
    "progress is reported while it runs; `stop` ends it. "
    "direct: give the bot goals (create_goal, e.g. 'collect oak_log 8') and manage its tasks."
)


@dataclass(frozen=True)
class BotRoutes:
    """The daemon's routes for the bot served: its first bot's, or a fleet's bot named (`--bot`)."""

    bot: str | None = None

    @property
    def _base(self) -> str:
        return f"/api/bots/{quote(self.bot, safe='')}" if self.bot else "/api/bot"

    @property
    def snapshot(self) -> str:
        return f"{self._base}/snapshot"

    @property
    def blocks(self) -> str:
        return f"{self._base}/blocks"

    @property
    def plan(self) -> str:
        return f"{self._base}/plan"

    @property
    def actions(self) -> str:
        return f"/api/bots/{quote(self.bot, safe='')}/actions" if self.bot else "/api/actions"

    def goal(self, body: dict[str, Any]) -> dict[str, Any]:
        """A goal for this bot (bound to it), or open to any of the daemon's bots."""
        return {**body, "bot": self.bot} if self.bot else body

    def tasks(self, **params: Any) -> dict[str, Any]:
        return {**params, "bot": self.bot} if self.bot else params


@dataclass(frozen=True)
class McpSettings:
    calls_per_minute: int = 120
    poll_s: float = 0.5


def build_server(
    daemon: DaemonClient,
    catalog: list[dict[str, Any]],
    settings: McpSettings = McpSettings(),
    *,
    routes: BotRoutes = BotRoutes(),
    clock: Clock = time.monotonic,
    sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
) -> MCPServer:
    """The MCP server over `daemon` for the bot `routes` reach; `catalog` is the daemon's
    GET /api/tools list."""
    runner = ActionRunner(daemon, settings.poll_s, sleep, routes.actions)

    async def run_action(tool: str, args: dict[str, Any], ctx: Context) -> dict[str, Any]:
        return await runner.run(client_key(ctx.request_context), tool, args, ctx.report_progress)

    actions = action_tools(catalog, run_action)
    tools = [
        *look_tools(daemon, routes),
        *[t for t in actions if (t.meta or {}).get(GROUP_META) == "move"],
        stop_tool(runner),
        *[t for t in actions if (t.meta or {}).get(GROUP_META) == "act"],
        *direct_tools(daemon, routes),
    ]
    server = MCPServer(
        "mcbot",
        version=package_version(),
        instructions=INSTRUCTIONS,
        tools=tools,
        middleware=[rate_limit(RateLimiter(settings.calls_per_minute, clock))],
    )
    add_resources(server, daemon, routes)
    return server


def package_version() -> str:
    """mcbot's installed version, for the initialize result's serverInfo (a source tree that
    was never installed has none: 0+unknown, still a version string)."""
    try:
        return importlib.metadata.version("mcbot")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


def rate_limit(limiter: RateLimiter) -> Any:
    """Server middleware: a tool call over its client's budget is answered here, unrun."""

    async def middleware(ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/call" and _tool_name(ctx) != "stop":  # a spent budget must still stop the bot
            refused = limiter.check(client_key(ctx))
            if refused is not None:
                return CallToolResult(content=[TextContent(type="text", text=refused)], is_error=True)
        return await call_next(ctx)

    return middleware


def _tool_name(ctx: Any) -> str | None:
    params: Any = getattr(ctx, "params", None)  # the request's raw params (a mapping)
    return params.get("name") if isinstance(params, dict) or hasattr(params, "get") else None


def _reasons(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """The daemon's refusals as tool errors with its reason (the SDK hides other errors' text)."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return await fn(*args, **kwargs)
        except BotRuntimeError as e:
            raise ToolError(str(e)) from e

    return wrapper


def _tool(fn: Callable[..., Awaitable[Any]], group: str, *, read_only: bool) -> Tool:
    return Tool.from_function(
        _reasons(fn),
        name=fn.__name__,
        title=fn.__name__.replace("_", " "),
        annotations=ToolAnnotations(read_only_hint=read_only, open_world_hint=True),
        meta={GROUP_META: group},
        structured_output=False,
    )


# ---- look ---------------------------------------------------------------------------------
def look_tools(daemon: DaemonClient, routes: BotRoutes = BotRoutes()) -> list[Tool]:
    async def snapshot() -> dict[str, Any]:
        """The bot's state now: health, food, position, game mode, time of day, inventory stacks,
        entities in view and the count of hostiles near."""
        return await daemon.get(routes.snapshot)

    async def blocks_around(
        radius: Annotated[int, Field(ge=1, le=16, description="half the side of the cube, in blocks")] = 8,
    ) -> dict[str, Any]:
        """How many blocks of each kind lie in the cube around the bot (air left out)."""
        return await daemon.get(routes.blocks, radius=radius)

    async def nearby_entities(
        radius: Annotated[float, Field(gt=0, le=256, description="only entities this close, in blocks")] = 32.0,
        hostile_only: Annotated[bool, Field(description="only hostile mobs")] = False,
    ) -> dict[str, Any]:
        """Players, mobs and animals in view, nearest first, with distance and position."""
        return entities_view(await daemon.get(routes.snapshot), radius, hostile_only)

    async def inventory() -> dict[str, Any]:
        """Items the bot holds, summed by name."""
        return inventory_view(await daemon.get(routes.snapshot))

    return [_tool(f, "look", read_only=True) for f in (snapshot, blocks_around, nearby_entities, inventory)]


# ---- move: stop ---------------------------------------------------------------------------
def stop_tool(runner: ActionRunner) -> Tool:
    async def stop(ctx: Context) -> dict[str, Any]:
        """Stop the running action(s) this client started (a call still waiting on one then ends
        as cancelled); when it started none, stop any running direct action. Says what it stopped."""
        return await runner.stop(client_key(ctx.request_context))

    return _tool(stop, "move", read_only=False)


# ---- direct -------------------------------------------------------------------------------
TaskId = Annotated[str, Field(min_length=1, max_length=128, description="a task id, e.g. from list_tasks")]


def direct_tools(daemon: DaemonClient, routes: BotRoutes = BotRoutes()) -> list[Tool]:
    async def create_goal(
        text: Annotated[
            str | None,
            Field(
                description="the goal as text: action target [amount], "
                "e.g. 'collect oak_log 8', 'craft stone_pickaxe', 'obtain compass', "
                "'build basic_shelter'"
            ),
        ] = None,
        action: Annotated[str | None, Field(description="or the goal's fields: action (collect, craft, ...)")] = None,
        target: Annotated[str | None, Field(description="... its target (oak_log)")] = None,
        amount: Annotated[int | None, Field(ge=1, le=10000, description="... and amount")] = None,
        priority: Annotated[float, Field(ge=0, le=1, description="the task's priority, 0..1")] = 0.5,
    ) -> dict[str, Any]:
        """Give the bot a goal; it becomes a task the bot's executor works on (see list_tasks).
        Refused when the same goal is live, or when it is not doable from here (e.g. nothing to
        collect in sight): the error says why."""
        body = {
            k: v
            for k, v in {"text": text, "action": action, "target": target, "amount": amount}.items()
            if v is not None
        }
        try:
            task = await daemon.request(
                "POST", "/api/goals", json=routes.goal({**body, "priority": priority, "by": "mcp"}), ok=(201,)
            )
        except DaemonRefused as e:
            live = (e.body or {}).get("task") if isinstance(e.body, dict) else None
            raise ToolError(
                f"{e} (the live task: {live['id']})" if isinstance(live, dict) and live.get("id") else str(e)
            ) from e
        return task_view(task)

    async def list_tasks(
        status: Annotated[
            str | None,
            Field(description="only these statuses, comma-separated: pending,active,paused,completed,failed"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=200, description="the newest N")] = 20,
    ) -> dict[str, Any]:
        """The bot's tasks, newest first: status, progress, origin (user, drive-tick, ...), goal, reason."""
        listed = await daemon.get("/api/tasks", **routes.tasks(status=status, limit=limit, order="desc"))
        return {"count": listed.get("count", 0), "tasks": [task_view(t) for t in listed.get("tasks", [])]}

    async def plan_item(
        item: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_:]+$", description="e.g. compass")],
        amount: Annotated[int, Field(ge=1, le=2304, description="how many")] = 1,
    ) -> dict[str, Any]:
        """The plan 'obtain ITEM N' would become from what the bot holds now: the goal, the steps
        and a tree of what each step is for (a tool, a smelt...). Nothing is stored; refused
        with the reason when the item cannot be got (only in the nether, no source yet)."""
        try:
            got: dict[str, Any] = await daemon.get(routes.plan, item=item, amount=amount)
        except DaemonRefused as e:
            raise ToolError(str(e)) from e
        return got

    def command(name: str, doc: str) -> Callable[..., Awaitable[dict[str, Any]]]:
        async def run(task_id: TaskId) -> dict[str, Any]:
            return task_view(await daemon.post(f"/api/tasks/{quote(task_id, safe='')}/{name.split('_')[0]}"))

        run.__name__, run.__doc__ = name, doc
        return run

    return [
        _tool(create_goal, "direct", read_only=False),
        _tool(list_tasks, "direct", read_only=True),
        _tool(plan_item, "direct", read_only=True),
        _tool(command("pause_task", "Pause a task; only resume_task lifts the pause."), "direct", read_only=False),
        _tool(command("resume_task", "Resume a paused task."), "direct", read_only=False),
        _tool(
            command("cancel_task", "Cancel a task (it ends failed, 'cancelled by the user')."),
            "direct",
            read_only=False,
        ),
    ]


# ---- resources ----------------------------------------------------------------------------
def add_resources(server: MCPServer, daemon: DaemonClient, routes: BotRoutes = BotRoutes()) -> None:
    async def read(path: str, shape: Callable[[Any], Any] = lambda body: body, **params: Any) -> str:
        try:
            return json.dumps(shape(await daemon.get(path, **params)))
        except BotRuntimeError as e:
            raise ResourceError(str(e)) from e

    @server.resource(
        "mcbot://snapshot",
        name="snapshot",
        mime_type="application/json",
        description="The bot's state now (GET /api/bot/snapshot).",
    )
    async def snapshot() -> str:
        return await read(routes.snapshot)

    @server.resource(
        "mcbot://inventory",
        name="inventory",
        mime_type="application/json",
        description="Items the bot holds, summed by name.",
    )
    async def inventory() -> str:
        return await read(routes.snapshot, inventory_view)

    @server.resource(
        "mcbot://tasks",
        name="tasks",
        mime_type="application/json",
        description="The bot's 50 newest tasks, newest first.",
    )
    async def tasks() -> str:
        return await read(
            "/api/tasks",
            lambda body: [task_view(t) for t in body.get("tasks", [])],
            **routes.tasks(limit=50, order="desc"),
        )
