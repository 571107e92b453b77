"""The 3D view follows the body: served once the bot is in, re-attached (same server, same
port) to the new bot a reconnect makes, started again in the node a dead bridge is rebuilt
with, never in the way of a connect, and gone with the body."""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Iterator

import pytest
from loguru import logger

from agency.world import EventType
from bot.config.sections import ViewerConfig
from bot.runtime.body import ConnectionSettings, MineflayerBody
from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import wait_until


@pytest.fixture
def info_lines() -> Iterator[list[str]]:
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(f"{m.record['level'].name} {m.record['message']}"), level="INFO")
    yield lines
    logger.remove(sink)


def _body(bridge, server, username: str, viewer: ViewerConfig) -> MineflayerBody:
    settings = ConnectionSettings(port=server.port, username=username, reconnect_min_s=1.0, reconnect_max_s=2.0)
    body = MineflayerBody(bridge, settings, viewer=viewer)
    body.connect()
    return body


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _assert_served(body: MineflayerBody, port: int) -> None:
    st = body.viewer_status()
    assert st["running"] and st["botAttached"], st
    assert (st["port"], st["url"], st["error"]) == (port, f"http://127.0.0.1:{port}/", None)
    page = loopback().get(st["url"], timeout=10)
    assert page.status_code == 200 and 'src="index.js"' in page.text


def test_the_view_is_served_kept_across_a_reconnect_and_freed_on_close(bridge, embedded_server, mc_version, info_lines):
    port = free_port()
    body = _body(bridge, embedded_server, "mcbot_viewer", ViewerConfig(port=port, view_distance=2))
    try:
        _assert_served(body, port)
        assert f"INFO [Viewer] 3D view at http://127.0.0.1:{port}/ (bot mcbot_viewer)" in info_lines

        body.chat("/kick mcbot_viewer")  # the server ends the connection: a new bot object follows
        wait_until(lambda: any(e.type is EventType.end for e in body.events()), 20, "the bot's end event")
        old_bot = body.bot_id
        body.reconnect_now()
        wait_until(body.maintain, 30, "the bot to reconnect")
        assert body.bot_id != old_bot
        _assert_served(body, port)
        assert "INFO [Viewer] re-attached to the new bot" in info_lines
        assert sum("3D view at" in line for line in info_lines) == 1, "the same server, not a new one"
    finally:
        body.close()
    st = body.viewer_status()
    assert (st["running"], st["botAttached"]) == (False, False)
    assert _port_free(port)


def test_the_view_comes_back_with_a_rebuilt_bridge(bridge, embedded_server, mc_version, info_lines):
    port = free_port()
    body = _body(bridge, embedded_server, "mcbot_viewer_rb", ViewerConfig(port=port, view_distance=2))
    try:
        _assert_served(body, port)
        os.kill(bridge.node_pid, signal.SIGKILL)  # the viewer's server dies with its node
        wait_until(lambda: not bridge.alive, 5, "the bridge to be declared dead")
        wait_until(body.maintain, 60, "bridge rebuild and reconnect")
        _assert_served(body, port)
        assert sum("3D view at" in line for line in info_lines) == 2, "started again in the new node"
    finally:
        body.close()
    assert _port_free(port)


def test_a_busy_port_costs_a_warning_not_the_connect(bridge, embedded_server, mc_version, info_lines):
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        body = _body(bridge, embedded_server, "mcbot_viewer_busy", ViewerConfig(port=port))
        try:
            assert body.connected and body.snapshot().health > 0
            st = body.viewer_status()
            assert st["running"] is False and "EADDRINUSE" in st["error"], st
            warnings = [line for line in info_lines if line.startswith("WARNING [Viewer]")]
            assert len(warnings) == 1 and str(port) in warnings[0] and "EADDRINUSE" in warnings[0]
        finally:
            body.close()


def test_a_disabled_view_asks_node_nothing(bridge, embedded_server, mc_version):
    body = _body(bridge, embedded_server, "mcbot_viewer_off", ViewerConfig(enabled=False))
    calls = bridge.calls
    try:
        assert body.viewer_status() == {"running": False, "enabled": False}
        assert bridge.calls == calls
        assert bridge.call_json("viewerStatus")["running"] is False
    finally:
        body.close()
