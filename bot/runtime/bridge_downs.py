"""The executor's BridgeWatch (agency/execution/bridge_watch.py) on the live bridge: tells a
body lost with its bridge (node died, or was killed as wedged; the body then rebuilds it)
from an ordinary disconnect (a kick, a server restart), where the same node goes on.

Read off the bridge, not the body's errors: a run held while it sat between two calls met
no error at all. Every (re)start bumps the bridge's generation, so the node processes that
have ended by now are `generation - 1` on a live bridge and `generation` on a dead one; a
run's mark is that count when it started, and a larger one at its hold means the bridge
went down meanwhile, whichever of the dead check, the rebuild or the hold came first.

A fleet's bots share the bridge, so a down is blamed only on the bodies that had long
actions running on that node when it ended (MineflayerBody.actions_running): whatever works
the world on node is such an action, the rest are reads. A bot that was idle or only polled
had no part in it: its run is held, but the down does not count toward failing its task.
Who was busy is read at the first observe() of the dead node; till then no body's record can
change (every call on a dead bridge fails before node, and a body clears its record only in
maintain(), after observe()), so it is what was running at the end. The watchdog's wedge
record lists the same actions, but as one list for the whole bridge.

A node killed from outside (bot.runtime.bridge.OUTSIDE_KILL: an operator's or the chaos
soak's signal) is an end no task had a part in: it is blamed on nobody.

The reason is the bridge's dead_reason, which a finished rebuild clears: observe() keeps it,
and MineflayerBody.maintain() calls it before it rebuilds. A rebuild nobody observed (no path
of the daemon's) leaves the down blamed on nobody: a guess never fails a task, and a poison
task resumed takes the bridge down again, observed this time.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.runtime.bridge import OUTSIDE_KILL


@dataclass(frozen=True)
class _End:
    reason: str  # why that node process ended
    busy: frozenset[int]  # the bodies (BodyDowns.key) that had actions running on it then


class BridgeDowns:
    """The one record of a bridge's ends (bridge_downs()); each body asks through of_body()."""

    def __init__(self, bridge: Any) -> None:
        self.bridge = bridge  # bot.runtime.bridge.Bridge, or a test double with alive, generation, dead_reason
        self._ends: dict[int, _End] = {}  # node processes ended (their count) -> why, who was busy
        self._bodies: dict[int, Callable[[], list[str]]] = {}  # key -> that body's actions_running
        self._keys = itertools.count()
        self._lock = threading.Lock()  # bodies of a fleet observe from their worker threads

    def of_body(self, running: Callable[[], list[str]]) -> BodyDowns:
        """The BridgeWatch of one body's executor; `running`: its long actions on node now."""
        key = next(self._keys)
        with self._lock:
            self._bodies[key] = running
        return BodyDowns(self, key)

    def _ended(self) -> tuple[int, bool]:
        """(node processes ended so far, whether the current one is among them), read within
        one generation (a rebuild on another thread can come between the two reads)."""
        while True:
            generation = self.bridge.generation
            alive = self.bridge.alive
            if self.bridge.generation == generation:
                return generation - (1 if alive else 0), not alive

    def observe(self) -> None:
        """Keep why the bridge is dead and who was busy on it, while it still says (a rebuild forgets)."""
        ended, dead = self._ended()
        if not dead:
            return
        with self._lock:
            if ended in self._ends or self._ended() != (ended, True):  # kept already, or rebuilt meanwhile
                return
            reason = self.bridge.dead_reason or "bridge dead"
            outside = reason.startswith(OUTSIDE_KILL)
            busy = frozenset() if outside else frozenset(k for k, running in self._bodies.items() if running())
            self._ends[ended] = _End(reason, busy)

    def mark(self) -> int:
        self.observe()
        return self._ended()[0]

    def ends_since(self, mark: int) -> list[_End | None]:
        """The node processes ended after `mark`, oldest first (None: ended unobserved)."""
        self.observe()
        ended = self._ended()[0]
        with self._lock:
            return [self._ends.get(n) for n in range(mark + 1, ended + 1)]


class BodyDowns:
    """One body's view (agency.execution.bridge_watch.BridgeWatch): the downs it had a part in."""

    def __init__(self, downs: BridgeDowns, key: int) -> None:
        self.downs, self.key = downs, key

    def mark(self) -> int:
        return self.downs.mark()

    def down_since(self, mark: int) -> str | None:
        mine = [end.reason for end in self.downs.ends_since(mark) if end is not None and self.key in end.busy]
        return mine[-1] if mine else None


_of: weakref.WeakKeyDictionary[Any, BridgeDowns] = weakref.WeakKeyDictionary()
_of_lock = threading.Lock()


def bridge_downs(bridge: Any) -> BridgeDowns:
    """The one record of this bridge."""
    with _of_lock:
        downs = _of.get(bridge)
        if downs is None:
            downs = _of[bridge] = BridgeDowns(bridge)
        return downs
