"""The bot's last snapshot, kept between reads: the perception job's, or a fresher one read
for a user's goal or a keep-alive poke. Keep-alive, drive ticks and the goal runtime judge
by it; None before the first read."""

from __future__ import annotations

from agency.world import WorldSnapshot


class LastSeen:
    def __init__(self) -> None:
        self.snapshot: WorldSnapshot | None = None

    def get(self) -> WorldSnapshot | None:
        return self.snapshot

    def saw(self, snapshot: WorldSnapshot) -> None:
        self.snapshot = snapshot
