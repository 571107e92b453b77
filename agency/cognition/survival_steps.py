"""Survival steps of the drive tick: what keeps the bot fed and rested, asked for before the
tech-tree progression once the five 3.3 rules pass. None today: the rules land with the
hunting, cooking and bed workflows."""

from __future__ import annotations

from agency.cognition.drive_selection import DriveSelection
from agency.world import WorldSnapshot

SURVIVAL_ACTIONS: frozenset[str] = frozenset()  # actions beyond collect/craft/smelt a workflow carries out


def next_survival_step(snapshot: WorldSnapshot) -> DriveSelection | None:
    """The first missing survival step, or None."""
    return None
