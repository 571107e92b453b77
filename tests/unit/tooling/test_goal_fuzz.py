"""The goal fuzz's pure half (bot/tooling/goal_fuzz.py): rounds drawn from a seed replay
exactly and cover every canonical action; the judgement of a round; the health and progress
clocks with injected sample times."""

from __future__ import annotations

from agency.goal_tag import CANONICAL_ACTIONS
from bot.tooling.daemon_run import role_of
from bot.tooling.goal_fuzz import (
    ALL_GOALS,
    FIRST_REPORTED,
    GOALS,
    GoalResult,
    Limits,
    Progress,
    Round,
    RoundResult,
    Unhealthy,
    goal_outcome,
    plan_rounds,
    table,
)


def test_every_canonical_action_has_goals_that_start_with_it():
    assert set(GOALS) == set(CANONICAL_ACTIONS)
    for action, goals in GOALS.items():
        assert goals and all(g.split()[0] == action for g in goals), action


def test_rounds_replay_from_their_seed_and_differ_between_seeds():
    assert plan_rounds(7, 12) == plan_rounds(7, 12)
    assert plan_rounds(7, 12) != plan_rounds(8, 12)


def test_every_goal_is_given_once_before_any_is_given_twice():
    rounds = plan_rounds(3, 40, pair_share=0.0)
    first = [rd.goals[0] for rd in rounds[: len(ALL_GOALS)]]
    assert sorted(first) == sorted(ALL_GOALS)


def test_pairs_and_worlds_are_drawn():
    rounds = plan_rounds(11, 30)
    assert {len(rd.goals) for rd in rounds} == {1, 2}
    assert {rd.hostiles for rd in rounds} == {True, False}
    assert {rd.short_days for rd in rounds} == {True, False}
    assert len({rd.world_seed for rd in rounds}) == len(rounds)


def test_included_goals_come_first_one_round_each():
    rounds = plan_rounds(35, 3, include=(FIRST_REPORTED,))
    assert rounds[0].goals == (FIRST_REPORTED,)
    assert [rd.index for rd in rounds] == [1, 2, 3]


def _result(*goals: GoalResult, **kw) -> RoundResult:
    r = RoundResult(Round(1, 5, False, False, tuple(g.goal for g in goals)), list(goals), stop_s=2.0)
    for k, v in kw.items():
        setattr(r, k, v)
    return r


def test_a_round_that_ended_every_goal_cleanly_passes():
    r = _result(
        GoalResult("craft stick 4", "completed"),
        GoalResult("sleep bed", "refused", 422, reason="422 no bed"),
        GoalResult("smelt stone 1", "failed", reason="no furnace"),
        peak_mb={"bridge": 300.0},
    )
    assert r.findings(Limits()) == []
    assert "PASS" in table([r], Limits())


def test_each_finding_is_named():
    limits = Limits()
    r = _result(
        GoalResult("craft stone_pickaxe 1", "stuck", reason="still running"),
        GoalResult("collect stone 3", "failed"),
        peak_mb={"bridge": 1500.0},
        longest_unhealthy_s=40.0,
        active_without_run=["task-1"],
        stop_s=23.8,
    )
    found = " | ".join(r.findings(limits))
    assert "craft stone_pickaxe 1: stuck" in found
    assert "collect stone 3: failed without a reason" in found
    assert "bridge node peaked at 1500 MB" in found
    assert "out of health for 40.0 s" in found
    assert "active with no run: task-1" in found
    assert "stop took 23.8 s" in found
    assert "FAIL" in table([r], limits)


def test_a_stop_that_had_to_be_killed_is_a_finding():
    assert any(
        "stop took too long" in f for f in _result(GoalResult("eat bread", "completed"), stop_s=None).findings(Limits())
    )


def test_goal_outcome_reads_the_task():
    assert goal_outcome(None) is None
    assert goal_outcome({"status": "active"}) is None
    assert goal_outcome({"status": "completed"}) == ("completed", "")
    failed = {"status": "failed", "metadata": {"solver": {"failureReason": "poison: twice"}}}
    assert goal_outcome(failed) == ("failed", "poison: twice")
    assert goal_outcome({"status": "unplannable"}) == ("unplannable", "unplannable")


def test_unhealthy_keeps_the_longest_stretch():
    u = Unhealthy()
    for t, ok in [(0, True), (1, False), (2, False), (5, False), (6, True), (7, False), (8, True)]:
        u.sample(t, ok)
    assert u.longest == 4


def test_progress_is_idle_since_the_last_change():
    p = Progress()
    p.sample(0, {"id": "t", "status": "active", "progress": 0.1})
    p.sample(10, {"id": "t", "status": "active", "progress": 0.1})
    assert p.idle_s("t", 30) == 30
    p.sample(40, {"id": "t", "status": "active", "progress": 0.4})
    assert p.idle_s("t", 50) == 10
    assert p.idle_s("unseen", 50) == 50


def test_process_roles_by_command_line():
    assert role_of(["node", "/x/site-packages/javascript/js/bridge.js"]) == "bridge"
    assert role_of(["/usr/bin/node", "/work/node/server.js", "--port", "1"]) == "world"
    assert role_of(["python", "-m", "bot", "run"]) is None


def test_an_active_task_progresses_while_the_world_moves_though_its_fields_do_not():
    p = Progress()
    task = {"id": "t", "status": "active", "progress": 0.1}
    p.sample(0, task, ((0, 64, 0), ()))
    p.sample(50, task, ((0, 64, 0), (("oak_log", 3),)))  # a gather inside one delegated step
    assert p.idle_s("t", 60) == 10
    p.sample(70, task, ((0, 64, 0), (("oak_log", 3),)))
    assert p.idle_s("t", 80) == 30
