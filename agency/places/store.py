"""The `places` table (migration 7): one row per remembered block of a kind the bot goes
back to (a crafting table, a furnace, a bed), keyed by the world it stands in and its
position.

A row is only a hint. Who uses one reads the real block there first (agency.places.memory)
and deletes the row when the block is gone, so a wrong row costs one small region read,
never a walk to nothing. Rows of another world are kept and never listed: the world id is
part of every query (agency.goals.world_identity decides which world the daemon is in).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from agency.clock import Clock, system_clock_ms
from agency.db import Database, DatabaseSource
from agency.names import canonical

Kind = Literal["crafting_table", "furnace", "bed"]
KINDS: tuple[str, ...] = ("crafting_table", "furnace", "bed")
Source = Literal["placed", "seen"]
Pos = tuple[int, int, int]
# A village or a base can show dozens of beds: a world keeps the most recently confirmed
# places of each kind, so a lookup stays a small query and a stale corner ages out.
MAX_PER_KIND = 64


def place_kind(name: str | None) -> str | None:
    """The kind of place a block is, or None. Any colour of bed is a bed; a lit furnace (its
    own block before 1.13) is a furnace."""
    if name is None:
        return None
    n = canonical(name)
    if n == "crafting_table":
        return "crafting_table"
    if n in ("furnace", "lit_furnace"):
        return "furnace"
    if n == "bed" or n.endswith("_bed"):
        return "bed"
    return None


@dataclass(frozen=True)
class Place:
    kind: str
    x: int
    y: int
    z: int
    block: str
    source: str
    first_at: int
    seen_at: int

    @property
    def pos(self) -> Pos:
        return (self.x, self.y, self.z)

    def distance_to(self, p: tuple[float, float, float]) -> float:
        """From p to the block's centre."""
        return math.dist((self.x + 0.5, self.y + 0.5, self.z + 0.5), p)

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "x": self.x, "y": self.y, "z": self.z, "block": self.block,
                "source": self.source, "firstAt": self.first_at, "seenAt": self.seen_at}


def _place(row: object) -> Place:
    r = row  # sqlite3.Row
    return Place(r["kind"], r["x"], r["y"], r["z"], r["block"], r["source"], r["first_at"], r["seen_at"])  # type: ignore[index]


_COLUMNS = "kind, x, y, z, block, source, first_at, seen_at"


class PlaceStore:
    def __init__(self, db: DatabaseSource, *, clock: Clock = system_clock_ms) -> None:
        self._db = Database.of(db)  # a path: a connection of its own; a Database: the shared one
        self._clock = clock

    def get(self, world: str, pos: Pos) -> Place | None:
        row = self._db.execute(f"SELECT {_COLUMNS} FROM places WHERE world_id = ? AND x = ? AND y = ? AND z = ?",
                               (world, *pos)).fetchone()
        return None if row is None else _place(row)

    def remember(self, world: str, kind: str, pos: Pos, block: str, source: Source) -> bool:
        """Insert or refresh the place at pos; True when it was not remembered (as this
        kind) before. A place the bot placed stays 'placed' when it is later seen."""
        if kind not in KINDS:
            raise ValueError(f"not a kind of place: {kind!r} (known: {', '.join(KINDS)})")
        now = self._clock()
        with self._db.tx() as conn:
            before = conn.execute("SELECT kind FROM places WHERE world_id = ? AND x = ? AND y = ? AND z = ?",
                                  (world, *pos)).fetchone()
            conn.execute(
                "INSERT INTO places (world_id, x, y, z, kind, block, source, first_at, seen_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (world_id, x, y, z) DO UPDATE SET "
                "  first_at = CASE WHEN places.kind = excluded.kind THEN places.first_at ELSE excluded.first_at END, "
                "  source = CASE WHEN places.kind = excluded.kind AND places.source = 'placed' "
                "                THEN 'placed' ELSE excluded.source END, "
                "  kind = excluded.kind, block = excluded.block, seen_at = excluded.seen_at",
                (world, *pos, kind, block, source, now, now),
            )
            conn.execute(  # keep the most recently confirmed MAX_PER_KIND of this kind
                "DELETE FROM places WHERE world_id = ? AND kind = ? AND (x, y, z) NOT IN ("
                "  SELECT x, y, z FROM places WHERE world_id = ? AND kind = ? ORDER BY seen_at DESC LIMIT ?)",
                (world, kind, world, kind, MAX_PER_KIND),
            )
        return before is None or before["kind"] != kind

    def touch(self, world: str, pos: Pos) -> None:
        """A real block read confirmed the place now."""
        self._db.execute("UPDATE places SET seen_at = ? WHERE world_id = ? AND x = ? AND y = ? AND z = ?",
                         (self._clock(), world, *pos))

    def forget(self, world: str, pos: Pos) -> Place | None:
        """Delete the place at pos; the row that was there, or None."""
        with self._db.tx() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM places WHERE world_id = ? AND x = ? AND y = ? AND z = ?",
                               (world, *pos)).fetchone()
            conn.execute("DELETE FROM places WHERE world_id = ? AND x = ? AND y = ? AND z = ?", (world, *pos))
        return None if row is None else _place(row)

    def list(self, world: str, kind: str | None = None) -> list[Place]:
        sql = f"SELECT {_COLUMNS} FROM places WHERE world_id = ?"
        args: tuple[object, ...] = (world,)
        if kind is not None:
            sql, args = sql + " AND kind = ?", (world, kind)
        return [_place(r) for r in self._db.execute(sql + " ORDER BY kind, x, y, z", args)]

    def near(self, world: str, kind: str, p: tuple[float, float, float], max_distance: float) -> list[Place]:
        """Places of a kind within max_distance of p, nearest first."""
        r = math.ceil(max_distance) + 1
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM places WHERE world_id = ? AND kind = ? "
            "AND x BETWEEN ? AND ? AND y BETWEEN ? AND ? AND z BETWEEN ? AND ?",
            (world, kind, math.floor(p[0]) - r, math.floor(p[0]) + r, math.floor(p[1]) - r, math.floor(p[1]) + r,
             math.floor(p[2]) - r, math.floor(p[2]) + r),
        )
        hits = [pl for pl in map(_place, rows) if pl.distance_to(p) <= max_distance]
        return sorted(hits, key=lambda pl: (pl.distance_to(p), pl.pos))

    def in_box(self, world: str, origin: Pos, size: Pos) -> list[Place]:
        """Places inside the box origin .. origin + size - 1 (a block region's box)."""
        (ox, oy, oz), (sx, sy, sz) = origin, size
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM places WHERE world_id = ? "
            "AND x BETWEEN ? AND ? AND y BETWEEN ? AND ? AND z BETWEEN ? AND ?",
            (world, ox, ox + sx - 1, oy, oy + sy - 1, oz, oz + sz - 1),
        )
        return [_place(r) for r in rows]

    def close(self) -> None:
        self._db.release()
