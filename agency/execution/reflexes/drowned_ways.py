"""A task whose way keeps leading under water is given up, not walked back into.

The surface reflex takes the bot up for air and gives the task back; a task whose way runs
under a pond walks straight back in (a 1.18.2 bench bot's `craft torch` was taken up from
the same pond floor 23 times in six minutes, nothing else done). The SURFACINGS-th surfacing
of one task within WINDOW_MS, each within NEAR blocks of the latest, is the end of that task: it
fails with the place named (Executor.give_up: a drive tick's task, not in its follow-ups), and
the drive tick's retry backoff explores new ground before the goal is asked again.
"""

from __future__ import annotations

import math

SURFACINGS = 3
NEAR = 6.0  # blocks: the same water, not a long swim with several dives
WINDOW_MS = 180_000  # the pond's 23 came 15-25 s apart; a task that works on between dives is spared

Spot = tuple[float, float, float]


class DrownedWays:
    """The surfacings of the latest task taken up for air (one task at a time, within the
    window: bounded)."""

    def __init__(self) -> None:
        self._task: str | None = None
        self._spots: list[tuple[Spot, int]] = []

    def surfaced(self, task_id: str, at: Spot, now_ms: int) -> bool:
        """Count a surfacing of `task_id` from `at`; True when the task is to be given up."""
        if task_id != self._task:
            self._task, self._spots = task_id, []
        near = [(s, t) for s, t in self._spots if math.dist(s, at) <= NEAR and now_ms - t < WINDOW_MS]
        self._spots = [*near, (at, now_ms)]
        return len(self._spots) >= SURFACINGS

    def forget(self) -> None:
        self._task, self._spots = None, []


def from_spot(output: object) -> Spot | None:
    """Where the surface action started (its output's `from`), if it says."""
    start = output.get("from") if isinstance(output, dict) else None
    if not isinstance(start, dict):
        return None
    try:
        return (float(start["x"]), float(start["y"]), float(start["z"]))
    except (KeyError, TypeError, ValueError):
        return None


def given_up_reason(at: Spot) -> str:
    x, y, z = (math.floor(c) for c in at)
    return f"its way led under water at {x} {y} {z} {SURFACINGS} times; the bot was taken up for air each time"
