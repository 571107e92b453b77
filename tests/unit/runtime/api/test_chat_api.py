"""The chat box's API (bot/runtime/api/routes/bots.py): a line from the dashboard answered
as a commander's, back in the response and not in the game's chat; the lines heard and said
listed after a seq; bad lines 400; chat turned off 409. On a real Agency over the fake body."""

from __future__ import annotations

from fastapi.testclient import TestClient

from agency.chat.handler import DASHBOARD
from bot.runtime.api import create_app
from tests.unit.runtime.api.test_goals_api import agency_over
from tests.unit.runtime.api.test_http_api import _DaemonView


def test_the_dashboard_talks_to_the_bot_as_a_commander_and_sees_the_chat(tmp_path, monkeypatch):
    agency, body, c = agency_over(tmp_path, monkeypatch)
    try:
        said_in_game: list[str] = []
        body.chat = said_in_game.append
        r = c.post("/api/bot/chat", json={"text": "mcbot status"})
        assert r.status_code == 200, r.text
        assert r.json() == {"bot": agency.name, "replies": ["I am idle: nothing to do."]}
        inv = c.post("/api/bot/chat", json={"text": "inventory"}).json()["replies"]  # `mcbot` may be left out
        assert inv[0].startswith("I hold")
        goal = c.post("/api/bot/chat", json={"text": "collect oak_log 2"}).json()["replies"]
        assert goal[0].startswith("OK: collect oak_log 2 (task "), goal
        assert said_in_game == []  # answered to the dashboard, not in the game's chat
        come = c.post("/api/bot/chat", json={"text": "follow me"}).json()["replies"]
        assert come == ["follow needs a player in the game to go to; the dashboard is not one."]
        assert agency.direct.recent() == []  # nothing started
        lines = c.get("/api/bot/chat").json()["lines"]
        assert [(line["player"], line["said"]) for line in lines[:2]] == [(DASHBOARD, False), (agency.name, True)]
        assert lines[0]["text"] == "mcbot status" and lines[1]["text"].startswith(f"{DASHBOARD}, I am")
        lines = c.get("/api/bot/chat").json()["lines"]
        after = c.get("/api/bot/chat", params={"after": lines[-2]["seq"]}).json()["lines"]
        assert after == lines[-1:]
        for bad in ({"text": ""}, {"text": "x" * 257}, {"text": 5}, {"line": "status"}):
            r = c.post("/api/bot/chat", json=bad)
            assert r.status_code == 400, (bad, r.text)
        assert c.get("/api/bot/chat", params={"after": -1}).status_code == 400
        assert c.get("/api/bots/nobody/chat").status_code == 404
    finally:
        agency.close()


def test_with_chat_off_the_box_gets_a_409_saying_so(tmp_path, monkeypatch):
    agency, _body, _c = agency_over(tmp_path, monkeypatch)
    try:
        agency.chat = None
        c = TestClient(create_app(agency.api_context(_DaemonView())))
        r = c.post("/api/bot/chat", json={"text": "status"})
        assert r.status_code == 409 and r.json()["error"] == "chat_off" and "[chat] enabled" in r.json()["detail"]
    finally:
        agency.close()
