"""The MCP server driven by the SDK's own in-process client, against the fake daemon on a
real loopback socket (tests/unit/mcp/fake_daemon.py)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import Client

from bot.mcp.daemon_client import DaemonClient
from bot.mcp.server import BotRoutes, McpSettings, build_server
from bot.mcp.tools import daemon_catalog
from tests.unit.mcp.fake_daemon import FakeDaemon, Served


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[FakeDaemon, str]]:
    fake = FakeDaemon()
    with Served(fake) as s:
        yield fake, s.base


@pytest.fixture
def daemon(served: tuple[FakeDaemon, str]) -> tuple[FakeDaemon, str]:
    fake, base = served
    fake.reset()
    return fake, base


@asynccontextmanager
async def mcp_client(
    base: str, *, calls_per_minute: int = 10000, clock: Any = time.monotonic, bot: str | None = None
) -> AsyncIterator[Client]:
    """An MCP client session on a fresh server over the daemon at `base` (polls back to back:
    the fake's actions advance per poll, not per second)."""
    daemon = DaemonClient(base)
    try:
        catalog = await daemon_catalog(daemon)
        server = build_server(
            daemon,
            catalog,
            McpSettings(calls_per_minute=calls_per_minute, poll_s=0.0),
            clock=clock,
            routes=BotRoutes(bot),
        )
        async with Client(server) as client:
            yield client
    finally:
        await daemon.aclose()
