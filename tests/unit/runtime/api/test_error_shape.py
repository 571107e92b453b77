"""Every error the API answers has one shape, `{"error": <code>, "detail": <reason>}`
(bot/runtime/api/errors.py): its own refusals, FastAPI's validation errors, a body that is
not JSON or nests too deep to parse, an unknown route, a method a route does not take, a
failure no route expected, and the answers given before routing (401, 403, 413) or below
it (408)."""

from __future__ import annotations

import json
import socket
import threading
import time
from types import SimpleNamespace as NS
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agency.execution.direct import DirectActionError
from bot.runtime.api import ApiContext, BotUnavailable, create_app
from bot.runtime.api.server import api_server
from bot.runtime.server import free_port


class _Direct:
    def clock(self) -> int:
        return 0

    def catalog(self) -> list[dict[str, Any]]:
        return [{"name": "move_to"}]

    def start(self, tool: str, args: dict[str, Any], timeout_s: float | None) -> Any:
        raise DirectActionError("busy", "the bot is busy", {"actionId": "act-1"})

    def get(self, action_id: str) -> Any:
        return None

    def cancel(self, action_id: str) -> Any:
        raise KeyError(action_id)


def _context(**overrides: Any) -> ApiContext:
    async def snapshot() -> Any:
        raise BotUnavailable("bot mcbot is not connected")

    async def submit_goal(_request: Any) -> Any:
        return NS(
            created=False,
            task_id=None,
            verdict="duplicate",
            reason="already doing it",
            goal_key="collect:oak_log",
            goal=NS(model_dump=lambda: {"action": "collect"}),
        )

    def broken() -> list[Any]:
        raise RuntimeError("a store that fails")

    fields: dict[str, Any] = {
        "stream": NS(
            actionable=lambda _limit: broken(),
            recent=lambda _limit, processed=None: [],
            ack=lambda ids, processed_by: NS(acked=[], requested=ids, already_processed=[], unknown=ids),
        ),
        "tasks": NS(get_task=lambda _id: None),
        "counters": NS(snapshot=dict),
        "snapshot": snapshot,
        "poke_keepalive": None,
        "health": lambda: {"ok": True},
        "metrics": lambda: "",
        "inject_thought": None,
        "submit_goal": submit_goal,
        "direct": _Direct(),
        "bot_name": "alpha",
    }
    return ApiContext(**{**fields, **overrides})


def _client(ctx: ApiContext | None = None, **options: Any) -> TestClient:
    return TestClient(create_app(ctx or _context(), **options), raise_server_exceptions=False)


def _shape(r: Any, status: int, error: str) -> Any:
    """The response's body, after checking it is the one error shape with this status and code."""
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert isinstance(body, dict) and body["error"] == error, body
    detail = body["detail"]
    if isinstance(detail, list):  # what FastAPI found wrong with the request, field by field
        assert detail and all(isinstance(d["loc"], str) and isinstance(d["msg"], str) and d["msg"] for d in detail)
    else:
        assert isinstance(detail, str) and detail
    return body


DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    "method, path, content, why",
    [
        ("GET", "/api/cognitive-stream/actionable?limit=0", None, "query.limit"),
        ("GET", "/api/tasks?order=up", None, "query.order"),
        ("POST", "/api/goals", b'{"priority": 2}', "body.priority"),
        ("POST", "/api/actions", b'{"tool": "move_to", "more": 1}', "body.more"),
        ("POST", "/api/cognitive-stream/ack", b"{not json", "JSON decode error"),
        ("POST", "/thoughts", b"\xff\xfe", "JSON decode error"),
        ("POST", "/api/goals", b"", "Field required"),
        ("POST", "/api/goals", DEEP.encode(), "error parsing the body"),
        ("POST", "/thoughts", DEEP.encode(), "error parsing the body"),
    ],
)
def test_a_request_that_cannot_be_read_is_a_400_in_the_shape(method, path, content, why):
    r = _client().request(method, path, content=content, headers={"content-type": "application/json"})
    body = _shape(r, 400, "bad_request")
    assert why in json.dumps(body["detail"])


def test_an_unknown_route_is_a_404_naming_it():
    for path in ("/nope", "/api/nope", "/api/bots/alpha/nope", "/docs", "/openapi.json"):
        body = _shape(_client().get(path), 404, "not_found")
        assert body["detail"] == f"no route {path}"


def test_a_method_the_route_does_not_take_is_a_405_saying_which_it_takes():
    c = _client()
    for method, path, allowed in (
        ("GET", "/api/goals", "POST"),
        ("DELETE", "/thoughts", "POST"),
        ("POST", "/healthz", "GET"),
        ("PUT", "/api/actions/act-1", "GET"),
    ):
        r = c.request(method, path)
        body = _shape(r, 405, "method_not_allowed")
        assert r.headers["allow"] == allowed
        assert body["detail"] == f"{method} is not allowed on {path} (it takes {allowed})"


def test_the_routes_own_refusals_and_the_domain_errors_share_the_shape():
    c = _client()
    assert "no task t-9" in _shape(c.get("/api/tasks/t-9"), 404, "not_found")["detail"]
    unknown_bot = _shape(c.get("/api/bots/zulu/actions"), 404, "not_found")
    assert unknown_bot["detail"] == "no bot 'zulu' (this daemon drives alpha)"
    assert _shape(c.get("/api/tasks?status=sleeping"), 400, "bad_request")["detail"] == "unknown status in 'sleeping'"
    assert _shape(c.get("/api/places"), 501, "not_available")["detail"] == "place memory is not wired"
    assert _shape(c.get("/api/bot/snapshot"), 503, "unavailable")["detail"] == "bot mcbot is not connected"
    busy = _shape(c.post("/api/actions", json={"tool": "move_to"}), 409, "busy")  # a DirectActionError
    assert busy["running"] == {"actionId": "act-1"}
    refused = _shape(c.post("/api/goals", json={"text": "collect oak_log 2"}), 409, "duplicate")  # a refused goal
    assert refused["goalKey"] == "collect:oak_log"
    gone = _shape(c.post("/api/cognitive-stream/ack", json={"thoughtIds": ["th-9"]}), 404, "not_found")
    assert gone["unknown"] == ["th-9"] and gone["acked"] == 0  # the ack's counts stay beside the shape
    detached = _client(_context(direct=None))
    assert _shape(detached.get("/api/tools"), 503, "unavailable")["detail"] == "bot is not attached yet"


def test_a_failure_no_route_expected_is_a_500_in_the_shape():
    body = _shape(_client().get("/api/cognitive-stream/actionable"), 500, "internal_error")
    assert "a store that fails" not in body["detail"]  # the log has the traceback, the client a sentence


def test_the_gate_answers_in_the_shape_before_routing():
    guarded = _client(token="s3cret")
    assert _shape(guarded.get("/api/tasks"), 401, "unauthorized")["detail"] == "missing or wrong API token"
    _shape(guarded.get("/nope"), 401, "unauthorized")  # no token: not even which routes exist
    loopback = _client(allowed_hosts=frozenset({"127.0.0.1"}))
    assert "loopback" in _shape(loopback.get("/healthz"), 403, "forbidden")["detail"]
    small = _client(max_body_bytes=100)
    declared = small.post("/thoughts", json={"content": "x" * 200})
    assert _shape(declared, 413, "payload_too_large")["detail"] == "request body exceeds 100 bytes"
    streamed = small.post(
        "/thoughts", content=iter([b'{"content": "', b"y" * 200, b'"}']), headers={"content-type": "application/json"}
    )  # no Content-Length
    _shape(streamed, 413, "payload_too_large")


def test_a_request_that_does_not_arrive_in_time_is_a_408_in_the_shape():
    port = free_port()
    server = api_server(create_app(_context()), "127.0.0.1", port, read_timeout_s=0.3)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "API server did not start"
            time.sleep(0.02)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(
                b"POST /thoughts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"
            )  # 1 of 50 bytes
            reply = b""
            while chunk := s.recv(4096):
                reply += chunk
    finally:
        server.should_exit = True
        thread.join(10)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ") and b"content-type: application/json" in head.lower()
    assert json.loads(body) == {"error": "request_timeout", "detail": "request not received in time"}
