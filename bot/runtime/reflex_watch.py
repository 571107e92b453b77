"""The reflexes, woken by threats. The reflex job ticks the reflexes once, then spends the
rest of its interval polling the bot's threat watch (node/lib/threats.js, one cheap call
every `poll_s`): a hostile that comes within its kind's radius is answered within one poll
(tens of milliseconds), not at the next tick a second later. The radii are the reflexes' own
(agency.execution.combat.threat_radii). One ThreatFeed polls for every bot of the daemon."""

from __future__ import annotations

import asyncio
import contextvars
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

from loguru import logger

from agency.execution.combat import threat_radii
from agency.execution.reflexes import Reflexes
from agency.world import ConnectedBody, WorldSnapshot
from bot.runtime.body import BodyLost

DEFAULT_POLL_S = 0.02  # one server tick is 50 ms: p50 of a poll's wait is 10 ms


@runtime_checkable
class WatchesThreats(Protocol):
    """A body with a threat watch (a live bot's, on node): the reflexes can be woken by it,
    and read its recent snapshot in between."""

    def watch_threats(self, radii: dict[str, float]) -> None: ...

    def new_threats(self) -> list[dict[str, Any]]: ...

    def recent_snapshot(self) -> WorldSnapshot: ...


class ThreatWatchedBody(ConnectedBody, WatchesThreats, Protocol):
    """What a reflex watch reads: a body on a server with a threat watch."""


class ThreatFeed:
    """Every watching bot's threats, read in one thread hop every `poll_s` (the bodies'
    new_threats share one bulk answer: bulk_reads.py), each handed to the watch waiting for
    it. Twenty bots each polling on its own woke the event loop a thousand times a second and
    kept a user's request waiting behind them."""

    def __init__(
        self, poll_s: float = DEFAULT_POLL_S, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    ) -> None:
        self.poll_s = poll_s
        self.sleep = sleep
        self._waiting: dict[int, tuple[ThreatWatchedBody, asyncio.Future[list[dict[str, Any]]]]] = {}
        self._held: dict[int, list[dict[str, Any]]] = {}  # read while its watch was not waiting
        self._task: asyncio.Task[None] | None = None
        self.polls = 0

    async def next(self, body: ThreatWatchedBody, timeout_s: float) -> list[dict[str, Any]]:
        """The body's threats since its last read, as soon as a poll finds any; [] when
        timeout_s passes first. BodyLost (or BodyError) when the read failed for this body."""
        if held := self._held.pop(id(body), None):
            return held
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[list[dict[str, Any]]] = loop.create_future()
        self._waiting[id(body)] = (body, waiter)
        if self._task is None or self._task.done():
            # every watch's poll: not in the context (a fleet's bot named in log lines) of the
            # watch that happened to start it
            self._task = loop.create_task(self._poll(), name="threat-feed", context=contextvars.Context())
        try:
            return await asyncio.wait_for(waiter, max(0.0, timeout_s))
        except TimeoutError:
            return []
        finally:
            if self._waiting.get(id(body), (None, None))[1] is waiter:
                del self._waiting[id(body)]

    async def _poll(self) -> None:
        while self._waiting:
            await self.sleep(self.poll_s)
            bodies = {key: body for key, (body, _) in self._waiting.items()}
            if not bodies:
                return
            found = await asyncio.to_thread(_read_threats, bodies)
            self.polls += 1
            for key, result in found.items():
                _, waiter = self._waiting.get(key, (None, None))
                if waiter is not None and not waiter.done():
                    if isinstance(result, BaseException):
                        waiter.set_exception(result)
                    else:
                        waiter.set_result(result)
                elif not isinstance(result, BaseException):  # its watch's interval ended: the next one gets them
                    self._held[key] = self._held.get(key, []) + result


def _read_threats(bodies: dict[int, ThreatWatchedBody]) -> dict[int, list[dict[str, Any]] | BaseException]:
    """The bodies with news: their threats, or why the read failed."""
    out: dict[int, list[dict[str, Any]] | BaseException] = {}
    for key, body in bodies.items():
        try:
            if not body.connected:
                raise BodyLost("not connected")
            if threats := body.new_threats():
                out[key] = threats
        except Exception as e:  # noqa: BLE001 - handed to that body's watch
            out[key] = e
    return out


_feeds: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[float, ThreatFeed]] = weakref.WeakKeyDictionary()


def threat_feed(poll_s: float) -> ThreatFeed:
    """The running loop's feed for this poll interval: shared by every watch of the daemon."""
    feeds = _feeds.setdefault(asyncio.get_running_loop(), {})
    return feeds.setdefault(poll_s, ThreatFeed(poll_s))


class ReflexWatch:
    def __init__(
        self,
        body: ThreatWatchedBody,
        reflexes: Reflexes,
        *,
        poll_s: float = DEFAULT_POLL_S,
        monotonic: Callable[[], float] = time.monotonic,
        feed: ThreatFeed | None = None,
    ) -> None:
        self.body = body
        self.feed = feed  # None: the loop's shared one
        self.reflexes = reflexes
        self.poll_s = poll_s
        self.monotonic = monotonic
        self.woken = 0  # reflex ticks a threat started
        self.recent_threats: list[dict[str, Any]] = []  # the last 100 threats, oldest first
        body.watch_threats(threat_radii(reflexes.config))

    async def tick(self, *, woken: bool = False) -> str | None:
        """One reflex tick (None: no reflex, or the body went away): on a snapshot read now
        when a threat woke it, else on one at most 0.5 s old read with the other bots'."""
        try:
            snap = await asyncio.to_thread(self.body.snapshot if woken else self.body.recent_snapshot)
        except BodyLost as e:
            logger.debug("reflex snapshot skipped: {}", e)
            return None
        return await self.reflexes.tick(snap)

    async def run(self, budget_s: float) -> None:
        """Tick, then answer threats as they come until `budget_s` has passed."""
        await self.tick()
        if not self.reflexes.config.enabled:
            return
        feed = self.feed or threat_feed(self.poll_s)
        deadline = self.monotonic() + budget_s
        while self.monotonic() < deadline and self.body.connected:
            try:
                threats = await feed.next(self.body, deadline - self.monotonic())
            except BodyLost:
                return
            if threats:
                self.woken += 1
                self.recent_threats = (self.recent_threats + threats)[-100:]
                logger.debug("[Reflex] woken by {}", ", ".join(f"{t['name']} at {t['distance']:.1f}" for t in threats))
                await self.tick(woken=True)
