"""The `places` table (agency/db.py migration 7, agency/pg migration 4): one row per
remembered block of a kind the bot goes back to (a crafting table, a furnace, a bed), keyed
by the world it stands in and its position.

A row is only a hint. Who uses one reads the real block there first (agency.places.memory)
and deletes the row when the block is gone, so a wrong row costs one small region read,
never a walk to nothing. Rows of another world are kept and never listed: the world id is
part of every query (agency.goals.world_identity decides which world the daemon is in).
"""

from __future__ import annotations

import builtins
import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

from agency.clock import Clock, system_clock_ms
from agency.db import StoreSource, database_of
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
        return {
            "kind": self.kind,
            "x": self.x,
            "y": self.y,
            "z": self.z,
            "block": self.block,
            "source": self.source,
            "firstAt": self.first_at,
            "seenAt": self.seen_at,
        }


def _place(r: Any) -> Place:
    """A row by column name (sqlite3.Row and psycopg's dict rows alike)."""
    return Place(r["kind"], r["x"], r["y"], r["z"], r["block"], r["source"], r["first_at"], r["seen_at"])


_COLUMNS = "kind, x, y, z, block, source, first_at, seen_at"
_UPSERT_SET = (
    "ON CONFLICT (world_id, x, y, z) DO UPDATE SET "
    "  first_at = CASE WHEN places.kind = excluded.kind THEN places.first_at ELSE excluded.first_at END, "
    "  source = CASE WHEN places.kind = excluded.kind AND places.source = 'placed' "
    "                THEN 'placed' ELSE excluded.source END, "
    "  kind = excluded.kind, block = excluded.block, seen_at = excluded.seen_at"
)


@dataclass(frozen=True)
class _Statements:
    """The store's SQL in one dialect; a position is always x, y, z after the world."""

    get: str
    kind_at: str
    upsert: str
    trim: str  # keep a kind's most recently confirmed MAX_PER_KIND places
    touch: str
    delete: str
    list: str
    list_kind: str
    in_box: str
    in_box_kind: str  # the first cut of `near`


_SQL = {
    "sqlite": _Statements(
        get=f"SELECT {_COLUMNS} FROM places WHERE world_id = ? AND x = ? AND y = ? AND z = ?",
        kind_at="SELECT kind FROM places WHERE world_id = ? AND x = ? AND y = ? AND z = ?",
        upsert=(
            "INSERT INTO places (world_id, x, y, z, kind, block, source, first_at, seen_at) "
            f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) {_UPSERT_SET}"
        ),
        trim=(
            "DELETE FROM places WHERE world_id = ? AND kind = ? AND (x, y, z) NOT IN ("
            "  SELECT x, y, z FROM places WHERE world_id = ? AND kind = ? ORDER BY seen_at DESC LIMIT ?)"
        ),
        touch="UPDATE places SET seen_at = ? WHERE world_id = ? AND x = ? AND y = ? AND z = ?",
        delete="DELETE FROM places WHERE world_id = ? AND x = ? AND y = ? AND z = ?",
        list=f"SELECT {_COLUMNS} FROM places WHERE world_id = ? ORDER BY kind, x, y, z",
        list_kind=f"SELECT {_COLUMNS} FROM places WHERE world_id = ? AND kind = ? ORDER BY kind, x, y, z",
        in_box=(
            f"SELECT {_COLUMNS} FROM places WHERE world_id = ? "
            "AND x BETWEEN ? AND ? AND y BETWEEN ? AND ? AND z BETWEEN ? AND ?"
        ),
        in_box_kind=(
            f"SELECT {_COLUMNS} FROM places WHERE world_id = ? AND kind = ? "
            "AND x BETWEEN ? AND ? AND y BETWEEN ? AND ? AND z BETWEEN ? AND ?"
        ),
    ),
}
# The same statements with PostgreSQL's placeholders (none of them holds a literal ? or %).
_SQL["postgresql"] = _Statements(**{k: v.replace("?", "%s") for k, v in asdict(_SQL["sqlite"]).items()})


class PlaceStore:
    def __init__(self, db: StoreSource, *, clock: Clock = system_clock_ms) -> None:
        self._db = database_of(db)  # a path: a connection of its own; a database: the shared one
        self._sql = _SQL[self._db.dialect]
        self._clock = clock

    def get(self, world: str, pos: Pos) -> Place | None:
        row = self._db.execute(self._sql.get, (world, *pos)).fetchone()
        return None if row is None else _place(row)

    def remember(self, world: str, kind: str, pos: Pos, block: str, source: Source) -> bool:
        """Insert or refresh the place at pos; True when it was not remembered (as this
        kind) before. A place the bot placed stays 'placed' when it is later seen."""
        if kind not in KINDS:
            raise ValueError(f"not a kind of place: {kind!r} (known: {', '.join(KINDS)})")
        now = self._clock()
        with self._db.tx() as conn:
            before = conn.execute(self._sql.kind_at, (world, *pos)).fetchone()
            conn.execute(self._sql.upsert, (world, *pos, kind, block, source, now, now))
            conn.execute(self._sql.trim, (world, kind, world, kind, MAX_PER_KIND))
        return before is None or before["kind"] != kind

    def touch(self, world: str, pos: Pos) -> None:
        """A real block read confirmed the place now."""
        self._db.execute(self._sql.touch, (self._clock(), world, *pos))

    def forget(self, world: str, pos: Pos) -> Place | None:
        """Delete the place at pos; the row that was there, or None."""
        with self._db.tx() as conn:
            row = conn.execute(self._sql.get, (world, *pos)).fetchone()
            conn.execute(self._sql.delete, (world, *pos))
        return None if row is None else _place(row)

    def list(self, world: str, kind: str | None = None) -> list[Place]:
        rows = (
            self._db.execute(self._sql.list, (world,))
            if kind is None
            else self._db.execute(self._sql.list_kind, (world, kind))
        )
        return [_place(r) for r in rows]

    def near(self, world: str, kind: str, p: tuple[float, float, float], max_distance: float) -> builtins.list[Place]:
        """Places of a kind within max_distance of p, nearest first."""
        r = math.ceil(max_distance) + 1
        x, y, z = (math.floor(c) for c in p)
        rows = self._db.execute(self._sql.in_box_kind, (world, kind, x - r, x + r, y - r, y + r, z - r, z + r))
        hits = [pl for pl in map(_place, rows) if pl.distance_to(p) <= max_distance]
        return sorted(hits, key=lambda pl: (pl.distance_to(p), pl.pos))

    def in_box(self, world: str, origin: Pos, size: Pos) -> builtins.list[Place]:
        """Places inside the box origin .. origin + size - 1 (a block region's box)."""
        (ox, oy, oz), (sx, sy, sz) = origin, size
        rows = self._db.execute(self._sql.in_box, (world, ox, ox + sx - 1, oy, oy + sy - 1, oz, oz + sz - 1))
        return [_place(r) for r in rows]

    def close(self) -> None:
        self._db.release()
