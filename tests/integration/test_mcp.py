"""`mcbot mcp` against `mcbot run` on the embedded world (drive ticks off, no hostiles), with
the SDK's own clients: over stdio the tools come in their groups, the look tools read the
bot, go_to walks it there, a goal becomes a task that list_tasks shows and cancel_task
ends, a follow of nobody fails with the daemon's reason, and an explore the client
cancels mid-way is cancelled on the daemon too; over streamable HTTP the tools are listed
and a snapshot read. `mcbot mcp --own` with no daemon answering starts one, serves through
it, and stops it when the client leaves."""

from __future__ import annotations

import asyncio
import json
import math
import signal
import subprocess
import sys

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, USER_TASKS_ONLY, daemon_env, wait_healthy, wait_until

pytestmark = pytest.mark.one_version(
    reason="MCP is protocol-independent: it speaks to the daemon's API, the same at every Minecraft version"
)

CONFIG = USER_TASKS_ONLY
GROUPS = {
    "look": {"snapshot", "blocks_around", "nearby_entities", "inventory"},
    "move": {"go_to", "follow", "explore", "stop"},
    "act": {"collect", "dig", "place", "craft", "equip", "eat", "attack", "chat"},
    "direct": {"create_goal", "list_tasks", "plan_item", "pause_task", "resume_task", "cancel_task"},
}


def _json(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def _distance(a: dict, b: dict) -> float:
    return math.dist((a["x"], a["y"], a["z"]), (b["x"], b["y"], b["z"]))


async def _over_stdio(params: StdioServerParameters, errlog, base: str) -> dict:
    seen: dict = {}
    async with Client(stdio_client(params, errlog=errlog)) as c:
        tools = (await c.list_tools()).tools
        seen["groups"] = {g: {t.name for t in tools if t.meta.get("mcbot/group") == g} for g in GROUPS}
        snap = _json(await c.call_tool("snapshot", {}))
        seen["snapshot"] = snap
        seen["inventory"] = _json(await c.call_tool("inventory", {}))
        seen["blocks"] = _json(await c.call_tool("blocks_around", {"radius": 6}))

        start = snap["position"]
        target = {"x": math.floor(start["x"]) + 3.5, "y": start["y"], "z": math.floor(start["z"]) + 0.5}
        seen["go_to"] = await c.call_tool("go_to", {**target, "range": 2})
        seen["target"] = target
        seen["after_go_to"] = _json(await c.call_tool("snapshot", {}))["position"]

        task = _json(await c.call_tool("create_goal", {"text": "collect oak_log 1"}))
        seen["task"] = task
        seen["listed"] = _json(await c.call_tool("list_tasks", {"limit": 5}))
        seen["cancelled"] = _json(await c.call_tool("cancel_task", {"task_id": task["id"]}))

        seen["follow"] = await c.call_tool("follow", {"username": "nobody_here", "duration_s": 10})

        progress: list[float] = []
        mid_way = anyio.Event()

        async def on_progress(p: float, _total: float | None, _message: str | None) -> None:
            progress.append(p)
            if p >= 1.0:
                mid_way.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: c.call_tool("explore", {"legs": 3}, progress_callback=on_progress))
            with anyio.fail_after(60):
                await mid_way.wait()
            tg.cancel_scope.cancel()
        seen["explore_progress"] = progress
        seen["still_serving"] = _json(await c.call_tool("inventory", {}))
    return seen


@pytest.mark.timeout(600)
def test_an_mcp_client_drives_the_daemon_over_stdio_and_streamable_http(tmp_path, mc_version):
    cfg = tmp_path / "mcp.toml"
    cfg.write_text(CONFIG)
    api_port = free_port()
    env = daemon_env(tmp_path, mc_version, api_port)
    base = f"http://127.0.0.1:{api_port}"
    daemon_log = tmp_path / "daemon.log"  # a file, not a pipe: nobody drains a pipe while the client runs
    with daemon_log.open("w") as log:
        p = subprocess.Popen(
            [sys.executable, "-m", "bot", "--config", str(cfg), "run"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    http_mcp = None
    try:
        wait_healthy(p, base, 120, output=lambda: daemon_log.read_text()[-3000:])

        # ---- stdio: the client starts `mcbot mcp`; its stdout is the protocol channel --------
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "bot", "mcp", "--api", base], cwd=str(ROOT), env=env
        )
        with (tmp_path / "mcp-stderr.txt").open("w") as errlog:
            seen = asyncio.run(_over_stdio(params, errlog, base))

        assert seen["groups"] == GROUPS
        snap = seen["snapshot"]
        assert 0 <= snap["health"] <= 20 and set(snap["position"]) == {"x", "y", "z"}
        assert isinstance(seen["inventory"]["items"], dict)
        assert seen["blocks"]["radius"] == 6 and seen["blocks"]["counts"] and "air" not in seen["blocks"]["counts"]
        assert not seen["go_to"].is_error, seen["go_to"].content[0].text
        assert _distance(seen["after_go_to"], seen["target"]) <= 3.0, (seen["after_go_to"], seen["target"])
        task = seen["task"]
        assert task["goalKey"] == "collect:oak_log" and task["origin"] == "user"
        assert task["id"] in [t["id"] for t in seen["listed"]["tasks"]]
        assert seen["cancelled"]["id"] == task["id"] and seen["cancelled"]["status"] == "failed"
        follow = seen["follow"].content[0].text
        assert seen["follow"].is_error and "follow failed" in follow and "nobody_here" in follow, follow
        assert max(seen["explore_progress"]) >= 1.0

        def explore_record() -> dict | None:
            listed = loopback().get(f"{base}/api/actions", timeout=5).json()["actions"]
            found = next(a for a in listed if a["tool"] == "explore")
            return found if found["status"] != "running" else None

        ended = wait_until(explore_record, 30, "the explore the client cancelled to end on the daemon")
        assert ended["status"] == "cancelled" and ended["error"]["code"] == "CANCELLED", ended
        assert loopback().get(f"{base}/api/tasks/{task['id']}", timeout=5).json()["status"] == "failed"

        # ---- streamable HTTP -------------------------------------------------------------------
        mcp_port = free_port()
        http_log = tmp_path / "mcp-http.log"
        with http_log.open("w") as log:
            http_mcp = subprocess.Popen(
                [sys.executable, "-m", "bot", "mcp", "--transport", "http", "--port", str(mcp_port), "--api", base],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        url = f"http://127.0.0.1:{mcp_port}/mcp"

        def listening() -> bool:
            assert http_mcp.poll() is None, http_log.read_text()
            try:
                loopback().get(url, timeout=2)
                return True
            except httpx.TransportError:
                return False

        wait_until(listening, 60, "mcbot mcp to listen over HTTP")

        async def over_http() -> tuple:
            async with Client(url) as c:
                return {t.name for t in (await c.list_tools()).tools}, _json(await c.call_tool("snapshot", {}))

        names, http_snap = asyncio.run(over_http())
        assert set().union(*GROUPS.values()) == names
        assert 0 <= http_snap["health"] <= 20 and "position" in http_snap
        http_mcp.send_signal(signal.SIGTERM)
        assert http_mcp.wait(20) == 0

        p.send_signal(signal.SIGTERM)
        assert p.wait(30) == 0, daemon_log.read_text()[-3000:]
        out = daemon_log.read_text()
        assert "[Direct]" in out and "explore" in out
    finally:
        for proc in (http_mcp, p):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(10)


@pytest.mark.timeout(400)
def test_mcp_own_starts_a_daemon_when_none_answers_and_stops_it_when_the_client_leaves(tmp_path, mc_version):
    cfg = tmp_path / "mcp.toml"
    cfg.write_text(CONFIG)
    api_port = free_port()
    env = {**daemon_env(tmp_path, mc_version, api_port), "PYTHONPATH": str(ROOT)}
    base = f"http://127.0.0.1:{api_port}"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "bot", "--config", str(cfg), "mcp", "--own"], cwd=str(tmp_path), env=env
    )
    errlog_path = tmp_path / "mcp-stderr.txt"

    async def session() -> tuple:
        with errlog_path.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as c:  # waits while the own daemon starts
                snap = _json(await c.call_tool("snapshot", {}))
                async with httpx.AsyncClient() as http:
                    return snap, (await http.get(f"{base}/healthz", timeout=5)).json()

    snap, health = asyncio.run(session())
    assert 0 <= snap["health"] <= 20 and health["ok"] is True
    errlog = errlog_path.read_text()
    assert "[MCP] started a daemon of our own" in errlog and f"API {base}" in errlog, errlog
    own_log = tmp_path / "logs" / "mcp-daemon.log"

    def stopped() -> bool:
        try:
            loopback().get(f"{base}/healthz", timeout=2)
            return False
        except httpx.TransportError:
            return "daemon stopped" in own_log.read_text()

    wait_until(stopped, 40, "the own daemon to stop once the client left")
