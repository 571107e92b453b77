"""The bot's memory of places in the world it is in: the crafting tables, furnaces and beds
it placed or saw, so a restart does not cost a second table.

Three ways in, one rule out:
- `placed`: the place tool put such a block down (agency.tools.building);
- `saw` / `observe`: a real block read showed one (the crafter's table search, the blocks
  in sight a drive tick reads); `observe` also forgets remembered places inside the region
  read whose block is gone;
- `standing` (`standing_read` with awaited reads): the nearest remembered place of a kind
  within a distance whose real block is still there - read now, one block each, nearest
  first; a gone one is forgotten on the way. Memory is never trusted blindly: only a place
  that passed this read is used.

Scoped to the world: every row carries the world id the daemon entered
(agency.goals.world_identity), so a table of another world is never walked to. Shelters are
not stored here: the verified shelter goals are their memory (agency.goals), and `view`
lists them beside the places through the `shelters` callable the daemon hands in.

Tools reach it as ctx.hooks["places"] when the daemon provides it; without it they work
as before (judging by what is in reach).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from loguru import logger

from agency.places.settings import PlacesConfig
from agency.places.store import Place, PlaceStore, Pos, Source, place_kind
from agency.world import BlockRegion

HOOK = "places"  # the ToolContext.hooks key
MAX_CHECKS = 4  # remembered candidates read per lookup: a lookup costs at most this many block reads
_SIDES = ((1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1))  # where a bed's other half can be


class PlaceMemory:
    def __init__(
        self,
        store: PlaceStore,
        world: Callable[[], str | None],
        *,
        config: PlacesConfig = PlacesConfig(),
        shelters: Callable[[], list[dict[str, Any]]] | None = None,
    ) -> None:
        """world: the id of the world the daemon is in now (None = not known yet: nothing
        is remembered or recalled). shelters: the verified shelters, for `view`."""
        self.store = store
        self.config = config
        self._world = world
        self._shelters = shelters

    @property
    def reuse_distance(self) -> float:
        return self.config.reuse_distance

    def world(self) -> str | None:
        return self._world() if self.config.enabled else None

    # ---- remembering -------------------------------------------------------------------
    def placed(self, block: str, x: int, y: int, z: int) -> None:
        """The bot placed `block` at x, y, z (any block: only places are kept)."""
        self._remember(block, (x, y, z), "placed")

    def saw(self, block: str, x: int, y: int, z: int) -> None:
        """A real block read showed `block` at x, y, z."""
        self._remember(block, (x, y, z), "seen")

    def _remember(self, block: str, pos: Pos, source: Source, world: str | None = None) -> bool:
        """True when the place is new to memory (logged once, not at every sighting)."""
        world, kind = world or self.world(), place_kind(block)
        if world is None or kind is None:
            return False
        new = self.store.remember(world, kind, pos, block, source)
        if new:
            logger.info("[Places] {} at {} {} {} remembered ({} {})", kind, *pos, source, block)
        return new

    def observe(self, region: BlockRegion) -> dict[str, int]:
        """Reconcile memory with one region read: remembered places inside it whose block
        is gone are forgotten, places seen in it are remembered (a bed once, not per half).
        Unloaded blocks (None) prove nothing either way. Returns what changed."""
        world = self.world()
        if world is None:
            return {"remembered": 0, "forgotten": 0}
        forgotten, beds_kept = 0, []
        for place in self.store.in_box(world, region.origin, region.size):
            now = region.block_at(*place.pos)
            if now is None:
                continue
            if place_kind(now) != place.kind:
                self._forget(world, place, now)
                forgotten += 1
            elif place.kind == "bed":
                beds_kept.append(place.pos)
        remembered = 0
        for pos, name in _places_in(region, beds_kept):
            remembered += self._remember(name, pos, "seen", world)
        return {"remembered": remembered, "forgotten": forgotten}

    def _forget(self, world: str, place: Place, now: str) -> None:
        self.store.forget(world, place.pos)
        logger.info("[Places] {} at {} {} {} forgotten: block gone (now {})", place.kind, *place.pos, now)

    # ---- recalling ---------------------------------------------------------------------
    def candidates(
        self, kind: str, near: tuple[float, float, float], max_distance: float | None = None, *, placed: bool = False
    ) -> list[Place]:
        """The remembered places of `kind` a lookup reads, nearest first (at most
        MAX_CHECKS) within max_distance (default: the reuse distance) of `near`; `placed`:
        only those the bot placed itself."""
        world = self.world()
        if world is None:
            return []
        limit = self.reuse_distance if max_distance is None else max_distance
        places = self.store.near(world, kind, near, limit)
        return [p for p in places if p.source == "placed" or not placed][:MAX_CHECKS]

    def confirm(self, place: Place, now: str | None) -> bool:
        """The real block at a remembered place was read as `now`: True when the place
        still stands (its sighting refreshed); a gone one is forgotten; an unloaded one
        (None) is kept, since nothing was seen."""
        world = self.world()
        if world is None:
            return False
        if now is None:
            logger.debug("[Places] {} at {} {} {} not checked: its chunk is not loaded", place.kind, *place.pos)
            return False
        if place_kind(now) == place.kind:
            self.store.touch(world, place.pos)
            return True
        self._forget(world, place, now)
        return False

    async def standing_read(
        self,
        read: Callable[[Pos], Awaitable[str | None]],
        kind: str,
        near: tuple[float, float, float],
        max_distance: float | None = None,
        *,
        placed: bool = False,
    ) -> Place | None:
        """The nearest remembered place of `kind` (`placed`: by the bot) whose real block is
        still there, or None: each candidate's block is read now (one block each, awaited: the
        daemon reads on a worker thread and keeps the database on its event loop, the
        connection's one owner), gone ones forgotten on the way."""
        for place in self.candidates(kind, near, max_distance, placed=placed):
            if self.confirm(place, await read(place.pos)):
                return place
        return None

    def view(self) -> dict[str, Any]:
        """What the API shows: this world's places, and its verified shelters."""
        world = self.world()
        places = [p.as_dict() for p in self.store.list(world)] if world is not None else []
        shelters = self._shelters() if self._shelters is not None and world is not None else []
        return {
            "world": world,
            "enabled": self.config.enabled,
            "reuseDistance": self.reuse_distance,
            "places": places,
            "shelters": shelters,
        }


def _places_in(region: BlockRegion, beds_kept: Iterable[Pos]) -> list[tuple[Pos, str]]:
    """(position, name) of every place block in the region, a bed once: each bed cell is
    paired with one neighbouring bed cell (its other half), a remembered bed's pair first,
    so a bed already remembered by one half is not remembered again by the other."""
    wanted = {i: name for i, name in enumerate(region.palette) if name is not None and place_kind(name) is not None}
    if not wanted:  # the common case: one pass over the palette, none over the blocks
        return []
    (ox, oy, oz), (sx, _sy, sz) = region.origin, region.size
    found: dict[Pos, str] = {}
    for i, pi in enumerate(region.data):
        if pi in wanted:
            found[(ox + i % sx, oy + i // (sx * sz), oz + (i // sx) % sz)] = wanted[pi]
    beds = {p for p, name in found.items() if place_kind(name) == "bed"}
    paired: set[Pos] = set()

    def pair(p: Pos) -> None:
        paired.add(p)
        for dx, dy, dz in _SIDES:
            other = (p[0] + dx, p[1] + dy, p[2] + dz)
            if other in beds and other not in paired:
                paired.add(other)
                return

    kept = set(beds_kept) & beds
    for p in sorted(kept):
        pair(p)
    out = []
    for p in sorted(found):
        if p in beds and p not in kept:  # a kept bed is listed again: its sighting is refreshed
            if p in paired:
                continue
            pair(p)
        out.append((p, found[p]))
    return out
