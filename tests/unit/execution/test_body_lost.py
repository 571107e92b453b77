"""A task whose action dies with the body (the bridge's node killed, a kick, a server
restart) is held as `disconnected`, never failed, and resumes from its checkpoint once the
body is ready again; only a failure on its own merits after resuming fails it. The
executor on the real task store, agent runtime and checkpoints over the fake block world."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agency.execution.executor import DISCONNECTED
from agency.planning.tasks.models import TaskStatus
from agency.tools.testing import FakeBody, FakeTime
from agency.world import ActionStatus, BodyLost
from tests.unit.execution.world import add_task, executor_env


class LosingBody(FakeBody):
    """The fake world whose bot can be lost mid-action, the way MineflayerBody reports a
    dead bridge or an ended bot: every call raises BodyLost until it is back."""

    def __init__(self, clock: Any, **kw: Any) -> None:
        super().__init__(clock, **kw)
        self.connected = True
        self.lost = False
        self.lose_on_kind: str | None = None  # lose the body on the first poll of this action kind
        self.flag_drops = True  # False: the loss surfaces before `connected` says so

    def _check(self) -> None:
        if self.lost:
            raise BodyLost("bridge dead: node process exited (code -9)")

    def back(self) -> None:
        self.lost, self.connected = False, True

    def snapshot(self):
        self._check()
        return super().snapshot()

    def start_action(self, kind: str, args: dict[str, Any]) -> ActionStatus:
        self._check()
        return super().start_action(kind, args)

    def poll_action(self, action_id: str) -> ActionStatus:
        if self.lose_on_kind is not None and self._actions[action_id]["status"].kind == self.lose_on_kind:
            self.lose_on_kind = None
            self.lost = True
            self.connected = not self.flag_drops
        self._check()
        return super().poll_action(action_id)


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    body = LosingBody(ftime.clock, polls_to_finish=2)
    for x in range(3, 8):
        body.add_tree(x, 3)
    e = executor_env(tmp_path, ftime, body)
    yield e
    e["tasks"].close()


async def _until(ex, body, ftime, done, max_ticks=400) -> str:
    for _ in range(max_ticks):
        out = await ex.tick(can_work=body.connected)
        if done(out):
            return out
        await ftime.sleep(0.1)
    raise AssertionError("executor did not reach the expected state")


@pytest.mark.parametrize("flag_drops", [True, False], ids=["connected-drops", "loss-seen-first"])
def test_a_task_whose_body_is_lost_is_held_disconnected_and_resumes_from_its_checkpoint(env, flag_drops):
    ex, tasks, body, ftime = env["ex"], env["tasks"], env["body"], env["ftime"]
    body.lose_on_kind, body.flag_drops = "craft", flag_drops  # logs gathered, then the bridge dies
    tid = add_task(tasks, "craft", "wooden_pickaxe")

    async def go() -> None:
        out = await _until(ex, body, ftime, lambda o: o.startswith(("paused", "finished")))
        assert out == f"paused:{DISCONNECTED}"
        held = tasks.get_task(tid)
        assert held.status is TaskStatus.paused and held.metadata.blockedReason == DISCONNECTED
        body.connected = False  # the daemon sees it (or already saw it): nothing is claimed meanwhile
        for _ in range(5):
            assert await ex.tick(can_work=False) == "waiting"
        assert tasks.get_task(tid).status is TaskStatus.paused
        collects = sum(1 for kind, _ in body.started if kind == "collect")
        body.back()  # a fresh bridge and bot are ready
        assert await ex.tick(can_work=True) == "claimed"  # put back in the queue and claimed at once
        assert tasks.get_task(tid).metadata.blockedReason is None
        out = await _until(ex, body, ftime, lambda o: o.startswith("finished"))
        assert out == "finished:completed"
        assert sum(1 for kind, _ in body.started if kind == "collect") == collects  # gathered logs kept

    asyncio.run(go())
    task = tasks.get_task(tid)
    assert task.status is TaskStatus.completed and body.inventory["wooden_pickaxe"] == 1
    assert ex.stats.failed == 0 and ex.stats.paused == 1 and ex.stats.resumed == 1


def test_a_resumed_task_that_fails_on_its_own_merits_fails(env):
    ex, tasks, body, ftime = env["ex"], env["tasks"], env["body"], env["ftime"]
    body.lose_on_kind = "collect"
    tid = add_task(tasks, "collect", "oak_log", 2)

    async def go() -> None:
        assert await _until(ex, body, ftime, lambda o: o.startswith(("paused", "finished"))) == f"paused:{DISCONNECTED}"
        body.back()
        body.fail["collect"] = "no path to the tree"
        await _until(ex, body, ftime, lambda o: o.startswith("finished"))

    asyncio.run(go())
    task = tasks.get_task(tid)
    assert task.status is TaskStatus.failed and "no path to the tree" in task.metadata.solver["failureReason"]


def test_a_failure_seen_while_the_body_is_gone_holds_whatever_error_it_surfaced_as(env):
    """A kick can surface as the JS action's own error before the `end` event is read:
    a run that failed while the bot is not connected is not judged on that failure."""
    ex, tasks, body, ftime = env["ex"], env["tasks"], env["body"], env["ftime"]
    body.fail["collect"] = "Path was stopped before it could be completed"
    tid = add_task(tasks, "collect", "oak_log", 2)

    async def go() -> str:
        assert await ex.tick(can_work=True) == "claimed"
        body.connected = False
        return await _until(ex, body, ftime, lambda o: o.startswith(("paused", "finished")))

    assert asyncio.run(go()) == f"paused:{DISCONNECTED}"
    assert tasks.get_task(tid).status is TaskStatus.paused
