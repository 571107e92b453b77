"""The daemon's drive-tick job and its world reads (agency.cognition.drive_job and
drive_reads) on the fake block world, with a frozen clock: what stops a tick before it reads
anything, what it reads once due, and a failed read that the tick chooses without."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from agency.clock import FrozenClock
from agency.cognition.counters import AgencyCounters
from agency.cognition.drive_job import DriveJob
from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_reads import DriveReads
from agency.cognition.drive_tick import DriveTickFired, sight_box
from agency.cognition.follow_ups import FollowUp
from agency.cognition.settings import DriveTickConfig
from agency.execution.body_holder import BodyHolder
from agency.perception.body_gate import BodyGate
from agency.perception.last_seen import LastSeen
from agency.places.memory import PlaceMemory
from agency.places.store import PlaceStore
from agency.planning.tasks.models import TaskOrigin
from agency.tools.base import ToolContext
from agency.tools.testing import GROUND_Y, FakeBody, Mob
from agency.world import BodyLost
from tests.unit.cognition.inventories import EVERY_STEP_BUT_THE_BED

INTERVAL_MS = 180_000


class Env:
    def __init__(self, tmp_path, clock: FrozenClock) -> None:
        self.clock = clock
        self.body = FakeBody(clock)
        self.body.connected = True
        self.reads_made: list[tuple] = []
        region = self.body.region
        self.body.region = lambda origin, size: self.reads_made.append((origin, size)) or region(origin, size)
        self.places = PlaceMemory(PlaceStore(tmp_path / "places.db", clock=clock), lambda: "world-a")
        self.state = DriveTickState()
        self.config = DriveTickConfig(interval_ms=INTERVAL_MS)
        self.reflexes = SimpleNamespace(holding_tasks=False, leaves_be=lambda snap: False)
        self.direct = SimpleNamespace(body_busy=None)
        self.seen = LastSeen()
        self.published: list = []
        self.reads = DriveReads(
            self.body, ToolContext(body=self.body, clock=clock), self.places, self.state, self.config
        )
        self.job = DriveJob(
            self.reads,
            holder=BodyHolder(self.reflexes, self.direct),
            gate=BodyGate(),
            seen=self.seen,
            tasks=[],
            publish=lambda t: self.published.append(t) or t,
            shelter_nearby=lambda snap: True,
            state=self.state,
            config=self.config,
            counters=AgencyCounters(clock),
            clock=clock,
        )

    def run(self):
        if self.seen.get() is None:
            self.seen.saw(self.body.snapshot())
        return asyncio.run(self.job.run())

    def sight_reads(self) -> list[tuple]:
        return [r for r in self.reads_made if r == sight_box(self.body.snapshot())]


@pytest.fixture
def env(tmp_path, clock):
    e = Env(tmp_path, clock)
    yield e
    e.places.store.close()


def test_a_due_tick_grounds_on_the_blocks_in_sight_and_publishes_its_thought(env):
    env.body.add_tree(4, 4)
    result = env.run()
    assert isinstance(result, DriveTickFired) and result.thought.metadata.goalKey == "collect:log"
    assert env.published == [result.thought] and len(env.sight_reads()) == 1


def test_within_the_interval_nothing_is_read_and_once_it_has_passed_the_tick_fires_again(env):
    env.body.add_tree(4, 4)
    env.run()
    env.reads_made.clear()
    env.clock.advance(INTERVAL_MS - 1)
    assert env.run() is None and env.reads_made == [] and len(env.published) == 1
    env.clock.advance(1)
    assert isinstance(env.run(), DriveTickFired) and len(env.published) == 2


def test_a_direct_action_holding_the_body_stops_the_tick_before_any_read(env):
    env.direct.body_busy = object()
    assert env.run() is None
    assert env.reads_made == [] and env.published == [] and env.state.last_fired_ms is None


def test_the_night_in_the_shelter_stops_the_tick_before_any_read(env):
    env.reflexes.holding_tasks = True
    assert env.run() is None and env.reads_made == [] and env.published == []


def test_no_snapshot_yet_or_the_bot_away_fires_nothing_and_the_gate_says_it_once(env, logs):
    assert asyncio.run(env.job.run()) is None  # nothing seen yet
    env.body.connected = False
    env.run()
    env.run()
    assert env.published == [] and env.reads_made == []
    assert [m for _, m in logs if "waiting" in m] == ["[DriveTick] waiting: the bot is not connected"]


def test_a_failed_fresh_read_is_one_warning_and_the_tick_chooses_on_the_last_snapshot(env, logs):
    last = env.body.snapshot()
    env.seen.saw(last)

    def broken():
        raise RuntimeError("bridge call failed\n  at JS stack")

    env.body.snapshot = broken
    assert asyncio.run(env.reads.fresh_snapshot(last)) is last
    assert ("WARNING", "[DriveTick] fresh snapshot failed: bridge call failed") in logs


def test_a_body_lost_under_the_fresh_read_is_no_warning(env, logs):
    last = env.body.snapshot()

    def lost():
        raise BodyLost("bot 1 has disconnected")

    env.body.snapshot = lost
    assert asyncio.run(env.reads.fresh_snapshot(last)) is last
    assert not [m for level, m in logs if level == "WARNING"]


def test_a_table_in_reach_is_near_and_remembered_but_only_when_the_tick_is_due_and_none_is_held(env, make_snapshot):
    table = (3, GROUND_Y, 2)
    env.body.blocks[table] = "crafting_table"
    snap = env.body.snapshot()
    assert asyncio.run(env.reads.table_nearby(snap, env.clock())) is True
    assert [p.pos for p in env.places.candidates("crafting_table", (0, GROUND_Y, 0))] == [table]
    env.reads_made.clear()
    held = make_snapshot({"crafting_table": 1})
    assert asyncio.run(env.reads.table_nearby(held, env.clock())) is None  # one held: not looked
    env.state.fired(env.clock())
    assert asyncio.run(env.reads.table_nearby(snap, env.clock())) is None  # not due: not looked
    assert env.reads_made == []


def test_a_remembered_furnace_counts_only_while_its_block_still_stands(env):
    env.places.placed("furnace", 6, GROUND_Y, 6)
    env.body.blocks[(6, GROUND_Y, 6)] = "furnace"
    snap = env.body.snapshot()
    assert asyncio.run(env.reads.furnace_nearby(snap, env.clock())) is True
    env.body.blocks[(6, GROUND_Y, 6)] = "air"  # broken since
    assert asyncio.run(env.reads.furnace_nearby(snap, env.clock())) is False
    assert asyncio.run(env.reads.furnace_nearby(snap, env.clock())) is False  # and forgotten: nothing to read
    assert env.places.candidates("furnace", (0, GROUND_Y, 0)) == []


def test_the_blocks_in_sight_remember_a_bed_and_a_failed_read_grounds_nothing(env, logs):
    env.body.blocks[(5, GROUND_Y, 5)] = "red_bed"
    snap = env.body.snapshot()
    assert asyncio.run(env.reads.in_sight(snap)) is not None
    assert [p.pos for p in env.places.candidates("bed", (0, GROUND_Y, 0))] == [(5, GROUND_Y, 5)]

    def broken(origin, size):
        raise RuntimeError("region read timed out")

    env.body.region = broken
    assert asyncio.run(env.reads.in_sight(snap)) is None
    assert ("WARNING", "[DriveTick] reading the blocks in sight failed: region read timed out") in logs
    env.body.connected = False
    assert asyncio.run(env.reads.in_sight(snap)) is None


def test_hostiles_the_reflexes_leave_be_do_not_shut_the_safety_gate(env, logs):
    """A bench bot stood a whole morning under ground: a skeleton across a cave, out of the
    close-in's reach, shut the gate (hostiles > 0) while it never hurt the bot."""
    env.body.add_tree(4, 4)
    env.body.mobs = [Mob("skeleton", hostile=True, x=10.5, z=0.5)]
    assert env.body.snapshot().hostiles == 1
    assert env.run() is None and env.published == []  # the reflexes answer it: the gate stays shut
    env.reflexes.leaves_be = lambda snap: [e.name for e in snap.entities if e.hostile] == ["skeleton"]
    env.seen.saw(env.body.snapshot())
    result = env.run()
    assert isinstance(result, DriveTickFired) and result.thought.metadata.goalKey == "collect:log"
    assert any("1 hostile(s) near (skeleton) left be by the reflexes, not hurting the bot" in m for _, m in logs)


def test_a_due_tick_that_does_not_fire_says_why_once_per_reason_until_one_fires(env, logs):
    env.body.add_tree(4, 4)
    env.body.food = 15
    env.seen.saw(env.body.snapshot())
    for _ in range(3):
        assert env.run() is None
    env.body.food = 20
    env.body.mobs = [Mob("zombie", hostile=True, x=6.5, z=0.5)]
    for food in (20, 15, 20):  # two reasons taking turns: each said once
        env.body.food = food
        env.seen.saw(env.body.snapshot())
        assert env.run() is None
    said = [m for _, m in logs if "due but not firing" in m]
    assert said == [
        "[DriveTick] due but not firing: low_food (food=15)",
        "[DriveTick] due but not firing: hostiles_present (hostiles=1)",
    ]
    env.body.mobs = []
    env.seen.saw(env.body.snapshot())
    assert isinstance(env.run(), DriveTickFired)
    env.clock.advance(1000)  # within the interval: nothing said
    env.body.food = 15
    env.seen.saw(env.body.snapshot())
    assert env.run() is None and len([m for _, m in logs if "due but not firing" in m]) == 2
    env.clock.advance(INTERVAL_MS)  # due again after a tick fired: said again
    assert env.run() is None and len([m for _, m in logs if "due but not firing" in m]) == 3


def test_the_next_ticks_goals_asked_now_pass_every_gate_but_the_interval_and_fire_nothing(env, make_snapshot, logs):
    """DriveJob.goals_now, for the executor when a tick's work is done with nothing after it
    (FollowUpWatch.queue_after): what the tick would choose now, and the chain after it."""
    env.body.inventory.update({"oak_log": 4, "crafting_table": 1})
    env.run()  # a tick fired: the next is 180 s off
    fired, ticks = env.state.last_fired_ms, env.job.counters.get("driveTicks")
    env.body.inventory.update({"oak_planks": 8, "stick": 4})
    env.seen.saw(env.body.snapshot())
    chain = asyncio.run(env.job.goals_now())
    assert chain and (chain[0].action, chain[0].target, chain[0].amount) == ("craft", "wooden_pickaxe", 1)
    assert 1 < len(chain) <= 1 + env.config.follow_ups  # a task as long as a tick's
    assert ("craft", "wooden_pickaxe") not in {(f.action, f.target) for f in chain[1:]}
    assert env.state.last_fired_ms == fired and env.job.counters.get("driveTicks") == ticks  # nothing fired
    assert len(env.published) == 1
    env.seen.saw(env.body.snapshot().model_copy(update={"food": 15}))
    assert asyncio.run(env.job.goals_now()) == ()  # a gate shut: the same as for a tick
    assert any(m.startswith("[DriveTick] asked between ticks: no goal now (low_food: food=15") for _, m in logs), logs
    env.body.inventory.clear()
    env.seen.saw(env.body.snapshot())
    chain = asyncio.run(env.job.goals_now())  # none left after a hut or a sword: gathered at once
    assert chain and (chain[0].action, chain[0].target, chain[0].amount) == ("collect", "log", 8)


def test_between_ticks_a_goal_hunting_game_out_of_sight_explores_nearby_meanwhile(env, logs, store):
    """goals_now: every step had but the bed, no sheep in sight: an explore near home, not an
    empty answer the bot stands on until the bed's tick (agency.cognition.follow_ups.looks_for_game);
    none with no shelter near (no home to keep near) or an explore that just failed."""
    env.body.inventory.update(EVERY_STEP_BUT_THE_BED)
    env.seen.saw(env.body.snapshot())
    assert asyncio.run(env.job.goals_now()) == (FollowUp("explore", "nearby", 1, 1, False),)
    said = [m for _, m in logs if m.startswith("[DriveTick] asked between ticks:")]
    why = "craft:white_bed waits for its tick (its game out of sight): exploring nearby meanwhile"
    assert said == [f"[DriveTick] asked between ticks: {why}"]
    env.job.shelter_nearby = lambda snap: False  # no home for the explore's legs to keep near
    assert asyncio.run(env.job.goals_now()) == ()
    env.job.shelter_nearby = lambda snap: True
    explore = store.add_task(
        {"title": "Explore", "type": "explore", "metadata": {"goalKey": "explore:nearby"}},
        origin=TaskOrigin(kind="drive-tick"),
    )
    store.set_status(explore.id, "active")
    store.set_status(explore.id, "failed")
    env.job.tasks = store
    assert asyncio.run(env.job.goals_now()) == ()  # an explore that just failed waits its backoff
