"""After a death: the death recorded with its cause, the running task held ('died'), and once
respawned and safe the dropped items walked back to and picked up while they still lie
there; then the task resumes."""

from __future__ import annotations

from collections.abc import Iterable

from loguru import logger

from agency.execution.reflexes.base import DIED, Death, ReflexBase
from agency.world import BodyEvent, EventType, Vec3, WorldSnapshot

DROWNED = frozenset({"drowning", "drown"})  # the death cause as the world reports a drowning
GUARDED_WITHIN = 10.0  # a hostile seen this near the items keeps the bot from walking back to them
GUARDED_LEVEL = 4  # ... near their level (not one in a cave under them)
GUARDED_FOR_MS = 90_000  # ... for this long at most: then the items are given up and the tasks go on
# A walk back stopped by threats on the way this often, the first this long ago: given up the
# same (a 1.18.2 bench bot's was stopped 31 times in 5 minutes, its tasks held until the items despawned)
WALK_BACK_STOPS = 3
WALK_BACK_STOPPED_MS = GUARDED_FOR_MS
RECOVER_AT_NIGHT_M = 16.0  # by night, items farther than this from the respawned bot wait for the day
# Items lying deeper than this under the respawned bot's feet are walked to, never dug down to
# (a respawned bot holds nothing: its pickaxe lies with the items): a 26.1 bench bot killed at
# y 47 dug a shaft toward its items with bare hands from the spawn at y 72, through dirt and
# gravel to the stone, and stayed trapped in it for the last day and a half.
RECOVER_BELOW_M = 4.0
# The walk back and the pick-up together, well within the reflex job's 120 s: a 64-block walk
# takes 15 s; one that cannot get there has failed long before (two bench bots at 25182a6 spent
# the job's whole 120 s on items they never reached, 0 of 20 picked up, and the job timed out).
RECOVER_BUDGET_S = 60.0


class RecoverReflex(ReflexBase):
    def record_events(self, events: Iterable[BodyEvent]) -> bool:
        """Count deaths (with their cause) and note hits taken; True if the bot died."""
        died = False
        for ev in events:
            if ev.type is EventType.entity_hurt and ev.data.get("self"):
                self._hurt_at = self.clock()
            if ev.type is not EventType.death:
                continue
            died = True
            self._walk_back_stops = (0, 0)  # this death's walk back is a new one
            cause = str(ev.data.get("cause") or "unknown")
            self.stats.deaths += 1
            self.stats.death_causes[cause] += 1
            where = ev.data.get("position")
            self.death = Death(
                cause=cause,
                position=Vec3(**where) if where else None,
                at_ms=self.clock(),
                dimension=ev.data.get("dimension") or None,
            )
            logger.warning("[Reflex] death recorded (total {}) cause={} at {}", self.stats.deaths, cause, where)
        return died

    async def on_events(self, events: Iterable[BodyEvent]) -> None:
        """The body's events as they are drained: a death holds the running task at once
        (before it fails on an empty inventory), until the items are back."""
        if self.record_events(events):
            # respawned elsewhere: no burrow, pocket or cover around it (its tasks still wait for the morning)
            self._burrowed = self._dug_in = False
            self._cover = None  # nor the blocks of a cover: they stand where it died
            self._burrow_retry_at = 0  # nor the ground a burrow failed in: one may be dug at once where it stands
            self._stop_acting("the bot died")
            await self._take_body("the bot died")
            held = await self.executor.preempt(DIED)
            if held is not None:
                logger.info("[Reflex] task={} held until the dropped items are recovered", held)

    def _safe_to_recover(self, snap: WorldSnapshot) -> bool:
        """Respawned, no hostile within reach, not in the night's burrow or pocket; by night
        only items lying within RECOVER_AT_NIGHT_M, and not under attack. (A bench bot walked
        back across the dark to where a spider had killed it, and out of its burrow for what the
        next death dropped: 12 deaths in one night.)"""
        if snap.health <= 0 or self._hostile_near(snap) or self._burrowed or self._dug_in:
            return False
        d = self.death
        if self._guarded(snap):
            return False  # what killed it may still be there: a 26.1 bench bot died 4 times in 90 s so
        if snap.isDay:
            return True
        near = d is not None and d.position is not None and d.position.distance_to(snap.position) <= RECOVER_AT_NIGHT_M
        return near and not self._under_attack()

    def _guarded(self, snap: WorldSnapshot) -> bool:
        """A hostile seen by the items, near their level; since when is noted (GUARDED_FOR_MS)."""
        d = self.death
        guarded = (
            d is not None
            and d.position is not None
            and any(
                e.threat
                and e.position.distance_to(d.position) <= GUARDED_WITHIN
                and abs(e.position.y - d.position.y) < GUARDED_LEVEL
                for e in snap.entities
            )
        )
        if not guarded:
            self._guarded_since = None
        elif self._guarded_since is None:
            self._guarded_since = self.clock()
        return guarded

    def _recovery_out_of_reach(self, snap: WorldSnapshot) -> str | None:
        """Why the last death's items cannot be recovered any more (None = they can)."""
        d = self.death
        assert d is not None
        if not self.config.recover_items or d.position is None:
            return "recovery off" if not self.config.recover_items else "death position unknown"
        if d.cause in DROWNED:  # the items lie where the air ran out: going back drowned it again
            return "it drowned there (the items lie under water)"
        if self.clock() - d.at_ms > self.config.item_despawn_ms:
            return f"the items despawned ({(self.clock() - d.at_ms) // 1000} s since the death)"
        if d.dimension and d.dimension != snap.dimension:
            return f"died in {d.dimension}, now in {snap.dimension}"
        since = self._guarded_since
        if since is not None and self.clock() - since > GUARDED_FOR_MS:
            self._guarded_since = None
            return f"hostiles by the items for {GUARDED_FOR_MS // 1000} s (the tasks wait no longer)"
        stops, first = self._walk_back_stops
        if stops >= WALK_BACK_STOPS and self.clock() - first > WALK_BACK_STOPPED_MS:
            return (
                f"the walk back stopped by threats on the way {stops} times in {(self.clock() - first) // 1000} s "
                "(the tasks wait no longer)"
            )
        far = snap.position.distance_to(d.position)
        if snap.health > 0 and far > self.config.recover_within:
            return f"the death spot is {far:.0f} blocks away (over {self.config.recover_within:g})"
        return None

    def _end_recovery(self, outcome: str, death: Death | None = None) -> None:
        d = death or self.death
        assert d is not None
        logger.info("[Reflex] after the death (cause={}): {}", d.cause, outcome)
        if self.death is not d:
            return  # died again on the way: that death's recovery holds the tasks now
        self.death = None
        self._walk_back_stops = (0, 0)
        self.executor.resume_paused(DIED)

    async def _recover(self) -> None:
        d = self.death
        assert d is not None and d.position is not None
        p = d.position
        async with self._task_held() as paused:
            start = await self.ctx.snapshot()
            down = start.position.y - p.y
            args = {"x": p.x, "y": p.y, "z": p.z} | ({"dig": False} if down > RECOVER_BELOW_M else {})
            result, stop = await self._watched("pick_up_items", args, start, timeout_s=RECOVER_BUDGET_S)
        if stop is not None:
            stops, first = self._walk_back_stops
            self._walk_back_stops = (stops + 1, first if stops else self.clock())
            logger.info(
                "[Reflex] after the death (cause={}): the walk back stopped: {}; tried again once safe",
                d.cause,
                stop,
            )
            self._log({"reflex": "recover", "pausedTask": paused, "ok": False})
            return
        if result.success:
            got = int(result.output["pickedUp"])  # the inventory's change: less when it died again meanwhile
            self.stats.items_recovered += max(0, got)
            lost = f" (the inventory lost {-got} items meanwhile)" if got < 0 else ""
            self._end_recovery(
                f"recovered {max(0, got)} items at {[round(p.x), round(p.y), round(p.z)]} "
                f"({result.output['itemsLeft']} left there){lost}",
                d,
            )
        else:
            self._end_recovery(f"recovering the items failed: {result.error}", d)
        self._log({"reflex": "recover", "pausedTask": paused, "ok": result.success})
