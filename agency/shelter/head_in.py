"""When a bot at dusk heads for its shelter: late enough not to wait out the dusk on the hut's
floor, early enough to be in before the night's first monsters (NIGHT_START).

In at the dusk's start (DUSK_START), the bots of thirteen survival benches stood in their huts
for 7 to 14 % of the daylight, a bot with a bed waiting for the sleep window (12542) and one
without one for the night. Its walk in is given WALK_TICKS_PER_BLOCK a block of the straight
line (twice a straight walk: a path's detours, a door) and HEAD_IN_MARGIN on top (a fight or a
failed path on the way); a shelter far enough away is headed for at the dusk's start, as before.
"""

from __future__ import annotations

import math

from agency.shelter.models import Pos
from agency.world import DUSK_START, NIGHT_START, WorldSnapshot

WALK_TICKS_PER_BLOCK = 10  # a straight walk is about 4.6 ticks a block
HEAD_IN_MARGIN = 1_000  # ticks (50 s): the bot by its hut heads in at 12000


def head_in_time(distance: float) -> int:
    """The time of day at which a bot `distance` blocks from its shelter's door heads in."""
    return max(DUSK_START, NIGHT_START - HEAD_IN_MARGIN - math.ceil(distance * WALK_TICKS_PER_BLOCK))


def distance_to(snap: WorldSnapshot, door: Pos) -> float:
    p = snap.position
    return math.dist((p.x, p.y, p.z), (door[0] + 0.5, door[1], door[2] + 0.5))


def head_in_due(snap: WorldSnapshot, door: Pos) -> bool:
    """Night proper (or the server says it is not day): at once. At dusk: once the walk to the
    door `door` and the margin no longer fit before NIGHT_START."""
    if snap.isDay is False or not DUSK_START <= snap.timeOfDay < NIGHT_START:
        return True
    return snap.timeOfDay >= head_in_time(distance_to(snap, door))
