"""What the executor asks about the body's bridge when a run is held for a lost body: did the
bridge itself go down since the run started (its node process died, or was killed as
wedged), or did the bot only lose its connection on a live bridge (a kick, a server
restart)? Only the first counts toward failing a poison task (agency/planning/tasks/poison.py),
and only when this bot had something running on node then: a fleet's bots share the bridge,
and one bot's wedge is no fault of the others' tasks. The live bot's answer is
bot/runtime/bridge_downs.py; without one, nothing counts."""

from __future__ import annotations

from typing import Protocol


class BridgeWatch(Protocol):
    def mark(self) -> int:
        """Where the bridge stands now: taken when a run starts."""
        ...

    def down_since(self, mark: int) -> str | None:
        """Why the bridge went down after `mark` while this bot had actions running on it (the
        last time, if more than once); None if it did not."""
        ...
