"""`mcbot run` with its own embedded world: a SIGKILLed world is reaped, restarted on the
same port, the bot reconnects, and /healthz names the world while it is down."""

from __future__ import annotations

import signal
import subprocess
import sys

import httpx
import psutil
import pytest

from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, daemon_env, wait_until

pytestmark = pytest.mark.one_version(
    reason="restarting the world process is the daemon's supervision, not the protocol"
)


def _world_process(daemon_pid: int) -> psutil.Process | None:
    for c in psutil.Process(daemon_pid).children(recursive=True):
        try:
            if any(part.endswith("server.js") for part in c.cmdline()):
                return c
        except psutil.NoSuchProcess:
            continue
    return None


def test_killed_world_is_restarted_on_the_same_port_and_the_daemon_is_healthy_again(tmp_path, mc_version):
    api_port, mc_port = free_port(), free_port()
    env = daemon_env(tmp_path, mc_version, api_port, MCBOT_SERVER__PORT=str(mc_port))
    p = subprocess.Popen(
        [sys.executable, "-m", "bot", "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{api_port}"
    seen: list[dict] = []

    def health() -> dict | None:
        assert p.poll() is None, p.stdout.read()
        try:
            h = loopback().get(f"{base}/healthz", timeout=2).json()
        except httpx.HTTPError:
            return None
        seen.append(h)
        return h

    try:
        wait_until(lambda: (h := health()) and h["ok"], 90, "the daemon's /healthz to report ok")
        assert health()["world"] == "up" and health()["down"] == []
        world = _world_process(p.pid)
        assert world is not None and str(mc_port) in world.cmdline()
        old_pid = world.pid
        world.send_signal(signal.SIGKILL)

        wait_until(
            lambda: (h := health()) and "world" in h["down"], 10, "/healthz to name the world as down", poll_s=0.05
        )
        down = next(h for h in seen if "world" in h["down"])
        assert down["ok"] is False and down["world"].startswith("restarting (1/")
        # As long as a first start may take: a loaded machine stretches a world's start, and how
        # soon the restart began is read from the log below (its first backoff), not a clock.
        wait_until(lambda: (h := health()) and h["ok"], 90, "the daemon healthy again after the world restart")
        h = health()
        assert h["world"] == "up" and h["botConnected"] and h["down"] == []

        new_world = _world_process(p.pid)
        assert new_world is not None and new_world.pid != old_pid
        assert new_world.cmdline()[new_world.cmdline().index("--port") + 1] == str(mc_port)
        assert not psutil.pid_exists(old_pid) or psutil.Process(old_pid).status() != psutil.STATUS_ZOMBIE
        zombies = [c.pid for c in psutil.Process(p.pid).children(recursive=True) if c.status() == psutil.STATUS_ZOMBIE]
        assert zombies == []

        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=20)
        assert p.returncode == 0, out[-2000:]
        assert "embedded world exited with code" in out and "restarting in 1.0 s (1/5)" in out, out[-3000:]
        assert "embedded world restarted (1/5)" in out
        # Nothing runs blind: while the world was down the reflexes (1 s job) waited and said
        # so once, not once a tick.
        assert out.count("[Reflexes] waiting: the bot is not connected") == 1, out[-3000:]
        assert out.count("[Executor] waiting: the bot is not connected") <= 1
    finally:
        if p.poll() is None:
            p.kill()


def test_a_world_that_keeps_dying_stops_the_daemon_with_exit_3(tmp_path, mc_version):
    api_port = free_port()
    env = daemon_env(
        tmp_path, mc_version, api_port, MCBOT_SERVER__WORLD_MAX_RESTARTS="0"
    )  # the first death is one too many
    p = subprocess.Popen(
        [sys.executable, "-m", "bot", "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:

        def running() -> bool:
            assert p.poll() is None, p.stdout.read()
            try:
                return loopback().get(f"http://127.0.0.1:{api_port}/healthz", timeout=2).json()["ok"]
            except httpx.HTTPError:
                return False

        wait_until(running, 90, "the daemon to run")
        children = {c.pid for c in psutil.Process(p.pid).children(recursive=True)}
        _world_process(p.pid).send_signal(signal.SIGKILL)
        out, _ = p.communicate(timeout=30)
        assert p.returncode == 3, out[-2000:]
        assert "embedded world died 1 time within 600 s (server.world_max_restarts = 0); giving up" in out
        wait_until(
            lambda: (
                not any(psutil.pid_exists(c) and psutil.Process(c).status() != psutil.STATUS_ZOMBIE for c in children)
            ),
            5,
            "no orphan node process",
        )
    finally:
        if p.poll() is None:
            p.kill()
