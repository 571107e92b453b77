"""One bridge call for what many bots read often. Every bridge call runs on the bridge's one
worker thread, in order: a fleet's bots each polling their threats every 20 ms, their
action every 0.2 s and a snapshot every second queue up there, and a user's request waits
behind them. A BulkRead answers each key (a bot, an action) from the last bulk answer while
it is younger than `max_age_s`; the first key to ask after that fetches the answers for
every key asked for lately in one call (bridge.js `many`)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable

from bot.runtime.bridge import Bridge, BridgeError

FORGET_S = 5.0  # a key not asked for this long (a bot gone, an action ended) is left out


class BulkRead:
    def __init__(self, bridge: Bridge, fn: str, *, max_age_s: float, same_args: bool = True,
                 forget_s: float = FORGET_S, monotonic: Callable[[], float] = time.monotonic) -> None:
        """same_args=False: an answer serves a key whatever args it asks with now (threats:
        fetched after an older seq, the caller keeps the ones after its own)."""
        self.bridge, self.fn, self.max_age_s, self.forget_s, self.monotonic = bridge, fn, max_age_s, forget_s, monotonic
        self.same_args = same_args
        self._lock = threading.Lock()
        self._args: dict[str, tuple[Any, ...]] = {}
        self._asked_at: dict[str, float] = {}
        self._answer: dict[str, dict[str, Any]] = {}
        self._answered_args: dict[str, tuple[Any, ...]] = {}  # what each key's answer was asked with
        self._at = float("-inf")
        self.calls = 0

    def read(self, key: str, *args: Any) -> Any:
        """The helper's answer for `key` called with `args`, at most max_age_s old (a key
        asking for the first time, or with other args, always gets a fresh one).
        BridgeError when the helper failed for this key (a bot the bridge no longer has)."""
        arrived = self.monotonic()  # before the lock: an answer fetched while this caller waited serves it
        with self._lock:
            fresh = (key in self._answer and (not self.same_args or self._answered_args.get(key) == args)
                     and arrived - self._at < self.max_age_s)
            self._args[key], self._asked_at[key] = args, arrived
            if not fresh:
                now = self.monotonic()
                for old in [k for k, t in self._asked_at.items() if now - t >= self.forget_s]:
                    self.forget_locked(old)
                asked = dict(self._args)
                self._answer = self.bridge.call_json("many", self.fn, json.dumps({k: list(a) for k, a in asked.items()}))
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
        self._asked_at.pop(key, None)
        self._args.pop(key, None)


class BulkReads:
    """A bridge's bulk reads, shared by every body on it."""

    def __init__(self, bridge: Bridge) -> None:
        self.threats = BulkRead(bridge, "threatsSince", max_age_s=0.015, same_args=False)  # under the reflex watch's 20 ms poll
        self.actions = BulkRead(bridge, "pollAction", max_age_s=0.15)  # tools poll every 0.2 s
        self.snapshots = BulkRead(bridge, "snapshot", max_age_s=0.25)  # periodic readers only, never a tool


_of: dict[int, BulkReads] = {}
_of_lock = threading.Lock()


def bulk_reads(bridge: Bridge) -> BulkReads:
    with _of_lock:
        reads = _of.get(id(bridge))
        if reads is None or reads.threats.bridge is not bridge:
            reads = _of[id(bridge)] = BulkReads(bridge)
        return reads
