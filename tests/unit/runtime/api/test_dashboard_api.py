"""The endpoints behind the dashboard and the MCP server, on a real Agency over the fake
body: the page's shell served without the token (data still needs it), direct actions
(202, poll, cancel, 400 with the fields, 409 busy, 404), the tool catalog, block counts
around the bot, the log tail, shelter status and the live stream's events."""

from __future__ import annotations

import asyncio
import json

import pytest
from fastapi.testclient import TestClient
from loguru import logger

from agency.planning.tasks.models import TaskStatus
from bot.runtime.api import LOOPBACK_NAMES, create_app
from tests.unit.runtime.api.test_goals_api import world  # noqa: F401 - the fixture
from tests.unit.runtime.api.test_http_api import _DaemonView


def _events(text: str) -> list[tuple[str, dict]]:
    out = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        if "event" in fields:
            out.append((fields["event"], json.loads(fields["data"])))
    return out


def test_the_page_is_served_without_the_token_but_its_data_needs_it(world):  # noqa: F811 - the imported fixture
    agency, _body, _ = world
    c = TestClient(create_app(agency.api_context(_DaemonView()), token="s3cret"))
    page = c.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script src="/dashboard/app.js">' in page.text
    assert c.get("/dashboard/app.js").status_code == 200 and c.get("/dashboard/style.css").status_code == 200
    assert c.get("/dashboard/app.js?name=../../etc/passwd").text.startswith("// The mcbot dashboard")
    for path in ("/api/live", "/api/tools", "/api/actions", "/api/logs", "/api/shelters", "/api/viewer"):
        assert c.get(path).status_code == 401, path
    assert c.post("/api/actions", json={"tool": "inventory"}).status_code == 401
    assert c.get("/api/tools", headers={"authorization": "Bearer s3cret"}).status_code == 200


def test_a_direct_action_runs_to_its_end_through_the_api(world):  # noqa: F811 - the imported fixture
    agency, body, _ = world
    with TestClient(create_app(agency.api_context(_DaemonView()))) as c:
        # the same event loop serves every request: the action runs between them
        catalog = c.get("/api/tools").json()
        assert catalog["count"] == len(catalog["tools"]) and {"move_to", "follow", "inventory"} <= {
            t["name"] for t in catalog["tools"]
        }
        r = c.post("/api/actions", json={"tool": "move_to", "args": {"x": 3, "y": 64, "z": 2}})
        assert r.status_code == 202, r.text
        started = r.json()
        assert started["status"] == "running" and started["movesBody"] is True
        for _ in range(200):
            got = c.get(f"/api/actions/{started['actionId']}").json()
            if got["status"] != "running":
                break
        assert got["status"] == "succeeded", got
        assert (body.position.x, body.position.z) == (3, 2)
        assert c.get("/api/actions").json()["actions"][0]["actionId"] == started["actionId"]
        again = c.post(f"/api/actions/{started['actionId']}/cancel")
        assert again.status_code == 409 and "already succeeded" in again.json()["detail"]
        assert c.post("/api/actions/act-nope/cancel").status_code == 404
        assert c.get("/api/actions/act-nope").status_code == 404


@pytest.mark.parametrize(
    "body, status, error, says",
    [
        ({"tool": "teleport"}, 400, "bad_request", "no tool 'teleport'"),
        ({"tool": "move_to", "args": {"x": 1}}, 400, "bad_request", "y: Field required"),
        ({"tool": "move_to", "args": {"x": 1, "y": 2, "z": 3}, "timeoutS": 0}, 400, "bad_request", "timeoutS"),
        ({"tool": "move_to", "extra": 1}, 400, "bad_request", "extra"),
        ({"args": {}}, 400, "bad_request", "tool"),
    ],
)
def test_bad_action_requests_get_a_400_naming_the_field_and_nothing_runs(world, body, status, error, says):  # noqa: F811 - the imported fixture
    agency, fake, c = world
    r = c.post("/api/actions", json=body)
    assert r.status_code == status and r.json()["error"] == error and says in json.dumps(r.json())
    assert fake.started == [] and agency.direct.recent() == []


def test_a_second_body_action_is_a_409_naming_the_running_one(world):  # noqa: F811 - the imported fixture
    agency, body, _ = world
    body.hang.add("move_to")

    async def real_sleep(_seconds: float) -> None:  # the frozen clock stands: no deadline passes
        await asyncio.sleep(0.01)

    agency.tool_ctx.sleep = real_sleep
    with TestClient(create_app(agency.api_context(_DaemonView()))) as c:
        first = c.post("/api/actions", json={"tool": "move_to", "args": {"x": 9, "y": 64, "z": 9}}).json()
        second = c.post("/api/actions", json={"tool": "move_to", "args": {"x": 1, "y": 64, "z": 1}})
        assert second.status_code == 409 and second.json()["error"] == "busy"
        assert second.json()["running"]["actionId"] == first["actionId"]
        cancelled = c.post(f"/api/actions/{first['actionId']}/cancel")
        assert cancelled.status_code == 200
        for _ in range(200):
            if c.get(f"/api/actions/{first['actionId']}").json()["status"] == "cancelled":
                break
        assert c.get(f"/api/actions/{first['actionId']}").json()["error"]["code"] == "CANCELLED"


def test_blocks_around_the_bot_are_counted_by_name_without_air(world):  # noqa: F811 - the imported fixture
    _agency, _body, c = world
    got = c.get("/api/bot/blocks?radius=5").json()
    assert got["radius"] == 5 and got["counts"]["oak_log"] == 4  # the tree at 4, 4
    assert "air" not in got["counts"] and got["total"] == sum(got["counts"].values())
    assert c.get("/api/bot/blocks?radius=17").status_code == 400


def test_the_log_tail_and_the_live_stream_carry_state_tasks_thoughts_and_log_lines(world):  # noqa: F811 - the imported fixture

    agency, _body, _ = world
    view = _DaemonView()
    view.log_tail.attach("INFO")
    try:
        logger.info("dashboard line one")
        c = TestClient(create_app(agency.api_context(view)))
        tail = c.get("/api/logs").json()
        assert [line["message"] for line in tail["lines"]][-1] == "dashboard line one"
        after = tail["lines"][-1]["seq"]
        logger.warning("dashboard line two")
        assert [line["message"] for line in c.get(f"/api/logs?after={after}").json()["lines"]] == ["dashboard line two"]
        c.post("/api/goals", json={"text": "collect oak_log 2"})
        c.post("/thoughts", json={"content": "the trees look close"})
        view.stopping = True  # one round of the stream, then its end
        events = _events(c.get(f"/api/live?logAfter={after}").text)
    finally:
        view.log_tail.detach()
    kinds = [e for e, _ in events]
    assert kinds[0] == "state" and kinds[-1] == "end" and {"tasks", "thought", "log"} <= set(kinds)
    state = dict(events)["state"]
    assert state["snapshot"]["health"] == 20 and state["taskCounts"]["pending"] == 1 and state["shelters"] == []
    assert dict(events)["tasks"]["tasks"][0]["metadata"]["goalKey"] == "collect:oak_log"
    assert dict(events)["thought"]["content"] == "the trees look close"
    logs = [d["message"] for e, d in events if e == "log"]
    assert logs[0] == "dashboard line two" and "dashboard line one" not in logs


def test_without_a_token_only_loopback_names_are_answered(world):  # noqa: F811 - the imported fixture
    """A page that rebinds its own name to 127.0.0.1 sends that name as Host: refused."""
    agency, _body, _ = world
    app = create_app(agency.api_context(_DaemonView()), allowed_hosts=LOOPBACK_NAMES)
    for host in ("127.0.0.1:3003", "localhost:3003", "[::1]:3003", "localhost"):
        assert TestClient(app, base_url=f"http://{host}").get("/api/tools").status_code == 200, host
    evil = TestClient(app, base_url="http://rebound.example:3003")
    refused = evil.post("/api/actions", json={"tool": "chat", "args": {"message": "hi"}})
    assert refused.status_code == 403 and "loopback" in refused.json()["detail"]
    assert evil.get("/").status_code == 403 and agency.direct.recent() == []


def test_the_bot_s_own_routes_run_its_actions_and_read_its_blocks_and_name_the_bots_for_an_unknown_one(world):  # noqa: F811 - the imported fixture
    agency, body, _ = world
    with TestClient(create_app(agency.api_context(_DaemonView()))) as c:
        mine = f"/api/bots/{agency.name.upper()}"  # player names ignore case
        r = c.post(f"{mine}/actions", json={"tool": "move_to", "args": {"x": 2, "y": 64, "z": 1}})
        assert r.status_code == 202, r.text
        action_id = r.json()["actionId"]
        for _ in range(200):
            got = c.get(f"{mine}/actions/{action_id}").json()
            if got["status"] != "running":
                break
        assert got["status"] == "succeeded" and (body.position.x, body.position.z) == (2, 1)
        assert c.get(f"{mine}/actions").json()["actions"][0]["actionId"] == action_id
        assert c.get(f"/api/actions/{action_id}").json()["status"] == "succeeded"  # the first bot's routes: the same
        assert c.post(f"{mine}/actions/{action_id}/cancel").status_code == 409
        assert c.get(f"{mine}/blocks?radius=5").json()["counts"]["oak_log"] == 4
        for method, path in (
            ("post", "/actions"),
            ("get", "/actions"),
            ("get", "/actions/x"),
            ("post", "/actions/x/cancel"),
            ("get", "/blocks"),
        ):
            r = c.request(
                method.upper(), f"/api/bots/zulu{path}", json={"tool": "inventory"} if method == "post" else None
            )
            assert r.status_code == 404 and f"this daemon drives {agency.name}" in r.json()["detail"], (path, r.text)
        assert c.post(f"{mine}/actions", json={"tool": "teleport"}).status_code == 400


def test_a_snapshot_read_through_either_route_is_the_model_s_own_json(world):  # noqa: F811 - the imported fixture
    agency, body, c = world
    mine = c.get(f"/api/bots/{agency.name}/snapshot")
    first = c.get("/api/bot/snapshot")
    assert mine.status_code == first.status_code == 200 and mine.headers["content-type"] == "application/json"
    assert first.json() == body.snapshot().model_dump(mode="json") == mine.json()
    assert first.json()["position"] == {"x": body.position.x, "y": body.position.y, "z": body.position.z}


def test_the_plan_an_obtain_would_become_is_shown_as_steps_and_a_tree_and_nothing_is_stored(world):  # noqa: F811
    agency, body, c = world
    body.inventory["iron_ingot"] = 3
    got = c.get("/api/bot/plan?item=bucket")
    assert got.status_code == 200, got.text
    plan = got.json()
    assert plan["goal"] == {"action": "craft", "target": "bucket", "amount": 1}
    assert plan["steps"][-1]["id"] == "craft-bucket" and plan["steps"][-1]["serves"] == "craft bucket"
    assert not any(s["id"].startswith("smelt") for s in plan["steps"])  # the ingots held
    top = plan["tree"]["children"][0]
    assert top["what"] == "craft bucket" and top["steps"][-1]["id"] == "craft-bucket"
    refused = c.get("/api/bot/plan?item=blaze_rod")
    assert refused.status_code == 422 and "the nether" in refused.json()["detail"]
    assert c.get("/api/bot/plan?item=Bad Name").status_code == 400
    assert c.get("/api/bot/plan?item=stick&amount=0").status_code == 400
    assert agency.tasks.list_by_status(*TaskStatus) == []


def test_the_bot_list_says_why_the_reflexes_hold_the_body_which_the_bench_reads(world):  # noqa: F811
    # bot/tooling/soak_sample.py reads it: a bot at work in a reflex with no task active is not idle
    agency, _body, c = world
    first = c.get("/api/bots").json()["bots"][0]
    assert (first["reflexHold"], first["reflexActing"]) == (None, False)
    agency.reflexes._acting = True  # what the arbiter's tick sets while a reflex acts
    try:
        first = c.get("/api/bots").json()["bots"][0]
    finally:
        agency.reflexes._acting = False
    assert (first["reflexHold"], first["reflexActing"]) == ("a reflex is acting (a threat, hunger or the night)", True)
