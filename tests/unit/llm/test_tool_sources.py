"""Tool sources: the bot's ToolRegistry as server `bot`, and stdio MCP servers."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest

from agency.execution.builtin_tools import default_tool_registry
from agency.llm.bot_tools import bot_tool_specs
from agency.llm.errors import ToolSetupError
from agency.llm.mcp_tools import open_mcp_servers
from agency.llm.session import run_session
from agency.llm.settings import McpServerConfig
from agency.llm.testing import ScriptedLLM, call, final
from agency.tools import ToolContext
from agency.world import InventoryItem, Vec3, WorldSnapshot
from tests.unit.llm.conftest import make_settings, run, tool_entries


class _Body:
    """Just enough Body for the inventory/snapshot queries."""

    def snapshot(self) -> WorldSnapshot:
        return WorldSnapshot(
            health=20,
            food=20,
            gameMode="survival",
            dimension="overworld",
            timeOfDay=1000,
            isDay=True,
            position=Vec3(x=0, y=64, z=0),
            hostiles=0,
            ts=1,
            inventory=[InventoryItem(name="oak_log", count=3), InventoryItem(name="oak_log", count=2)],
        )


def test_bot_registry_tools_exposed_as_server_bot(llm: ScriptedLLM) -> None:
    specs = bot_tool_specs(default_tool_registry(), ToolContext(body=_Body()))  # type: ignore[arg-type]  # a fake body
    names = [s.exposed for s in specs]
    assert "bot__inventory" in names and all(n.startswith("bot__") for n in names)
    llm.add(call("bot__inventory"), final("5 logs"))
    r = run("how many logs do you have?", make_settings(llm), tools=specs)
    assert r.success
    inv = tool_entries(r)[0]
    assert inv["mcpServer"] == "bot" and inv["command"] == "bot__inventory" and inv["status"] == "ok"
    assert '"oak_log": 5' in r.conversation[3]["content"]
    offered = llm.requests[0].tool_names
    assert "bot__inventory" in offered and "agent__final_report" in offered


def test_bot_registry_validation_error_reaches_the_model(llm: ScriptedLLM) -> None:
    specs = bot_tool_specs(default_tool_registry(), ToolContext(body=_Body()))  # type: ignore[arg-type]  # a fake body
    llm.add(call("bot__find_blocks", {"block": "oak_log", "radius": 999}), final("ok"))
    r = run("x", make_settings(llm), tools=specs)
    assert r.conversation[3]["content"].startswith("(tool failed: VALIDATION_ERROR")
    assert tool_entries(r)[0]["status"] == "failed"


MCP_SERVER = textwrap.dedent('''
    from mcp.server.mcpserver import MCPServer
    app = MCPServer("demo")

    @app.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    if __name__ == "__main__":
        app.run()
''')


@pytest.mark.timeout(60)
def test_mcp_stdio_server_tools_in_a_session(llm: ScriptedLLM, tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(MCP_SERVER)
    llm.add(call("calc__add", {"a": 2, "b": 3}), final("5"))

    async def go():
        cfg = {"calc": McpServerConfig(command=sys.executable, args=[str(script)])}
        async with open_mcp_servers(cfg) as specs:
            assert [s.exposed for s in specs] == ["calc__add"]
            return await run_session("2+3?", make_settings(llm), tools=specs)

    r = asyncio.run(go())
    assert r.success
    entry = tool_entries(r)[0]
    assert entry["mcpServer"] == "calc" and entry["command"] == "calc__add" and entry["status"] == "ok"
    assert r.conversation[3]["content"] == "5"


def test_mcp_server_that_fails_to_start_raises_setup_error() -> None:
    async def go() -> None:
        async with open_mcp_servers({"bad": McpServerConfig(command="/nonexistent/mcp-server")}):
            pass

    with pytest.raises(ToolSetupError, match="bad"):
        asyncio.run(go())


def test_disabled_mcp_server_is_not_started() -> None:
    async def go() -> list:
        async with open_mcp_servers({"off": McpServerConfig(command="/nonexistent", enabled=False)}) as specs:
            return specs

    assert asyncio.run(go()) == []
