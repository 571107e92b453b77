"""The executor's BridgeWatch (agency/execution/bridge_watch.py) on the live bridge: tells a
body lost with its bridge (node died, or was killed as wedged; the body then rebuilds it)
from an ordinary disconnect (a kick, a server restart), where the same node goes on.

Read off the bridge, not the body's errors: a run held while it sat between two calls met
no error at all. Every (re)start bumps the bridge's generation, so the node processes that
have ended by now are `generation - 1` on a live bridge and `generation` on a dead one; a
run's mark is that count when it started, and a larger one at its hold means the bridge
went down meanwhile, whichever of the dead check, the rebuild or the hold came first.

A node killed from outside (bot.runtime.bridge.OUTSIDE_KILL: an operator's or the chaos
soak's signal) is an end the task had no part in: it is not reported as a down.

The reason is the bridge's dead_reason, which a finished rebuild clears: observe() keeps it,
and MineflayerBody.maintain() calls it before it rebuilds. One record a bridge, so a fleet's
bots, which share it, all know why, whichever of them rebuilt it.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from bot.runtime.bridge import OUTSIDE_KILL

MISSED = "bridge rebuilt before its reason was read"


class BridgeDowns:
    def __init__(self, bridge: Any) -> None:
        self.bridge = bridge  # bot.runtime.bridge.Bridge, or a test double with alive, generation, dead_reason
        self._reasons: dict[int, str] = {}  # generation -> why that node process ended
        self._lock = threading.Lock()  # bodies of a fleet observe from their worker threads

    def _ended(self) -> tuple[int, bool]:
        """(node processes ended so far, whether the current one is among them), read within
        one generation (a rebuild on another thread can come between the two reads)."""
        while True:
            generation = self.bridge.generation
            alive = self.bridge.alive
            if self.bridge.generation == generation:
                return generation - (1 if alive else 0), not alive

    def observe(self) -> None:
        """Keep why the bridge is dead, while it still says (a rebuild forgets it)."""
        ended, dead = self._ended()
        if dead:
            with self._lock:
                self._reasons.setdefault(ended, self.bridge.dead_reason or "bridge dead")

    def mark(self) -> int:
        self.observe()
        return self._ended()[0]

    def down_since(self, mark: int) -> str | None:
        self.observe()
        ended = self._ended()[0]
        with self._lock:
            reasons = [self._reasons.get(n, MISSED) for n in range(mark + 1, ended + 1)]
        counted = [r for r in reasons if not r.startswith(OUTSIDE_KILL)]
        return counted[-1] if counted else None


_of: "weakref.WeakKeyDictionary[Any, BridgeDowns]" = weakref.WeakKeyDictionary()
_of_lock = threading.Lock()


def bridge_downs(bridge: Any) -> BridgeDowns:
    """The one record of this bridge."""
    with _of_lock:
        downs = _of.get(bridge)
        if downs is None:
            downs = _of[bridge] = BridgeDowns(bridge)
        return downs
