"""The forage reflex: hungry or unable to heal with nothing to eat held, by day and out of
the shelter, or nothing to eat held at all in the last 100 s before dusk (for the night's
work, agency.execution.hunger; not while a hut is being built), but underground with a task
running only when hungry or hurt to URGENT_HEALTH (the rest waits for the task or the
surface): hunt an animal in sight,
else explore for one; a fruitless forage waits longer before the next (agency.execution.hunger)
while a task is running, which each forage holds.
With no task running there is nothing to hold up: the wait stays forage_retry_ms and each
fruitless walk goes a leg further, up to MAX_LEGS (in the caves survival bench a bot at 10
health with the chickens near its spawn eaten walked two short legs every few minutes for
half a game day). A bot unable to heal so has nothing else to do (the drive tick waits for
health 16, DRIVE-1): a fruitless walk is followed by the next at once (`_nothing_else`: a
1.18.2 bench bot at f5a0757, at health 8.2 and food 17 after a night's fight, stood 30 s
after each walk and spent a whole daylight getting back to 16). Starving,
or hurt to URGENT_HEALTH with no task running, each leg goes as far as a hunt looks (32
blocks, not 12); hurt so with no task, a fruitless walk of 2 such legs is followed by the next
at once (`_heal_first`), one that could not walk waits as ever."""

from __future__ import annotations

from loguru import logger

from agency.execution.hunger import (
    HERD_HUNT,
    URGENT_FOOD,
    URGENT_HEALTH,
    cannot_heal,
    fed_by,
    forage_kills,
    forage_wait_ms,
    needs_food_for_the_night,
    should_forage,
    vitals,
)
from agency.execution.reflexes.base import ReflexBase
from agency.tools.hunting import HUNT_LOOK, game_in_sight
from agency.world import EntityInfo, WorldSnapshot, night_approaching, underground

MAX_LEGS = 5  # of 12 blocks: the walk of a fruitless forage grows to this (the shelter stays within reach by dusk)
SHORT_LEG = 12
# Starving (food URGENT_FOOD or less) the legs are a hunt's (32 blocks): a 26.1 bench bot in the
# mountains, no animal within its 12-block legs, went from food 16 to 0 and health 11 to 1.
HERD_WITHIN = 8.0  # blocks from the nearest animal that still count as its herd
HEAL_WITHIN = 16.0  # its herd too short of the animals a heal needs (forage_kills): this far from it
# food for the night is hunted near, not walked off for at dusk: a 1.18.2 bench bot at health 18
# and food 19 went for a cow 31 blocks off in the last 100 s of the day and died to a skeleton
# and a zombie in the dusk on the way
STOCK_UP_WITHIN = 16.0


def _close(a: EntityInfo, b: EntityInfo, within: float) -> bool:
    return a.position.distance_to(b.position) <= within


class ForageReflex(ReflexBase):
    def _forage_due(self, snap: WorldSnapshot) -> bool:
        """By day, out of the shelter, no hostile near, not just tried: hungry or unable to heal
        with nothing to eat held (the drive tick, gated on the same vitals, cannot hunt)."""
        if self.sheltered is not None or self.death is not None or night_approaching(snap):
            return False
        if self.clock() < self._forage_retry_at:
            return False
        hungry = should_forage(snap, self.config, self._cooking())
        # nor beside a task's own hunt for the food it cooks (agency.execution.hunger.should_forage)
        stock_up = (
            needs_food_for_the_night(snap, self.config)
            and not self._build_in_flight()
            and not self._cooking()
            and not _game_far_only(snap)
        )
        if (hungry or stock_up) and self._waits_for_the_task(snap):
            return False
        # hostiles the reflexes leave be (out of reach, not hurting) do not hold it up: a 1.18.2
        # bench bot at health 12 with no food stood underground for 30 minutes by a skeleton in
        # the rock it could not get at, the drive tick waiting for health 16 all the while
        return (hungry or stock_up) and not (self._hostile_near(snap) and not self.leaves_be(snap))

    def _waits_for_the_task(self, snap: WorldSnapshot) -> bool:
        """Underground with a task running, fed (food over eat_below_food) and not hurt to
        URGENT_HEALTH: a forage to heal or to stock up waits for the task to end or to come up
        (said once a wait). The animals graze on the surface: a 1.18.2 bench bot at health 14
        and food 17 was taken off its iron pickaxe 19 blocks down to climb out for a cow, 118 s
        of its task held; another, at health 18, to stock up before dusk, 42 s."""
        if not underground(snap) or self.executor.current is None:
            self._forage_wait_said = False
            return False
        if snap.food <= self.config.eat_below_food or snap.health <= URGENT_HEALTH:
            return False
        if not self._forage_wait_said:
            self._forage_wait_said = True
            logger.info(
                "[Reflex] forage: {}, nothing to eat held; underground at work: it waits for the task "
                "to end or for the surface",
                vitals(snap),
            )
        return True

    def _heal_first(self, snap: WorldSnapshot) -> bool:
        """Hurt to URGENT_HEALTH with no task running: the drive tick waits for health 16, so
        finding food is the bot's only work: it walks legs as far as a hunt looks, two at a
        time, and goes on at once after a fruitless walk (a 1.18.2 bench bot at health 4 and food 16, blown up by a
        creeper in a desert, walked 12-block legs 30 s apart for six minutes before it met a
        chicken, and stood at health 4-5 for half a game day)."""
        return snap.health <= URGENT_HEALTH and self.executor.current is None

    def _nothing_else(self, snap: WorldSnapshot) -> bool:
        """No task running and unable to heal: the drive tick gives no work under 16 health
        (DRIVE-1), so a fruitless walk waits for nothing."""
        return self.executor.current is None and cannot_heal(snap, self.config)

    def _build_in_flight(self) -> bool:
        """Is the running task a build (the night's hut, or any other)? The stock-up before dusk
        does not hold it up: fed enough not to forage, the bot needs the hut more tonight (a
        1.18.2 bench bot, underground with its hut a door from done, was dragged off it twice in
        the last 100 s before dusk to hunt pigs it could not climb out to; the hut was left
        unbuilt)."""
        goal = self.executor.running_goal()
        return goal is not None and goal[0] == "build"

    async def _forage(self, snap: WorldSnapshot) -> None:
        game = sorted(game_in_sight(snap.entities), key=lambda e: e.distance)
        guards = [
            next((h for h in snap.entities if h.threat and _close(h, a, self.config.fight_radius)), None) for a in game
        ]
        guarded = {a.name for a, g in zip(game, guards, strict=True) if g is not None}
        free = [a for a in game if a.name not in guarded]  # the hunt takes any of its kind: none guarded
        # a 26.1 bench bot out of its hut in the morning hunted a chicken among 3 zombies and was
        # dead 4 s later: the nearest animal guarded, a kind with none guarded is hunted instead (a
        # 1.18.2 bench bot at health 2.3 and food 17, a sheep in sight, refused a pig a skeleton
        # stood by and waited), else the forage waits for them to go (or burn), unless starving
        kind = "animal"
        if game and guards[0] is not None and free:
            kind = free[0].name  # the hunt takes only that kind
            game = [a for a in free if a.name == kind]
        guard = guards[0] if game and kind == "animal" else None
        if guard is not None and snap.food > URGENT_FOOD:
            self._forage_retry_at = self.clock() + self.config.forage_retry_ms
            logger.info(
                "[Reflex] forage: the {} at {:.1f} blocks has a {} {:.1f} blocks from it; not hunting it, "
                "next forage in {} s at the earliest",
                game[0].name,
                game[0].distance,
                guard.name,
                guard.position.distance_to(game[0].position),
                self.config.forage_retry_ms // 1000,
            )
            return
        if game:
            logger.info(
                "[Reflex] forage: {}, nothing to eat held -> hunting the {} at {:.1f} blocks",
                vitals(snap),
                game[0].name,
                game[0].distance,
            )
            # the herd near the first one, up to forage_kills: food held keeps the next forage off
            # and the drive tick's food gate open (a bench bot that ate each animal at once
            # foraged again within minutes and stood at food 12-15 with no tick for a morning)
            kills = forage_kills(snap, self.config)
            within = HERD_WITHIN
            herd = [e for e in game if e.position.distance_to(game[0].position) <= within]
            if len(herd) < kills > HERD_HUNT:  # a heal needing more: the animals a little farther from it too
                within = HEAL_WITHIN
                herd = [e for e in game if e.position.distance_to(game[0].position) <= within]
            radius = game[0].distance + within  # the herd's, not the next one 30 blocks off
            call, args = "hunt", {"target": kind, "count": min(kills, len(herd)), "radius": radius}
        else:
            logger.info(
                "[Reflex] forage: {}, nothing to eat held and no animal in sight -> exploring for one", vitals(snap)
            )
            idle = self.executor.current is None
            # healing first, the walks stay 2 legs (of a hunt's length) and follow each other at
            # once: the threats and the night get a look between them
            grow = idle and not self._heal_first(snap)
            legs = min(MAX_LEGS, 2 + self._fruitless_forages) if grow else 2
            # a short walk, the shelter staying near; starving, or hurt with nothing else to do,
            # as far as a hunt looks
            leg = HUNT_LOOK.leg_distance if snap.food <= URGENT_FOOD or self._heal_first(snap) else SHORT_LEG
            call, args = "explore", {"legs": legs, "leg_distance": leg}
        async with self._task_held() as paused:
            self.stats.forages += 1
            result, stopped = await self._watched(call, args, snap)  # a threat on the way stops it
        if stopped is not None:  # answered first; the forage comes again once it is safe
            logger.info("[Reflex] forage stopped: {}", stopped)
            self._log({"reflex": "forage", "pausedTask": paused, "ok": False})
            return
        fed = result.success and fed_by(result.output.get("gained"))
        self._fruitless_forages = 0 if fed else self._fruitless_forages + 1
        holding = paused is not None  # a task was held for it: do not drag it off again soon
        tries = self._fruitless_forages if holding else 1
        # a walk that failed (nowhere to go from here) waits as ever, healing first or not
        # (a hunt that brought no food, a calf's, waits: the next would find the same herd)
        walked = call == "explore" and self._nothing_else(snap)
        on_at_once = fed or (result.success and (self._heal_first(snap) or walked))
        wait = 0 if on_at_once else forage_wait_ms(self.config, tries)
        self._forage_retry_at = self.clock() + wait
        logger.info(
            "[Reflex] forage -> {} {}{}",
            "ok" if result.success else "failed",
            result.output if result.success else result.error,
            "" if fed else f"; no food: next forage in {wait // 1000} s at the earliest",
        )
        self._log({"reflex": "forage", "pausedTask": paused, "ok": result.success})


def _game_far_only(snap: WorldSnapshot) -> bool:
    """Animals in sight, none within STOCK_UP_WITHIN (none in sight: a short walk looks for one)."""
    game = game_in_sight(snap.entities)
    return bool(game) and min(a.distance for a in game) > STOCK_UP_WITHIN
