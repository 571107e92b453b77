"""The order of agency's rooms, declared once.

A module may import the shared models (the modules at the top of agency/: world, clock,
db, names, blocks, goal_tag, intent, thoughts, environment, log_rate, stats) and the rooms listed
before its own room; the shared models import only each other. A module's room is the
longest entry below that its name starts with. The tools (`agency.tools`) are a room of their
own below `agency.shelter`, whose shelter tools build on them, and `agency.execution`, which
runs them all. The game's knowledge (`agency.game`) is the bottom room: data and pure
lookups that import no other room.
tests/unit/test_layers.py reads every import in agency/ and holds this order; agency/
never imports bot/, javascript or the daemon's web and scheduling libraries.

Database clients are not network libraries here: the shared agency.db and any room may
import sqlite3 (the file is local), and agency.pg (PostgreSQL stores for several daemons on
one database) alone imports psycopg, the one network-facing library allowed outside
agency.llm. A room that must tell a PostgreSQL error apart asks agency.db
(integrity_errors, refused_by_unique_index), where agency.pg's database declares it.
"""

from __future__ import annotations

LAYERS: tuple[str, ...] = (
    "agency.game",  # what the game is: recipes, furnace, foods, animals, harvest data
    "agency.perception",  # stimuli, replay, the body gate
    "agency.places",  # memory of places: crafting tables, furnaces, beds (per world)
    "agency.llm",  # the LLM session runtime: providers, retries, tools
    "agency.stream",  # the cognitive stream
    "agency.planning",  # thought -> task, the task store
    "agency.tools",  # validated actions on the Body
    "agency.shelter",  # shelter geometry, verifier, the shelter tools
    "agency.execution",  # workflows, agents, the executor, reflexes
    "agency.cognition",  # drive ticks, keep-alive, grounding, eligibility
    "agency.goals",  # goal binding, user goals, world identity
    "agency.chat",  # players' commands in the game's chat: through the goal intake and direct actions
    "agency.pg",  # PostgreSQL stores behind the rooms' store protocols (above every room they serve)
    "agency.eval",  # scenario suites, metrics, bundles
)

# Imports agency code never makes (the outside world reaches agency through the Body
# protocol and the daemon; LLM providers talk HTTP through httpx in agency.llm only).
FORBIDDEN: tuple[str, ...] = ("bot", "javascript", "fastapi", "starlette", "uvicorn", "apscheduler")
NETWORK: tuple[str, ...] = ("httpx", "requests", "aiohttp", "socket")
NETWORK_ROOM = "agency.llm"
# PostgreSQL client libraries, imported in agency.pg only (even inside a function).
PG_CLIENTS: tuple[str, ...] = ("psycopg", "psycopg_pool", "psycopg2", "asyncpg")
PG_ROOM = "agency.pg"


def room_of(module: str) -> str | None:
    """The layer a module belongs to, or None for a shared model at agency's top."""
    best = None
    for room in LAYERS:
        if (module == room or module.startswith(room + ".")) and (best is None or len(room) > len(best)):
            best = room
    return best


def may_import(importer: str, imported: str) -> bool:
    """Whether `importer` (an agency module) may import `imported` (an agency module)."""
    src, dst = room_of(importer), room_of(imported)
    if dst is None:
        return True  # shared models are for everyone
    if src is None:
        return False  # shared models import no room
    return src == dst or LAYERS.index(dst) < LAYERS.index(src)
