"""`mcbot run` as a user runs it: the daemon answers its HTTP API and stops cleanly."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import httpx
import psutil
import pytest

from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, daemon_env, wait_until

pytestmark = pytest.mark.one_version(
    reason="the daemon's HTTP surface and its stop are the daemon's, the same at every protocol"
)


def test_mcbot_run_serves_healthz_snapshot_metrics_and_stops_cleanly_on_sigterm(tmp_path, mc_version):
    api_port = free_port()
    env = daemon_env(tmp_path, mc_version, api_port)
    p = subprocess.Popen(
        [sys.executable, "-m", "bot", "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{api_port}"
    children: set[int] = set()
    try:

        def healthy():
            children.update(c.pid for c in psutil.Process(p.pid).children(recursive=True))
            assert p.poll() is None, p.stdout.read()
            try:
                r = loopback().get(f"{base}/healthz", timeout=2)
            except httpx.HTTPError:
                return False
            return r.status_code == 200 and r.json()["ok"]

        wait_until(healthy, 60, "the daemon's /healthz to report ok")
        h = loopback().get(f"{base}/healthz").json()
        assert h["botConnected"] and h["bridgeAlive"] and h["schedulerRunning"]
        snap = loopback().get(f"{base}/api/bot/snapshot").json()
        assert snap["gameMode"] == "survival" and snap["health"] > 0
        wait_until(
            lambda: (
                'mcbot_job_runs_total{job="perception"}' in loopback().get(f"{base}/metrics").text
                and "mcbot_bridge_calls_total" in loopback().get(f"{base}/metrics").text
            ),
            20,
            "metrics",
        )
        metrics = loopback().get(f"{base}/metrics").text
        assert 'mcbot_agency_counter{name="driveTicks",bot="mcbot"}' in metrics
        assert len(children) >= 2  # the embedded server and the bridge's node
        p.send_signal(signal.SIGTERM)
        started = time.monotonic()
        out, _ = p.communicate(timeout=15)
        assert p.returncode == 0, out[-2000:]
        assert time.monotonic() - started < 10
        assert "daemon stopped" in out
        wait_until(
            lambda: (
                not any(psutil.pid_exists(c) and psutil.Process(c).status() != psutil.STATUS_ZOMBIE for c in children)
            ),
            5,
            "no orphan node/server process",
        )
    finally:
        if p.poll() is None:
            p.kill()
