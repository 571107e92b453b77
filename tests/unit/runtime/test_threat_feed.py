"""One poll reads every watching bot's threats and hands each its own (bot/runtime/reflex_watch.py).
The poll's sleep is a gate the test opens: no real time passes."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from loguru import logger

from agency.world import BodyLost
from bot.runtime.reflex_watch import ThreatFeed


class Gate:
    """The feed's sleep: each poll waits until the test lets one through."""

    def __init__(self) -> None:
        self.passes = asyncio.Semaphore(0)

    async def __call__(self, _seconds: float) -> None:
        await self.passes.acquire()

    def open(self, polls: int = 1) -> None:
        for _ in range(polls):
            self.passes.release()


class FakeBody:
    def __init__(self, threats: list[list[dict[str, Any]]] | None = None, error: Exception | None = None) -> None:
        self.pending = list(threats or [])
        self.error = error
        self.connected = True
        self.reads = 0

    def new_threats(self) -> list[dict[str, Any]]:
        self.reads += 1
        if self.error is not None:
            raise self.error
        return self.pending.pop(0) if self.pending else []


class SlowBody(FakeBody):
    """A body whose read waits until the test releases it."""

    def __init__(self, threats: list[list[dict[str, Any]]]) -> None:
        super().__init__(threats)
        self.entered, self.release = threading.Event(), threading.Event()

    def new_threats(self) -> list[dict[str, Any]]:
        self.entered.set()
        self.release.wait(5.0)
        return super().new_threats()


def zombie(n: int = 1) -> dict[str, Any]:
    return {"id": n, "name": "zombie", "distance": 5.0, "seq": n}


async def settle() -> None:
    for _ in range(20):  # let the poll's thread hop and the waiters run
        await asyncio.sleep(0.01)


def test_one_poll_serves_every_watch_with_its_own_threats() -> None:
    asyncio.run(_test_one_poll_serves_every_watch_with_its_own_threats())


async def _test_one_poll_serves_every_watch_with_its_own_threats() -> None:
    gate = Gate()
    feed = ThreatFeed(0.02, sleep=gate)
    a, b = FakeBody([[zombie(1)]]), FakeBody([[], [zombie(2)]])
    # long timeouts: a loaded machine's slow settle() must not end a wait before the poll
    got_a = asyncio.create_task(feed.next(a, 30.0))
    got_b = asyncio.create_task(feed.next(b, 30.0))
    await settle()
    gate.open()
    assert await asyncio.wait_for(got_a, 10.0) == [zombie(1)]
    assert feed.polls == 1 and a.reads == 1 and b.reads == 1
    assert not got_b.done(), "b had nothing in that poll and still waits"
    gate.open()
    assert await asyncio.wait_for(got_b, 10.0) == [zombie(2)]  # its own, from the next poll
    assert feed.polls == 2 and a.reads == 1, "a no longer waits, so the poll left it alone"


def test_a_wait_with_nothing_found_ends_empty_at_its_timeout() -> None:
    asyncio.run(_test_a_wait_with_nothing_found_ends_empty_at_its_timeout())


async def _test_a_wait_with_nothing_found_ends_empty_at_its_timeout() -> None:
    feed = ThreatFeed(0.02, sleep=Gate())  # the gate never opens: no poll comes
    body = FakeBody([[zombie(1)]])
    assert await feed.next(body, 0.01) == []
    assert body.reads == 0


def test_threats_read_after_a_watch_stopped_waiting_go_to_its_next_wait() -> None:
    asyncio.run(_test_threats_read_after_a_watch_stopped_waiting_go_to_its_next_wait())


async def _test_threats_read_after_a_watch_stopped_waiting_go_to_its_next_wait() -> None:
    gate = Gate()
    feed = ThreatFeed(0.02, sleep=gate)
    body = SlowBody([[zombie(2)]])
    waiting = asyncio.create_task(feed.next(body, 5.0))
    await settle()
    gate.open()
    assert await asyncio.to_thread(body.entered.wait, 2.0), "the poll reads the body"
    waiting.cancel()  # the watch's interval ends while the read is under way
    body.release.set()
    await settle()
    assert await feed.next(body, 0.0) == [zombie(2)], "held for the watch's next wait"
    assert await feed.next(body, 0.0) == [], "and handed over once"


def test_a_failed_read_reaches_only_its_own_watch() -> None:
    asyncio.run(_test_a_failed_read_reaches_only_its_own_watch())


async def _test_a_failed_read_reaches_only_its_own_watch() -> None:
    gate = Gate()
    feed = ThreatFeed(0.02, sleep=gate)
    lost, fine = FakeBody(error=BodyLost("bot left")), FakeBody([[zombie(3)]])
    got_lost = asyncio.create_task(feed.next(lost, 5.0))
    got_fine = asyncio.create_task(feed.next(fine, 5.0))
    await settle()
    gate.open()
    with pytest.raises(BodyLost, match="bot left"):
        await asyncio.wait_for(got_lost, 2.0)
    assert await asyncio.wait_for(got_fine, 2.0) == [zombie(3)]


def test_a_disconnected_body_is_lost_without_a_read() -> None:
    asyncio.run(_test_a_disconnected_body_is_lost_without_a_read())


async def _test_a_disconnected_body_is_lost_without_a_read() -> None:
    gate = Gate()
    feed = ThreatFeed(0.02, sleep=gate)
    body = FakeBody([[zombie(4)]])
    body.connected = False
    waiting = asyncio.create_task(feed.next(body, 5.0))
    await settle()
    gate.open()
    with pytest.raises(BodyLost):
        await asyncio.wait_for(waiting, 2.0)
    assert body.reads == 0


def test_the_poll_stops_when_nobody_waits_and_starts_again() -> None:
    asyncio.run(_test_the_poll_stops_when_nobody_waits_and_starts_again())


async def _test_the_poll_stops_when_nobody_waits_and_starts_again() -> None:
    gate = Gate()
    feed = ThreatFeed(0.02, sleep=gate)
    body = FakeBody([[zombie(5)]])
    assert await feed.next(body, 0.05) == []
    gate.open()
    await settle()
    assert feed._task is not None and feed._task.done(), "no waiter: the poll ended"
    assert body.reads == 0
    waiting = asyncio.create_task(feed.next(body, 5.0))
    await settle()
    gate.open()
    assert await asyncio.wait_for(waiting, 2.0) == [zombie(5)]


def test_the_poll_does_not_speak_for_the_bot_whose_watch_started_it() -> None:
    asyncio.run(_test_the_poll_does_not_speak_for_the_bot_whose_watch_started_it())


async def _test_the_poll_does_not_speak_for_the_bot_whose_watch_started_it() -> None:
    bots_seen: list[Any] = []

    class LoggingBody(FakeBody):
        def new_threats(self) -> list[dict[str, Any]]:
            logger.info("read")
            return super().new_threats()

    sink = logger.add(lambda m: bots_seen.append(m.record["extra"].get("bot")), level="INFO")
    gate = Gate()
    feed = ThreatFeed(0.02, sleep=gate)
    try:
        with logger.contextualize(bot="alice"):  # alice's reflex job starts the poll
            got = asyncio.create_task(feed.next(LoggingBody([[zombie(1)]]), 5.0))
        await settle()
        gate.open()
        assert await asyncio.wait_for(got, 2.0) == [zombie(1)]
    finally:
        logger.remove(sink)
    assert bots_seen == [None]
