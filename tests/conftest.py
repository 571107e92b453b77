"""Shared fixtures. Integration tests share ONE embedded server and ONE bridge per test
session (JSPyBridge is process-global, and server start-up is the slow part)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "/integration/" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


def wait_until(pred: Callable[[], object], timeout_s: float, what: str, poll_s: float = 0.1) -> object:
    """Wait on a real-world condition with a bounded timeout; the error names what."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(poll_s)


@pytest.fixture(scope="session")
def node_available() -> None:
    if shutil.which("node") is None:
        pytest.fail("node is not installed: integration tests need it (make test installs node deps)")


@pytest.fixture(scope="session")
def embedded_server(node_available: None) -> Iterator["object"]:
    from bot.server import EmbeddedServer, EmbeddedServerSettings, free_port

    server = EmbeddedServer(EmbeddedServerSettings(port=free_port(), hostiles=False))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def bridge(node_available: None) -> Iterator["object"]:
    from bot.bridge import Bridge

    b = Bridge(dead_check_interval_s=0.5)
    b.start()
    yield b
    b.shutdown()


def make_body(bridge: object, port: int, username: str, **kw: object) -> "object":
    from bot.body import ConnectionSettings, MineflayerBody

    body = MineflayerBody(bridge, ConnectionSettings(port=port, username=username, **kw))  # type: ignore[arg-type]
    body.connect()
    return body


@pytest.fixture(scope="session")
def body(bridge: object, embedded_server: object) -> Iterator["object"]:
    b = make_body(bridge, embedded_server.port, "mcbot_test", reconnect_min_s=1.0)  # type: ignore[attr-defined]
    yield b
    b.close()


@pytest.fixture
def live_body(body: object) -> "object":
    """The shared body, reconnected if an earlier test disturbed it."""
    wait_until(body.maintain, 30, "the shared bot to be connected")  # type: ignore[attr-defined]
    body.events()  # type: ignore[attr-defined]
    return body
