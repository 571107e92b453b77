"""PriorityScorer: Task.urgency from vitals, time of day and goal state, written once per
evaluation cycle; the dusk urgency spike of a held shelter goal; the claim that follows.
Frozen clock, the real SQLite store."""

from __future__ import annotations

import pytest

from agency.goals import BUILD_SHELTER, ActivationReactor, VerificationResult, dump_binding, new_binding
from agency.goals.priority import NIGHT_MS, PriorityScorer
from agency.planning.tasks.models import NewTask, TaskStatus
from agency.world import WorldSnapshot

from .conftest import completed_shelter

NOON, DUSK, MIDNIGHT = 6000, 11_500, 18_000


def snap(time_of_day=NOON, health=20, food=20):
    return WorldSnapshot(
        health=health,
        food=food,
        gameMode="survival",
        dimension="overworld",
        timeOfDay=time_of_day,
        isDay=time_of_day < 13_000,
        position={"x": 0, "y": 64, "z": 0},
        hostiles=0,
        ts=0,
    )


def plain(store, clock, action="collect", target="oak_log", priority=0.5):
    t = store.add_task(
        NewTask(title=f"{action} {target}", type=action, priority=priority, parameters={"target": target})
    )
    clock.advance(1000)
    return t.id


def shelter(store, clock, n=0):
    b = new_binding(BUILD_SHELTER, {"n": n}, (n * 300.0, 64, 0), verifier="verify_shelter_v0", goal_id=f"g{n}")
    t = store.add_task(
        NewTask(
            title="build basic_shelter",
            type="build",
            parameters={"target": "basic_shelter"},
            metadata={"goalBinding": dump_binding(b)},
        )
    )
    clock.advance(1000)
    return t.id


@pytest.fixture
def scorer(store, clock):
    return PriorityScorer(store, clock, foods=("bread", "apple"))


def urgency(store, task_id):
    return store.get_task(task_id).urgency


def test_a_calm_noon_ranks_by_priority_alone_and_a_default_task_stays_at_half(store, clock, scorer):
    low, default, high = (plain(store, clock, priority=p) for p in (0.0, 0.5, 1.0))
    goal = shelter(store, clock)
    scorer.evaluate(snap(NOON), shelter_nearby=False)
    assert urgency(store, default) == urgency(store, goal) == 0.5
    assert urgency(store, low) < 0.5 < urgency(store, high)


def test_from_dusk_with_no_verified_shelter_the_shelter_goal_is_claimed_before_older_work(store, clock, scorer):
    older = plain(store, clock)
    goal = shelter(store, clock)
    scorer.evaluate(snap(NOON), shelter_nearby=False)
    assert store.claim_next().id == older  # equal urgency: the older first
    store.set_status(older, TaskStatus.pending)
    scorer.evaluate(snap(DUSK), shelter_nearby=False)
    assert urgency(store, goal) > urgency(store, older)
    assert store.claim_next().id == goal
    store.set_status(goal, TaskStatus.pending)
    scorer.evaluate(snap(MIDNIGHT), shelter_nearby=True)  # a verified shelter within reach: no hurry
    assert urgency(store, goal) == urgency(store, older)


def test_the_dusk_spike_raises_a_held_shelter_goal_above_other_shelter_goals_for_one_night(
    store, clock, scorer, lifecycle, events
):
    spiked, other = shelter(store, clock, 0), shelter(store, clock, 1)
    for task_id in (spiked, other):
        store.set_status(task_id, TaskStatus.active)
    lifecycle.hold(spiked, "materials_missing")
    reactor = ActivationReactor(lifecycle)
    assert reactor.dusk_approaching(verified_shelter_nearby=False) == [spiked]
    assert [e["taskId"] for e in events if e["event"] == "goal_urgency_spike"] == [spiked]
    scorer.evaluate(snap(DUSK), shelter_nearby=False)
    assert urgency(store, spiked) > urgency(store, other) > 0.5
    clock.advance(NIGHT_MS)  # the next night: yesterday's spike is over
    scorer.evaluate(snap(DUSK), shelter_nearby=False)
    assert urgency(store, spiked) == urgency(store, other)


def test_no_spike_when_a_verified_shelter_exists(store, clock, scorer, lifecycle, events):
    goal = shelter(store, clock)
    store.set_status(goal, TaskStatus.active)
    lifecycle.hold(goal, "materials_missing")
    ActivationReactor(lifecycle).dusk_approaching(verified_shelter_nearby=True)
    assert not [e for e in events if e["event"] == "goal_urgency_spike"]
    scorer.evaluate(snap(DUSK), shelter_nearby=True)
    assert urgency(store, goal) == 0.5


def test_hunger_raises_tasks_that_bring_food_and_injury_raises_the_shelter(store, clock, scorer):
    wood, bread, goal = plain(store, clock), plain(store, clock, "collect", "bread"), shelter(store, clock)
    eat = plain(store, clock, "eat", "anything")
    scorer.evaluate(snap(NOON, food=20, health=20), shelter_nearby=True)
    assert {urgency(store, t) for t in (wood, bread, goal, eat)} == {0.5}
    scorer.evaluate(snap(NOON, food=8), shelter_nearby=True)
    hungry = {t: urgency(store, t) for t in (wood, bread, goal, eat)}
    assert hungry[bread] == hungry[eat] > hungry[wood] == hungry[goal] == 0.5
    scorer.evaluate(snap(NOON, food=2), shelter_nearby=True)
    assert urgency(store, bread) > hungry[bread]  # hungrier, more urgent
    scorer.evaluate(snap(NOON, health=4), shelter_nearby=True)
    assert urgency(store, goal) > urgency(store, wood) == 0.5


def test_a_reopened_shelter_is_repaired_before_new_work(store, index, lifecycle, world, clock, scorer):
    done = completed_shelter(store, index, lifecycle, world)
    reopened = lifecycle.record_verification(done.id, VerificationResult(done=False, blockers=["enclosure"]))
    assert reopened.status is TaskStatus.active
    fresh = plain(store, clock)
    scorer.evaluate(snap(NOON), shelter_nearby=False)
    assert urgency(store, done.id) > urgency(store, fresh)


def test_urgency_is_written_only_when_it_changes_and_never_on_finished_tasks(store, clock, scorer):
    live, done = plain(store, clock, priority=0.9), plain(store, clock, priority=0.9)
    store.set_status(done, TaskStatus.completed)
    before = store.get_task(live).metadata.updatedAt
    assert scorer.evaluate(snap(NOON), shelter_nearby=None) == {live: pytest.approx(0.7)}
    assert scorer.evaluate(snap(NOON), shelter_nearby=None) == {}  # nothing changed: nothing written
    assert store.get_task(live).metadata.updatedAt == before  # a ranking, not a change to the task
    assert urgency(store, done) == 0.5


def test_no_snapshot_yet_scores_from_priority_and_goal_state(store, clock, scorer):
    goal = shelter(store, clock)
    high = plain(store, clock, priority=0.9)
    scorer.evaluate(None, shelter_nearby=None)
    assert urgency(store, high) > urgency(store, goal) == 0.5


def test_an_evaluation_with_no_score_moved_opens_no_write_transaction(store, clock, scorer, monkeypatch):
    plain(store, clock, priority=0.9)
    scorer.evaluate(snap(NOON), shelter_nearby=None)  # the first ranking is written
    writes = []
    monkeypatch.setattr(store, "set_urgencies", lambda u: writes.append(dict(u)) or list(u))
    scorer.evaluate(snap(NOON), shelter_nearby=None)  # every executor tick: the same scores
    assert writes == []
