"""A user's goal through the real HTTP handler (POST /api/goals) on an Agency with SQLite
stores, over the fake block world: each verdict's status code and reason, origin `user`,
the build goal through the goal resolver, and nothing stored for a refused goal."""

from __future__ import annotations

import asyncio
import io
import json
import re

import httpx
import pytest
from fastapi.testclient import TestClient

from agency.clock import FrozenClock
from agency.goals import read_binding
from agency.planning.tasks.models import TaskStatus
from bot.cli import goal as goal_cli
from bot.config.loader import McbotConfig
from bot.runtime.api import create_app
from bot.runtime.wiring import Agency
from tests.unit.execution.test_body_lost import LosingBody
from tests.unit.runtime.api.test_http_api import _DaemonView


def agency_over(tmp_path, monkeypatch, body_type=LosingBody):
    """An Agency with SQLite stores on a fake block world of `body_type` (a tree at 4, 4),
    its tools' polling on the injected clock, and a client of its HTTP API; close() it after."""
    monkeypatch.setenv("MCBOT_ENV", "development")  # the field-ownership check is on
    agency = Agency(McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "a.db")}}), clock=FrozenClock())
    body = body_type(agency.clock)
    body.add_tree(4, 4)
    agency.attach_body(body)

    async def sleep(seconds: float) -> None:  # the tools' polling moves the injected clock
        agency.clock.advance(int(seconds * 1000))
        await asyncio.sleep(0)

    agency.tool_ctx.sleep = sleep
    return agency, body, TestClient(create_app(agency.api_context(_DaemonView())))


@pytest.fixture
def world(tmp_path, monkeypatch):
    agency, body, client = agency_over(tmp_path, monkeypatch)
    yield agency, body, client
    agency.close()


def _live(agency):
    return [t for t in agency.tasks.list_by_status(*TaskStatus) if not t.status.terminal]


def test_a_grounded_goal_becomes_a_user_task_and_the_same_goal_again_is_a_409_naming_it(world):
    agency, _body, c = world
    r = c.post("/api/goals", json={"text": "get oak log 2", "priority": 0.8})  # a synonym, a two-word target
    assert r.status_code == 201, r.text
    task = r.json()
    assert (task["type"], task["parameters"], task["priority"]) == ("collect", {"target": "oak_log", "amount": 2}, 0.8)
    meta = task["metadata"]
    assert meta["goalKey"] == "collect:oak_log" and meta["origin"]["kind"] == "user"
    assert meta["extractedGoalSource"] == "user" and "sourceThoughtId" not in meta
    assert agency.stream.recent(5) == []  # a user's goal is not a thought

    again = c.post("/api/goals", json={"action": "collect", "target": "minecraft:oak_log", "amount": 5})
    assert again.status_code == 409
    body = again.json()
    assert body["error"] == "duplicate" and body["task"]["id"] == task["id"] and task["id"] in body["detail"]
    assert [t.id for t in _live(agency)] == [task["id"]]


def test_the_user_task_is_claimed_and_completed_by_the_executor(world):
    agency, body, c = world
    task_id = c.post("/api/goals", json={"text": "collect oak_log 2"}).json()["id"]
    _run_to_end(agency, task_id)
    done = agency.tasks.get_task(task_id)
    assert done.status is TaskStatus.completed and done.progress == 1.0
    assert body.inventory.get("oak_log", 0) >= 2


@pytest.mark.parametrize(
    "goal, verdict, detail",
    [
        ({"text": "collect diamond_ore 3"}, "not_grounded", "missing_item: collect diamond_ore: none in sight"),
        ({"text": "craft iron_pickaxe"}, "not_grounded", "missing_item: craft iron_pickaxe: no"),
        ({"text": "sleep bed"}, "not_routable", "no agent carries out 'sleep' goals"),
    ],
)
def test_a_goal_that_cannot_be_done_now_is_a_422_with_the_reason_and_stores_nothing(world, goal, verdict, detail):
    agency, _body, c = world
    r = c.post("/api/goals", json=goal)
    assert r.status_code == 422, r.text
    assert r.json()["error"] == verdict and r.json()["detail"].startswith(detail)
    assert agency.tasks.list_by_status(*TaskStatus) == []


@pytest.mark.parametrize(
    "text, kind, target",
    [
        ("obtain compass", "craft", "compass"),  # its plan smelts the iron and digs the redstone itself
        ("get iron_ingot 2", "smelt", "iron_ingot"),
        ("acquire oak_log 2", "collect", "oak_log"),  # a block: collected where it is seen
    ],
)
def test_obtain_becomes_the_goal_that_gets_the_item(world, text, kind, target):
    _agency, _body, c = world
    r = c.post("/api/goals", json={"text": text})
    assert r.status_code == 201, r.text
    assert (r.json()["type"], r.json()["parameters"]["target"]) == (kind, target)


@pytest.mark.parametrize(
    "text, detail",
    [
        ("obtain blaze_rod", "blaze_rod is found only in the nether"),
        ("obtain ender_eye", "ender_eye needs blaze_rod, which is found only in the nether"),
        ("obtain compas", "compas is not an item of Minecraft 26.1 (did you mean compass?)"),
    ],
)
def test_what_the_overworld_lacks_or_no_such_item_is_a_422_at_once(world, text, detail):
    agency, _body, c = world
    r = c.post("/api/goals", json={"text": text})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "unobtainable" and r.json()["detail"].startswith(detail), r.text
    assert agency.tasks.list_by_status(*TaskStatus) == []


@pytest.mark.parametrize(
    "goal, says",
    [
        ({"text": "dance wildly"}, "not one the bot knows"),
        ({"text": "collect"}, "no target"),
        ({"text": "collect oak_log 0"}, "not a goal"),
        ({"action": "collect"}, "give text"),
        ({"text": "collect oak_log", "action": "collect"}, "not both"),
        ({"action": "collect", "target": "oak_log", "amount": 10_001}, "less than or equal"),
        ({"text": "collect oak_log", "priority": 1.5}, "less than or equal"),
        ({"text": "collect oak_log", "urgent": True}, "body.urgent"),
        ({"text": "collect oak_log", "priority": "0.7"}, "body.priority"),
        ({"text": "collect oak_log", "priority": True}, "body.priority"),
        ({"action": "collect", "target": "oak_log 5"}, "body.target"),
    ],
)
def test_bad_input_is_a_400_with_the_reason_and_stores_nothing(world, goal, says):
    agency, _body, c = world
    r = c.post("/api/goals", json=goal)
    assert r.status_code == 400, r.text
    assert says in r.text
    assert agency.tasks.list_by_status(*TaskStatus) == []


def test_without_a_connected_bot_the_goal_is_a_503_and_not_stored(world):
    agency, body, c = world
    body.connected = False
    r = c.post("/api/goals", json={"text": "collect oak_log 2"})
    assert r.status_code == 503 and "not connected" in r.json()["detail"]
    body.connected, body.lost = True, True  # connected by the flag, gone on the first read
    r = c.post("/api/goals", json={"text": "collect oak_log 2"})
    assert r.status_code == 503 and "went away" in r.json()["detail"]
    assert agency.tasks.list_by_status(*TaskStatus) == []


def test_a_build_goal_goes_through_the_goal_resolver(world):
    agency, _body, c = world
    r = c.post("/api/goals", json={"text": "build basic_shelter"})
    assert r.status_code == 201, r.text
    task = agency.tasks.get_task(r.json()["id"])
    binding = read_binding(task)
    assert binding is not None and binding.goalType == "build_shelter"  # goal-bound: the resolver made it
    assert task.metadata.origin.kind == "user" and task.metadata.goalKey == "build:basic_shelter"
    again = c.post("/api/goals", json={"action": "build", "target": "basic_shelter"})
    assert again.status_code == 409 and again.json()["task"]["id"] == task.id  # the resolver continues it


def test_off_loopback_a_goal_needs_the_token(world):
    agency, _body, _c = world
    c = TestClient(create_app(agency.api_context(_DaemonView()), token="s3cret"))
    assert c.post("/api/goals", json={"text": "collect oak_log 2"}).status_code == 401
    r = c.post("/api/goals", json={"text": "collect oak_log 2"}, headers={"authorization": "Bearer s3cret"})
    assert r.status_code == 201


def _run_to_end(agency, task_id):
    async def go() -> None:
        for _ in range(200):
            await agency.job_executor()
            if agency.tasks.get_task(task_id).status.terminal:
                return
            await asyncio.sleep(0)

    asyncio.run(go())


def _sse(text):
    return [(m.group(1), json.loads(m.group(2))) for m in re.finditer(r"event: (\S+)\ndata: (.*)\n", text)]


def test_the_event_stream_replays_the_lifecycle_to_the_end_and_resumes_after_last_event_id(world):
    agency, _body, c = world
    task_id = c.post("/api/goals", json={"text": "collect oak_log 2"}).json()["id"]
    _run_to_end(agency, task_id)
    r = c.get(f"/api/tasks/{task_id}/events")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = _sse(r.text)
    kinds = [k for k, _ in events]
    assert kinds[:2] == ["created", "claimed"] and kinds[-2:] == ["completed", "end"]
    assert "step_started" in kinds and "step_finished" in kinds
    assert kinds.index("step_started") < kinds.index("step_finished") < kinds.index("completed")
    assert events[0][1]["data"]["origin"] == "user" and events[-1][1]["status"] == "completed"
    assert events[-2][1]["progress"] == 1.0
    seqs = [d["seq"] for k, d in events if k != "end"]
    assert seqs == sorted(seqs)
    resumed = _sse(c.get(f"/api/tasks/{task_id}/events", headers={"last-event-id": str(seqs[-3])}).text)
    assert [d.get("seq") for _, d in resumed] == [seqs[-2], seqs[-1], None]  # the rest, then `end`
    assert c.get("/api/tasks/task-nope/events").status_code == 404


def test_the_event_stream_of_a_live_task_ends_when_the_daemon_stops(world):
    agency, _body, _c = world
    view = _DaemonView()
    view.stopping = True
    c = TestClient(create_app(agency.api_context(view)))
    task_id = c.post("/api/goals", json={"text": "collect oak_log 2"}).json()["id"]
    events = _sse(c.get(f"/api/tasks/{task_id}/events").text)
    assert [k for k, _ in events] == ["created", "end"]
    assert events[-1][1] == {"taskId": task_id, "status": "pending", "reason": "daemon stopping"}


def test_mcbot_goal_follow_prints_the_lifecycle_with_a_progress_bar(world):
    agency, _body, c = world
    api = goal_cli.Api("http://testserver", None)
    api.client = c  # the CLI's HTTP client against the real handlers
    out = io.StringIO()
    created = c.post("/api/goals", json={"text": "collect oak_log 2"}).json()["id"]
    _run_to_end(agency, created)
    assert goal_cli._follow_existing(api, created, out) == goal_cli.EXIT_OK
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"{created}: Collect oak log x2")
    assert "claimed" in lines[2] and lines[-1].split()[1] == "completed"
    assert lines[-1].endswith("[####################] 100%")
    assert any(re.search(r"step 1/\d+ finished", line) for line in lines)
    assert goal_cli._guard(lambda: goal_cli._goal(api, "sleep bed", 0.5, False, io.StringIO())) == goal_cli.EXIT_REFUSED
    table = goal_cli.render_tasks([t.model_dump(mode="json") for t in agency.tasks.list_by_status(*TaskStatus)])
    assert re.search(rf"{created}\s+completed\s+100%\s+user\s+collect:oak_log", table), table


def test_cancelling_a_running_user_task_ends_it_failed_with_the_reason_and_no_hold_first(world):
    agency, body, c = world
    body.hang.add("collect")  # the collect never finishes by itself: the run is in flight
    task_id = c.post("/api/goals", json={"text": "collect oak_log 2"}).json()["id"]

    async def start() -> None:
        await agency.job_executor()
        for _ in range(5):
            await asyncio.sleep(0)

    asyncio.run(start())
    assert agency.executor.current is not None and agency.executor.current.task_id == task_id
    r = c.post(f"/api/tasks/{task_id}/cancel")
    assert r.status_code == 200 and r.json()["status"] == "failed"
    assert agency.executor.current is None
    kinds = [e.event for e in agency.tasks.events(task_id)]
    assert "held" not in kinds and kinds[-1] == "failed"
    assert agency.tasks.events(task_id)[-1].data["reason"] == "cancelled by the user"


class _DroppingStream(goal_cli.Api):
    """The CLI's API client whose event stream drops once after two events."""

    def __init__(self) -> None:
        super().__init__("http://testserver", None)
        self.asked_after: list[int] = []

    def events(self, task_id, after=0):
        self.asked_after.append(after)

        def ev(seq, kind, status):
            return kind, {"seq": seq, "event": kind, "status": status, "progress": 0.0, "at": 0}

        if len(self.asked_after) == 1:
            yield ev(1, "created", "pending")
            yield ev(2, "claimed", "active")
            raise httpx.ReadTimeout("silent for 40 s")
        yield ev(3, "completed", "completed")
        yield "end", {"taskId": task_id, "status": "completed", "reason": "task completed"}

    def request(self, method, path, **kw):
        return httpx.Response(200, json={"id": "task-1", "status": "active"})


def test_follow_picks_a_dropped_stream_up_after_the_last_event_seen(monkeypatch):
    monkeypatch.setattr(goal_cli, "RECONNECT_PAUSE_S", 0)
    api, out = _DroppingStream(), io.StringIO()
    assert goal_cli._follow(api, "task-1", out) == goal_cli.EXIT_OK
    assert api.asked_after == [0, 2]
    assert [line.split()[1] for line in out.getvalue().splitlines()] == ["created", "claimed", "completed"]


def test_a_task_that_waits_says_why_wherever_it_is_shown(world):
    agency, _body, c = world
    created = c.post("/api/goals", json={"text": "collect oak_log 2"}).json()
    assert created["status"] == "pending" and created["waiting"].startswith("next:")
    agency.reflexes.sheltered = object()  # the night in the shelter holds every task until morning
    try:
        why = "waiting: the bot is sheltering for the night (until morning)"
        assert c.get(f"/api/tasks/{created['id']}").json()["waiting"] == why
        assert c.get("/api/tasks").json()["tasks"][0]["waiting"] == why
        assert agency.api_context(_DaemonView()).live.tasks(5)[0]["waiting"] == why  # the dashboard's stream
    finally:
        agency.reflexes.sheltered = None


def test_the_origin_names_who_asked(world):
    agency, _body, c = world
    task = c.post("/api/goals", json={"text": "collect oak_log 2", "by": "cli"}).json()
    assert task["metadata"]["origin"]["kind"] == "user" and task["metadata"]["origin"]["by"] == "cli"
    said = c.post("/api/bot/chat", json={"text": "collect oak_log 3"})
    assert said.json()["replies"][0].startswith("I will not collect oak_log 3: the same goal is already live")
    c.post(f"/api/tasks/{task['id']}/cancel")
    made = c.post("/api/bot/chat", json={"text": "collect oak_log 3"}).json()["replies"][0]
    chat_task = agency.tasks.get_task(next(t.id for t in _live(agency)))
    assert made.startswith("OK:") and chat_task.metadata.origin.by == "dashboard"
    assert c.post("/api/goals", json={"text": "collect oak_log 2", "by": "no spaces!"}).status_code == 400
    table = goal_cli.render_tasks([t.model_dump(mode="json") for t in agency.tasks.list_by_status(*TaskStatus)])
    assert "user (cli)" in table and "user (dashboard)" in table
