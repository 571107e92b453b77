"""Two bots cooperate on one shelter goal through the task store, against `mcbot run` on the
embedded world: the builder asks for its walls (an open `deliver` task), the gatherer - the
only bot whose agents deliver - takes it and hands the planks over, and the builder builds
with them and the verifier passes. The same shelter goal again is refused while the first
one lives, and a bot whose agents cannot build is refused it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, USER_TASKS_ONLY, daemon_env, stop_daemon, wait_healthy, wait_until

pytestmark = pytest.mark.one_version(
    reason="the fleet's hand-off is agency logic; test_give.py hands items over at every version"
)

CONFIG = (
    USER_TASKS_ONLY
    + """
[[bots]]
username = "builder1"
agents = ["builder", "crafter", "standard"]

[[bots]]
username = "gatherer1"
agents = ["gatherer", "crafter", "standard"]
"""
)
WALLS = 75  # the hut's 71 planks and 4 to fill holes: the builder holds a door, nothing else


def _planks(base: str, bot: str) -> int:
    snap = loopback().get(f"{base}/api/bots/{bot}/snapshot", timeout=10).json()
    return sum(it["count"] for it in snap["inventory"] if it["name"] == "oak_planks")


def _say(base: str, message: str) -> None:
    r = loopback().post(f"{base}/api/actions", json={"tool": "chat", "args": {"message": message}}, timeout=10)
    assert r.status_code == 202, r.text


def _task(base: str, task_id: str) -> dict:
    return loopback().get(f"{base}/api/tasks/{task_id}", timeout=10).json()


def _deliveries(base: str) -> list[dict]:
    return [t for t in loopback().get(f"{base}/api/tasks", timeout=10).json()["tasks"] if t["type"] == "deliver"]


def test_a_gatherer_delivers_the_planks_a_builder_asks_for_and_the_shelter_verifies(tmp_path, mc_version):
    cfg = tmp_path / "fleet.toml"
    cfg.write_text(CONFIG)
    api_port = free_port()
    base = f"http://127.0.0.1:{api_port}"
    log = tmp_path / "daemon.out"
    with log.open("w") as out:
        p = subprocess.Popen(
            [sys.executable, "-m", "bot", "--config", str(cfg), "run"],
            cwd=ROOT,
            env=daemon_env(tmp_path, mc_version, api_port),
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        wait_healthy(p, base, 150, output=log.read_text)
        _say(base, "/give gatherer1 oak_planks 64")
        _say(base, "/give gatherer1 oak_planks 16")
        _say(base, "/give builder1 oak_door 1")
        wait_until(lambda: _planks(base, "gatherer1") == 80, 20, "80 planks in the gatherer's inventory")

        r = loopback().post(f"{base}/api/goals", json={"text": "build basic_shelter", "bot": "builder1"}, timeout=30)
        assert r.status_code == 201, r.text
        build = r.json()
        # one live task per goal across the fleet: the same shelter for any bot is the builder's
        twice = loopback().post(f"{base}/api/goals", json={"text": "build basic_shelter"}, timeout=30)
        assert twice.status_code == 409 and twice.json()["task"]["id"] == build["id"], twice.text
        not_a_builder = loopback().post(
            f"{base}/api/goals", json={"text": "build basic_shelter", "bot": "gatherer1"}, timeout=30
        )
        assert not_a_builder.status_code == 422 and "no agent" in not_a_builder.text  # its agents cannot build

        ask = wait_until(lambda: _deliveries(base), 60, "the builder's delivery request")[0]
        near = ask["parameters"].pop("near")  # where the builder stood: the helper walks there first
        assert ask["parameters"] == {"target": "oak_planks", "amount": WALLS, "to": "builder1"} and len(near) == 3
        # bound to the helper holding the planks (one without them would go and gather them)
        assert ask["metadata"]["bot"] == "gatherer1" and ask["metadata"]["parentTaskId"] == build["id"]
        done = wait_until(
            lambda: (t := _task(base, ask["id"]))["status"] in ("completed", "failed") and t, 120, "the delivery to end"
        )
        why = (done["metadata"].get("solver") or {}).get("failureReason")
        assert done["status"] == "completed" and done["metadata"]["heldBy"] == "gatherer1", why or done
        assert _planks(base, "gatherer1") == 80 - WALLS

        built = wait_until(
            lambda: (t := _task(base, build["id"]))["status"] in ("completed", "failed") and t,
            180,
            "the shelter to be built and verified",
        )
        assert built["status"] == "completed" and built["metadata"]["heldBy"] == "builder1", built
        assert f"[Delivery] builder1 asks for {WALLS} oak_planks (of gatherer1;" in log.read_text()
    finally:
        code = stop_daemon(p)
    assert code == 0, log.read_text()[-3000:]
