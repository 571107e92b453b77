"""The morning's wait in the shelter: which hostiles near hold the bot in its hut, and until
when (the shelter reflex's `_morning_clear` leaves once none does)."""

from __future__ import annotations

from dataclasses import dataclass

from agency.execution.combat import CREEPERS
from agency.execution.settings import ReflexConfig
from agency.world import DUSK_START, EntityInfo, WorldSnapshot

CREEPER_WAIT_UNTIL = 3_000  # time of day: a creeper by the hut is waited out this long at most
# Spiders pick no target in daylight and drop one they have (vanilla's; node/plugins/mobs.js
# `shy`): under the morning sun (from 23460, when it burns zombies) one holds the bot in its hut
# only this close (a 26.1 bench bot at ba1afe9 stood 55 s of its morning in the hut for one 13
# blocks off, the only hostile near).
SHY_IN_DAYLIGHT = ("spider", "cave_spider")
SUN_UP_FROM = 23_460
SHY_NEAR = 4.0


@dataclass(frozen=True)
class MorningWait:
    near: int  # hostiles holding the bot in
    first: EntityInfo  # the one the log names
    until: int  # time of day the bot leaves at the latest


def holds(hostile: EntityInfo, snap: WorldSnapshot) -> bool:
    """Does this hostile near hold the bot in its hut in the morning? A spider under the sun
    only within SHY_NEAR."""
    sun_up = snap.timeOfDay >= SUN_UP_FROM or snap.timeOfDay < DUSK_START
    return not (hostile.name in SHY_IN_DAYLIGHT and sun_up and hostile.distance > SHY_NEAR)


def morning_wait(snap: WorldSnapshot, cfg: ReflexConfig) -> MorningWait | None:
    """None once the bot may leave its shelter: no hostile near holds it (the morning sun burns
    zombies and skeletons for a while yet), or at the latest at morning_leave_by; a creeper near,
    which the sun does not burn, is waited out until CREEPER_WAIT_UNTIL (a 1.18.2 bench bot left
    at time 1000 with one 11 blocks off, by the door, and was dead half a second later)."""
    near = [e for e in snap.entities if e.hostile and e.distance <= cfg.morning_clear_within and holds(e, snap)]
    late = cfg.morning_leave_by <= snap.timeOfDay < DUSK_START
    creeper = next((e for e in sorted(near, key=lambda e: e.distance) if e.name in CREEPERS), None)
    if not near or (late and (creeper is None or snap.timeOfDay >= CREEPER_WAIT_UNTIL)):
        return None
    if late and creeper is not None:
        return MorningWait(len(near), creeper, CREEPER_WAIT_UNTIL)
    return MorningWait(len(near), min(near, key=lambda e: e.distance), cfg.morning_leave_by)
