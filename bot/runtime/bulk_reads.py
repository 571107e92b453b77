"""One bridge call for what many bots read often. Every bridge call runs on the bridge's one
worker thread, in order: a fleet's bots each polling their threats every 20 ms, their
action every 0.2 s and a snapshot every second queue up there, and a user's request waits
behind them. A BulkRead answers each key (a bot, an action) from the last bulk answer while
it is younger than `max_age_s`; the first key to ask after that fetches the answers for
every key asked for lately in one call (bridge.js `many`). A BulkDrain does the same for
queues (the bots' events), holding each key's items until it takes them."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bot.runtime.bridge import Bridge, BridgeError

FORGET_S = 5.0  # a key not asked for this long (a bot gone, an action ended) is left out


class _Asks:
    """When each key last asked, and which keys have a caller inside read/take now (queued
    for the bulk lock or in the call): a key queued behind a bulk call stuck for longer than
    the forget time (a stalled bridge) is still asking, and is never forgotten meanwhile."""

    def __init__(self, forget_s: float) -> None:
        self.forget_s = forget_s
        self._lock = threading.Lock()  # taken alone or inside the bulk lock, never across a bridge call
        self._at: dict[str, float] = {}
        self._callers: dict[str, int] = {}

    def note(self, key: str, at: float) -> None:
        with self._lock:
            self._at[key] = max(at, self._at.get(key, at))

    @contextmanager
    def asking(self, key: str, at: float) -> Iterator[None]:
        with self._lock:
            self._at[key] = max(at, self._at.get(key, at))
            self._callers[key] = self._callers.get(key, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                self._callers[key] -= 1
                if not self._callers[key]:
                    del self._callers[key]

    def drop_stale(self, now: float) -> list[str]:
        """The keys not asked for in forget_s and with no caller now, no longer recorded."""
        with self._lock:
            stale = [k for k, t in self._at.items() if now - t >= self.forget_s and k not in self._callers]
            for k in stale:
                del self._at[k]
        return stale

    def drop(self, key: str) -> None:
        with self._lock:
            self._at.pop(key, None)


class BulkRead:
    def __init__(
        self,
        bridge: Bridge,
        fn: str,
        *,
        max_age_s: float,
        same_args: bool = True,
        forget_s: float = FORGET_S,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """same_args=False: an answer serves a key whatever args it asks with now (threats:
        fetched after an older seq, the caller keeps the ones after its own)."""
        self.bridge, self.fn, self.max_age_s, self.forget_s, self.monotonic = bridge, fn, max_age_s, forget_s, monotonic
        self.same_args = same_args
        self._lock = threading.Lock()
        self._args: dict[str, tuple[Any, ...]] = {}
        self._asks = _Asks(forget_s)
        self._answer: dict[str, dict[str, Any]] = {}
        self._answered_args: dict[str, tuple[Any, ...]] = {}  # what each key's answer was asked with
        self._at = float("-inf")
        self.calls = 0

    def read(self, key: str, *args: Any) -> Any:
        """The helper's answer for `key` called with `args`, at most max_age_s old (a key
        asking for the first time, or with other args, always gets a fresh one).
        BridgeError when the helper failed for this key (a bot the bridge no longer has)."""
        arrived = self.monotonic()  # before the lock: an answer fetched while this caller waited serves it
        with self._asks.asking(key, arrived), self._lock:
            fresh = (
                key in self._answer
                and (not self.same_args or self._answered_args.get(key) == args)
                and arrived - self._at < self.max_age_s
            )
            self._args[key] = args
            self._asks.note(key, arrived)  # again: a forget since the first note must not leave it unrecorded
            if not fresh:
                now = self.monotonic()
                for old in self._asks.drop_stale(now):  # never the asker: it is calling
                    self._args.pop(old, None)
                asked = dict(self._args)
                self._answer = self.bridge.call_json(
                    "many", self.fn, json.dumps({k: list(a) for k, a in asked.items()})
                )
                self._answered_args, self._at = asked, now
                self.calls += 1
                for failed in [k for k, a in self._answer.items() if "error" in a]:
                    self.forget_locked(failed)  # in the next call only if it asks again
            got = self._answer.get(key) or {"error": f"no answer for {key}"}
        if "error" in got:
            raise BridgeError(f"{self.fn}: {got['error']}")
        return got["value"]

    def invalidate(self, key: str) -> None:
        """The key's answer is out of date (its bot just acted): its next read fetches."""
        with self._lock:
            self._answer.pop(key, None)

    def forget(self, key: str) -> None:
        with self._lock:
            self.forget_locked(key)

    def forget_locked(self, key: str) -> None:
        self._asks.drop(key)
        self._args.pop(key, None)


class BulkDrain:
    """Queues drained for many keys in one call (bridge.js `many`). A drain takes the items
    from node for good, so each key's items wait here until that key takes them. A key drains
    again when it has taken what the last drain brought, or that drain is `max_age_s` old;
    otherwise it takes what another key's drain brought it: one call for a fleet's bots each
    draining once a second, a fresh drain for every call of a lone reader."""

    def __init__(
        self,
        bridge: Bridge,
        fn: str,
        *,
        max_age_s: float,
        forget_s: float = FORGET_S,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bridge, self.fn, self.max_age_s, self.forget_s, self.monotonic = bridge, fn, max_age_s, forget_s, monotonic
        self._lock = threading.Lock()
        self._args: dict[str, tuple[Any, ...]] = {}
        self._asks = _Asks(forget_s)
        self._held: dict[str, list[Any]] = {}
        self._unseen: set[str] = set()  # keys that have not taken since the last drain
        self._at = float("-inf")
        self.calls = 0

    def take(self, key: str, *args: Any) -> list[Any]:
        """Every item drained for `key` not taken yet. BridgeError when the helper failed
        for this key in the drain this call made."""
        arrived = self.monotonic()
        error = None
        with self._asks.asking(key, arrived), self._lock:  # queued behind a stuck drain, it keeps its items
            self._args[key] = args
            self._asks.note(key, arrived)  # again: a forget since the first note must not leave it unrecorded
            if key not in self._unseen or arrived - self._at >= self.max_age_s:
                error = self._drain_locked(key)
            self._unseen.discard(key)
            items = self._held.pop(key, [])
        if error is not None and not items:
            raise BridgeError(f"{self.fn}: {error}")
        return items

    def _drain_locked(self, key: str) -> str | None:
        """One drain for every key asked for lately; the helper's error for `key`, if any."""
        now = self.monotonic()
        for old in self._asks.drop_stale(now):  # never the drainer or a reader queued behind it
            self._forget_locked(old)
        answer = self.bridge.call_json("many", self.fn, json.dumps({k: list(a) for k, a in self._args.items()}))
        self._at = now
        self.calls += 1
        self._unseen = set(self._args)
        error = None
        for k, got in answer.items():
            if "error" in got:
                error = got["error"] if k == key else error
            elif k in self._args:
                self._held.setdefault(k, []).extend(got["value"])
        return error

    def _forget_locked(self, key: str) -> None:
        """A key not asked for in forget_s (a bot replaced by a reconnect): its items go with it."""
        self._asks.drop(key)
        self._args.pop(key, None)
        self._held.pop(key, None)
        self._unseen.discard(key)


class BulkReads:
    """A bridge's bulk reads, shared by every body on it."""

    def __init__(self, bridge: Bridge) -> None:
        # under the reflex watch's 20 ms poll
        self.threats = BulkRead(bridge, "threatsSince", max_age_s=0.015, same_args=False)
        self.actions = BulkRead(bridge, "pollAction", max_age_s=0.15)  # tools poll every 0.2 s
        # periodic readers only (ticks of a second or more), never a tool
        self.snapshots = BulkRead(bridge, "snapshot", max_age_s=0.5)
        self.events = BulkDrain(bridge, "drainEvents", max_age_s=0.5)  # each body drains once a second (job_body)


_of: dict[int, BulkReads] = {}
_of_lock = threading.Lock()


def bulk_reads(bridge: Bridge) -> BulkReads:
    with _of_lock:
        reads = _of.get(id(bridge))
        if reads is None or reads.threats.bridge is not bridge:
            reads = _of[id(bridge)] = BulkReads(bridge)
        return reads
