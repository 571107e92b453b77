"""`mcbot mcp` as a process: with no daemon it exits 3 and says how to get one; an HTTP
host off loopback needs mcp.token; over stdio its stdout carries the MCP protocol and
nothing else; over streamable HTTP the token is required as a Bearer header. The daemon
is the fake on a loopback socket (tests/unit/mcp/fake_daemon.py)."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import httpx2  # the MCP SDK's HTTP client
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from bot.config.loader import ConfigError, load_config
from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import wait_until

REPO = Path(__file__).resolve().parents[3]


def _env(**over: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), **over}


def _mcbot(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *argv], cwd=cwd, env=_env(**env), capture_output=True, text=True, timeout=60
    )


def test_with_no_daemon_answering_it_exits_3_and_says_how_to_get_one(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    out = _mcbot(["mcp", "--api", url], tmp_path)
    assert out.returncode == 3, out.stderr
    assert f"no daemon at {url}; start one with `mcbot run` or pass --own" in out.stderr
    assert out.stdout == ""


def test_an_http_host_off_loopback_needs_a_token(tmp_path):
    out = _mcbot(["mcp", "--transport", "http", "--host", "0.0.0.0"], tmp_path)
    assert out.returncode == 4 and "set mcp.token" in out.stderr
    with pytest.raises(ConfigError, match=r"mcp.token must be set when mcp.host"):
        load_config(cwd=tmp_path, home=tmp_path, etc_dir=tmp_path, environ={"MCBOT_MCP__HOST": "10.1.2.3"})
    cfg = load_config(
        cwd=tmp_path, home=tmp_path, etc_dir=tmp_path, environ={"MCBOT_MCP__HOST": "10.1.2.3", "MCBOT_MCP__TOKEN": "t"}
    ).config
    assert (cfg.mcp.port, cfg.mcp.calls_per_minute, cfg.mcp.poll_s) == (3005, 120, 0.5)


def test_a_bot_the_daemon_does_not_drive_exits_4_naming_the_bots_it_drives(daemon, tmp_path):
    _fake, base = daemon
    out = _mcbot(["mcp", "--api", base, "--bot", "zulu"], tmp_path)
    assert out.returncode == 4, out.stderr
    assert f"argument --bot: the daemon at {base} drives mcbot, helper, not 'zulu'" in out.stderr
    assert out.stdout == ""


@pytest.mark.timeout(90)
def test_the_one_bot_of_a_daemon_named_by_bot_is_served_through_the_plain_routes(daemon, tmp_path):
    """Its tasks are bound to no bot: a bot filter would hide the one it is running."""
    fake, base = daemon
    fake.bot_names = ("mcbot",)
    errlog = tmp_path / "stderr.txt"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "bot", "mcp", "--api", base, "--bot", "MCBOT"],
        cwd=str(tmp_path),
        env=_env(),
    )

    async def scenario() -> None:
        with errlog.open("w") as err:
            async with Client(stdio_client(params, errlog=err)) as c:
                await c.call_tool("snapshot", {})
                await c.call_tool("list_tasks", {})

    asyncio.run(scenario())
    assert ("GET", "/api/bot/snapshot") in fake.calls and fake.task_queries == [None]
    assert f"[MCP] serving on stdio for the daemon at {base}" in errlog.read_text()


def test_a_daemon_that_cannot_list_its_bots_is_exit_3(daemon, tmp_path):
    fake, base = daemon
    fake.bot_names = None  # /api/bots answers 500
    out = _mcbot(["mcp", "--api", base, "--bot", "mcbot"], tmp_path)
    assert out.returncode == 3 and "did not list its bots: HTTP 500" in out.stderr, out.stderr


@pytest.mark.timeout(90)
def test_over_stdio_stdout_is_the_protocol_channel_and_logs_go_to_stderr(daemon, tmp_path):
    _fake, base = daemon
    errlog = tmp_path / "stderr.txt"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "bot", "mcp", "--api", base, "--bot", "HELPER"],
        cwd=str(tmp_path),
        env=_env(),
    )

    async def scenario() -> tuple:
        with errlog.open("w") as err:  # a stray line on stdout would break the session
            async with Client(stdio_client(params, errlog=err)) as c:
                tools = {t.name for t in (await c.list_tools()).tools}
                return tools, await c.call_tool("snapshot", {})

    tools, snap = asyncio.run(scenario())
    assert {"snapshot", "go_to", "create_goal", "stop"} <= tools
    assert json.loads(snap.content[0].text)["health"] == 18.0
    assert f"[MCP] serving on stdio for bot helper of the daemon at {base}" in errlog.read_text()
    assert ("GET", "/api/bots/helper/snapshot") in _fake.calls
    # mcbot's own lines only: no request line of httpx's, no line of the SDK's or uvicorn's.
    assert [line for line in errlog.read_text().splitlines() if "[MCP]" not in line] == []


@pytest.mark.timeout(90)
def test_over_http_the_token_is_required_as_a_bearer_header(daemon, tmp_path):
    _fake, base = daemon
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    p = subprocess.Popen(
        [sys.executable, "-m", "bot", "mcp", "--transport", "http", "--port", str(port), "--api", base],
        cwd=tmp_path,
        env=_env(MCBOT_MCP__TOKEN="s3cret"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:

        def up() -> bool:
            assert p.poll() is None, p.stdout.read()
            try:
                return loopback().post(url, json={}, timeout=2).status_code == 401
            except httpx.HTTPError:
                return False

        wait_until(up, 30, "mcbot mcp to listen")
        refused = loopback().post(url, json={}, headers={"authorization": "Bearer wrong"}, timeout=5)
        assert refused.status_code == 401 and refused.json()["error"] == "unauthorized"

        async def scenario():
            http = httpx2.AsyncClient(headers={"authorization": "Bearer s3cret"})
            async with http, Client(streamable_http_client(url, http_client=http)) as c:
                return await c.call_tool("inventory", {})

        assert json.loads(asyncio.run(scenario()).content[0].text)["items"] == {"dirt": 12, "oak_log": 5}
    finally:
        p.terminate()
        p.wait(15)
    assert p.returncode == 0


@pytest.mark.timeout(90)
def test_every_stdout_line_is_json_rpc_and_sigterm_ends_it_with_stdin_still_open(daemon, tmp_path):
    """Spoken raw, line by line: a stray print on stdout would fail json.loads here (the
    SDK's client only logs such a line and carries on)."""
    _fake, base = daemon
    p = subprocess.Popen(
        [sys.executable, "-m", "bot", "mcp", "--api", base],
        cwd=tmp_path,
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:

        def send(message: dict) -> None:
            p.stdin.write(json.dumps(message) + "\n")
            p.stdin.flush()

        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        )
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "inventory", "arguments": {}}})
        answers = {}
        while 2 not in answers:
            line = p.stdout.readline()
            assert line, "stdout closed before the answer"
            message = json.loads(line)  # nothing but protocol messages
            assert message["jsonrpc"] == "2.0"
            if "id" in message:
                answers[message["id"]] = message
        assert answers[1]["result"]["serverInfo"] == {"name": "mcbot", "version": importlib.metadata.version("mcbot")}
        assert json.loads(answers[2]["result"]["content"][0]["text"])["items"] == {"dirt": 12, "oak_log": 5}
        p.terminate()  # stdin stays open: the stop must not wait for the client to close it
        assert p.wait(15) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(5)
