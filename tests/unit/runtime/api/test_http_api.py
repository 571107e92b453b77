"""The HTTP API on a real Agency (SQLite stores) with no bot: bad input, auth, limits, ack."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from bot.config.loader import McbotConfig
from bot.runtime.api import create_app
from bot.runtime.log_tail import LogTail
from bot.runtime.scheduler import Scheduler
from bot.runtime.wiring import Agency


class _DaemonView:
    """What the API context reads off the daemon, with no bot."""

    def __init__(self) -> None:
        self.scheduler = Scheduler()
        self.bridge = None
        self.body = None
        self.stopping = False
        self.log_tail = LogTail()

    async def viewer_status(self):
        return {"enabled": False, "running": False}

    def health(self):
        return {"ok": False, "botConnected": False, "bridgeAlive": False, "schedulerRunning": False}


@pytest.fixture
def agency(tmp_path):
    cfg = McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "api.db")}})
    a = Agency(cfg)
    yield a
    a.close()


def _client(agency, monkeypatch, env="production", token=None, max_body=4096):
    monkeypatch.setenv("MCBOT_ENV", env)
    app = create_app(agency.api_context(_DaemonView()), token=token, max_body_bytes=max_body)
    return TestClient(app)


def test_post_thought_ignores_convertEligible_in_production(agency, monkeypatch):
    c = _client(agency, monkeypatch, "production")
    r = c.post("/thoughts", json={"content": "I see trees. [GOAL: collect oak_log 4]", "convertEligible": True})
    assert r.status_code == 201
    assert r.json()["convertEligible"] is False and r.json()["processed"] is False
    assert c.get("/api/cognitive-stream/actionable?limit=10").json()["count"] == 0


def test_post_thought_honours_convertEligible_in_development_when_grounded(agency, monkeypatch):
    c = _client(agency, monkeypatch, "development")
    r = c.post("/thoughts", json={"content": "Time to explore. [GOAL: explore nearby 1]", "convertEligible": True})
    assert r.status_code == 201 and r.json()["convertEligible"] is True
    feed = c.get("/api/cognitive-stream/actionable?limit=10").json()
    assert feed["count"] == 1


def test_ack_semantics_fetched_equals_acked_and_acked_never_reappear(agency, monkeypatch):
    c = _client(agency, monkeypatch, "development")
    for i in range(3):
        c.post("/thoughts", json={"content": f"Wander {i}. [GOAL: explore nearby 1]", "convertEligible": True})
    ids = [t["id"] for t in c.get("/api/cognitive-stream/actionable?limit=10").json()["thoughts"]]
    assert len(ids) == 3
    r = c.post("/api/cognitive-stream/ack", json={"thoughtIds": ids})
    assert r.status_code == 200 and r.json()["acked"] == 3
    assert c.get("/api/cognitive-stream/actionable?limit=10").json()["count"] == 0
    processed = c.get("/api/cognitive-stream/recent?limit=10&processed=true").json()
    assert {t["id"] for t in processed["thoughts"]} == set(ids)


@pytest.mark.parametrize(
    "body,content_type",
    [
        (b"{not json", "application/json"),
        (json.dumps({"thoughtIds": "abc"}).encode(), "application/json"),
        (json.dumps({"thoughtIds": [1, 2]}).encode(), "application/json"),
        (json.dumps({"thoughtIds": []}).encode(), "application/json"),
        (json.dumps({"ids": ["x"]}).encode(), "application/json"),
    ],
)
def test_bad_ack_bodies_get_400_with_a_reason_and_change_nothing(agency, monkeypatch, body, content_type):
    c = _client(agency, monkeypatch)
    r = c.post("/api/cognitive-stream/ack", content=body, headers={"content-type": content_type})
    assert r.status_code == 400
    assert r.json()["error"] == "bad_request" and r.json()["detail"]


def test_ack_of_unknown_ids_is_404(agency, monkeypatch):
    r = _client(agency, monkeypatch).post("/api/cognitive-stream/ack", json={"thoughtIds": ["nope"]})
    assert r.status_code == 404 and r.json()["unknown"] == ["nope"]


def test_wrong_types_on_post_thought_are_rejected_and_nothing_is_stored(agency, monkeypatch):
    c = _client(agency, monkeypatch, "development")
    for body in ({"content": 5}, {"content": ""}, {"content": "x", "convertEligible": "yes"}, [1, 2]):
        assert c.post("/thoughts", json=body).status_code == 400
    assert c.get("/thoughts").json()["count"] == 0


def test_a_huge_body_gets_413_and_nothing_is_stored(agency, monkeypatch):
    c = _client(agency, monkeypatch, max_body=2048)
    r = c.post("/thoughts", content=json.dumps({"content": "x" * 10_000}), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert c.get("/thoughts").json()["count"] == 0


def test_a_huge_body_without_content_length_still_gets_413(agency, monkeypatch):
    c = _client(agency, monkeypatch, max_body=2048)

    def chunks():
        yield b'{"content": "'
        for _ in range(10):
            yield b"y" * 1000
        yield b'"}'

    r = c.post("/thoughts", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_unknown_task_id_is_404_and_bad_status_filter_is_400(agency, monkeypatch):
    c = _client(agency, monkeypatch)
    assert c.get("/api/tasks/task-missing").status_code == 404
    assert c.get("/api/tasks?status=sleeping").status_code == 400
    assert c.get("/api/tasks").json()["count"] == 0


def test_bad_query_parameters_are_400(agency, monkeypatch):
    c = _client(agency, monkeypatch)
    assert c.get("/api/cognitive-stream/actionable?limit=-1").status_code == 400
    assert c.get("/api/cognitive-stream/recent?processed=maybe").status_code == 400


def test_token_is_required_when_configured(agency, monkeypatch):
    c = _client(agency, monkeypatch, token="s3cret")
    assert c.get("/api/agency/counters").status_code == 401
    ok = c.get("/api/agency/counters", headers={"authorization": "Bearer s3cret"})
    assert ok.status_code == 200 and "driveTicks" in ok.json()


def test_healthz_is_503_when_the_bot_is_down_and_metrics_are_prometheus_text(agency, monkeypatch):
    c = _client(agency, monkeypatch)
    assert c.get("/healthz").status_code == 503
    m = c.get("/metrics")
    assert m.status_code == 200 and 'mcbot_agency_counter{name="driveTicks",bot="mcbot"} 0' in m.text
    assert "mcbot_bridge_calls_total 0" in m.text


def test_snapshot_without_a_bot_is_503(agency, monkeypatch):
    assert _client(agency, monkeypatch).get("/api/bot/snapshot").status_code == 503


def test_non_loopback_api_host_without_token_is_a_config_error():
    with pytest.raises(ValidationError, match=r"api.token must be set"):
        McbotConfig.model_validate({"api": {"host": "0.0.0.0"}})
