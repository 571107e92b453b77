"""`mcbot mcp`'s server through the SDK's in-process client, against a fake daemon API on a
loopback socket: the tool groups and the daemon's own input schemas, look tools, actions
(argument mapping, progress, success, failure, cancellation, stop), the daemon's refusals
passed through as tool errors, the direct tools, the resources and the rate limit."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import tomllib
from pathlib import Path

import anyio
import pytest
from mcp import Client

from agency.tools.movement import MoveToInput
from bot.mcp.daemon_client import DaemonClient
from bot.mcp.server import build_server
from bot.runtime.server import free_port
from tests.unit.mcp.conftest import mcp_client
from tests.unit.mcp.fake_daemon import Plan

GROUPS = {
    "look": {"snapshot", "blocks_around", "nearby_entities", "inventory"},
    "move": {"go_to", "follow", "explore", "stop"},
    "act": {"collect", "dig", "place", "craft", "equip", "eat", "attack", "chat"},
    "direct": {"create_goal", "list_tasks", "plan_item", "pause_task", "resume_task", "cancel_task"},
}


def _text(result) -> str:
    return result.content[0].text


def _json(result) -> dict:
    assert not result.is_error, _text(result)
    return json.loads(_text(result))


def test_tools_come_in_four_groups_and_actions_carry_the_daemons_input_schema(daemon):
    _fake, base = daemon

    async def scenario() -> list:
        async with mcp_client(base) as c:
            return (await c.list_tools()).tools

    tools = asyncio.run(scenario())
    by_group: dict[str, set[str]] = {}
    for tool in tools:
        by_group.setdefault(tool.meta["mcbot/group"], set()).add(tool.name)
    assert by_group == GROUPS
    go_to = next(t for t in tools if t.name == "go_to")
    assert go_to.input_schema == {**MoveToInput.model_json_schema(), "type": "object"}
    assert go_to.meta["mcbot/daemonTool"] == "move_to" and "at most 60" in go_to.description
    assert all(t.annotations.read_only_hint for t in tools if t.name in GROUPS["look"])


def test_the_server_reports_the_package_version_in_its_initialize_result(daemon):
    _fake, base = daemon

    async def scenario() -> object:
        async with mcp_client(base) as c:
            return c.server_info

    info = asyncio.run(scenario())
    project = tomllib.loads((Path(__file__).resolve().parents[3] / "pyproject.toml").read_text())["project"]
    assert (info.name, info.version) == ("mcbot", project["version"])
    assert info.version == importlib.metadata.version("mcbot")


def test_look_tools_read_the_snapshot_and_the_blocks_around(daemon):
    fake, base = daemon

    async def scenario() -> tuple:
        async with mcp_client(base) as c:
            return (
                await c.call_tool("snapshot", {}),
                await c.call_tool("inventory", {}),
                await c.call_tool("nearby_entities", {"radius": 20}),
                await c.call_tool("nearby_entities", {"hostile_only": True}),
                await c.call_tool("blocks_around", {"radius": 3}),
                await c.call_tool("blocks_around", {"radius": 99}),
            )

    snap, inv, near, hostile, blocks, too_far = asyncio.run(scenario())
    assert _json(snap)["health"] == 18.0 and _json(snap)["position"] == {"x": 10.5, "y": 64.0, "z": -3.5}
    assert _json(inv) == {"items": {"dirt": 12, "oak_log": 5}, "stacks": 3, "total": 17}
    assert [e["name"] for e in _json(near)["entities"]] == ["cow", "zombie"] and _json(near)["hostiles"] == 1
    assert [e["name"] for e in _json(hostile)["entities"]] == ["zombie"]
    assert _json(blocks)["radius"] == 3 and _json(blocks)["counts"]["oak_log"] == 4
    assert too_far.is_error and "radius" in _text(too_far) and "less than or equal to 16" in _text(too_far)
    assert ("GET", "/api/bot/blocks") in fake.calls and fake.calls.count(("GET", "/api/bot/blocks")) == 1


def test_an_action_maps_its_arguments_reports_progress_and_returns_the_output(daemon):
    fake, base = daemon
    fake.plans["collect_block"] = Plan(polls=3, output={"collected": 2, "block": "oak_log"})
    progress: list[tuple] = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append((p, total, message))

    async def scenario():
        async with mcp_client(base) as c:
            return await c.call_tool("collect", {"block": "oak_log", "count": 2}, progress_callback=on_progress)

    result = asyncio.run(scenario())
    assert _json(result) == {"collected": 2, "block": "oak_log"}
    assert fake.bodies[0] == {"tool": "collect_block", "args": {"block": "oak_log", "count": 2}}
    timeout_s = fake.registry.get("collect_block").timeout_s
    assert progress == [
        (0.0, timeout_s, "collect_block running 0 s"),
        (1.0, timeout_s, "collect_block running 1 s"),
        (2.0, timeout_s, "collect_block running 2 s"),
    ]
    assert fake.actions["act-1"]["status"] == "succeeded"


def test_a_list_argument_sent_as_a_json_string_reaches_the_daemon_as_a_list(daemon):
    fake, base = daemon

    async def scenario():
        async with mcp_client(base) as c:
            return await c.call_tool("dig", {"positions": '[{"x": 1, "y": 63, "z": 2}]'})

    assert not asyncio.run(scenario()).is_error
    assert fake.bodies[0] == {"tool": "mine_block", "args": {"positions": [{"x": 1, "y": 63, "z": 2}]}}


@pytest.mark.parametrize(
    "tool, args, plan, says",
    [
        (
            "go_to",
            {"x": "north", "y": 64, "z": 1},
            None,
            "Error executing tool go_to: bad_request: invalid input for 'move_to': x: Input should be a valid number",
        ),
        (
            "go_to",
            {"x": 1, "y": 64, "z": 1, "speed": 3},
            None,
            "bad_request: invalid input for 'move_to': speed: Extra inputs are not permitted",
        ),
        ("go_to", {"x": 1}, None, "y: Field required; z: Field required"),
        (
            "follow",
            {"username": "nobody"},
            Plan(polls=1, status="failed", error={"code": "target_not_found", "message": "no player 'nobody' in view"}),
            "follow failed (act-1): target_not_found: no player 'nobody' in view",
        ),
    ],
)
def test_the_daemons_refusals_and_failures_are_tool_errors_with_its_words(daemon, tool, args, plan, says):
    fake, base = daemon
    if plan is not None:
        fake.plans["follow"] = plan

    async def scenario():
        async with mcp_client(base) as c:
            return await c.call_tool(tool, args)

    result = asyncio.run(scenario())
    assert result.is_error and says in _text(result), _text(result)


def test_a_second_body_action_is_refused_busy_and_stop_ends_this_clients_action(daemon):
    fake, base = daemon
    fake.plans["move_to"] = Plan(polls=None)  # walks until stopped

    async def scenario() -> tuple:
        async with mcp_client(base) as c:
            started = anyio.Event()
            ended: dict = {}

            async def progress(*_a: object) -> None:
                started.set()

            async def walk() -> None:
                ended["go_to"] = await c.call_tool("go_to", {"x": 5, "y": 64, "z": 5}, progress_callback=progress)

            async with anyio.create_task_group() as tg:
                tg.start_soon(walk)
                await started.wait()
                busy = await c.call_tool("craft", {"item": "stick"})
                stopped = await c.call_tool("stop", {})
            nothing = await c.call_tool("stop", {})
            return busy, stopped, ended["go_to"], nothing

    busy, stopped, walked, nothing = asyncio.run(scenario())
    assert busy.is_error and "busy: action act-1 (move_to) has the body; cancel it or wait" in _text(busy)
    assert _json(stopped) == {
        "stopped": [{"actionId": "act-1", "tool": "move_to"}],
        "message": "stopped this client's action(s): act-1 (move_to)",
    }
    assert walked.is_error and "move_to cancelled (act-1): CANCELLED: cancelled by the caller" in _text(walked)
    assert _json(nothing) == {"stopped": [], "message": "nothing was running"}


def test_stop_from_a_client_that_started_nothing_stops_any_running_action(daemon):
    fake, base = daemon
    fake.plans["explore"] = Plan(polls=None)
    fake.start({"tool": "explore", "args": {}})  # started elsewhere (the dashboard)

    async def scenario():
        async with mcp_client(base) as c:
            return await c.call_tool("stop", {})

    assert _json(asyncio.run(scenario()))["message"] == "stopped every running action(s): act-1 (explore)"
    assert fake.actions["act-1"]["status"] == "cancelled"


def test_a_call_the_client_cancels_cancels_its_action_on_the_daemon(daemon):
    fake, base = daemon
    fake.plans["explore"] = Plan(polls=None)

    async def scenario() -> None:
        async with mcp_client(base) as c:
            polled = anyio.Event()

            async def progress(*_a: object) -> None:
                polled.set()

            async with anyio.create_task_group() as tg:
                tg.start_soon(lambda: c.call_tool("explore", {"legs": 2}, progress_callback=progress))
                await polled.wait()
                tg.cancel_scope.cancel()
            await c.call_tool("snapshot", {})  # the session goes on

    asyncio.run(scenario())
    assert ("POST", "/api/actions/act-1/cancel") in fake.calls
    assert fake.actions["act-1"]["status"] == "cancelled"


def test_direct_tools_give_goals_and_manage_tasks_and_refusals_say_why(daemon):
    fake, base = daemon

    async def scenario() -> dict:
        async with mcp_client(base) as c:
            out = {
                "created": await c.call_tool("create_goal", {"text": "collect oak_log 1"}),
                "again": await c.call_tool("create_goal", {"action": "collect", "target": "oak_log"}),
                "ungrounded": await c.call_tool("create_goal", {"text": "collect diamond_ore 2"}),
                "paused": await c.call_tool("pause_task", {"task_id": "task-1"}),
                "listed": await c.call_tool("list_tasks", {"status": "paused"}),
                "resumed": await c.call_tool("resume_task", {"task_id": "task-1"}),
                "cancelled": await c.call_tool("cancel_task", {"task_id": "task-1"}),
                "unknown": await c.call_tool("cancel_task", {"task_id": "task-9"}),
            }
            return out

    r = asyncio.run(scenario())
    assert _json(r["created"]) == {
        "id": "task-1",
        "title": "collect oak_log 1",
        "status": "pending",
        "progress": 0.0,
        "origin": "user",
        "goalKey": "collect:oak_log",
    }
    assert fake.bodies[0] == {"text": "collect oak_log 1", "priority": 0.5, "by": "mcp"}
    assert r["again"].is_error and _text(r["again"]).endswith(
        "duplicate: a live task has goal collect:oak_log (the live task: task-1)"
    )
    assert r["ungrounded"].is_error and "not_grounded: missing_item: collect diamond_ore: none in sight" in _text(
        r["ungrounded"]
    )
    assert _json(r["paused"])["status"] == "paused"
    assert [t["id"] for t in _json(r["listed"])["tasks"]] == ["task-1"]
    assert _json(r["resumed"])["status"] == "pending" and _json(r["cancelled"])["status"] == "failed"
    assert r["unknown"].is_error and "not_found: no task task-9" in _text(r["unknown"])


def test_resources_are_the_snapshot_the_inventory_and_the_tasks_as_json(daemon):
    fake, base = daemon
    fake.tasks["task-1"] = {
        "id": "task-1",
        "title": "t",
        "status": "active",
        "progress": 0.5,
        "metadata": {"goalKey": "craft:stick", "origin": {"kind": "drive-tick"}},
    }

    async def scenario() -> tuple:
        async with mcp_client(base) as c:
            listed = [str(r.uri) for r in (await c.list_resources()).resources]
            read = [await c.read_resource(uri) for uri in ("mcbot://snapshot", "mcbot://inventory", "mcbot://tasks")]
            return listed, read

    listed, (snap, inv, tasks) = asyncio.run(scenario())
    assert listed == ["mcbot://snapshot", "mcbot://inventory", "mcbot://tasks"]
    assert snap.contents[0].mime_type == "application/json" and json.loads(snap.contents[0].text)["food"] == 17
    assert json.loads(inv.contents[0].text)["items"]["oak_log"] == 5
    assert json.loads(tasks.contents[0].text) == [
        {
            "id": "task-1",
            "title": "t",
            "status": "active",
            "progress": 0.5,
            "origin": "drive-tick",
            "goalKey": "craft:stick",
        }
    ]


def test_over_its_budget_a_call_is_refused_without_reaching_the_daemon(daemon):
    fake, base = daemon
    now = [100.0]

    async def scenario() -> list:
        async with mcp_client(base, calls_per_minute=2, clock=lambda: now[0]) as c:
            out = [
                await c.call_tool("inventory", {}),
                await c.call_tool("inventory", {}),
                await c.call_tool("inventory", {}),
            ]
            now[0] += 30.0  # half a minute refills one call
            out += [await c.call_tool("inventory", {}), await c.call_tool("inventory", {})]
            return out

    first, second, third, after, again = asyncio.run(scenario())
    assert not first.is_error and not second.is_error and not after.is_error
    assert third.is_error and _text(third) == "rate limited: 2 calls per minute; retry in 30.0 s"
    assert again.is_error and _text(again) == "rate limited: 2 calls per minute; retry in 30.0 s"
    assert fake.calls.count(("GET", "/api/bot/snapshot")) == 3


def test_a_daemon_that_went_away_is_named_in_the_error(daemon):
    fake, _base = daemon
    gone = f"http://127.0.0.1:{free_port()}"

    async def scenario():
        daemon_client = DaemonClient(gone)
        async with Client(build_server(daemon_client, fake.catalog())) as c:
            return await c.call_tool("go_to", {"x": 1, "y": 2, "z": 3})

    result = asyncio.run(scenario())
    assert result.is_error and f"no daemon answers at {gone}" in _text(result)


def test_serving_one_bot_of_a_fleet_every_tool_and_resource_uses_that_bot_s_routes(daemon):
    fake, base = daemon
    fake.plans["collect_block"] = Plan(polls=None)  # runs until stopped

    async def scenario() -> tuple:
        async with mcp_client(base, bot="helper") as c:
            await c.call_tool("snapshot", {})
            await c.call_tool("blocks_around", {"radius": 3})
            await c.call_tool("inventory", {})
            goal = _json(await c.call_tool("create_goal", {"text": "collect dirt 2"}))
            await c.call_tool("list_tasks", {})
            await c.read_resource("mcbot://tasks")
            async with anyio.create_task_group() as tg:
                tg.start_soon(c.call_tool, "collect", {"block": "oak_log", "count": 1})
                while not fake.actions:
                    await anyio.sleep(0.01)
                stopped = _json(await c.call_tool("stop", {}))
            return goal, stopped

    goal, stopped = asyncio.run(scenario())
    paths = [p for _m, p in fake.calls if p not in ("/api/tools", "/healthz")]
    assert {p for p in paths if not p.startswith("/api/bots/helper/")} == {"/api/goals", "/api/tasks"}, paths
    assert {
        "/api/bots/helper/snapshot",
        "/api/bots/helper/blocks",
        "/api/bots/helper/actions",
        "/api/bots/helper/actions/act-1/cancel",
    } <= set(paths)
    assert fake.bodies[0] == {"text": "collect dirt 2", "priority": 0.5, "by": "mcp", "bot": "helper"}
    assert fake.tasks[goal["id"]]["metadata"]["bot"] == "helper"
    assert fake.task_queries == ["helper", "helper"]
    assert [s["actionId"] for s in stopped["stopped"]] == ["act-1"] and fake.actions["act-1"]["status"] == "cancelled"


def test_plan_item_shows_the_plan_an_obtain_would_become_and_a_refusal_says_why(daemon):
    fake, base = daemon

    async def scenario() -> dict:
        async with mcp_client(base) as c:
            return {
                "plan": await c.call_tool("plan_item", {"item": "stick", "amount": 4}),
                "refused": await c.call_tool("plan_item", {"item": "blaze_rod"}),
            }

    r = asyncio.run(scenario())
    plan = _json(r["plan"])
    assert plan["goal"]["target"] == "stick" and plan["steps"][0]["id"] == "craft-stick"
    assert ("GET", "/api/bot/plan") in fake.calls
    assert r["refused"].is_error and "found only in the nether" in _text(r["refused"])
