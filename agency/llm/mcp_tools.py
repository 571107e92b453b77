"""External MCP servers over stdio ([llm.mcp_servers]) as ToolSpecs, using the official
`mcp` SDK. A server that fails to start raises ToolSetupError (CLI exit 3). Servers live
inside one `async with`, entered and left in the same task (anyio requires it)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from loguru import logger

from agency.llm.errors import ToolSetupError
from agency.llm.settings import McpServerConfig
from agency.llm.toolbox import ToolCallFailed, ToolSpec


def _field(obj: Any, *names: str) -> Any:
    """mcp 2.x uses snake_case (is_error, input_schema); 1.x used camelCase."""
    for n in names:
        if hasattr(obj, n):
            return getattr(obj, n)
    return None


def _text(result: Any) -> str:
    parts = []
    for c in _field(result, "content") or []:
        parts.append(c.text if getattr(c, "type", "") == "text" else json.dumps(c.model_dump(mode="json")))
    structured = _field(result, "structured_content", "structuredContent")
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(parts)


async def _start(stack: AsyncExitStack, name: str, cfg: McpServerConfig, errlog: Any) -> list[ToolSpec]:
    from mcp import ClientSession, StdioServerParameters  # noqa: PLC0415 - only when MCP is configured
    from mcp.client.stdio import stdio_client  # noqa: PLC0415 - only when MCP is configured

    env = {**os.environ, **cfg.env}  # env is passed verbatim (never ${}-expanded by mcbot)
    params = StdioServerParameters(command=cfg.command, args=list(cfg.args), env=env)
    read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    listed = await session.list_tools()
    specs = []
    for tool in listed.tools:
        schema = _field(tool, "input_schema", "inputSchema") or {"type": "object", "properties": {}}
        specs.append(
            ToolSpec(
                server=name,
                name=tool.name,
                description=tool.description or "",
                parameters=dict(schema),
                call=_caller(session, tool.name),
                queue=cfg.queue,
            )
        )
    logger.info("MCP server {} started with {} tools", name, len(specs))
    return specs


def _caller(session: Any, tool: str) -> Callable[[dict[str, Any]], Awaitable[str]]:
    async def call(args: dict[str, Any]) -> str:
        result = await session.call_tool(tool, args)
        text = _text(result)
        if _field(result, "is_error", "isError"):
            raise ToolCallFailed(text or "error")
        return text

    return call


@asynccontextmanager
async def open_mcp_servers(servers: Mapping[str, McpServerConfig], errlog: Any = None) -> AsyncIterator[list[ToolSpec]]:
    """Start every enabled server; yield their tools; stop them on exit."""
    async with AsyncExitStack() as stack:
        specs: list[ToolSpec] = []
        for name, cfg in servers.items():
            if not cfg.enabled:
                continue
            try:
                async with asyncio.timeout(cfg.startup_timeout_s):
                    specs += await _start(stack, name, cfg, errlog or _stderr())
            except asyncio.CancelledError:
                raise
            except BaseException as e:  # noqa: BLE001 - anyio raises ExceptionGroups here
                raise ToolSetupError(f"MCP server {name!r} ({cfg.command}) failed to start: {_describe(e)}") from None
        yield specs


def _stderr() -> Any:
    """The child's stderr needs a real file descriptor (a captured sys.stderr has none)."""
    try:
        sys.stderr.fileno()
        return sys.stderr
    except (AttributeError, OSError, ValueError):
        return sys.__stderr__


def _describe(e: BaseException) -> str:
    if isinstance(e, BaseExceptionGroup) and e.exceptions:
        return _describe(e.exceptions[0])
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
