"""A user's goal as it reaches the daemon (agency.goals.intake): held to the bot it names,
checked against a snapshot read now (and the blocks in sight for a collect or craft goal) on
the fake block world, with a frozen clock; nothing stored when there is no bot to check it
against."""

from __future__ import annotations

import asyncio

import pytest

from agency.cognition.drive_tick import sight_box
from agency.goals.intake import GoalIntake
from agency.goals.user_goals import GoalRequest, GoalRequestError
from agency.perception.last_seen import LastSeen
from agency.planning.tasks.models import TaskStatus
from agency.tools.testing import FakeBody
from agency.world import BodyLost, BodyUnavailable

BOT = "Alpha"


class Env:
    def __init__(self, store, clock) -> None:
        self.store, self.clock = store, clock
        self.body: FakeBody | None = FakeBody(clock)
        self.body.connected = True
        self.body.add_tree(4, 4)
        self.reads: list[str] = []
        for name in ("snapshot", "region"):
            real = getattr(self.body, name)
            setattr(self.body, name, lambda *a, _real=real, _name=name: self.reads.append(_name) or _real(*a))
        self.seen = LastSeen()
        self.intake = GoalIntake(
            BOT,
            body=lambda: self.body,
            seen=self.seen,
            tasks=store,
            is_routable=lambda goal: goal.action != "craft",
            router=None,
            clock=clock,
        )

    def submit(self, **request):
        return asyncio.run(self.intake.submit(GoalRequest(**request)))

    def tasks(self):
        return self.store.list_by_status(*TaskStatus)


@pytest.fixture
def env(store, clock):
    return Env(store, clock)


def test_a_collect_goal_is_checked_on_a_fresh_read_with_the_blocks_in_sight_and_stored(env):
    decision = env.submit(text="collect oak_log 3")
    assert decision.created and env.reads == ["snapshot", "region"]
    [task] = env.tasks()
    assert task.id == decision.task_id and task.metadata.origin.kind == "user" and task.metadata.bot is None
    assert env.seen.get() is not None and env.seen.get().ts == env.clock()  # the fresh read is the bot's latest


def test_a_goal_that_grounds_on_nothing_in_sight_reads_no_blocks(env):
    assert env.submit(text="explore nearby 1").created
    assert env.reads == ["snapshot"]


def test_naming_the_bot_binds_the_task_to_it_and_any_case_of_its_name_will_do(env):
    decision = env.submit(text="collect oak_log 3", bot="alpha")
    assert env.store.get_task(decision.task_id).metadata.bot == BOT


def test_another_bot_named_is_refused_before_any_read(env):
    with pytest.raises(GoalRequestError, match="unknown bot 'Bravo'"):
        env.submit(text="collect oak_log 3", bot="Bravo")
    assert env.reads == [] and env.tasks() == []


def test_no_bot_attached_or_connected_is_unavailable_and_nothing_is_stored(env):
    env.body.connected = False
    with pytest.raises(BodyUnavailable, match="not connected; the goal was not stored"):
        env.submit(text="collect oak_log 3")
    env.body = None
    with pytest.raises(BodyUnavailable):
        env.submit(text="collect oak_log 3")
    assert env.tasks() == [] and env.seen.get() is None


def test_the_bot_gone_in_the_middle_of_the_reads_is_unavailable_and_nothing_is_stored(env):
    def lost(origin, size):
        assert (origin, size) == sight_box(env.body.snapshot())
        raise BodyLost("bot 1 has disconnected (kicked)")

    env.body.region = lost
    with pytest.raises(BodyUnavailable, match=r"went away while checking the goal \(bot 1 has disconnected"):
        env.submit(text="collect oak_log 3")
    assert env.tasks() == [] and env.seen.get() is None


def test_a_goal_no_agent_carries_out_or_the_frame_does_not_ground_is_refused_and_not_stored(env):
    assert env.submit(text="craft wooden_pickaxe 1").verdict == "not_routable"
    assert env.submit(text="collect diamond 3").verdict == "not_grounded"
    assert env.tasks() == []


def test_what_a_teammate_holds_counts_for_an_obtain(env):
    """A cake needs an egg and wheat, which no plan gets yet: refused for a bot alone, taken
    when the fleet's bots hold them (the plan asks them for them: agency.planning.delivery)."""
    env.intake.is_routable = lambda goal: True
    refused = env.submit(text="obtain cake 1")
    assert not refused.created and "egg" in refused.reason and env.tasks() == []
    env.intake.team_held = lambda: {"egg": 1, "wheat": 3}
    taken = env.submit(text="obtain cake 1")
    assert taken.created, taken.reason
    assert env.store.get_task(taken.task_id).metadata.goalKey == "craft:cake"
