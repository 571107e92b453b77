"""Which world the store's memories belong to, and what entering another world archives.

A world is named by an id: `server:<host>:<port>` for a remote server,
`embedded:<seed>:<world folder>` for the embedded world saved to a folder, and
`memory:<seed>:<random>` for an in-memory embedded world, which is a new world at every
start whatever its seed. The store records the id it last ran in (table `world`: agency/db.py
migration 5, agency/pg migration 4, where every daemon on the database is in that world). On
a different one, everything that names a place of the old world is archived: kept, marked
with the old id, never reused and never failed:
- goal bindings (shelters, structures: all anchored to a site or a region), with their
  holds: a live goal is held for good (reason world_changed); its keys stop being live;
- workflow runs whose checkpoints carry positions, or whose task is an archived goal:
  renamed and listed as archived, so their task starts a fresh run.
Tasks that do not depend on positions (craft, gather, eat) carry on.

Archived stays archived: entering the old world again later does not bring its memories
back (a new goal is cheap; a wrong one walks the bot to a shelter that is not there).
An unrecorded store (first start, or a file from before world identity) is adopted by a
persistent world, and archived by an in-memory one, which by definition saw none of it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.db import StoreSource, database_of
from agency.execution.workflows.checkpoints import DatabaseCheckpointStore
from agency.goals.lifecycle import GoalLifecycle
from agency.goals.models import read_binding
from agency.planning.tasks.models import TaskStatus

# Keys under which a checkpoint names a block as [x, y, z] (tools' outputs, build sites).
_POSITION_LIST_KEYS = frozenset({"at", "pos", "position", "refCorner", "entrance", "target", "site"})


@dataclass(frozen=True)
class WorldIdentity:
    id: str
    ephemeral: bool = False  # in memory: nothing stored before this start can be of this world

    @classmethod
    def server(cls, host: str, port: int) -> WorldIdentity:
        return cls(f"server:{host.strip().lower()}:{int(port)}")

    @classmethod
    def embedded(cls, seed: int, world_folder: str) -> WorldIdentity:
        return cls(f"embedded:{int(seed)}:{world_folder}")

    @classmethod
    def in_memory(cls, seed: int, token: str | None = None) -> WorldIdentity:
        return cls(f"memory:{int(seed)}:{token or uuid.uuid4().hex[:12]}", ephemeral=True)

    def owns(self, recorded: str | None) -> bool:
        """Do memories recorded under `recorded` belong to this world?"""
        if recorded is None:
            return not self.ephemeral
        return recorded == self.id


def carries_position(value: Any) -> bool:
    """Does a checkpoint value name a place: a mapping with numeric x and z, or a 3-number
    list under a position key?"""
    if isinstance(value, Mapping):
        if all(isinstance(value.get(k), (int, float)) and not isinstance(value.get(k), bool) for k in ("x", "z")):
            return True
        for k, v in value.items():
            if (
                k in _POSITION_LIST_KEYS
                and isinstance(v, (list, tuple))
                and len(v) == 3
                and all(isinstance(c, (int, float)) for c in v)
            ):
                return True
            if carries_position(v):
                return True
        return False
    if isinstance(value, (list, tuple)):
        return any(carries_position(v) for v in value)
    return False


_RECORD_SET = "ON CONFLICT (slot) DO UPDATE SET world_id = excluded.world_id, recorded_at = excluded.recorded_at"
_RECORD = {  # in each dialect
    "sqlite": f"INSERT INTO world (slot, world_id, recorded_at) VALUES (1, ?, ?) {_RECORD_SET}",
    "postgresql": f"INSERT INTO world (slot, world_id, recorded_at) VALUES (1, %s, %s) {_RECORD_SET}",
}


class WorldRecord:
    """The `world` table: the id of the world the store's memories belong to."""

    def __init__(self, path: StoreSource, *, clock: Clock = system_clock_ms) -> None:
        self._db = database_of(path)  # a path: a connection of its own; a database: the shared one
        self._conn = self._db.conn
        self._record = _RECORD[self._db.dialect]
        self._clock = clock

    def current(self) -> str | None:
        row = self._conn.execute("SELECT world_id FROM world WHERE slot = 1").fetchone()
        return None if row is None else str(row["world_id"])

    def record(self, world_id: str) -> None:
        self._conn.execute(self._record, (world_id, self._clock()))

    def close(self) -> None:
        self._db.release()


@dataclass
class WorldEntry:
    world: str
    previous: str | None
    changed: bool  # another world than the store's memories: something may have been archived
    goals: list[str] = field(default_factory=list)  # archived goal-bound task ids
    runs: list[str] = field(default_factory=list)  # archived run ids (their new names)


def enter_world(
    path: StoreSource,
    identity: WorldIdentity,
    *,
    lifecycle: GoalLifecycle,
    checkpoints: DatabaseCheckpointStore,
) -> WorldEntry:
    """Run once at start, before any job: compare identity with the recorded world and, on
    a different one, archive the old world's places. The new id is recorded last, so a
    start killed half-way archives the rest next time (each step is idempotent)."""
    record = WorldRecord(path, clock=lifecycle.clock)
    try:
        previous = record.current()
        if identity.owns(previous):
            entry = WorldEntry(identity.id, previous, changed=False)
        else:
            entry = _archive(previous or "unrecorded", identity, lifecycle, checkpoints, previous)
            entry.changed = previous is not None or bool(entry.goals or entry.runs)  # not a first start
        record.record(identity.id)
    finally:
        record.close()
    if entry.changed:
        logger.info(
            "[World] new world {} (was {}): archived {} goals, {} checkpoints",
            identity.id,
            previous or "unrecorded",
            len(entry.goals),
            len(entry.runs),
        )
    else:
        logger.info("[World] world {}{}", identity.id, "" if previous else " (recorded)")
    return entry


def _archive(
    old: str,
    identity: WorldIdentity,
    lifecycle: GoalLifecycle,
    checkpoints: DatabaseCheckpointStore,
    previous: str | None,
) -> WorldEntry:
    entry = WorldEntry(identity.id, previous, changed=True)
    store = lifecycle.store
    for task in store.list_by_status(*[s for s in TaskStatus if s is not TaskStatus.failed]):
        binding = read_binding(task)
        if binding is not None and not binding.archived:
            lifecycle.archive(task.id, old)
            entry.goals.append(task.id)
    archived_goals = set(entry.goals)
    for run in checkpoints.unfinished_runs():
        latest = checkpoints.latest(run.runId)
        positional = carries_position(run.context) or (
            latest is not None and carries_position([latest.stepOutputs, latest.context, latest.memorySnapshot])
        )
        if positional or run.taskId in archived_goals:
            entry.runs.append(checkpoints.archive_run(run.runId, old))
    return entry
