"""Poison tasks: a run whose body is lost with its bridge (node died, or was killed as
wedged) is held `disconnected` and resumes the first time, and is failed with the reason
the second time, never to be resumed, after a restart either; an ordinary disconnect (a
kick, a server restart: the same node goes on) never counts. The executor on the real task
store, agent runtime and checkpoints over the fake block world, with the live bot's
BridgeWatch (bot/runtime/bridge_downs.py) over a fake bridge."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from agency.execution.agents import AgentRuntime, load_default_registry
from agency.execution.executor import DISCONNECTED, Executor
from agency.execution.workflows import SqliteCheckpointStore
from agency.planning.tasks.models import TaskStatus
from agency.planning.tasks.store import SqliteTaskStore
from agency.tools.testing import FakeTime
from agency.world import ActionState, ActionStatus
from bot.runtime.bridge_downs import BridgeDowns, bridge_downs
from tests.unit.execution.test_body_lost import LosingBody
from tests.unit.execution.world import add_task, executor_env

WEDGED = "wedged: no heartbeat for 6 s"
POISON = f"poison: its run brought the bridge down twice (last: {WEDGED})"


class FakeBridge:
    """What BridgeDowns reads of bot.runtime.bridge.Bridge."""

    def __init__(self) -> None:
        self.generation, self.alive, self.dead_reason = 1, True, None

    def die(self, reason: str) -> None:
        self.alive, self.dead_reason = False, reason

    def rebuild(self) -> None:
        self.generation, self.alive, self.dead_reason = self.generation + 1, True, None


class BridgeBody(LosingBody):
    """The fake world whose bot is lost either with its bridge (`wedge`: the bridge is
    declared dead with that reason, as the watchdog does) or on a live one (wedge=None: a
    kick). maintain() rebuilds a dead bridge, as MineflayerBody's does, and reconnects."""

    def __init__(self, clock: Any, **kw: Any) -> None:
        super().__init__(clock, **kw)
        self.bridge = FakeBridge()
        self.wedge: str | None = WEDGED
        self._lock = threading.Lock()  # the daemon's body job calls maintain() on a worker thread

    def _check(self) -> None:
        if self.lost and self.wedge and self.bridge.alive:
            self.bridge.die(self.wedge)
        if not self.bridge.alive:  # every call on a dead bridge fails, as MineflayerBody's do
            self.lost, self.connected = True, False
        super()._check()

    def cancel_action(self, action_id: str) -> ActionStatus:
        self._check()  # a dead node ends nothing: the action stays in the body's record
        return super().cancel_action(action_id)

    def poll_action(self, action_id: str) -> ActionStatus:
        with self._lock:  # losing the bot and its bridge is one step to maintain()
            return super().poll_action(action_id)

    def maintain(self) -> bool:
        """A fresh bridge for a dead one, and the bot back at once."""
        with self._lock:
            if not self.bridge.alive:
                bridge_downs(self.bridge).observe()  # as MineflayerBody.maintain does
                self.bridge.rebuild()
            for aid in self.actions_running():  # they died with node
                self._end(aid, ActionState.failed, error="bridge dead")
            super().back()
        return True

    def actions_running(self) -> list[str]:
        return [aid for aid, rec in self._actions.items() if rec["status"].state is ActionState.running]

    def back(self) -> None:
        self.maintain()


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    body = BridgeBody(ftime.clock, polls_to_finish=2)
    for x in range(3, 8):
        body.add_tree(x, 3)
    e = executor_env(tmp_path, ftime, body)
    e["ex"].bridge = bridge_downs(body.bridge).of_body(body.actions_running)
    e["path"] = tmp_path / "t.db"
    yield e
    e["tasks"].close()


async def _until_held_or_ended(ex, body, ftime, max_ticks=400) -> str:
    for _ in range(max_ticks):
        out = await ex.tick(can_work=body.connected)
        if out.startswith(("paused", "finished", "failed")):
            return out
        await ftime.sleep(0.1)
    raise AssertionError("executor did not hold or end the task")


def _events(tasks, tid) -> list[tuple[str, Any]]:
    return [(e.event, e.data.get("reason")) for e in tasks.events(tid) if e.event in ("bridge_down", "held", "failed")]


def test_one_bridge_down_holds_the_task_and_it_resumes_and_completes(env):
    ex, tasks, body, ftime = env["ex"], env["tasks"], env["body"], env["ftime"]
    body.lose_on_kind = "collect"
    tid = add_task(tasks, "collect", "oak_log", 2)

    async def go() -> None:
        assert await _until_held_or_ended(ex, body, ftime) == f"paused:{DISCONNECTED}"
        held = tasks.get_task(tid)
        assert held.status is TaskStatus.paused and held.metadata.blockedReason == DISCONNECTED
        assert [d.reason for d in held.metadata.bridgeDowns] == [WEDGED]
        body.back()
        assert await ex.tick(can_work=True) == "claimed"
        assert await _until_held_or_ended(ex, body, ftime) == "finished:completed"

    asyncio.run(go())
    assert tasks.get_task(tid).status is TaskStatus.completed
    assert _events(tasks, tid) == [("bridge_down", WEDGED), ("held", DISCONNECTED)]


def test_the_second_bridge_down_fails_the_task_as_poison_and_a_restart_does_not_resume_it(env):
    ex, tasks, body, ftime = env["ex"], env["tasks"], env["body"], env["ftime"]
    body.lose_on_kind = "collect"
    tid = add_task(tasks, "collect", "oak_log", 2)

    async def go() -> None:
        assert await _until_held_or_ended(ex, body, ftime) == f"paused:{DISCONNECTED}"
        body.back()
        body.lose_on_kind = "collect"  # the resumed run does the same thing again
        assert await _until_held_or_ended(ex, body, ftime) == "failed:poison"
        body.back()
        for _ in range(3):
            assert await ex.tick(can_work=True) == "idle"  # not put back in the queue

    asyncio.run(go())
    task = tasks.get_task(tid)
    assert task.status is TaskStatus.failed and task.metadata.solver["failureReason"] == POISON
    assert _events(tasks, tid) == [
        ("bridge_down", WEDGED),
        ("held", DISCONNECTED),
        ("bridge_down", WEDGED),
        ("failed", POISON),
    ]
    assert ex.stats.failed == 1 and ex.stats.paused == 1 and ex.stats.resumed == 1
    tasks.close()

    # The next daemon start: a fresh executor on the same file claims and resumes nothing.
    env["tasks"] = reopened = SqliteTaskStore(env["path"], clock=ftime.clock, dev_mode=False, strict_finalize=False)
    runtime = AgentRuntime(
        load_default_registry(), env["tools"], env["ctx"], checkpoints=SqliteCheckpointStore(env["path"])
    )
    fresh = Executor(reopened, runtime, ftime.clock, bridge=BridgeDowns(FakeBridge()).of_body(list))
    started = len(body.started)
    assert asyncio.run(fresh.tick(can_work=True)) == "idle"
    assert reopened.get_task(tid).status is TaskStatus.failed and len(body.started) == started


def test_an_ordinary_disconnect_twice_never_poisons(env):
    ex, tasks, body, ftime = env["ex"], env["tasks"], env["body"], env["ftime"]
    body.wedge = None  # kicked: the bridge and its node go on
    body.lose_on_kind = "collect"
    tid = add_task(tasks, "collect", "oak_log", 2)

    async def go() -> None:
        for _ in range(2):
            assert await _until_held_or_ended(ex, body, ftime) == f"paused:{DISCONNECTED}"
            body.back()
            body.lose_on_kind = "collect"
        body.lose_on_kind = None
        assert await _until_held_or_ended(ex, body, ftime) == "finished:completed"

    asyncio.run(go())
    task = tasks.get_task(tid)
    assert task.status is TaskStatus.completed and task.metadata.bridgeDowns is None
    assert body.bridge.generation == 1 and ex.stats.paused == 2


def test_a_bridge_lost_between_calls_counts_through_the_daemons_preempt(env):
    """The daemon's body job sees the bot gone and preempts: the run, waiting on a long
    action, met no error of its own, yet its bridge went down."""
    ex, tasks, body, ftime = env["ex"], env["tasks"], env["body"], env["ftime"]
    body.hang.add("collect")
    tid = add_task(tasks, "collect", "oak_log", 2)

    async def lose_the_bridge_mid_run() -> str | None:
        assert await ex.tick(can_work=True) in ("claimed", "resumed")
        for _ in range(5):
            await ex.tick(can_work=True)
            await ftime.sleep(0.1)
        assert ex.current is not None and not ex.current.handle.task.done()
        body.bridge.die(WEDGED)
        body.connected = False
        return await ex.preempt(DISCONNECTED)

    assert asyncio.run(lose_the_bridge_mid_run()) == tid
    assert tasks.get_task(tid).status is TaskStatus.paused
    body.back()
    assert ex.resume_paused(DISCONNECTED) == [tid]
    assert asyncio.run(lose_the_bridge_mid_run()) == tid
    task = tasks.get_task(tid)
    assert task.status is TaskStatus.failed and task.metadata.solver["failureReason"] == POISON
    assert ex.current is None


def test_in_a_fleet_only_the_task_whose_bot_was_working_on_node_is_poison(tmp_path):
    """Two bots share one bridge. A's run wedges node twice, on a long action; B's task is
    running both times with nothing on node (its run just started): B's is held, not counted,
    and completes; A's is failed as poison."""
    ftime = FakeTime()
    a, b = BridgeBody(ftime.clock, polls_to_finish=2), BridgeBody(ftime.clock, polls_to_finish=2)
    b.bridge = a.bridge
    for body in (a, b):
        for x in range(3, 8):
            body.add_tree(x, 3)
    envs = {}
    for name, body in (("A", a), ("B", b)):
        (tmp_path / name).mkdir()
        envs[name] = e = executor_env(tmp_path / name, ftime, body)
        e["ex"].bridge = bridge_downs(a.bridge).of_body(body.actions_running)
    exa, exb = envs["A"]["ex"], envs["B"]["ex"]
    ta, tb = (
        add_task(envs["A"]["tasks"], "collect", "oak_log", 2),
        add_task(envs["B"]["tasks"], "collect", "oak_log", 2),
    )
    a.hang.add("collect")  # A's action never ends: node is wedged in it

    async def wedge_while_a_works() -> tuple[str, str]:
        assert await exa.tick(can_work=True) == "claimed"
        while not a.actions_running():
            await exa.tick(can_work=True)
            await ftime.sleep(0.1)
        assert await exb.tick(can_work=True) == "claimed"  # B's run is on, with nothing on node yet
        a.bridge.die(WEDGED)  # the watchdog kills node
        return (await _until_held_or_ended(exa, a, ftime), await _until_held_or_ended(exb, b, ftime))

    async def go() -> None:
        assert await wedge_while_a_works() == (f"paused:{DISCONNECTED}", f"paused:{DISCONNECTED}")
        a.back(), b.back()
        assert await wedge_while_a_works() == ("failed:poison", f"paused:{DISCONNECTED}")
        b.back()
        assert await _until_held_or_ended(exb, b, ftime) == "finished:completed"

    try:
        asyncio.run(go())
        task_a, task_b = envs["A"]["tasks"].get_task(ta), envs["B"]["tasks"].get_task(tb)
        assert task_a.status is TaskStatus.failed and task_a.metadata.solver["failureReason"] == POISON
        assert task_b.status is TaskStatus.completed and task_b.metadata.bridgeDowns is None
        assert _events(envs["B"]["tasks"], tb) == [("held", DISCONNECTED), ("held", DISCONNECTED)]
        assert a.bridge.generation == 3
    finally:
        for e in envs.values():
            e["tasks"].close()
