"""A fleet in one daemon, against `mcbot run` on the embedded world: three `[[bots]]` on one
bridge and one task store. The API lists them, a goal bound to one bot is done by that bot
and no other, a goal open to any is done by one of them, the same goal twice is refused,
tasks filter by bot, and /metrics labels each bot's series."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, USER_TASKS_ONLY, daemon_env, stop_daemon, wait_healthy, wait_until

pytestmark = pytest.mark.one_version(
    reason="a fleet's shared store and per-bot goals are the daemon's; each bot's actions are tested per version"
)

BOTS = ("alpha", "bravo", "charlie")
CONFIG = USER_TASKS_ONLY + "".join(f'\n[[bots]]\nusername = "{name}"\n' for name in BOTS)


def _live_state(base: str) -> dict:
    """The first `state` event of the dashboard's live stream."""
    with loopback().stream("GET", f"{base}/api/live", timeout=15) as r:
        event = None
        for line in r.iter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "state":
                return json.loads(line[len("data:") :])
    raise AssertionError("the live stream ended without a state event")


def _finished(base: str, task_id: str) -> dict | None:
    task = loopback().get(f"{base}/api/tasks/{task_id}", timeout=10).json()
    return task if task["status"] in ("completed", "failed") else None


def test_three_bots_in_one_daemon_share_one_store_and_each_does_its_own_goals(tmp_path, mc_version):
    cfg = tmp_path / "fleet.toml"
    cfg.write_text(CONFIG)
    api_port = free_port()
    env = daemon_env(tmp_path, mc_version, api_port)
    base = f"http://127.0.0.1:{api_port}"
    log = tmp_path / "daemon.out"
    with log.open("w") as out:
        p = subprocess.Popen(
            [sys.executable, "-m", "bot", "--config", str(cfg), "run"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        wait_healthy(p, base, 150, output=log.read_text)  # ok once every bot is connected
        health = loopback().get(f"{base}/healthz", timeout=5).json()
        assert health["bots"] == dict.fromkeys(BOTS, True)
        bots = loopback().get(f"{base}/api/bots", timeout=5).json()
        assert [b["name"] for b in bots["bots"]] == list(BOTS) and all(b["connected"] for b in bots["bots"])
        snap = loopback().get(f"{base}/api/bots/charlie/snapshot", timeout=10)
        assert snap.status_code == 200 and snap.json()["health"] > 0
        unknown = loopback().get(f"{base}/api/bots/zulu/snapshot", timeout=5)
        assert unknown.status_code == 404 and "alpha, bravo, charlie" in unknown.json()["detail"]

        # bound to bravo: bravo does it; the same goal again is refused
        r = loopback().post(f"{base}/api/goals", json={"text": "collect oak_log 1", "bot": "bravo"}, timeout=30)
        assert r.status_code == 201, r.text
        bound = r.json()
        assert bound["metadata"]["bot"] == "bravo"
        again = loopback().post(f"{base}/api/goals", json={"text": "collect oak_log 1", "bot": "bravo"}, timeout=30)
        assert again.status_code == 409 and again.json()["task"]["id"] == bound["id"], again.text
        nobody = loopback().post(f"{base}/api/goals", json={"text": "collect oak_log 1", "bot": "zulu"}, timeout=30)
        assert nobody.status_code == 400 and "unknown bot" in nobody.json()["detail"]

        # open to any bot: one of them takes it
        r = loopback().post(f"{base}/api/goals", json={"text": "collect dirt 1"}, timeout=30)
        assert r.status_code == 201, r.text
        open_task = r.json()
        assert "bot" not in open_task["metadata"]

        done = wait_until(lambda: _finished(base, bound["id"]), 150, "bravo's task to finish")
        assert done["status"] == "completed" and done["metadata"]["heldBy"] == "bravo", done
        done_open = wait_until(lambda: _finished(base, open_task["id"]), 150, "the open task to finish")
        assert done_open["status"] == "completed" and done_open["metadata"]["heldBy"] in BOTS, done_open

        mine = loopback().get(f"{base}/api/tasks", params={"bot": "bravo"}, timeout=5).json()["tasks"]
        assert bound["id"] in [t["id"] for t in mine]
        others = loopback().get(f"{base}/api/tasks", params={"bot": "charlie"}, timeout=5).json()["tasks"]
        assert bound["id"] not in [t["id"] for t in others]
        assert loopback().get(f"{base}/api/tasks", params={"bot": "zulu"}, timeout=5).status_code == 404

        # the dashboard's live stream carries every bot (its Bots panel)
        assert [b["name"] for b in _live_state(base)["bots"]] == list(BOTS)

        metrics = loopback().get(f"{base}/metrics", timeout=5).text
        for name in BOTS:
            assert f'mcbot_bot_connected{{bot="{name}"}} 1' in metrics
            assert f'mcbot_job_runs_total{{job="executor@{name}"}}' in metrics
    finally:
        code = stop_daemon(p)
    assert code == 0, log.read_text()[-3000:]
