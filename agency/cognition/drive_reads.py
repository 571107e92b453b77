"""What a drive tick reads of the world beyond the perception job's snapshot. Each read is
made only when the tick will use it, and a failed one never stops the tick: it chooses
without it (the failure logged in one line, at DEBUG when the bot went away with it: the
body gate says that once).

- a fresh snapshot: the perception job's may predate the task that just ended (a table
  crafted a moment ago is not in it yet);
- a crafting table in the crafter's reach, or a table, furnace or bed remembered and still
  standing within the reuse distance (one block read each): only when the tick is due and
  none is held; None = not looked;
- the blocks in sight (one region read), only for a tick that grounds a collect or craft
  goal; the tables, furnaces and beds in them are remembered, gone ones forgotten.

Every read runs on a worker thread (the daemon's event loop is shared by every bot)."""

from __future__ import annotations

import asyncio

from loguru import logger

from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_tick import sight_box
from agency.cognition.settings import DriveTickConfig
from agency.perception.reads import snapshot_or_none
from agency.places.home import RANGE_M as HOME_RANGE_M
from agency.places.memory import PlaceMemory
from agency.tools.base import ToolContext
from agency.tools.crafting import nearby_table
from agency.world import BlockRegion, BodyLost, ConnectedBody, WorldSnapshot

TABLE_HAD_M = 128.0  # a crafting table remembered standing this near counts as the bot's for the drive rules


class DriveReads:
    def __init__(
        self, body: ConnectedBody, ctx: ToolContext, places: PlaceMemory, state: DriveTickState, config: DriveTickConfig
    ) -> None:
        self.body = body
        self.ctx = ctx  # the tools' view of the body: the table search is the crafter's own
        self.places = places
        self.state = state
        self.config = config

    @property
    def connected(self) -> bool:
        return self.body.connected

    async def fresh_snapshot(self, last: WorldSnapshot) -> WorldSnapshot:
        """A snapshot read now; `last` when the read fails or the body went away under it."""
        try:
            return await snapshot_or_none(self.body) or last
        except Exception as e:  # noqa: BLE001 - a failed read must not stop the tick: it chooses on the last one
            self._read_failed("fresh snapshot", e)
            return last

    async def places_nearby(self, snap: WorldSnapshot, now_ms: int | None) -> dict[str, bool | None]:
        """The drive rules' table_nearby, furnace_nearby and bed_known; read for a tick that is
        due, or whenever with now_ms None (DriveJob.goals_now)."""
        return {
            "table_nearby": await self.table_nearby(snap, now_ms),
            "furnace_nearby": await self.furnace_nearby(snap, now_ms),
            "bed_known": await self.bed_known(snap, now_ms),
        }

    async def table_nearby(self, snap: WorldSnapshot, now_ms: int | None) -> bool | None:
        """Is a placed crafting table in the crafter's reach, or remembered and still standing
        within TABLE_HAD_M? (One small region read, and one block per remembered table.) A
        table that far is the bot's own: the next craft places a new one where it is if it is
        beyond the reuse distance, so a tick spent crafting one on its own (DRIVE-3's third
        rule) is a tick lost (a bench bot back from a hunt 50 m off did, once a day)."""
        if not self._due(now_ms) or snap.count_of("crafting_table") or not self.body.connected:
            return None
        try:  # one in reach (usable_table's order), or a remembered one still standing
            near = await nearby_table(self.ctx)
            if near is not None:
                self.places.saw(near["name"], near["x"], near["y"], near["z"])
                return True
            table = await self.places.standing_read(self._block_at, "crafting_table", _here(snap), TABLE_HAD_M)
            return table is not None
        except Exception as e:  # noqa: BLE001 - a failed read must not stop the drive tick: judge by the inventory
            self._read_failed("crafting table search", e)
            return None

    async def furnace_nearby(self, snap: WorldSnapshot, now_ms: int | None) -> bool | None:
        """Is a furnace remembered and still standing within the reuse distance? (One in
        sight is found in the blocks the tick reads.)"""
        return await self._remembered_standing(snap, now_ms, "furnace", held=snap.count_of("furnace"))

    async def bed_known(self, snap: WorldSnapshot, now_ms: int | None) -> bool | None:
        """Is a bed the bot placed remembered and still standing as far as its hut is walked back
        to for the night (agency.places.home)? Then no second one is crafted. The bot places a
        bed in its hut only (the sleep reflex), so that is the bed it sleeps in; one it saw (a
        village's) is not. At the reuse distance (48 m) a 1.18.2 bench bot at d20bcc9, exploring
        from its hut, made a second bed, its sheep hunt failing 100 blocks off."""
        held = snap.count_matching("_bed")
        return await self._remembered_standing(snap, now_ms, "bed", held=held, within=HOME_RANGE_M, placed=True)

    async def in_sight(self, snap: WorldSnapshot) -> BlockRegion | None:
        """The blocks around the bot a tick grounds its goal on; None = not read, which
        grounds nothing in sight (the tick explores first)."""
        if not self.body.connected:
            return None
        try:
            region = await asyncio.to_thread(self.body.region, *sight_box(snap))
        except Exception as e:  # noqa: BLE001 - a failed read must not stop the drive tick: it explores first
            self._read_failed("reading the blocks in sight", e)
            return None
        self.places.observe(region)  # tables, furnaces, beds in sight remembered; gone ones forgotten
        return region

    def _due(self, now_ms: int | None) -> bool:
        return now_ms is None or self.state.due(now_ms, self.config.interval_ms)

    async def _remembered_standing(
        self,
        snap: WorldSnapshot,
        now_ms: int | None,
        kind: str,
        held: int,
        within: float | None = None,
        placed: bool = False,
    ) -> bool | None:
        if not self._due(now_ms) or held or not self.body.connected:
            return None
        try:
            place = await self.places.standing_read(self._block_at, kind, _here(snap), within, placed=placed)
            return place is not None
        except Exception as e:  # noqa: BLE001 - a failed read must not stop the drive tick: judge by the inventory
            self._read_failed(f"{kind} search", e)
            return None

    async def _block_at(self, pos: tuple[int, int, int]) -> str | None:
        """One block's name (None = unloaded)."""
        return (await asyncio.to_thread(self.body.region, pos, (1, 1, 1))).block_at(*pos)

    def _read_failed(self, what: str, e: Exception) -> None:
        line = str(e).splitlines()[0] if str(e) else type(e).__name__  # a bridge error carries a JS stack
        if isinstance(e, BodyLost) or not self.body.connected:
            logger.debug("[DriveTick] {} skipped: {}", what, line)
        else:
            logger.warning("[DriveTick] {} failed: {}", what, line)


def _here(snap: WorldSnapshot) -> tuple[float, float, float]:
    return (snap.position.x, snap.position.y, snap.position.z)
