"""What agency code knows of the world: snapshots, block regions, stimulus events,
action handles, and the `Body` protocol through which it sees and acts.

These models are the JSON contract between the JS helpers in node/bridge.js and Python.
JSON keys keep the bridge's camelCase; nothing here imports bot/ or javascript.
"""

from __future__ import annotations

import math
from collections import Counter
from enum import Enum
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agency.errors import AgencyError
from agency.names import same

GameMode = Literal["survival", "creative", "adventure", "spectator"]


class Vec3(BaseModel):
    model_config = ConfigDict(frozen=True)

    x: float
    y: float
    z: float

    def distance_to(self, other: Vec3) -> float:
        return math.sqrt((self.x - other.x) ** 2 + (self.y - other.y) ** 2 + (self.z - other.z) ** 2)


class InventoryItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    count: int = Field(ge=0)


class EntityInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    type: str
    hostile: bool
    distance: float = Field(ge=0)
    position: Vec3
    # a hostile near but outside the space the bot is in (behind the wall of its pocket: the
    # body's snapshot, node/lib/open_space.js): it cannot get at the bot, nor the bot at it
    sealedOff: bool = False
    near: bool = False  # counted in the snapshot's `hostiles` (within the radius, at the bot's level, not sealed off)
    # under the open sky, a hostile in a cave under the bot, ground between them (node/lib/snapshot.js)
    caveBelow: bool = False

    @property
    def threat(self) -> bool:
        """A hostile that can get at the bot: what the reflexes answer. Not one in a cave under
        it, out of its sight (docs/api.md, A snapshot), until it hurts the bot: the combat
        reflex takes an archer back then (choose_combat)."""
        return self.hostile and not self.sealedOff and not self.caveBelow


# The day cycle in game ticks (timeOfDay 0..23999), the one definition every room uses:
# dusk [11000, 13000) is when the bot should head for shelter; night [13000, 23000) is when
# mineflayer's isDay is false and hostiles spawn.
DUSK_START = 11_000
NIGHT_START = 13_000
NIGHT_END = 23_000
DayPhase = Literal["day", "dusk", "night"]
# The vitals under which a drive tick does not fire (docs/contracts.md DRIVE-1), nor a
# drive tick's follow-up start with nothing to eat held (agency.execution.agents.follow_up_runs).
SAFE_HEALTH = 16
SAFE_FOOD = 16


def day_phase(time_of_day: int) -> DayPhase:
    if DUSK_START <= time_of_day < NIGHT_START:
        return "dusk"
    if NIGHT_START <= time_of_day < NIGHT_END:
        return "night"
    return "day"


def is_dusk_or_night(time_of_day: int | None, is_day: bool | None) -> bool:
    """Night per the server (isDay false) or the dusk window: "night is approaching"."""
    return is_day is False or (time_of_day is not None and DUSK_START <= time_of_day < NIGHT_START)


def night_approaching(snapshot: WorldSnapshot) -> bool:
    return is_dusk_or_night(snapshot.timeOfDay, snapshot.isDay)


# A shelter is built ahead of the dusk: one drive-tick interval (180 s, 3600 ticks) for the goal
# to be asked, then the build itself (2-3 minutes with its logs, more on a mountain or in a wood).
# Asked only at dusk, it was still being built when the night's first monsters came, and a
# bare-handed bot died over and over outside it; asked from 6000 (a day's third tick), 7 of 12
# first huts in two caves benches were finished only the next morning, the night burrowed
# through (docs/benchmarks.md, the caves world). From 3000 it is a day's second tick's goal.
SHELTER_BUILD_START = 3_000


def shelter_due(snapshot: WorldSnapshot) -> bool:
    """Time to build the night's shelter if none is near: from SHELTER_BUILD_START to morning."""
    return night_approaching(snapshot) or SHELTER_BUILD_START <= snapshot.timeOfDay < DUSK_START


# Rock over the head that no hut roof has: the bot is in a mine or a cave. Down there the night
# changes nothing (hostiles spawn in the dark at any hour, and none spawns within 24 blocks of a
# player), so a bot at work underground at dusk works on rather than walking up to its shelter.
UNDERGROUND_COVER = 4


def underground(snapshot: WorldSnapshot) -> bool:
    """At least UNDERGROUND_COVER solid blocks over the bot's head (False when not read)."""
    return snapshot.cover is not None and snapshot.cover >= UNDERGROUND_COVER


def under_cover_at_night(snapshot: WorldSnapshot) -> bool:
    """Dusk or night with any solid block over the bot (a hut's roof, a pocket, a burrow)."""
    return night_approaching(snapshot) and bool(snapshot.cover)


class WorldSnapshot(BaseModel):
    """One reading of the bot's vitals and surroundings, taken in one bridge call."""

    model_config = ConfigDict(frozen=True)

    health: float = Field(ge=0, le=20)
    food: int = Field(ge=0, le=20)
    saturation: float | None = Field(default=None, ge=0)
    gameMode: GameMode
    dimension: str
    timeOfDay: int = Field(ge=0, lt=24000)
    isDay: bool
    isSleeping: bool = False  # in a bed (mineflayer bot.isSleeping); older recordings lack it
    oxygen: int | None = Field(default=None, ge=0, le=20)  # air bubbles, 20 full (bot.oxygenLevel); None: not read
    inWall: bool = False  # the eyes in a block the bot suffocates in (node/lib/in_wall.js); older recordings lack it
    position: Vec3
    # solid blocks over the head, leaves left out, counted up to 16 (node/lib/snapshot.js); None: not read
    cover: int | None = Field(default=None, ge=0)
    inventory: list[InventoryItem] = Field(default_factory=list)
    entities: list[EntityInfo] = Field(default_factory=list)
    hostiles: int = Field(ge=0)
    ts: int = Field(ge=0, description="milliseconds since the epoch when the snapshot was taken")

    def count_of(self, item_name: str) -> int:
        """Items of one kind, named in any version's form ('grass' counts 'short_grass')."""
        return sum(i.count for i in self.inventory if same(i.name, item_name))

    def count_matching(self, suffix: str) -> int:
        """Items whose name ends with suffix (e.g. '_log' counts every kind of log)."""
        return sum(i.count for i in self.inventory if i.name.endswith(suffix))

    def held(self) -> dict[str, int]:
        """The inventory summed by name: what a planner starts from."""
        out: dict[str, int] = {}
        for i in self.inventory:
            out[i.name] = out.get(i.name, 0) + i.count
        return out


AIRS = frozenset({"air", "cave_air", "void_air"})


class BlockRegion(BaseModel):
    """A box of blocks read in one call: palette of names + one index per block.

    `data` is ordered y-major, then z, then x: index = (y * size.z + z) * size.x + x,
    with x, y, z relative to `origin`. A palette entry of None marks an unloaded block.
    """

    model_config = ConfigDict(frozen=True)

    origin: tuple[int, int, int]
    size: tuple[int, int, int]
    palette: list[str | None]
    data: list[int]

    @model_validator(mode="after")
    def _check_shape(self) -> BlockRegion:
        sx, sy, sz = self.size
        if min(self.size) < 0:
            raise ValueError(f"region size must be non-negative, got {self.size}")
        if len(self.data) != sx * sy * sz:
            raise ValueError(f"region data has {len(self.data)} entries, size {self.size} needs {sx * sy * sz}")
        if self.data and max(self.data) >= len(self.palette):
            raise ValueError("region data indexes past the end of the palette")
        return self

    def contains(self, x: int, y: int, z: int) -> bool:
        ox, oy, oz = self.origin
        sx, sy, sz = self.size
        return ox <= x < ox + sx and oy <= y < oy + sy and oz <= z < oz + sz

    def block_at(self, x: int, y: int, z: int) -> str | None:
        """Block name at absolute world coordinates; None outside the region or unloaded."""
        if not self.contains(x, y, z):
            return None
        ox, oy, oz = self.origin
        sx, _, sz = self.size
        i = ((y - oy) * sz + (z - oz)) * sx + (x - ox)
        return self.palette[self.data[i]]

    def count(self, name: str) -> int:
        if name not in self.palette:
            return 0
        idx = {i for i, n in enumerate(self.palette) if n == name}
        return sum(1 for d in self.data if d in idx)

    def counts(self, *, skip: frozenset[str] = AIRS) -> dict[str, int]:
        """Blocks by name, most first; air (and unloaded blocks) left out."""
        by_index = Counter(self.data)
        out: Counter[str] = Counter()
        for i, n in by_index.items():
            name = self.palette[i]
            if name is not None and name not in skip:
                out[name] += n
        return dict(out.most_common())


class EventType(str, Enum):
    health = "health"
    death = "death"
    spawn = "spawn"
    kicked = "kicked"
    end = "end"
    error = "error"
    chat = "chat"
    entity_appear = "entity_appear"
    entity_hurt = "entity_hurt"
    action_done = "action_done"
    ready = "ready"
    reconnecting = "reconnecting"
    events_dropped = "events_dropped"


class BodyEvent(BaseModel):
    """A stimulus event from the body's event queue (drained in one call)."""

    model_config = ConfigDict(frozen=True)

    type: EventType
    ts: int
    data: dict[str, Any] = Field(default_factory=dict)


class ActionState(str, Enum):
    running = "running"
    done = "done"
    failed = "failed"
    cancelled = "cancelled"
    timeout = "timeout"

    @property
    def terminal(self) -> bool:
        return self is not ActionState.running


class ActionStatus(BaseModel):
    """State of a long action started in JS and polled from Python."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: str
    state: ActionState
    startedAt: int
    endedAt: int | None = None
    result: Any = None
    error: str | None = None


class BodyError(AgencyError, RuntimeError):
    """The body could not do what was asked (not connected, bad arguments, bridge gone)."""


class BodyLost(BodyError):
    """The body went away under the call (its process died, the bot was disconnected or
    kicked, the server restarted). Nothing failed on its own merits: work that meets this
    is held until a fresh body is ready, never failed."""


class BodyUnavailable(BodyError):
    """No body to serve a request with: the bot is not connected, or it went away during
    the reads the request needed. Nothing was done (a user's goal was not stored)."""


@runtime_checkable
class Body(Protocol):
    """How agency code sees and acts. Implemented by bot.runtime.body.MineflayerBody on a live bot
    and by agency.perception.replay.ReplayBody from a recorded session."""

    def snapshot(self) -> WorldSnapshot: ...

    def region(self, origin: tuple[int, int, int], size: tuple[int, int, int]) -> BlockRegion: ...

    def events(self) -> list[BodyEvent]: ...

    def start_action(self, kind: str, args: dict[str, Any]) -> ActionStatus: ...

    def poll_action(self, action_id: str) -> ActionStatus: ...

    def cancel_action(self, action_id: str) -> ActionStatus: ...

    def chat(self, message: str) -> None: ...


class ConnectedBody(Body, Protocol):
    """A body on a server, which can be away: `connected` says whether the bot is there now.
    The daemon's bodies are these; a recorded session's replay is a plain Body."""

    @property
    def connected(self) -> bool: ...


def is_remote(body: object) -> bool:
    """Does every call of this body wait on another process (a live bot's bridge to node)?
    Such a body says so with `remote = True`, and callers on the event loop make its calls
    on a worker thread. In-process doubles and replays leave it out."""
    return getattr(body, "remote", False) is True
