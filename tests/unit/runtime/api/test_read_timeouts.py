"""The API server the daemon runs (bot.runtime.api.server.api_server), on a real loopback socket:
a stalled request gets 408 and a close within the read deadline; whole requests are served."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from bot.config.loader import McbotConfig
from bot.runtime.api import create_app
from bot.runtime.api.server import api_server
from bot.runtime.server import free_port
from bot.runtime.wiring import Agency
from tests.unit.runtime.api.test_http_api import _DaemonView

BOUND_S = 12.0  # the promise is 408 or a close within 10 s; the default deadline is 5 s


@pytest.fixture
def served(tmp_path):
    cfg = McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "api.db")}})
    agency = Agency(cfg)
    port = free_port()
    server = api_server(create_app(agency.api_context(_DaemonView())), "127.0.0.1", port, cfg.api.read_timeout_s)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "API server did not start"
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(10)
    agency.close()


def _send(port: int, raw: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=BOUND_S + 5)
    s.sendall(raw)
    return s


def _read_until_close(s: socket.socket) -> bytes:
    out = b""
    while chunk := s.recv(4096):
        out += chunk
    s.close()
    return out


def test_stalled_requests_get_408_and_a_close_within_the_bound(served):
    t0 = time.monotonic()
    short_body = _send(
        served,
        b"POST /thoughts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n" + b'{"content"',
    )  # 10 of 100 bytes
    partial_headers = _send(served, b"GET /thoughts HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    idle = _send(served, b"")
    for s in (short_body, partial_headers):
        reply = _read_until_close(s)
        assert reply.startswith(b"HTTP/1.1 408 "), reply
        assert b"request_timeout" in reply
    assert _read_until_close(idle) == b""  # a connection that never asked anything is just closed
    assert time.monotonic() - t0 < BOUND_S


def test_whole_requests_are_served_and_keep_alive_still_works(served):
    s = _send(served, b"GET /thoughts HTTP/1.1\r\nHost: x\r\n\r\n")
    s.settimeout(BOUND_S)
    first = b""
    while b'"thoughts"' not in first:
        first += s.recv(65536)
    assert first.startswith(b"HTTP/1.1 200 "), first
    s.sendall(
        b"POST /thoughts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 18\r\n"
        b"Connection: close\r\n\r\n" + b'{"content": "hi!"}'
    )
    second = _read_until_close(s)
    assert second.startswith(b"HTTP/1.1 201 "), second
