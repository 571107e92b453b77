"""Survival reflexes: reactions that preempt the current task through the workflow safe
stop, then give it back. Answer hostiles by their kind (agency.execution.combat: retreat
when hurt or outnumbered, keep out of a creeper's blast, close in on a skeleton, fight
zombies and spiders); eat when food is low, or to heal, and food is held, and forage (hunt an
animal in sight, or explore for one) when hungry with nothing to eat (agency.execution.hunger);
spend the night in a verified shelter nearby (go in at dusk, close the door, hold every task
until morning, then come out once no hostile is near). In the shelter with the door closed, the bot
lies down in its bed once the night allows it (a held bed is put there first); the server
wakes it in the morning or when it is hurt, and a hostile inside the hut is fought (out of
bed first). Never in creative or spectator mode.

A death (mineflayer respawns the bot) is recorded with its cause and holds the running task
('died'); once respawned and safe, the bot walks back and picks up what it dropped while the
items still lie there (vanilla despawns them after 5 minutes), then the task resumes. What
could not be recovered the task's re-plan gathers again.

One reflex a module (combat, eat, forage, recover, shelter, sleep), what they share in base,
and the arbiter that chooses among them and acts (Reflexes)."""

from __future__ import annotations

from agency.execution.reflexes.arbiter import Reflexes
from agency.execution.reflexes.base import (
    DIED,
    SAFE_MODES,
    Death,
    ReflexStats,
    ShelterLookup,
    YieldsBody,
)
from agency.execution.settings import ReflexConfig  # the one schema, also the [reflexes] section
from agency.planning.tasks.idempotency import (
    PREEMPTED,
    SHELTERING,  # the tasks held for the night
)

__all__ = [
    "DIED",
    "PREEMPTED",
    "SAFE_MODES",
    "SHELTERING",
    "Death",
    "ReflexConfig",
    "ReflexStats",
    "Reflexes",
    "ShelterLookup",
    "YieldsBody",
]
