"""Reflexes by mob kind: the choice (agency.execution.combat) and what the reflexes do with it
on the fake world: keep out of a creeper's blast, strike one in reach then back off, close
in on a skeleton, fight zombies and spiders, retreat when hurt or outnumbered."""

from __future__ import annotations

import asyncio

import pytest
from loguru import logger

from agency.blocks import natural_ground
from agency.execution.combat import CLOSE_IN, EVADE, FIGHT, RETREAT, STRIKE_AND_BACK_OFF, choose_combat, threat_radii
from agency.execution.reflexes import ReflexConfig, Reflexes
from agency.execution.reflexes.base import Death
from agency.execution.reflexes.combat import (
    CLOSE_IN_HEALTH_BUDGET,
    CORNERED_MS,
    CREEPER_LEAD_MS,
    CREEPER_RETURNS,
    FLIGHT_HURT_BY,
    LEAD_AWAY,
    QUIET_MS,
)
from agency.tools.testing import FakeBody, FakeTime, Mob
from agency.world import BodyError, BodyEvent, EventType, Vec3, WorldSnapshot

CFG = ReflexConfig()


def _snap(*mobs: tuple[str, float], health: float = 20, inventory: tuple[str, ...] = ()) -> WorldSnapshot:
    body = FakeBody(FakeTime().clock, inventory=dict.fromkeys(inventory, 1))
    body.mobs = [Mob(name, hostile=True, x=0.5 + d, z=0.5) for name, d in mobs]
    return body.snapshot().model_copy(update={"health": health})


def _spied(reflexes: Reflexes) -> list[tuple[str, dict]]:
    """The (tool, args) the reflexes execute from now on, in order."""
    calls: list[tuple[str, dict]] = []
    execute = reflexes.tools.execute

    async def spy(name, args, ctx):
        calls.append((name, args))
        return await execute(name, args, ctx)

    reflexes.tools.execute = spy
    return calls


@pytest.mark.parametrize(
    "mobs, inventory, expected, target",
    [
        ([("zombie", 3.0)], ("wooden_sword",), FIGHT, "zombie"),
        ([("zombie", 3.0)], (), EVADE, "zombie"),  # bare hands: keep out of its reach
        ([("spider", 2.0)], ("stone_axe",), FIGHT, "spider"),
        ([("spider", 2.0)], ("stone_sword",), FIGHT, "spider"),
        ([("zombie", 6.0)], (), None, None),  # beyond fight_within: no reflex yet
        ([("skeleton", 12.0)], ("wooden_pickaxe",), CLOSE_IN, "skeleton"),
        ([("skeleton", 12.0)], (), EVADE, "skeleton"),  # bare hands: out of its range
        ([("skeleton", 17.0)], (), None, None),  # out of its bow's range
        ([("creeper", 5.0)], ("iron_sword",), EVADE, "creeper"),  # armed, but not in reach: keep away
        ([("creeper", 2.5)], ("iron_sword",), STRIKE_AND_BACK_OFF, "creeper"),
        ([("creeper", 2.5)], (), EVADE, "creeper"),  # bare hands: a strike is not worth the blast
        ([("creeper", 7.5)], (), None, None),
        ([("zombie", 2.0), ("creeper", 5.0)], (), EVADE, "creeper"),  # the blast first
        ([("zombie", 2.0), ("skeleton", 10.0)], ("stone_sword",), FIGHT, "zombie"),  # the one hitting first
        ([("zombie", 4.0), ("skeleton", 10.0)], ("stone_sword",), CLOSE_IN, "skeleton"),  # not in reach yet
        ([("zombie", 2.0), ("skeleton", 10.0)], (), EVADE, "skeleton"),  # away from both (the flee's threat: all)
        ([("zombie", 2.0), ("zombie", 5.0), ("spider", 7.0)], (), RETREAT, "zombie"),  # outnumbered
    ],
)
def test_the_reflex_answers_the_hostile_by_its_kind(mobs, inventory, expected, target):
    choice = choose_combat(_snap(*mobs, inventory=inventory), CFG)
    assert (choice.reflex, choice.target.name) == (expected, target) if expected else choice is None


def test_hostiles_sealed_off_behind_the_pockets_wall_call_for_no_reflex():
    """A bench bot dug in at y 48 sat out a whole day: a creeper 6.9 blocks off in the cave
    behind its pocket's wall called for an evade every second, each getting nowhere."""
    snap = _snap(("creeper", 6.9), ("zombie", 2.0), ("zombie", 5.0), ("skeleton", 7.0))
    sealed = snap.model_copy(update={"entities": [e.model_copy(update={"sealedOff": True}) for e in snap.entities]})
    assert choose_combat(snap, CFG) is not None
    assert choose_combat(sealed, CFG) is None
    one_open = [e.model_copy(update={"sealedOff": e.name != "skeleton"}) for e in snap.entities]
    choice = choose_combat(snap.model_copy(update={"entities": one_open}), CFG)
    assert choice is not None and choice.target.name == "skeleton"


@pytest.mark.parametrize("health", [20.0, 5.0])
def test_a_hostile_in_a_cave_under_the_bot_is_no_threat_until_it_hurts_the_bot(health):
    """A 1.18.2 bench bot by its hut answered a skeleton in the cave under it with 37 evasions,
    4 retreats (health 2.33, nothing shooting) and 3 close-ins in one morning, and died of the
    close-ins down into that cave (node/lib/snapshot.js marks it caveBelow)."""
    snap = _snap(("skeleton", 12.0), ("zombie", 2.5), health=health, inventory=("stone_sword",))
    below = snap.model_copy(update={"entities": [e.model_copy(update={"caveBelow": True}) for e in snap.entities]})
    assert choose_combat(snap, CFG) is not None
    assert not any(e.threat for e in below.entities)
    assert choose_combat(below, CFG) is None
    # hurt (shot at through the cave's mouth, or by anything): the archer is answered from up
    # here, never closed in on down in its cave; a zombie cannot hit through the ground
    hurt = choose_combat(below, CFG, hurt=True)
    assert hurt is not None and (hurt.reflex, hurt.target.name) == (RETREAT, "skeleton"), hurt
    zombie_only = below.model_copy(update={"entities": [e for e in below.entities if e.name == "zombie"]})
    assert choose_combat(zombie_only, CFG, hurt=True) is None


def test_a_cornered_bot_fights_with_bare_hands():
    choice = choose_combat(_snap(("zombie", 3.0)), CFG, cornered=True)
    assert choice.reflex == FIGHT and choice.reason == "zombie at 3.0 blocks: fighting with bare hands"
    assert choose_combat(_snap(("zombie", 3.0)), CFG).reason == (
        "zombie at 3.0 blocks and no weapon held: keeping out of its reach"
    )


def test_a_cornered_bot_waits_for_a_creeper_beyond_reach_and_strikes_it_in_reach():
    """A 26.1 bench bot tried to get away from a creeper 4 blocks off that came no closer every
    second for 30 s, each evasion failing at once."""
    assert choose_combat(_snap(("creeper", 4.0), inventory=("iron_sword",)), CFG).reflex == EVADE
    # cornered some other way (indoors, a zombie that kept coming): a creeper is still evaded
    assert choose_combat(_snap(("creeper", 4.0), inventory=("iron_sword",)), CFG, cornered=True).reflex == EVADE
    assert choose_combat(_snap(("creeper", 4.0), inventory=("iron_sword",)), CFG, creeper_stuck=True) is None
    near = choose_combat(_snap(("creeper", 2.5), inventory=("iron_sword",)), CFG, creeper_stuck=True)
    assert near.reflex == STRIKE_AND_BACK_OFF
    fist = choose_combat(_snap(("creeper", 2.5)), CFG, creeper_stuck=True)  # bare hands: struck all the same
    assert fist.reflex == STRIKE_AND_BACK_OFF and "one hit with bare hands" in fist.reason
    assert choose_combat(_snap(("creeper", 2.5)), CFG).reflex == EVADE  # not stuck: away, no fist
    # the creeper waited for, the zombie beside it is answered as ever
    both = choose_combat(_snap(("creeper", 4.0), ("zombie", 2.0), inventory=("iron_sword",)), CFG, creeper_stuck=True)
    assert (both.reflex, both.target.name) == (FIGHT, "zombie")


def test_with_no_weapon_a_digging_tool_is_what_a_fight_hits_with_but_no_reason_to_fight():
    # the attack action equips it (node/lib/names.js): a stone pickaxe hits for 3, a fist for 1
    held = ("stone_pickaxe", "wooden_pickaxe", "wooden_shovel")
    assert choose_combat(_snap(("zombie", 3.0), inventory=held), CFG).reflex == EVADE
    cornered = choose_combat(_snap(("zombie", 3.0), inventory=held), CFG, cornered=True)
    assert cornered.reason == "zombie at 3.0 blocks: fighting with stone_pickaxe"
    archer = choose_combat(_snap(("skeleton", 9.0), inventory=held), CFG)
    assert archer.reason == "skeleton at 9.0 blocks shoots from range: closing in with stone_pickaxe"
    armed = choose_combat(_snap(("skeleton", 9.0), inventory=(*held, "wooden_sword")), CFG)
    assert armed.reason.endswith("closing in with wooden_sword")


def test_a_hurt_bot_retreats_from_a_hostile_it_would_fight_at_full_health():
    assert choose_combat(_snap(("zombie", 6.0)), CFG) is None
    hurt = choose_combat(_snap(("zombie", 6.0), health=5), CFG)
    assert hurt.reflex == RETREAT and "health 5 <= 6" in hurt.reason
    assert choose_combat(_snap(("zombie", 9.0), health=5), CFG) is None  # beyond fight_radius: nothing to flee
    # an archer a close-in would go for: not closed in on this low (it would break off at once)
    far = choose_combat(_snap(("skeleton", 12.0), health=5, inventory=("stone_sword",)), CFG)
    assert far.reflex == RETREAT and far.reason == "health 5 <= 6 with a skeleton at 12.0 blocks"
    assert choose_combat(_snap(("skeleton", 12.0), inventory=("stone_sword",)), CFG).reflex == CLOSE_IN


def test_the_reasons_name_the_kind_the_distance_and_the_weapon():
    assert (
        choose_combat(_snap(("zombie", 3.0), inventory=("stone_sword", "wooden_sword")), CFG).reason
        == "zombie at 3.0 blocks: fighting with stone_sword"
    )
    assert choose_combat(_snap(("creeper", 5.0)), CFG).reason == "creeper at 5.0 blocks: out of its blast (17 blocks)"


def test_threat_radii_are_the_reflexes_own_by_kind():
    radii = threat_radii(ReflexConfig(fight_within=3, creeper_flee_within=6, skeleton_engage_within=12))
    assert radii["default"] == 3 and radii["creeper"] == 6 and radii["skeleton"] == radii["stray"] == 12


def _lines():
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    return lines, sink


def test_a_creeper_is_evaded_beyond_its_blast_and_the_decision_is_logged(env):
    body = env["body"]
    body.mobs = [Mob("creeper", hostile=True, x=4.5, z=0.5)]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG)
    lines, sink = _lines()
    try:
        assert asyncio.run(reflexes.tick(body.snapshot())) == EVADE
    finally:
        logger.remove(sink)
    assert body.snapshot().entities[0].distance >= CFG.creeper_safe_distance
    assert [k for k, _ in body.started] == ["move_to"] and body.started[0][1]["x"] < 0  # away from it
    assert body.started[0][1]["stallMs"] == 3000  # a blocked way is given up quickly: its fuse is 1.5 s
    assert reflexes.stats.evaded == 1 and reflexes.stats.by_kind == {"creeper": 1}
    assert any(
        line.startswith("[Reflex] creeper at 4.0 blocks -> evade: creeper at 4.0 blocks: out of its blast")
        for line in lines
    ), lines


def test_an_evasion_breaks_off_when_the_creeper_comes_into_a_strikes_reach_on_the_way(env):
    """A 1.18.2 bench bot at cbab503 (seed 9274) was blown up 9 s into an evasion from a creeper
    at 6.7 blocks: now the walk is told to break off with the creeper in reach (move_to.js
    breakOffNear), the flight ends there, and the creeper is one waited for and struck."""
    body = env["body"]
    body.inventory["stone_sword"] = 1
    creeper = Mob("creeper", hostile=True, x=5.5, z=0.5)
    body.mobs = [creeper]
    walk = body._do_move_to

    def caught_up(a):
        walk(a)  # the walk goes, and the creeper with it, 2.5 blocks behind
        creeper.x, creeper.z = body.position.x + 2.5, body.position.z
        raise BodyError("broke off: a creeper at 2.5 blocks (distance 9.0)")

    body._do_move_to = caught_up
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG)
    assert asyncio.run(reflexes.tick(body.snapshot())) == EVADE
    walks = [a for k, a in body.started if k == "move_to"]
    assert len(walks) == 1 and walks[0]["breakOffNear"] == {"name": "creeper", "within": 3.0}
    assert reflexes._creeper_stuck_at is not None  # an evasion that got nowhere: struck in reach
    assert reflexes.choose(body.snapshot()) == STRIKE_AND_BACK_OFF


def test_an_armed_bot_strikes_a_creeper_in_reach_once_then_backs_off(env):
    body = env["body"]
    body.inventory["stone_sword"] = 1
    body.mobs = [Mob("creeper", hostile=True, x=2.5, z=0.5)]
    body._do_attack = lambda a: {"target": "creeper", "hits": a.get("maxHits"), "gone": False}  # it survives one hit
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG)
    assert asyncio.run(reflexes.tick(body.snapshot())) == STRIKE_AND_BACK_OFF
    assert [k for k, _ in body.started] == ["attack", "move_to"]
    assert body.started[0][1] == {"radius": 4.0, "maxHits": 1, "name": "creeper"}
    assert body.snapshot().entities[0].distance >= CFG.creeper_safe_distance


def test_a_skeleton_is_closed_in_on_and_a_spider_fought_by_their_kinds(env):
    body = env["body"]
    body.inventory["stone_sword"] = 1
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG)
    body.mobs = [Mob("skeleton", hostile=True, x=12.5, z=0.5)]
    assert asyncio.run(reflexes.tick(body.snapshot())) == CLOSE_IN
    # a close-in breaks off once it has cost CLOSE_IN_HEALTH_BUDGET; a fight at the retreat
    # threshold. A close-in digs through natural ground to a skeleton in a cave mouth or on a
    # ledge; a fight does not (the hostile comes to the bot)
    close_in = {
        "radius": CFG.skeleton_engage_within,
        "stopAtHealth": 20 - CLOSE_IN_HEALTH_BUDGET,
        "creeperWithin": CFG.creeper_flee_within,  # a creeper coming up breaks it off (node/lib/actions/attack.js)
        "digOnly": list(natural_ground()),
        "name": "skeleton",
    }
    assert body.started[-1] == ("attack", close_in)
    body.mobs = [Mob("spider", hostile=True, x=2.5, z=0.5)]
    assert asyncio.run(reflexes.tick(body.snapshot())) == FIGHT
    fight = {
        "radius": CFG.fight_radius,
        "stopAtHealth": CFG.retreat_below_health,
        "creeperWithin": CFG.creeper_flee_within,
        "name": "spider",
    }
    assert body.started[-1] == ("attack", fight)
    assert body.mobs == [] and reflexes.stats.fought == 2 and reflexes.stats.by_kind == {"skeleton": 1, "spider": 1}


@pytest.mark.parametrize(
    "night, dy, digs",
    [
        (None, 0.0, True),  # level with the bot: dug to
        (None, 3.0, True),  # up on a ledge
        (None, -1.0, True),  # a step down
        (None, -2.0, False),  # in a cave below: no shaft sunk toward it
        ("_burrowed", 0.0, False),  # a burrow's walls are natural ground
        ("_dug_in", 0.0, False),  # so are the pocket's under the hut
    ],
)
def test_a_close_in_digs_toward_a_skeleton_level_or_above_by_day_only(env, night, dy, digs):
    body = env["body"]
    body.inventory["stone_sword"] = 1
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG)
    if night:
        setattr(reflexes, night, True)
    body.mobs = [Mob("skeleton", hostile=True, x=1.5, z=0.5, y=body.snapshot().position.y + dy)]
    assert asyncio.run(reflexes.tick(body.snapshot())) == CLOSE_IN
    assert body.started[-1][0] == "attack" and ("digOnly" in body.started[-1][1]) is digs


def test_a_close_in_that_broke_off_hurt_leaves_the_archer_be_and_the_bot_retreats_from_it(env):
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.mobs = [Mob("skeleton", hostile=True, x=12.5, z=0.5)]
    body.inventory["stone_sword"] = 1

    def broke_off(a):  # hurt on the way by what else is about
        body.health = a["stopAtHealth"]
        raise RuntimeError(f"broke off: health {body.health} at or below {a['stopAtHealth']} (skeleton, 0 hits landed)")

    body._do_attack = broke_off
    assert asyncio.run(reflexes.tick(body.snapshot())) == CLOSE_IN
    assert body.health == 20 - CLOSE_IN_HEALTH_BUDGET  # not fought on down to the retreat threshold
    assert reflexes.left_be_ms("skeleton") == 60_000 and "skeleton" not in reflexes._reach_strikes  # no miss
    reflexes._hurt_at = ftime.clock()
    assert reflexes.choose(body.snapshot()) == RETREAT  # hurt, and the archer out of reach: away from it


def test_outnumbered_by_day_the_bot_walks_away_from_them_all(env):
    body = env["body"]
    body.mobs = [Mob("zombie", hostile=True, x=x, z=0.5) for x in (3.5, 5.5, 7.5)]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG)
    assert asyncio.run(reflexes.tick(body.snapshot())) == RETREAT
    assert reflexes.stats.retreats == 1 and body.started[0][0] == "move_to" and body.position.x < 0
    assert min(e.distance for e in body.snapshot().entities) >= 8


def test_an_archer_out_of_reach_is_left_be_unless_it_hurts_then_retreated_from():
    skel = _snap(("skeleton", 12.0))
    assert choose_combat(skel, CFG, unreachable={"skeleton"}) is None  # not closed in on again and again
    away = choose_combat(skel, CFG, unreachable={"skeleton"}, hurt=True)
    assert away.reflex == RETREAT and "out of reach, shoots" in away.reason
    armed = _snap(("skeleton", 12.0), ("zombie", 3.0), inventory=("stone_sword",))
    assert choose_combat(armed, CFG, unreachable={"skeleton"}).reflex == FIGHT


def test_a_close_in_that_cannot_reach_leaves_the_archer_be_for_a_minute(env):
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.mobs = [Mob("skeleton", hostile=True, x=12.5, z=0.5)]
    body.inventory["stone_sword"] = 1

    def unreachable(a):
        raise RuntimeError("attack timed out after 24499 ms")

    body._do_attack = unreachable
    assert not reflexes.leaves_be(body.snapshot())  # not tried yet
    assert asyncio.run(reflexes.tick(body.snapshot())) == CLOSE_IN  # tried once
    assert reflexes.choose(body.snapshot()) is None  # then left be: the task goes on
    assert reflexes.leaves_be(body.snapshot())  # and no reason for the drive tick to wait on it
    body.mobs.append(Mob("zombie", hostile=True, x=4.5, z=0.5))
    assert not reflexes.leaves_be(body.snapshot())  # another kind near: answered, not left be
    body.mobs.pop()
    reflexes._hurt_at = ftime.clock()  # shot: it is in reach after all
    assert not reflexes.leaves_be(body.snapshot())
    ftime.clock.advance(60_000)
    assert reflexes.choose(body.snapshot()) == CLOSE_IN  # a minute on, tried again
    assert not reflexes.leaves_be(body.snapshot())


def test_a_creeper_not_yet_within_its_flee_distance_is_left_be_until_it_comes_or_hurts(env):
    """The reflexes answer a creeper only within creeper_flee_within, a task running or not:
    farther off it is no reason for the drive tick to wait (a bench bot stood 110 s by its hut
    one morning, a creeper 14 blocks off never coming closer)."""
    ftime = env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    far = CFG.creeper_flee_within + 5
    assert reflexes.choose(_snap(("creeper", far))) is None
    assert reflexes.leaves_be(_snap(("creeper", far)))
    assert not reflexes.leaves_be(_snap(("creeper", CFG.creeper_flee_within - 1)))  # evaded, not left be
    assert not reflexes.leaves_be(_snap(("creeper", far), ("zombie", far)))  # the zombie is answered
    reflexes._hurt_at = ftime.clock()
    assert not reflexes.leaves_be(_snap(("creeper", far)))  # hurt: something is after the bot


def test_left_be_goes_by_the_hostiles_the_snapshot_counts_near_and_ends_once_one_hurts(env):
    ftime = env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    reflexes._out_of_reach["skeleton"] = ftime.clock()  # a close-in could not reach it
    snap = _snap(("skeleton", 9.0), ("zombie", 6.0))
    marked = [e.model_copy(update={"near": e.name == "skeleton"}) for e in snap.entities]
    # underground: the zombie on the surface over the rock is seen, not counted near
    assert reflexes.leaves_be(snap.model_copy(update={"entities": marked, "hostiles": 1}))
    assert not reflexes.leaves_be(snap)  # unmarked (a fake body): by distance, the zombie is near
    ftime.clock.advance(1000)
    reflexes._hurt_at = ftime.clock()  # shot after the close-in gave up
    ftime.clock.advance(CFG.under_attack_ms + 1000)
    assert not reflexes.leaves_be(snap.model_copy(update={"entities": marked, "hostiles": 1}))


def test_a_hostile_in_reach_the_last_fight_could_not_get_at_is_left_be_unless_it_hurts():
    near = _snap(("skeleton", 3.5), inventory=("stone_sword",))
    assert choose_combat(near, CFG).reflex == CLOSE_IN
    assert choose_combat(near, CFG, unreachable={"skeleton"}) is None  # in a hole, behind a wall: left be
    assert choose_combat(near, CFG, unreachable={"skeleton"}, hurt=True).reflex == RETREAT  # it shoots: away
    zombie = _snap(("zombie", 2.0), inventory=("stone_sword",))
    assert choose_combat(zombie, CFG, unreachable={"zombie"}) is None
    assert choose_combat(zombie, CFG, unreachable={"zombie"}, hurt=True).reflex == FIGHT  # it hits: it is in reach
    assert choose_combat(zombie, CFG, unreachable={"skeleton"}).reflex == FIGHT  # another kind's failure
    both = _snap(("zombie", 3.0), ("skeleton", 3.5), inventory=("stone_sword",))
    assert choose_combat(both, CFG, unreachable={"zombie", "skeleton"}) is None  # neither, not each in turn


def test_a_fight_out_of_reach_marks_it_but_one_whose_target_is_gone_does_not(env):
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.inventory["stone_sword"] = 1
    body.mobs = [Mob("zombie", hostile=True, x=3.5, z=0.5)]

    def gone(a):
        raise RuntimeError("no zombie within reach to attack")

    body._do_attack = gone
    assert asyncio.run(reflexes.tick(body.snapshot())) == FIGHT
    assert reflexes.choose(body.snapshot()) == FIGHT  # not marked: the next one is fought

    def in_a_hole(a):
        raise RuntimeError("could not get at the zombie (3.5 blocks away, no hit in 200 ticks)")

    body._do_attack = in_a_hole
    assert asyncio.run(reflexes.tick(body.snapshot())) == FIGHT
    assert reflexes.choose(body.snapshot()) is None  # left be
    ftime.clock.advance(60_000)
    assert reflexes.choose(body.snapshot()) == FIGHT


def test_each_further_miss_on_a_kind_leaves_it_be_twice_as_long_up_to_four_minutes_and_a_hit_starts_over(env):
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.inventory["stone_sword"] = 1
    body.mobs = [Mob("skeleton", hostile=True, x=12.5, z=0.5)]

    def on_a_ledge(a):
        raise RuntimeError("could not get at the skeleton (12.0 blocks away, no hit in 200 ticks)")

    body._do_attack = on_a_ledge
    for left_be in (60_000, 120_000, 240_000, 240_000):
        assert asyncio.run(reflexes.tick(body.snapshot())) == CLOSE_IN
        ftime.clock.advance(left_be - 1)
        assert reflexes.choose(body.snapshot()) is None, left_be  # still left be
        ftime.clock.advance(1)
        assert reflexes.choose(body.snapshot()) == CLOSE_IN, left_be  # tried again
    ftime.clock.advance(5 * 60_000)  # a quiet spell: the next miss starts over
    assert asyncio.run(reflexes.tick(body.snapshot())) == CLOSE_IN
    assert reflexes.left_be_ms("skeleton") == 60_000
    body._do_attack = lambda a: {"target": "skeleton", "hits": 3, "gone": False}  # reached
    ftime.clock.advance(60_000)
    assert asyncio.run(reflexes.tick(body.snapshot())) == CLOSE_IN
    body._do_attack = on_a_ledge
    assert asyncio.run(reflexes.tick(body.snapshot())) == CLOSE_IN
    assert reflexes.left_be_ms("skeleton") == 60_000  # a hit in between: the miss is a first one


def test_a_bare_handed_bot_gets_out_of_an_archers_range_and_closes_in_when_it_cannot(env):
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.mobs = [Mob("skeleton", hostile=True, x=12.5, z=0.5)]
    choice = choose_combat(body.snapshot(), CFG)
    assert (choice.reflex, choice.reason) == (
        EVADE,
        "skeleton at 12.0 blocks and nothing to fight it with: out of its range (17 blocks)",
    )

    def walled_in(a):
        raise RuntimeError("no path")

    calls = _spied(reflexes)
    body._do_move_to = walled_in
    assert asyncio.run(reflexes.tick(body.snapshot())) == EVADE  # tried, got nowhere
    # away from every hostile (not only the archer), out of the radius the bow is answered in
    assert calls == [("flee", {"radius": CFG.skeleton_engage_within, "distance": 17.0, "legs": 3})]
    assert reflexes.choose(body.snapshot()) == CLOSE_IN  # cornered: bare hands it is


def test_a_bare_handed_bot_that_cannot_get_away_fights_for_a_while(env):
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.mobs = [Mob("zombie", hostile=True, x=3.5, z=0.5)]
    assert reflexes.choose(body.snapshot()) == EVADE

    def walled_in(a):
        raise RuntimeError("no path")

    body._do_move_to = walled_in
    assert asyncio.run(reflexes.tick(body.snapshot())) == EVADE  # tried, got nowhere
    assert reflexes.choose(body.snapshot()) == FIGHT  # cornered: bare hands it is
    ftime.clock.advance(20_000)
    assert reflexes.choose(body.snapshot()) == EVADE


def _after_three_evasions(env, kind: str, x: float, shot_after: int | None = None) -> str | None:
    """The reflex chosen once `kind`, back at `x` after each of three evasions 10 s apart, is
    there again; `shot_after`: the evasion after which it hurt the bot."""
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    start = body.position
    for i in range(3):
        body.position = start
        body.mobs = [Mob(kind, hostile=True, x=x, z=0.5)]  # back again after each evasion
        assert asyncio.run(reflexes.tick(body.snapshot())) == EVADE
        if i == shot_after:
            reflexes._hurt_at = ftime.clock()
        ftime.clock.advance(10_000)
    body.position = start
    body.mobs = [Mob(kind, hostile=True, x=x, z=0.5)]
    return reflexes.choose(body.snapshot())


def test_a_hostile_that_keeps_coming_after_three_evasions_is_fought(env):
    assert _after_three_evasions(env, "zombie", 3.5) == FIGHT  # it keeps coming: bare hands it is


@pytest.mark.parametrize("shot", [False, True])
def test_a_skeleton_that_keeps_coming_without_hurting_the_bot_is_left_be_not_fought_bare_handed(env, shot):
    """A 1.18.2 bench bot evaded a skeleton three times in a minute, unhurt, took it for chased,
    closed in on it with its fists and was dead in 18 s; one that shot it is fought as ever."""
    chosen = _after_three_evasions(env, "skeleton", 10.5, shot_after=1 if shot else None)
    assert chosen == (CLOSE_IN if shot else None)  # cornered: at it bare-handed


def test_a_creeper_that_keeps_coming_back_is_led_away_beyond_where_it_follows_and_may_despawn(env):
    """A creeper that does not burn by day followed a 1.18.2 bench bot back to its hut's site 46
    times in a game day, each evasion (17 blocks off) working, the build held for each."""
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    start = body.position
    times, within = CREEPER_RETURNS

    def evasion() -> dict:
        body.position, body.started = start, []
        body.mobs = [Mob("creeper", hostile=True, x=5.5, z=0.5)]  # back again after each evasion
        assert asyncio.run(reflexes.tick(body.snapshot())) == EVADE
        return body.snapshot().entities[0].distance

    for _ in range(times):
        assert CFG.creeper_safe_distance <= evasion() < LEAD_AWAY
        led = ftime.clock()  # the last of them: led away from then
        ftime.clock.advance(within // times - 1)
    assert evasion() >= LEAD_AWAY  # beyond 16 (it follows) and 32 (it may despawn)
    ftime.clock.advance(led + CREEPER_LEAD_MS - 1 - ftime.clock())
    assert evasion() >= LEAD_AWAY
    ftime.clock.advance(1)
    assert evasion() < LEAD_AWAY  # led away for CREEPER_LEAD_MS, then evaded as before


def test_creeper_evasions_spread_wider_than_their_window_lead_nothing_away(env):
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    start = body.position
    times, within = CREEPER_RETURNS
    for _ in range(times + 2):
        body.position = start
        body.mobs = [Mob("creeper", hostile=True, x=5.5, z=0.5)]
        assert asyncio.run(reflexes.tick(body.snapshot())) == EVADE
        assert body.snapshot().entities[0].distance < LEAD_AWAY
        ftime.clock.advance(within // (times - 1) + 1_000)  # a third within the window never


def test_evasions_on_the_walk_back_to_a_deaths_items_do_not_make_a_hostile_one_that_keeps_coming(env):
    """The bot walking back to its items goes toward what is there, not it toward the bot."""
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    reflexes.death = Death(cause="skeleton", position=Vec3(x=30.0, y=64.0, z=0.5), at_ms=ftime.clock())
    start = body.position
    for _ in range(3):
        body.position = start
        body.mobs = [Mob("zombie", hostile=True, x=3.5, z=0.5)]
        assert asyncio.run(reflexes.tick(body.snapshot())) == EVADE
        ftime.clock.advance(10_000)
    body.position, body.mobs = start, [Mob("zombie", hostile=True, x=3.5, z=0.5)]
    assert reflexes.choose(body.snapshot()) == EVADE  # bare hands: still kept out of its reach


def test_a_retreat_that_got_nowhere_with_nothing_hurting_the_bot_eats_before_retreating_again(env):
    """A 1.18.2 bench bot at health 5, food 17 and a cooked beef held retreated from a zombie 3
    blocks off that could not reach it every 4-8 s for minutes, never eating."""
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.health, body.food = 5, 17
    body.inventory["cooked_beef"] = 1
    body.mobs = [Mob("zombie", hostile=True, x=3.5, z=0.5)]
    body.fail["move_to"] = "no path"  # walled off: the retreat goes nowhere
    reflexes._hurt_at = ftime.clock() - 10_000  # hurt a while ago
    assert reflexes.choose(body.snapshot()) == RETREAT  # no retreat tried yet: away first
    assert asyncio.run(reflexes.tick(body.snapshot())) == RETREAT
    assert reflexes._retreat_failed_at == ftime.clock()
    reflexes._hurt_at = ftime.clock()  # a hit read as the retreat ended: it reaches the bot, away again
    assert reflexes.choose(body.snapshot()) == RETREAT
    ftime.clock.advance(CFG.under_attack_ms)  # no longer under attack, but hit since the retreat began
    assert reflexes.choose(body.snapshot()) == RETREAT
    assert asyncio.run(reflexes.tick(body.snapshot())) == RETREAT  # failed again, nothing hurting since
    assert asyncio.run(reflexes.tick(body.snapshot())) == "eat"
    assert body.inventory["cooked_beef"] == 0 and body.food > 17
    ftime.clock.advance(CORNERED_MS)  # long after the retreat that got nowhere: away first again
    body.inventory["cooked_beef"], body.food = 1, 17
    assert reflexes.choose(body.snapshot()) == RETREAT


def test_a_fight_breaks_off_for_a_creeper_unless_one_is_waited_for(env):
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.inventory["stone_sword"] = 1
    body.mobs = [Mob("spider", hostile=True, x=2.5, z=0.5)]
    assert asyncio.run(reflexes.tick(body.snapshot())) == FIGHT
    assert body.started[-1][1]["creeperWithin"] == CFG.creeper_flee_within
    reflexes._creeper_stuck_at = ftime.clock()  # no way away from one: a fight beside it is not broken off for it
    body.mobs = [Mob("spider", hostile=True, x=2.5, z=0.5)]
    assert asyncio.run(reflexes.tick(body.snapshot())) == FIGHT
    assert "creeperWithin" not in body.started[-1][1]


def test_hostiles_near_that_the_reflexes_would_not_answer_are_left_be_after_a_minute(env):
    """A 26.1 bench bot at 855429f stood 30 minutes underground, its drive tick shut by a
    hostile near that never came within a distance the reflexes answer."""
    ftime = env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    far = _snap(("zombie", CFG.fight_within + 5))
    assert reflexes.choose(far) is None  # not answered: beyond fight_within
    assert not reflexes.leaves_be(far)  # a moment ago it may be coming
    ftime.clock.advance(QUIET_MS - 1)
    assert not reflexes.leaves_be(far)
    ftime.clock.advance(1)
    assert reflexes.leaves_be(far)  # it does not come: no reason to stand idle
    near = _snap(("zombie", CFG.fight_within - 1))
    assert not reflexes.leaves_be(near)  # it came: answered, and the minute starts over
    assert not reflexes.leaves_be(far)
    ftime.clock.advance(QUIET_MS)
    assert reflexes.leaves_be(far)
    reflexes._hurt_at = ftime.clock()  # something hurts the bot: not left be
    assert not reflexes.leaves_be(far)


def test_hurt_after_a_retreat_that_got_nowhere_a_melee_hostile_in_reach_is_fought_to_the_end(env):
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.inventory["stone_sword"] = 1
    body.health = 5
    body.mobs = [Mob("zombie", hostile=True, x=1.7, z=0.5)]

    def walled_in(a):
        raise RuntimeError("no path")

    body._do_move_to = walled_in
    assert asyncio.run(reflexes.tick(body.snapshot())) == RETREAT  # got nowhere
    assert reflexes.choose(body.snapshot()) == RETREAT  # not hurt since: nothing says it must fight
    ftime.clock.advance(500)
    reflexes._hurt_at = ftime.clock()  # the zombie hits
    choice_reflex = reflexes.choose(body.snapshot())
    assert choice_reflex == FIGHT and reflexes._combat.to_the_end, reflexes._combat
    assert reflexes._combat.reason.startswith("health 5, the retreat got nowhere: fighting the zombie at 1.2 blocks")
    asyncio.run(reflexes.tick(body.snapshot()))
    assert body.started[-1][0] == "attack" and body.started[-1][1]["stopAtHealth"] == 0  # not broken off at 6
    ftime.clock.advance(CORNERED_MS)
    body.mobs = [Mob("zombie", hostile=True, x=1.7, z=0.5)]
    assert reflexes.choose(body.snapshot()) == RETREAT  # a while later: away again first


def test_just_out_of_cover_beside_the_skeleton_a_retreat_that_got_nowhere_makes_a_last_stand(env):
    """A 1.18.2 bench bot at 5832c56 came out of its cover at health 4 (not healed, the way up
    refused: no pickaxe after a death) with the skeleton 1.8 blocks off, retreated three times
    in three seconds, getting nowhere, and was shot dead."""
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.inventory["stone_sword"] = 1
    body.health = 4
    body.mobs = [Mob("skeleton", hostile=True, x=2.3, z=0.5)]
    body._do_move_to = lambda a: (_ for _ in ()).throw(RuntimeError("no path"))
    reflexes._no_cover_until = ftime.clock() + 20_000  # a cover just left: none again for a while
    assert asyncio.run(reflexes.tick(body.snapshot())) == RETREAT  # got nowhere
    ftime.clock.advance(500)
    reflexes._hurt_at = ftime.clock()  # an arrow
    assert reflexes.choose(body.snapshot()) == FIGHT and reflexes._combat.to_the_end, reflexes._combat
    reflexes._no_cover_until = 0  # cover to be had: that first, not a duel
    assert reflexes.choose(body.snapshot()) == RETREAT


def test_a_last_stand_is_against_a_melee_hostile_in_reach_only():
    snap = _snap(("skeleton", 1.2), health=5, inventory=("stone_sword",))
    assert choose_combat(snap, CFG, retreat_stuck=True).reflex == RETREAT  # an archer: cover, not a duel
    # no cover to be had (one just left): out of it beside a skeleton, a retreat gets nowhere
    duel = choose_combat(snap, CFG, retreat_stuck=True, no_cover=True)
    assert duel.reflex == FIGHT and duel.to_the_end and duel.target.name == "skeleton"
    creeper = _snap(("creeper", 1.2), health=5, inventory=("stone_sword",))
    assert choose_combat(creeper, CFG, retreat_stuck=True, no_cover=True).reflex != FIGHT
    far = _snap(("zombie", 5.0), health=5, inventory=("stone_sword",))
    assert choose_combat(far, CFG, retreat_stuck=True).reflex == RETREAT


def test_a_death_stops_the_retreat_in_flight_and_the_next_reflex_call_runs(env):
    """A bench bot's retreat begun at health 1 outlived its death: its walk took the respawned
    bot back toward where it died, through the night, and nothing else answered meanwhile."""
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.health = 5.0
    body.mobs = [Mob("zombie", hostile=True, x=3.5, z=0.5)]
    body.hang = {"move_to"}  # the retreat's walk goes on until something stops it
    died = BodyEvent(type=EventType.death, ts=0, data={"position": {"x": 0.5, "y": 64.0, "z": 0.5}, "cause": "zombie"})

    async def scenario() -> str | None:
        tick = asyncio.ensure_future(reflexes.tick(body.snapshot()))
        while not body.started:
            await ftime.sleep(0.1)
        await reflexes.on_events([died])
        at_death = ftime.clock()
        chosen = await asyncio.wait_for(tick, timeout=5)
        assert ftime.clock() - at_death <= 1000  # at its next poll, not the flee's 90 s later
        return chosen

    assert asyncio.run(scenario()) == RETREAT
    assert [k for k, _ in body.started] == ["move_to"]  # no other heading walked after the death
    assert len(body.cancelled) == 1 and reflexes.stats.deaths == 1
    assert reflexes._retreat_failed_at is None  # stopped by the death, not a way that got nowhere
    assert reflexes.ctx.stop.is_set()  # the rest of that tick's calls too
    body.hang, body.health = set(), 20.0
    assert asyncio.run(reflexes.tick(body.snapshot())) == EVADE  # the next tick acts again (bare hands)
    assert not reflexes.ctx.stop.is_set() and [k for k, _ in body.started] == ["move_to", "move_to"]


@pytest.mark.parametrize(
    "mob, distance, armed, hangs, expected",
    [
        ("zombie", 3.0, False, "move_to", EVADE),  # no _evade_failed_at: not cornered after the respawn
        ("skeleton", 12.0, True, "attack", CLOSE_IN),  # not left be as out of reach
    ],
)
def test_an_answer_a_death_stopped_leaves_no_mark(env, mob, distance, armed, hangs, expected):
    """A death stops the call in flight; what it was doing says nothing of the way or the hostile
    (a respawned bare-handed bot taken for cornered fought the zombies it met for 20 s)."""
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    if armed:
        body.inventory["stone_sword"] = 1
    body.mobs = [Mob(mob, hostile=True, x=0.5 + distance, z=0.5)]
    body.hang = {hangs}
    died = BodyEvent(type=EventType.death, ts=0, data={"position": {"x": 0.5, "y": 64.0, "z": 0.5}, "cause": mob})

    async def scenario() -> str | None:
        tick = asyncio.ensure_future(reflexes.tick(body.snapshot()))
        while not body.started:
            await ftime.sleep(0.1)
        await reflexes.on_events([died])
        return await asyncio.wait_for(tick, timeout=5)

    assert asyncio.run(scenario()) == expected
    assert reflexes._evade_failed_at is None and reflexes._creeper_stuck_at is None
    assert reflexes.left_be(ftime.clock()) == {} and reflexes._reach_strikes == {}


def test_outnumbered_after_a_retreat_that_got_nowhere_the_melee_hostile_in_reach_is_fought_to_the_end():
    """A 1.18.2 bench bot at cbab503 (seed 9274), outnumbered by three zombies in a cave, died
    retreating: they kept up and hit it on the way."""
    three = _snap(("zombie", 1.5), ("zombie", 2.5), ("zombie", 3.0), inventory=("iron_sword",))
    assert choose_combat(three, CFG).reflex == RETREAT  # first, away from them
    stand = choose_combat(three, CFG, retreat_stuck=True)
    assert stand.reflex == FIGHT and stand.to_the_end and stand.target.name == "zombie"
    assert stand.reason.startswith("outnumbered: 3 hostiles within 8 blocks, the retreat got nowhere: fighting the")
    beyond = _snap(("zombie", 2.5), ("zombie", 3.0), ("zombie", 3.5), inventory=("iron_sword",))
    assert choose_combat(beyond, CFG, retreat_stuck=True).reflex == RETREAT  # none in reach: away again
    archers = _snap(("skeleton", 1.5), ("skeleton", 2.5), ("skeleton", 3.0), inventory=("iron_sword",))
    assert choose_combat(archers, CFG, retreat_stuck=True).reflex == RETREAT  # arrows: cover, not a duel


@pytest.mark.parametrize(
    ("mobs", "hurt_by"),
    [
        ((("zombie", 3.0), ("zombie", 4.0), ("zombie", 5.0)), FLIGHT_HURT_BY),
        ((("creeper", 2.5), ("zombie", 4.0), ("zombie", 5.0)), FLIGHT_HURT_BY),  # the zombies behind it hit
        ((("zombie", 3.0),), None),  # one, at the health threshold: away from it, however hurt
    ],
)
def test_an_outnumbered_retreat_breaks_off_when_hurt_on_the_way(env, mobs, hurt_by):
    """Outnumbered and hit FLIGHT_HURT_BY on the way, the flight is no way out (the next tick
    stands and fights); a retreat from one at the health threshold goes on."""
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.inventory["stone_sword"] = 1
    body.health = CFG.retreat_below_health if len(mobs) == 1 else 20
    body.mobs = [Mob(name, hostile=True, x=0.5 + d, z=0.5) for name, d in mobs]
    calls = _spied(reflexes)
    assert asyncio.run(reflexes.tick(body.snapshot())) == RETREAT
    assert [args.get("hurtBy") for name, args in calls if name == "flee"] == [hurt_by]


def test_outnumbered_with_a_creeper_near_the_retreat_goes_on_rather_than_a_stand():
    """A fight breaks off at once for a creeper within creeper_flee_within: a stand would be an
    empty fight every tick."""
    snap = _snap(("zombie", 1.5), ("zombie", 2.5), ("creeper", 5.0), inventory=("iron_sword",))
    assert choose_combat(snap, CFG, retreat_stuck=True).reflex == RETREAT


@pytest.mark.parametrize("zombie", [True, False])
def test_an_evasion_from_a_creeper_with_a_zombie_beside_breaks_off_hurt_and_the_zombie_is_fought(env, zombie):
    """A 26.1 bench bot at 2f98652 (seed 8127) evading a creeper in a cave was killed by a zombie
    16 s into the flight, from health 12.6."""
    body, ftime = env["body"], env["ftime"]
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], CFG, clock=ftime.clock)
    body.inventory["iron_sword"] = 1
    body.mobs = [Mob("creeper", hostile=True, x=5.5, z=0.5)]
    if zombie:
        body.mobs.append(Mob("zombie", hostile=True, x=-2.5, z=0.5))

    def hit_on_the_way(a):
        body.health -= 3 if zombie else 0  # the zombie keeps up
        raise BodyError(f"no progress toward {a['x']},{a['y']},{a['z']} for 60 ticks (distance 8.0)")

    body._do_move_to = hit_on_the_way
    calls = _spied(reflexes)
    assert asyncio.run(reflexes.tick(body.snapshot())) == EVADE
    assert [args.get("hurtBy") for name, args in calls if name == "flee"] == [FLIGHT_HURT_BY if zombie else None]
    if zombie:
        assert body.health == 14  # broken off after two walks, not one for every heading
        assert reflexes.choose(body.snapshot()) == FIGHT and reflexes._combat.target.name == "zombie"


def test_a_zombie_hitting_in_reach_is_fought_before_a_skeleton_out_of_reach_is_fled():
    """A 1.18.2 bench bot at 2f98652 (seed 8127) fled a skeleton out of reach every second, a
    zombie villager 0.9 blocks off hitting it all the while and no flight getting anywhere, down
    to health 3.8."""
    snap = _snap(("zombie_villager", 0.9), ("skeleton", 14.2), health=12, inventory=("iron_sword",))
    choice = choose_combat(snap, CFG, unreachable=("skeleton",), hurt=True)
    assert (choice.reflex, choice.target.name) == (FIGHT, "zombie_villager")
    assert choice.reason == "zombie_villager at 0.9 blocks, in reach: fighting it before the skeleton with iron_sword"
    bare = _snap(("zombie_villager", 0.9), ("skeleton", 14.2), health=12)
    assert choose_combat(bare, CFG, unreachable=("skeleton",), hurt=True).reflex == RETREAT  # nothing to fight with
