"""The combat reflexes: a hostile answered by its kind with the tools (fight, close in,
strike and back off, evade, retreat), on the choice agency.execution.combat makes."""

from __future__ import annotations

from typing import Any

from loguru import logger

from agency.execution.combat import (
    CLOSE_IN,
    CREEPERS,
    EVADE,
    FIGHT,
    MELEE_REACH,
    RETREAT,
    STRIKE_AND_BACK_OFF,
    CombatChoice,
    choose_combat,
    fights_in_melee,
    is_archer,
)
from agency.execution.reflexes.base import ReflexBase
from agency.tools.results import TIMEOUT
from agency.world import EntityInfo, WorldSnapshot, underground

UNREACHABLE_MS = 60_000  # a kind an attack could not reach is left be this long (agency.execution.combat)
# Each further miss on that kind, within REACH_STRIKES_FORGET_MS of the last, doubles the time,
# up to MAX_UNREACHABLE_MS: a 1.18.2 bench bot closed in on a skeleton out of reach on a ledge
# every 75 s one evening, under fire each time, and its hut was held for each.
MAX_UNREACHABLE_MS = 4 * UNREACHABLE_MS
REACH_STRIKES_FORGET_MS = 5 * 60_000
CORNERED_MS = 20_000  # after an evasion that got nowhere, a bare-handed bot fights for this long
CHASED = (3, 60_000)  # this many evasions (that fled) within this long: it keeps coming, fight
# A creeper evaded this many times within this long keeps coming back (one that does not burn by
# day followed a 1.18.2 bench bot back to its hut's site 46 times in a game day, each evasion 17-20
# blocks off working, the build held for each): for CREEPER_LEAD_MS from then the bot evades it
# LEAD_AWAY blocks off instead, beyond the 16 it follows a target from (plugins/mobs.js) and the
# 32 beyond which a monster may despawn (plugins/spawning.js, vanilla's 1 in 800 a tick). A
# strike at it in reach is a poor answer: it swells from 3 blocks and keeps swelling within 7
# (in a probe of a bot put back by its work after each evasion, creepers struck in reach blew up
# by it in 4 rounds of 6, its health down to 3-11; led away, 1 of 7 did, and 6 were gone unhurt
# within 100 s).
CREEPER_RETURNS = (3, 180_000)
CREEPER_LEAD_MS = 180_000
LEAD_AWAY = 36.0
LEAD_AWAY_LEGS = 6


FLIGHT_HURT_BY = 4.0  # a retreat from an archer under ground breaks off hurt this much (two arrows)
DIG_BELOW_FEET = 1.0  # a close-in digs toward a skeleton no lower than this below the bot's feet (_digs_to)

# A close-in breaks off once it has cost this much health (the reflexes wait on it meanwhile:
# a bench bot chasing a skeleton went from 20 to dead under zombies in 9 s); a fight, at the
# retreat threshold. Broken off, the close-in counts as out of reach: hurt, the bot retreats.
CLOSE_IN_HEALTH_BUDGET = 8.0  # an arrow or two on the way is the close-in's cost; more is something else too

BROKE_OFF = "broke off"  # node/lib/actions/attack.js: a fight ended at stopAtHealth

QUIET_MS = 60_000  # hostiles near that the reflexes would not answer, for this long: left be too
LEFT_BE_WITHIN = 16.0  # as far as a snapshot counts hostiles near (the bot's default hostile_radius)


class CombatReflex(ReflexBase):
    def leaves_be(self, snap: WorldSnapshot) -> bool:
        """Every hostile near is of a kind an attack could not reach a moment ago, or a creeper
        not yet within creeper_flee_within (answered only there, a task running or not), and
        none has hurt the bot since: nothing the bot can or need answer (the drive tick's
        hostile gate asks; a bench bot stood a whole morning under ground, the close-in on a
        skeleton across a cave failing each minute and the gate shut all the while; another
        stood 110 s by its hut in the morning, a creeper 14 blocks off never coming closer); or
        none of them one the reflexes would answer now, for QUIET_MS."""
        now, hurt = self.clock(), self._hurt_at
        kinds = {k for k, t in self.left_be(now).items() if hurt is None or hurt < t}
        # those the snapshot counts as near (its `near` marks; a fake body's: the radius)
        near = [e for e in snap.entities if e.near] or [
            e for e in snap.entities if e.threat and e.distance <= LEFT_BE_WITHIN
        ]

        def left_be(e: EntityInfo) -> bool:
            return e.name in kinds or (e.name in CREEPERS and e.distance > self.config.creeper_flee_within)

        if not near or self._under_attack():
            self._quiet_since = None
            return False
        if all(left_be(e) for e in near):
            return True
        # None of them one the reflexes answer (all beyond their distances) for QUIET_MS, none
        # hurting: they do not come (a zombie in a cave behind the rock): a 26.1 bench bot at
        # 855429f stood 30 minutes underground, its drive tick shut by one the whole time.
        if choose_combat(snap, self.config, unreachable=frozenset(kinds)) is not None:
            self._quiet_since = None
            return False
        if self._quiet_since is None:
            self._quiet_since = now
        return now - self._quiet_since >= QUIET_MS

    def _leading_creeper(self, now: int) -> bool:
        """Is a creeper that kept coming back (CREEPER_RETURNS) led away (LEAD_AWAY) now?"""
        return self._creeper_led_at is not None and now - self._creeper_led_at < CREEPER_LEAD_MS

    def left_be_ms(self, kind: str) -> int:
        """How long `kind` is left be after the last attack that could not reach it."""
        strikes = self._reach_strikes.get(kind, (1, 0))[0]
        return min(UNREACHABLE_MS << max(strikes - 1, 0), MAX_UNREACHABLE_MS)

    def left_be(self, now: int) -> dict[str, int]:
        """The kinds left be now, each with when it was last marked."""
        return {k: t for k, t in self._out_of_reach.items() if now - t < self.left_be_ms(k)}

    def _mark_out_of_reach(self, kind: str, *, strike: bool = True) -> None:
        now = self.clock()
        self._out_of_reach[kind] = now
        if not strike:
            return
        strikes, last = self._reach_strikes.get(kind, (0, 0))
        strikes = strikes + 1 if strikes and now - last < REACH_STRIKES_FORGET_MS else 1
        self._reach_strikes[kind] = (strikes, now)

    def _digs_to(self, target: EntityInfo, snap: WorldSnapshot) -> bool:
        """Does a close-in on `target` dig where its path needs it? Toward one level with the bot
        or above it (a hillside's cave mouth, a ledge), by day's work only: never from a night's
        hut, burrow or the pocket under the hut (their walls are natural ground), and never down
        toward one in a cave below (a shaft sunk into a cave in the 10 s a chase has)."""
        return not self._in_night_walls(snap) and target.position.y >= snap.position.y - DIG_BELOW_FEET

    async def _answer(self, combat: CombatChoice, snap: WorldSnapshot) -> Any:
        """Carry out a combat reflex with the tools: one tool call, or a strike then an evasion.
        `snap`: the snapshot the choice was made on."""
        cfg, name, health = self.config, combat.target.name, snap.health
        self.stats.by_kind[name] += 1
        evade = {
            "threat": name,
            "radius": max(cfg.creeper_flee_within, cfg.fight_radius),
            "distance": cfg.creeper_safe_distance,
            "legs": 3,
        }
        if name in CREEPERS and self._leading_creeper(self.clock()):
            evade |= {"distance": max(cfg.creeper_safe_distance, LEAD_AWAY), "legs": LEAD_AWAY_LEGS}
        if is_archer(combat.target):
            # away from every hostile as far as the bow is answered (a zombie beside the bot
            # is not run past), and out of that radius
            evade = {
                "radius": cfg.skeleton_engage_within,
                "distance": max(cfg.creeper_safe_distance, cfg.skeleton_engage_within + 1),
                "legs": 3,
            }
        if combat.reflex in (FIGHT, CLOSE_IN):
            self.stats.fought += 1
            radius = cfg.skeleton_engage_within if combat.reflex == CLOSE_IN else cfg.fight_radius
            stop = 0.0 if combat.to_the_end else cfg.retreat_below_health
            if combat.reflex == CLOSE_IN:
                stop = max(stop, health - CLOSE_IN_HEALTH_BUDGET)
            # a creeper coming up breaks the fight off: the next tick keeps out of its blast (a 26.1
            # bench bot at 855429f closing in on a skeleton for 10 s had one come to 2 blocks, and
            # died); not while one is waited for, no way away from it (agency.execution.combat)
            args: dict[str, Any] = {"target": name, "radius": radius, "stopAtHealth": stop}
            if combat.reflex == CLOSE_IN and self._digs_to(combat.target, snap):
                # a skeleton in a hillside's cave mouth or up on a ledge is dug up to, as a player
                # does: a 26.1 bench bot on a mountain (seed 7258 at a00cb39) could not walk to the
                # ones shooting it, retreated from them again and again, and stood wedged through
                # two of its game days. Not in a melee fight: the hostile comes to the bot.
                args["digThrough"] = True
            stuck = self._lately(self._creeper_stuck_at, CORNERED_MS)
            if not stuck:
                args["creeperWithin"] = cfg.creeper_flee_within
            res = await self.tools.execute("attack", args, self.ctx)
            # a close-in that failed, or a fight out of reach (a chase that got no hit in, or
            # the attack's time limit): not a target already gone
            out_of_reach = res.error is not None and ("could not get" in res.error.message or res.error.code == TIMEOUT)
            broke_off = res.error is not None and BROKE_OFF in res.error.message
            if not res.success and not self._died_meanwhile(res) and (combat.reflex == CLOSE_IN or out_of_reach):
                self._mark_out_of_reach(name, strike=not broke_off)  # broken off: no sign it is out of reach
                logger.info(
                    "[Reflex] could not reach the {} ({}): left be for {} s unless it hurts the bot",
                    name,
                    res.error.message if res.error else "failed",
                    self.left_be_ms(name) // 1000,
                )
            elif res.success:
                self._reach_strikes.pop(name, None)  # reached after all: the next miss starts over
            return res
        if combat.reflex == STRIKE_AND_BACK_OFF:
            self.stats.fought += 1
            struck = await self.tools.execute("attack", {"target": name, "radius": 4.0, "hits": 1}, self.ctx)
            if not struck.success:
                logger.info("[Reflex] the strike on {} failed ({}): evading it", name, struck.error)
            return await self.tools.execute("flee", evade, self.ctx)
        if combat.reflex == EVADE:
            self.stats.evaded += 1
            if name in CREEPERS and combat.target.distance > MELEE_REACH:
                # come into a strike's reach on the way, the flight breaks off: the next tick strikes
                # it back or walls it off (agency.execution.combat, reflexes.cover), not a flight
                # that ends in its blast (a 1.18.2 bench bot at cbab503, seed 9274, blown up 9 s
                # into an evasion from a creeper at 6.7 blocks)
                evade["breakWithin"] = MELEE_REACH
            melee_near = any(fights_in_melee(e) for e in snap.entities if e.threat and e.distance <= cfg.fight_radius)
            if name in CREEPERS and melee_near:
                # a zombie beside it hits the bot all the way: hurt on the way, the flight breaks off
                # and the next tick fights the zombie (the creeper no evasion got away from waited
                # for): a 26.1 bench bot at 2f98652 (seed 8127) evading a creeper in a cave was
                # killed by a zombie 16 s into the flight, from health 12.6
                evade["hurtBy"] = FLIGHT_HURT_BY
            res = await self.tools.execute("flee", evade, self.ctx)
            now = self.clock()
            if not res.success and not self._died_meanwhile(res):
                self._evade_failed_at = now
                if name in CREEPERS:
                    self._creeper_stuck_at = now  # waited for, struck in reach (agency.execution.combat)
                logger.info("[Reflex] could not get away from the {}: fighting it if it comes", name)
            elif name in CREEPERS and res.output and res.output.get("fled"):
                times, within = CREEPER_RETURNS
                self._creeper_evasions = [t for t in self._creeper_evasions if now - t < within] + [now]
                if len(self._creeper_evasions) >= times and not self._leading_creeper(now):
                    self._creeper_led_at, self._creeper_evasions = now, []
                    logger.info(
                        "[Reflex] the creeper keeps coming back ({} evasions in {} s): leading it away, {:g} blocks "
                        "off (it follows within 16, and beyond 32 a monster may despawn) for {} s",
                        times,
                        within // 1000,
                        LEAD_AWAY,
                        CREEPER_LEAD_MS // 1000,
                    )
            elif name not in CREEPERS and res.output and res.output.get("fled") and self.death is None:
                # a zombie in a cave never burns and follows a bot that only walks off. Not while
                # the items of a death are walked back to: then the bot goes to it, not it to the
                # bot (a respawned bare-handed 26.1 bench bot evaded a skeleton three times on its
                # walks back, was taken for chased, fought it, and died a third time in 4 minutes)
                times, within = CHASED
                self._evasions = [t for t in self._evasions if now - t < within] + [now]
                if len(self._evasions) >= times:
                    first, self._evasions = self._evasions[0], []
                    if is_archer(combat.target) and (self._hurt_at is None or self._hurt_at < first):
                        # it comes, never shooting: left be, not fought bare-handed (a 1.18.2 bench
                        # bot closed in on such a skeleton with its fists and was dead in 18 s)
                        self._mark_out_of_reach(name, strike=False)
                        logger.info(
                            "[Reflex] the {} keeps coming ({} evasions in {} s) and has not hurt the bot: "
                            "left be for {} s unless it does",
                            name,
                            times,
                            within // 1000,
                            self.left_be_ms(name) // 1000,
                        )
                    else:
                        self._evade_failed_at = now
                        logger.info(
                            "[Reflex] the {} keeps coming ({} evasions in {} s): fighting it",
                            name,
                            times,
                            within // 1000,
                        )
            return res
        assert combat.reflex == RETREAT
        self.stats.retreats += 1
        self._retreat_started_at = self.clock()
        flight: dict[str, Any] = {"radius": cfg.fight_radius * 2, "distance": 16.0, "legs": 3}
        if (is_archer(combat.target) and underground(snap)) or combat.outnumbered:
            # shot at on the way, the flight breaks off and the bot takes cover (agency.execution.
            # reflexes.cover): a 1.18.2 bench bot at cbab503 (seed 3185) fled a skeleton in a cave
            # at health 11.8 and was shot dead 18 s into its flight. Outnumbered and hurt on the
            # way, the flight is no way out either: the next tick stands and fights the nearest
            # (agency.execution.combat, retreat_stuck)
            flight["hurtBy"] = FLIGHT_HURT_BY
        res = await self.tools.execute("flee", flight, self.ctx)
        # eaten meanwhile (the arbiter); a retreat stopped by a death got nowhere for no fault of the way
        self._retreat_failed_at = None if res.success or self._died_meanwhile(res) else self.clock()
        return res
