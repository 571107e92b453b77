"""Shared fixtures. Integration tests share ONE embedded server per Minecraft version and ONE
bridge per test session (JSPyBridge is process-global, and server start-up is the slow part).

The version matrix: every test that uses the embedded world runs once per version of
`--mc-version` (repeatable or comma-separated), else of the environment variable
MCBOT_TEST_MC_VERSIONS, else of MC_VERSIONS below. Tests are grouped by version, so one
server per version is up at a time. A test marked one_version (a daemon property the protocol
cannot change) runs at the first of those versions only, unless --every-version is given (make
test-matrix gives it); the summary says which and why."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import settings

from bot.config.loader import EMBEDDED_VERSIONS as MC_VERSIONS  # every version we claim, the default first
from bot.runtime.body import ConnectionSettings, MineflayerBody
from bot.runtime.bridge import Bridge
from bot.runtime.node_runtime import NodeRuntimeError, resolve_node_bin
from bot.runtime.server import EmbeddedServer, EmbeddedServerSettings, free_port
from bot.tooling.loopback_http import loopback

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"

# The property tests draw the same examples on every run: a test that passes or fails by the
# draw is no test (one found a fault of the build plan in one run of three). To look for new
# faults, HYPOTHESIS_PROFILE=explore draws fresh ones (docs/testing.md).
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--mc-version",
        action="append",
        default=[],
        metavar="VERSION",
        help="Minecraft version(s) of the embedded world for integration tests "
        f"(repeatable or comma-separated; default {','.join(MC_VERSIONS)} "
        "or $MCBOT_TEST_MC_VERSIONS)",
    )
    parser.addoption(
        "--every-version", action="store_true", help="run the one_version tests at every selected version too"
    )


def mc_versions(config: pytest.Config) -> list[str]:
    raw = ",".join(config.getoption("--mc-version")) or os.environ.get("MCBOT_TEST_MC_VERSIONS", "")
    versions = [v.strip() for v in raw.split(",") if v.strip()] or list(MC_VERSIONS)
    unknown = [v for v in versions if v not in MC_VERSIONS]
    if unknown:
        raise pytest.UsageError(f"--mc-version {unknown}: the embedded world serves {list(MC_VERSIONS)}")
    return versions


@pytest.fixture(params=MC_VERSIONS)
def replay_version(request: pytest.FixtureRequest) -> str:
    """Replay tests run on every version's recorded set (tests/fixtures/<version>/)."""
    return str(request.param)


def replay_fixture(version: str, name: str) -> Path:
    return FIXTURES / version / f"{name}.jsonl"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "mc_version" in metafunc.fixturenames:
        versions = mc_versions(metafunc.config)
        one = metafunc.definition.get_closest_marker("one_version")
        if one and not metafunc.config.getoption("--every-version"):
            versions = versions[:1]  # the other versions run every protocol-facing test
        metafunc.parametrize("mc_version", versions, scope="session")


_ONE_VERSION = pytest.StashKey[list[str]]()


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    for line in config.stash.get(_ONE_VERSION, []):
        terminalreporter.write_line(line)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    every = config.getoption("--every-version")
    config.stash[_ONE_VERSION] = [
        f"one version only: {item.nodeid} ({m.kwargs.get('reason', '')})"
        for item in items
        if not every and (m := item.get_closest_marker("one_version"))
    ]
    for item in items:
        if "/integration/" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


# The test worlds send 4 chunks around each player, not the default 6: a far teleport, which
# most tests start with, then generates, sends and parses 81 chunks instead of 169 (the embedded
# servers were 43 % of make test's CPU). Every test's world stays within 4 chunks of its bot.
TEST_VIEW_DISTANCE = int(os.environ.get("MCBOT_TEST_VIEW_DISTANCE", "4"))


def world_settings(**settings: Any) -> EmbeddedServerSettings:
    """The settings of an embedded world a test starts itself (TEST_VIEW_DISTANCE)."""
    return EmbeddedServerSettings(**{"view_distance": TEST_VIEW_DISTANCE, **settings})


def daemon_env(tmp_path: Path, mc_version: str, api_port: int, **over: str) -> dict[str, str]:
    """The environment of a `python -m bot run` under test: its own world port, API port and
    database, no log file, no hostiles; `over` adds or replaces MCBOT_* keys."""
    return {
        **os.environ,
        "MCBOT_SERVER__EMBEDDED_VERSION": mc_version,
        "MCBOT_SERVER__PORT": str(free_port()),
        "MCBOT_API__PORT": str(api_port),
        "MCBOT_VIEWER__PORT": str(free_port()),  # daemons side by side: a 3D view each
        "MCBOT_STORAGE__DB_PATH": str(tmp_path / "daemon.db"),
        "MCBOT_LOGGING__FILE": "",
        "MCBOT_SERVER__HOSTILES": "false",
        "MCBOT_SERVER__VIEW_DISTANCE": str(TEST_VIEW_DISTANCE),
        "MCBOT_SERVER__WORLD_FOLDER": "",  # a fresh world in memory, unless a test keeps one
        **over,
    }


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


# A daemon whose every task is the test's: no hostiles, no hunger, no drive ticks.
USER_TASKS_ONLY = """
[server]
hostiles = false
hunger_rate = 0.0

[drive_tick]
enabled = false
"""


def stop_daemon(p: subprocess.Popen[str], timeout_s: float = 30) -> int:
    """SIGTERM a `mcbot run` a test started (SIGKILL after timeout_s); its exit code."""
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            return p.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            p.kill()
    return p.wait()


def wait_healthy(
    p: subprocess.Popen[str], base: str, timeout_s: float = 120, output: Callable[[], str] | None = None
) -> None:
    """Wait until a `mcbot run` started by a test says ok on /healthz; if it exits first,
    fail with its output (`output` reads it when it goes to a file, not a pipe)."""

    def healthy() -> bool:
        assert p.poll() is None, output() if output else (p.stdout.read() if p.stdout else "daemon exited")
        try:
            return loopback().get(f"{base}/healthz", timeout=2).json().get("ok", False)
        except (httpx.HTTPError, ValueError):
            return False

    wait_until(healthy, timeout_s, "the daemon's /healthz to report ok")


@pytest.fixture(scope="session")
def node_available() -> None:
    try:
        resolve_node_bin()
    except NodeRuntimeError as e:
        pytest.fail(f"integration tests need Node >= 22: {e}")


@pytest.fixture(scope="session")
def embedded_server(node_available: None, mc_version: str) -> Iterator[EmbeddedServer]:
    server = EmbeddedServer(world_settings(port=free_port(), version=mc_version, hostiles=False))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def bridge(node_available: None) -> Iterator[Bridge]:
    b = Bridge(dead_check_interval_s=0.5)
    b.start()
    yield b
    b.shutdown()


def make_body(bridge: Bridge, port: int, username: str, **kw: Any) -> MineflayerBody:
    body = MineflayerBody(bridge, ConnectionSettings(port=port, username=username, **kw))
    body.connect()
    return body


@pytest.fixture(scope="session")
def body(bridge: Bridge, embedded_server: EmbeddedServer) -> Iterator[MineflayerBody]:
    b = make_body(bridge, embedded_server.port, "mcbot_test", reconnect_min_s=1.0)
    yield b
    b.close()


@pytest.fixture
def live_body(body: MineflayerBody) -> MineflayerBody:
    """The shared body, reconnected if an earlier test disturbed it."""
    wait_until(body.maintain, 30, "the shared bot to be connected")
    body.events()
    return body
