"""How the daemon's answers become what an MCP client reads: its error bodies as reasons
(verbatim detail, a 400's field list joined), finished actions as output or an error with
code and message, progress from the action record, the catalog wait, the views."""

from __future__ import annotations

import asyncio

import pytest

from bot.mcp.actions import ActionFailed, outcome, progress_of
from bot.mcp.daemon_client import DaemonClient, refusal
from bot.mcp.tools import daemon_catalog
from bot.mcp.views import entities_view, task_view
from bot.runtime.errors import InitError


@pytest.mark.parametrize(
    "status, body, text, reason",
    [
        (
            400,
            {"error": "bad_request", "detail": "invalid input for 'move_to': x: Input should be a valid number"},
            "",
            "bad_request: invalid input for 'move_to': x: Input should be a valid number",
        ),
        (
            400,
            {
                "error": "bad_request",
                "detail": [
                    {"loc": "body.tool", "msg": "Field required"},
                    {"loc": "body.args.x", "msg": "Input should be a valid number"},
                ],
            },
            "",
            "bad_request: body.tool: Field required; body.args.x: Input should be a valid number",
        ),
        (409, {"error": "busy", "detail": "a reflex has the body"}, "", "busy: a reflex has the body"),
        (503, {"error": "unavailable", "detail": {"why": "bridge"}}, "", "unavailable: {'why': 'bridge'}"),
        (502, None, "<html>Bad Gateway</html>", "HTTP 502: <html>Bad Gateway</html>"),
    ],
)
def test_an_error_body_becomes_the_reason(status, body, text, reason):
    e = refusal(status, body, text)
    assert str(e) == reason and e.status == status


def test_a_finished_action_is_its_output_or_an_error_with_code_and_message():
    assert outcome({"status": "succeeded", "output": {"walked": 4}}) == {"walked": 4}
    assert outcome({"status": "succeeded", "output": None}) == {}
    with pytest.raises(ActionFailed, match=r"^dig failed \(act-3\): NO_PATH: no path to 1 2 3$"):
        outcome(
            {
                "actionId": "act-3",
                "tool": "dig",
                "status": "failed",
                "error": {"code": "NO_PATH", "message": "no path to 1 2 3"},
            }
        )
    with pytest.raises(ActionFailed, match=r"explore cancelled .*: CANCELLED: a reflex needs the body"):
        outcome(
            {
                "actionId": "act-4",
                "tool": "explore",
                "status": "cancelled",
                "error": {"code": "CANCELLED", "message": "a reflex needs the body"},
            }
        )


def test_progress_is_elapsed_seconds_of_the_timeout():
    assert progress_of({"tool": "collect_block", "elapsedMs": 12400, "timeoutS": 180.0}) == (
        12.4,
        180.0,
        "collect_block running 12 s",
    )


def test_the_catalog_waits_while_the_bot_attaches_and_a_daemon_without_actions_serves_the_rest(daemon):
    fake, base = daemon
    slept: list[float] = []

    async def attach_after_two(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 2:
            fake.tools_status = 200

    async def catalog(wait_s: float, sleep=attach_after_two):
        client = DaemonClient(base)
        try:
            return await daemon_catalog(client, wait_s=wait_s, sleep=sleep)
        finally:
            await client.aclose()

    fake.tools_status = 503
    assert "move_to" in {t["name"] for t in asyncio.run(catalog(10))} and slept == [1.0, 1.0]
    fake.tools_status = 503
    with pytest.raises(InitError, match="did not list its tools: unavailable: bot is not attached yet"):
        asyncio.run(catalog(3, sleep=_no_wait))
    fake.tools_status = 404
    assert asyncio.run(catalog(10)) == []


async def _no_wait(_seconds: float) -> None:
    return None


def test_entities_nearest_first_within_the_radius_and_tasks_as_the_table_shows_them():
    snap = {
        "position": {"x": 0, "y": 64, "z": 0},
        "hostiles": 1,
        "entities": [
            {"name": "a", "type": "mob", "hostile": True, "distance": 9.87, "position": {}},
            {"name": "b", "type": "player", "hostile": False, "distance": 2.0, "position": {}},
            {"name": "c", "type": "animal", "hostile": False, "distance": 30.0, "position": {}},
        ],
    }
    view = entities_view(snap, 10.0)
    assert [(e["name"], e["distance"]) for e in view["entities"]] == [("b", 2.0), ("a", 9.9)] and view["count"] == 2
    task = {
        "id": "t1",
        "title": "Collect",
        "status": "failed",
        "progress": 0.333,
        "metadata": {"goalKey": "collect:oak_log", "origin": {"kind": "user"}, "solver": {"failureReason": "no path"}},
    }
    assert task_view(task) == {
        "id": "t1",
        "title": "Collect",
        "status": "failed",
        "progress": 0.33,
        "origin": "user",
        "goalKey": "collect:oak_log",
        "reason": "no path",
    }
