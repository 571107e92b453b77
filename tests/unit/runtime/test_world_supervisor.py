"""The embedded world's restart policy (clock injected) and the supervisor's give-up path."""

from __future__ import annotations

import asyncio

import pytest

from bot.runtime.world_supervisor import BACKOFF_CAP_S, RestartPolicy, WorldGaveUp, WorldSupervisor


class FrozenClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_backoff_doubles_within_the_window_and_gives_up_after_max_restarts():
    clock = FrozenClock()
    policy = RestartPolicy(max_restarts=5, window_s=600, backoff_s=1.0, clock=clock)
    delays = []
    for _ in range(5):
        delays.append(policy.next_delay())
        clock.now += 10
    assert delays == [1.0, 2.0, 4.0, 8.0, 16.0]
    with pytest.raises(WorldGaveUp, match="died 6 times within 600 s"):
        policy.next_delay()


def test_restarts_older_than_the_window_are_forgotten():
    clock = FrozenClock()
    policy = RestartPolicy(max_restarts=2, window_s=600, backoff_s=1.0, clock=clock)
    policy.next_delay()
    clock.now += 300
    policy.next_delay()
    clock.now += 301  # the first restart is now out of the window
    assert policy.next_delay() == 2.0  # one restart left in the window
    with pytest.raises(WorldGaveUp):
        policy.next_delay()


def test_backoff_is_capped():
    policy = RestartPolicy(max_restarts=20, window_s=600, backoff_s=1.0, clock=FrozenClock())
    assert max(policy.next_delay() for _ in range(20)) == BACKOFF_CAP_S


class DeadWorld:
    """A server whose process has died and whose restarts fail at once."""

    def __init__(self) -> None:
        self.lines = ["Error: EADDRINUSE"]
        self.starts = 0
        self._dead = True

    def reap(self) -> int | None:
        if self._dead:
            self._dead = False
            return -9
        return None

    def start(self) -> None:
        self.starts += 1
        raise RuntimeError("embedded server exited with code 1")


def test_supervisor_restarts_then_gives_up_with_a_status_naming_why():
    world = DeadWorld()
    sup = WorldSupervisor(
        world, RestartPolicy(max_restarts=3, window_s=600, backoff_s=0.0, clock=FrozenClock()), check_interval_s=0
    )
    with pytest.raises(WorldGaveUp):
        asyncio.run(sup.run())
    assert world.starts == 3  # each failed start counted as one more death
    assert not sup.up and sup.status.startswith("gave up: embedded world died 4 times within 600 s")


def test_supervisor_status_while_restarting_and_after():
    class Flaky(DeadWorld):
        def start(self) -> None:
            self.starts += 1
            seen.append(sup.status)

    seen: list[str] = []
    world = Flaky()
    restarted = []
    sup = WorldSupervisor(
        world,
        RestartPolicy(max_restarts=5, window_s=600, backoff_s=0.0, clock=FrozenClock()),
        on_restarted=lambda: restarted.append(True),
        check_interval_s=0,
    )

    async def go() -> None:
        task = asyncio.create_task(sup.run())
        while not restarted:
            await asyncio.sleep(0)
        task.cancel()

    asyncio.run(go())
    assert seen == ["restarting (1/5)"] and sup.up and sup.status == "up" and world.starts == 1
