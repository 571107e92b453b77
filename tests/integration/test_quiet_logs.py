"""A steady daemon's log at INFO stays readable: after start-up, fewer than 20 lines a
minute (repetitive lines are aggregated per minute, skipped job runs counted, not warned)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta

import httpx
import pytest

from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, wait_until

STARTUP_S = 20  # start-up lines (server, bridge, first ticks) are not steady state
MEASURE_S = 75
MAX_PER_MINUTE = 20
LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) \| (\w+)\s*\|.* - (.*)$")


def _lines(path):
    out = []
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = LINE.match(raw)
        if m:
            out.append((datetime.strptime(m[1], "%Y-%m-%d %H:%M:%S.%f"), m[2], m[3]))
    return out


@pytest.mark.long_run  # 100 s of a steady daemon: make test-matrix runs it (make test's 25 minutes)
@pytest.mark.one_version(reason="log volume is the daemon's; a 100 s measure per version buys nothing")
def test_a_steady_daemon_logs_fewer_than_20_info_lines_a_minute(tmp_path, embedded_server):
    api_port = free_port()
    log = tmp_path / "daemon.log"
    env = {
        **os.environ,
        "MCBOT_SERVER__HOST": "127.0.0.1",
        "MCBOT_SERVER__PORT": str(embedded_server.port),
        "MCBOT_API__PORT": str(api_port),
        "MCBOT_STORAGE__DB_PATH": str(tmp_path / "daemon.db"),
        "MCBOT_LOGGING__FILE": str(log),
    }
    p = subprocess.Popen(
        [sys.executable, "-m", "bot", "run"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:

        def healthy():
            assert p.poll() is None, "the daemon exited"
            try:
                return loopback().get(f"http://127.0.0.1:{api_port}/healthz", timeout=2).json().get("ok")
            except (httpx.HTTPError, ValueError):
                return False

        wait_until(healthy, 90, "the daemon's /healthz to report ok")
        time.sleep(STARTUP_S + MEASURE_S + 2)  # real time is what is measured
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    lines = _lines(log)
    started = next(t for t, _, msg in lines if msg.startswith("daemon running"))
    since, until = started + timedelta(seconds=STARTUP_S), started + timedelta(seconds=STARTUP_S + MEASURE_S)
    window = [(lvl, msg) for t, lvl, msg in lines if since <= t < until]
    info = [msg for lvl, msg in window if lvl != "DEBUG" and lvl != "TRACE"]
    per_minute = len(info) * 60 / MEASURE_S
    assert window, "no log lines in the measured window: the log file was not written"
    assert per_minute < MAX_PER_MINUTE, f"{per_minute:.1f} INFO lines a minute:\n" + "\n".join(info)
    assert not [m for m in info if "maximum number of running instances" in m]
