"""The fleet's API routing (bot/runtime/api/daemon_context.FleetView): a goal goes to the bot it
names (an unknown one is a 400's error), a task command to the bot holding the task."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient
from loguru import logger

import bot.runtime.api.daemon_context as api_context
from agency.goals.user_goals import GoalRequest, GoalRequestError
from bot.runtime.api import ApiContext, create_app
from bot.runtime.api.daemon_context import FleetView


def _agency(name, tasks):
    async def submit_goal(request):
        return (name, request.bot)

    return SimpleNamespace(name=name, tasks=tasks, executor=f"executor-{name}", goals=None, submit_goal=submit_goal)


def _fleet(task):
    tasks = SimpleNamespace(get_task=lambda task_id: task if task and task.id == task_id else None)
    return FleetView({n: _agency(n, tasks) for n in ("alpha", "Bravo")})


def _task(held_by=None, bot=None):
    return SimpleNamespace(id="t1", metadata=SimpleNamespace(heldBy=held_by, bot=bot))


def test_a_goal_goes_to_the_bot_it_names_whatever_the_case_and_an_open_one_to_the_first():
    fleet = _fleet(None)
    assert asyncio.run(fleet.submit_goal(GoalRequest(text="collect dirt 1", bot="bravo"))) == ("Bravo", "bravo")
    assert asyncio.run(fleet.submit_goal(GoalRequest(text="collect dirt 1")))[0] == "alpha"
    with pytest.raises(GoalRequestError, match=r"unknown bot 'zulu'.*alpha, Bravo"):
        asyncio.run(fleet.submit_goal(GoalRequest(text="collect dirt 1", bot="zulu")))


@pytest.mark.parametrize(
    "task, executor",
    [
        (_task(held_by="Bravo", bot="alpha"), "executor-Bravo"),  # the bot working on it, before the binding
        (_task(bot="Bravo"), "executor-Bravo"),  # bound, not claimed yet
        (_task(), "executor-alpha"),  # open: the first bot's executor
    ],
)
def test_a_task_command_goes_to_the_bot_holding_the_task(monkeypatch, task, executor):
    seen = []

    async def run_task_command(tasks, ex, goals, task_id, command):
        seen.append((ex, task_id, command))

    monkeypatch.setattr(api_context, "run_task_command", run_task_command)
    asyncio.run(_fleet(task).task_command("t1", "pause"))
    assert seen == [(executor, "t1", "pause")]


def test_each_bot_s_action_and_block_routes_reach_that_bot_and_the_plain_routes_the_first():
    class Direct:
        def __init__(self, name):
            self.name, self.started = name, []

        def clock(self):
            return 0

        def start(self, tool, args, timeout_s):
            logger.info("started {}", tool)  # the action's task and its lines: the bot's context
            self.started.append(tool)
            return SimpleNamespace(view=lambda _now: {"actionId": f"act-{self.name}", "status": "running"})

        def recent(self, limit):
            return []

    def agency(name):
        async def blocks(radius):
            return {"bot": name, "radius": radius}

        return SimpleNamespace(name=name, direct=Direct(name), blocks_around=blocks)

    fleet = FleetView({n: agency(n) for n in ("alpha", "Bravo")})
    first = fleet.agency("alpha")
    ctx = ApiContext(
        stream=None,
        tasks=None,
        counters=None,
        snapshot=None,
        poke_keepalive=None,
        health=dict,
        metrics=lambda: "",
        inject_thought=None,
        direct=first.direct,
        blocks_around=first.blocks_around,
        bots=fleet,
        bot_name="alpha",
    )
    c = TestClient(create_app(ctx))
    lines = []
    sink = logger.add(lambda m: lines.append((m.record["message"], m.record["extra"].get("bot"))), level="INFO")
    try:
        assert c.post("/api/bots/bravo/actions", json={"tool": "chat"}).json()["actionId"] == "act-Bravo"
        assert c.post("/api/actions", json={"tool": "eat"}).json()["actionId"] == "act-alpha"
    finally:
        logger.remove(sink)
    assert [line for line in lines if line[0].startswith("started")] == [
        ("started chat", "Bravo"),
        ("started eat", "alpha"),
    ]
    assert (fleet.agency("Bravo").direct.started, first.direct.started) == (["chat"], ["eat"])
    assert c.get("/api/bots/Bravo/blocks?radius=3").json() == {"bot": "Bravo", "radius": 3}
    assert c.get("/api/bot/blocks").json()["bot"] == "alpha"
    r = c.get("/api/bots/zulu/actions")
    assert r.status_code == 404 and "alpha, Bravo" in r.json()["detail"]
