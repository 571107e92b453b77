"""Two daemons, one world, one PostgreSQL (issue: many daemons, one store): each `mcbot run`
drives its own bot in the shared embedded world and keeps its tasks in one real PostgreSQL
server (tests/pg_server.py). A goal given to both daemons is one task, done once; killing
the daemon whose bot works on it hands the task to the other daemon once the lease runs
out, and the other bot resumes it from the workflow's checkpoint (not from its first step)
and completes it."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.rows import dict_row

from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, USER_TASKS_ONLY, daemon_env, stop_daemon, wait_healthy, wait_until
from tests.pg_server import MISSING, PgServer, find_binaries

pytestmark = pytest.mark.one_version(
    reason="the PostgreSQL store's claims and take-over are the daemon's, the same at every protocol"
)

LEASE_S = 3
GOAL = {"text": "craft wooden_pickaxe 1"}  # several steps: logs, planks, sticks, a table, the pickaxe


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    bin_dir = find_binaries()
    if bin_dir is None:
        pytest.skip(MISSING)
    server = PgServer(bin_dir).start()
    try:
        yield server.create_database()
    finally:
        server.stop()


class _Daemon:
    def __init__(self, tmp: Path, name: str, bot: str, mc_version: str, world_port: int, pg_url: str) -> None:
        self.name, self.bot = name, bot
        cfg = tmp / f"{name}.toml"
        cfg.write_text(USER_TASKS_ONLY)
        api_port = free_port()
        self.base = f"http://127.0.0.1:{api_port}"
        env = daemon_env(
            tmp,
            mc_version,
            api_port,
            MCBOT_SERVER__HOST="127.0.0.1",
            MCBOT_SERVER__PORT=str(world_port),
            MCBOT_STORAGE__URL=pg_url,
            MCBOT_STORAGE__DAEMON_ID=name,
            MCBOT_STORAGE__LEASE_S=str(LEASE_S),
            MCBOT_BOT__USERNAME=bot,
            MCBOT_STORAGE__DB_PATH=str(tmp / f"{name}.db"),
        )
        self.log = tmp / f"{name}.out"
        with self.log.open("w") as out:
            self.p = subprocess.Popen(
                [sys.executable, "-m", "bot", "--config", str(cfg), "run"],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
            )

    def output(self) -> str:
        return f"--- {self.name} ---\n" + self.log.read_text()[-4000:]

    def task(self, task_id: str) -> dict:
        return loopback().get(f"{self.base}/api/tasks/{task_id}", timeout=10).json()

    def stop(self) -> int:
        return stop_daemon(self.p)


def _events(pg_url: str, task_id: str) -> list[dict]:
    """The task's event log as the database holds it, in order."""
    with psycopg.connect(pg_url, row_factory=dict_row) as conn:
        return conn.execute(
            "SELECT event, data FROM task_events WHERE task_id = %s ORDER BY seq", (task_id,)
        ).fetchall()


# its own waits (two starts, a step, the lease, the finish) add up past the suite's 300 s: a
# slow run must end in the wait that names what it waited for, with the daemon's log
@pytest.mark.timeout(2 * 120 + 120 + LEASE_S + 30 + 240 + 60)
def test_two_daemons_on_one_postgres_do_a_goal_once_and_take_over_a_dead_ones_task(
    tmp_path, mc_version, embedded_server, pg_url
):
    one = _Daemon(tmp_path, "daemon-one", "alpha", mc_version, embedded_server.port, pg_url)
    two = _Daemon(tmp_path, "daemon-two", "bravo", mc_version, embedded_server.port, pg_url)
    daemons = [one, two]
    try:
        for d in daemons:
            wait_healthy(d.p, d.base, 120, output=d.output)

        # the same goal given to both daemons is one task
        r = loopback().post(f"{one.base}/api/goals", json=GOAL, timeout=30)
        assert r.status_code == 201, r.text + one.output()
        task_id = r.json()["id"]
        again = loopback().post(f"{two.base}/api/goals", json=GOAL, timeout=30)
        assert again.status_code == 409 and again.json()["task"]["id"] == task_id, again.text
        assert two.task(task_id)["id"] == task_id  # one store: the other daemon reads it

        # whichever bot claimed it: wait for a finished step, then kill its daemon outright
        def working() -> dict | None:
            t = one.task(task_id)
            finished = [e for e in _events(pg_url, task_id) if e["event"] == "step_finished"]
            return t if t["status"] == "active" and finished else None

        t = wait_until(working, 120, "a claimed task with one step done", poll_s=0.5)
        holder = next(d for d in daemons if d.bot == t["metadata"]["heldBy"])
        other = two if holder is one else one
        holder.p.send_signal(signal.SIGKILL)
        holder.p.wait(timeout=10)
        done_before = max(e["data"]["index"] for e in _events(pg_url, task_id) if e["event"] == "step_finished")

        def taken_over() -> dict | None:
            t = other.task(task_id)
            return t if t["metadata"].get("heldBy") == other.bot else None

        wait_until(taken_over, LEASE_S + 30, f"{other.name} to take the task over after the {LEASE_S} s lease")
        try:
            done = wait_until(
                lambda: (t := other.task(task_id))["status"] in ("completed", "failed") and t,
                240,
                "the taken-over task to finish",
                poll_s=1,
            )
        except AssertionError as e:  # what the daemon that took it over was doing
            raise AssertionError(f"{e}\n{other.output()}") from None
        assert done["status"] == "completed", done
        events = _events(pg_url, task_id)
        kinds = [e["event"] for e in events]
        expired = kinds.index("lease_expired")
        assert events[expired]["data"]["owner"] == holder.name
        after = [e for e in events[expired:] if e["event"] == "step_started"]
        # resumed from the checkpoint: the first step after the take-over is past the ones done
        assert after and after[0]["data"]["index"] > done_before >= 0, events
        # done once: one task for the goal in the whole store
        same = [
            x
            for x in loopback().get(f"{other.base}/api/tasks", timeout=10).json()["tasks"]
            if x["metadata"].get("goalKey") == done["metadata"]["goalKey"]
        ]
        assert [x["id"] for x in same] == [task_id]
    finally:
        codes = {d.name: d.stop() for d in daemons}
    survivors = {name: code for name, code in codes.items() if code != -signal.SIGKILL}
    assert all(code == 0 for code in survivors.values()), "\n".join(d.output() for d in daemons)
