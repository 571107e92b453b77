"""Which combat reflex the hostiles around the bot call for, by their kind. Pure rules on a
snapshot; Reflexes acts on the choice and logs its reason.

In order:
- hurt or outnumbered with hostiles close: retreat (into a verified shelter by night when
  one is known, else away from them all); at the retreat threshold, from any hostile a fight
  or a close-in would go for (a fight breaks off there: agency.execution.reflexes.combat);
- a creeper close: out of its blast (vanilla power 3 hurts up to 6 blocks away). One already
  within reach of an armed bot is struck first (the knockback pushes it out of its fuse
  range) and then left behind. `creeper_stuck` (an evasion from a creeper got nowhere a moment
  ago), one beyond reach is waited for rather than evaded again, and one in reach struck with
  whatever the bot holds, a fist too: a 26.1 bench bot at 0b9814e tried to get away from a
  creeper 4 blocks off that came no closer every second for 30 s, each evasion failing;
- a zombie, spider or other hostile that fights hand to hand within a strike's reach, with a
  weapon held: fight it before any archer is answered;
- a skeleton within its bow's range: close in and fight it (in the open a bot that keeps its
  distance is shot at every second or two); but one the last close-in could not reach
  (`unreachable`: on a ledge, across a ravine) is left be while it does not hurt the bot, and
  retreated from while it does (closing in on it again and again held the task for good);
  so is one within reach that the last fight could not get at (in a hole, behind a wall: a
  1.18.2 bench bot tried a skeleton 3.5 blocks off every few seconds for most of a day).
  With nothing to hit it with but bare hands (20 hits, shot all the while: a respawned 1.18.2
  bench bot closed in at health 20 and came out at 3.7) the bot gets out of its range instead
  (it gives a target up beyond 16 blocks), unless `cornered`;
- anything else within reach (zombies, spiders, ...): fight it with the best weapon held;
  with none held, keep out of its reach instead (bare hands take 20 hits for a zombie that
  hurts for 3 each second: in the caves survival bench a bare-handed bot died to one in 10
  of its 13 deaths), unless `cornered` (the last evasion got nowhere, the hostile kept coming
  after three of them within a minute, or the bot is indoors), when it fights.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from agency.execution.settings import ReflexConfig
from agency.names import same
from agency.world import EntityInfo, WorldSnapshot

CREEPERS = ("creeper",)
ARCHERS = ("skeleton", "stray", "bogged")
SHOOTERS = ("witch", "pillager", "blaze", "ghast")  # hurt from range too, not archers' bows
# Best first, as node/lib/names.js equips them (a weapon held makes a strike worth it).
WEAPONS = (
    "netherite_sword",
    "diamond_sword",
    "iron_sword",
    "stone_sword",
    "golden_sword",
    "wooden_sword",
    "netherite_axe",
    "diamond_axe",
    "iron_axe",
    "stone_axe",
    "golden_axe",
    "wooden_axe",
)
# What a fight holds when no weapon is: a digging tool hits harder than a fist (the attack
# action equips it, node/lib/names.js), yet not enough to take on melee hostiles by choice.
TOOLS_TO_HIT_WITH = (
    "netherite_shovel",
    "netherite_pickaxe",
    "diamond_shovel",
    "diamond_pickaxe",
    "iron_shovel",
    "iron_pickaxe",
    "stone_shovel",
    "stone_pickaxe",
    "golden_shovel",
    "wooden_shovel",
    "golden_pickaxe",
    "wooden_pickaxe",
)
MELEE_REACH = 3.0  # a player's attack reach in survival
# A melee hostile this near hits the bot (a zombie's reach is 1.4 blocks: node/plugins/mobs.js):
# hurt after a retreat from it got nowhere, the bot fights it to the end (choose_combat)
LAST_STAND_WITHIN = 2.0
BARE_HANDS = "bare hands"

RETREAT = "retreat"
EVADE = "evade"  # out of a creeper's blast
STRIKE_AND_BACK_OFF = "strike_and_back_off"
CLOSE_IN = "close_in"  # on a skeleton
FIGHT = "fight"
COMBAT_REFLEXES = (RETREAT, EVADE, STRIKE_AND_BACK_OFF, CLOSE_IN, FIGHT)


@dataclass(frozen=True)
class CombatChoice:
    reflex: str  # one of COMBAT_REFLEXES
    target: EntityInfo  # the hostile it answers (the nearest one for a retreat)
    reason: str  # for the log line
    to_the_end: bool = False  # a fight not broken off at the retreat threshold (a last stand)
    outnumbered: bool = False  # a retreat from several: broken off when they keep up and hurt the bot


def _is(entity: EntityInfo, kinds: tuple[str, ...]) -> bool:
    return any(same(entity.name, k) for k in kinds)


def is_archer(entity: EntityInfo) -> bool:
    return _is(entity, ARCHERS)


def fights_in_melee(entity: EntityInfo) -> bool:
    """Hurts hand to hand (a zombie, a spider): not an archer's arrows, a creeper's blast, or a
    witch's or pillager's shots."""
    return not _is(entity, ARCHERS + CREEPERS + SHOOTERS)


def is_creeper(entity: EntityInfo) -> bool:
    return _is(entity, CREEPERS)


def best_weapon(snap: WorldSnapshot) -> str | None:
    return next((w for w in WEAPONS if snap.count_of(w)), None)


def held_to_hit_with(snap: WorldSnapshot) -> str:
    """What a fight hits with: the best weapon, else the best digging tool, else bare hands."""
    return best_weapon(snap) or next((t for t in TOOLS_TO_HIT_WITH if snap.count_of(t)), None) or BARE_HANDS


def threat_radii(cfg: ReflexConfig) -> dict[str, float]:
    """How close each kind comes before a reflex answers it ('default': every other hostile).
    The body stamps the moment a hostile crosses its radius, and the reflexes wake on it."""
    radii = {"default": cfg.fight_within, **dict.fromkeys(CREEPERS, cfg.creeper_flee_within)}
    radii.update(dict.fromkeys(ARCHERS, cfg.skeleton_engage_within))
    return radii


def choose_combat(
    snap: WorldSnapshot,
    cfg: ReflexConfig,
    *,
    unreachable: Collection[str] = (),
    hurt: bool = False,
    cornered: bool = False,
    creeper_stuck: bool = False,
    retreat_stuck: bool = False,
    no_cover: bool = False,
) -> CombatChoice | None:
    """`unreachable`: the kinds an attack (a close-in, a fight) could not reach a moment ago; `hurt`: the bot was
    hurt a moment ago; `cornered`: the bot cannot get away (module docstring); `creeper_stuck`: an
    evasion from a creeper got nowhere a moment ago; `retreat_stuck`: a retreat got nowhere a
    moment ago, and the bot has been hurt since (a melee hostile in reach is then fought to the
    end: a 26.1 bench bot at 10bf15c, at health 5 with a zombie 1.2 blocks off, retreated and
    got nowhere, and died retreating again; outnumbered, likewise); `no_cover`: no cover is to be had now (one just
    left or failed), so an archer in reach is fought to the end too (a 1.18.2 bench bot at
    5832c56, out of its cover at health 4 with the skeleton 1.8 blocks off, retreated three
    times in three seconds, getting nowhere, and was shot dead)."""
    # hurt, an archer in a cave under the bot counts too (it shoots up through a mouth), out of
    # reach: no close-in down into its cave; no other kind hits through the ground
    shooting_up = [e for e in snap.entities if hurt and e.caveBelow and not e.sealedOff and _is(e, ARCHERS)]
    hostiles = sorted((e for e in snap.entities if e.threat or e in shooting_up), key=lambda e: e.distance)
    close = [e for e in hostiles if e.distance <= cfg.fight_radius]
    # as far as any fight or close-in would go: one started this low would break off at once
    reach = max(cfg.fight_radius, cfg.fight_within)
    engaged = [e for e in hostiles if e.distance <= (cfg.skeleton_engage_within if _is(e, ARCHERS) else reach)]
    if engaged and snap.health <= cfg.retreat_below_health:
        never = CREEPERS if no_cover else CREEPERS + ARCHERS  # an archer: cover first
        melee = next((e for e in close if e.distance <= LAST_STAND_WITHIN and not _is(e, never)), None)
        if retreat_stuck and melee is not None:
            return CombatChoice(
                FIGHT,
                melee,
                f"health {snap.health:g}, the retreat got nowhere: fighting the {melee.name} at "
                f"{melee.distance:.1f} blocks to the end with {held_to_hit_with(snap)}",
                to_the_end=True,
            )
        if close:
            why = f"{len(close)} hostile(s) within {cfg.fight_radius:g} blocks"
        else:
            why = f"a {engaged[0].name} at {engaged[0].distance:.1f} blocks"
        return CombatChoice(RETREAT, engaged[0], f"health {snap.health:g} <= {cfg.retreat_below_health:g} with {why}")
    if len(close) >= cfg.outnumbered_at:
        melee = next((e for e in close if e.distance <= LAST_STAND_WITHIN and fights_in_melee(e)), None)
        # not with a creeper near: a fight breaks off for it at once (agency.execution.reflexes.combat)
        creeper_near = any(_is(e, CREEPERS) and e.distance <= cfg.creeper_flee_within for e in hostiles)
        if retreat_stuck and melee is not None and not creeper_near:
            # they keep up and hit: walking off is no way out (a 1.18.2 bench bot at cbab503,
            # seed 9274, outnumbered by three zombies in a cave, died retreating)
            return CombatChoice(
                FIGHT,
                melee,
                f"outnumbered: {len(close)} hostiles within {cfg.fight_radius:g} blocks, the retreat got nowhere: "
                f"fighting the {melee.name} at {melee.distance:.1f} blocks to the end with {held_to_hit_with(snap)}",
                to_the_end=True,
            )
        why = f"outnumbered: {len(close)} hostiles within {cfg.fight_radius:g} blocks"
        return CombatChoice(RETREAT, close[0], why, outnumbered=True)
    creeper = next((e for e in hostiles if _is(e, CREEPERS) and e.distance <= cfg.creeper_flee_within), None)
    if creeper is not None and creeper_stuck and creeper.distance > MELEE_REACH:
        creeper = None  # no way away from it: waited for where a strike reaches it (module docstring)
    if creeper is not None:
        weapon = best_weapon(snap) or (held_to_hit_with(snap) if creeper_stuck else None)
        if weapon is not None and creeper.distance <= MELEE_REACH:
            return CombatChoice(
                STRIKE_AND_BACK_OFF,
                creeper,
                f"creeper at {creeper.distance:.1f} blocks, in reach: one hit with {weapon} pushes it "
                f"back, then out of its blast ({cfg.creeper_safe_distance:g} blocks)",
            )
        return CombatChoice(
            EVADE,
            creeper,
            f"creeper at {creeper.distance:.1f} blocks: out of its blast ({cfg.creeper_safe_distance:g} blocks)",
        )
    archer = next((e for e in hostiles if _is(e, ARCHERS) and e.distance <= cfg.skeleton_engage_within), None)
    # one hitting hand to hand in reach is fought before the archer is answered: a 1.18.2 bench
    # bot at 2f98652 (seed 8127) fled a skeleton out of reach every second, a zombie villager 0.9
    # blocks off hitting it all the while and no flight getting anywhere, down to health 3.8
    left_be = set() if hurt else {e.name for e in hostiles if any(same(e.name, k) for k in unreachable)}
    beside = next(
        (e for e in hostiles if e.distance <= MELEE_REACH and fights_in_melee(e) and e.name not in left_be), None
    )
    if archer is not None and beside is not None and best_weapon(snap) is not None:
        return CombatChoice(
            FIGHT,
            beside,
            f"{beside.name} at {beside.distance:.1f} blocks, in reach: fighting it before the {archer.name} "
            f"with {held_to_hit_with(snap)}",
        )
    out_of_reach = archer is not None and (archer in shooting_up or any(same(archer.name, k) for k in unreachable))
    if archer is not None and out_of_reach and hurt:
        return CombatChoice(RETREAT, archer, f"{archer.name} at {archer.distance:.1f} blocks, out of reach, shoots")
    if archer is not None and not out_of_reach and held_to_hit_with(snap) == BARE_HANDS and not cornered:
        return CombatChoice(
            EVADE,
            archer,
            f"{archer.name} at {archer.distance:.1f} blocks and nothing to fight it with: "
            f"out of its range ({cfg.creeper_safe_distance:g} blocks)",
        )
    if archer is not None and not out_of_reach:
        return CombatChoice(
            CLOSE_IN,
            archer,
            f"{archer.name} at {archer.distance:.1f} blocks shoots from range: "
            f"closing in with {held_to_hit_with(snap)}",
        )
    # a kind the last attack could not get at is left be unless it hurts the bot
    near = next(
        (
            e
            for e in hostiles
            if e.distance <= cfg.fight_within
            and not _is(e, CREEPERS)  # never chased into its blast: struck in reach only (above)
            and not (not hurt and any(same(e.name, k) for k in unreachable))
        ),
        None,
    )
    if near is not None and best_weapon(snap) is None and not cornered:
        return CombatChoice(
            EVADE, near, f"{near.name} at {near.distance:.1f} blocks and no weapon held: keeping out of its reach"
        )
    if near is not None:
        return CombatChoice(
            FIGHT, near, f"{near.name} at {near.distance:.1f} blocks: fighting with {held_to_hit_with(snap)}"
        )
    return None
