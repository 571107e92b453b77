"""The fleet soak's judging (bot/tooling/soak_fleet_verdict.py) on made-up samples: duplicates caught
(same goal and binding, same goalBinding key, a paused twin), not caught where they are not
duplicates (bound to different bots, open beside bound, finished or unplannable twins), a bot
dead or mostly disconnected caught, a bot that held no completed task caught; the per-bot
figures and the printed table. Nothing is started."""

from __future__ import annotations

import tomllib

import pytest

from bot.config.loader import McbotConfig
from bot.tooling.soak_fleet import bot_names, compact_bot, compact_task, config_text, parse
from bot.tooling.soak_fleet_verdict import (
    duplicates,
    evaluate,
    judge_alive,
    judge_duplicates,
    judge_worked,
    per_bot,
    verdict_lines,
)

NAMES = ["fleet01", "fleet02", "fleet03"]


def task(i, status="active", key="collect:oak_log", bot=None, held=None, binding=None):
    return {
        "id": f"t{i}",
        "status": status,
        "progress": 0,
        "goalKey": key,
        "bot": bot,
        "heldBy": held,
        "bindingKey": binding,
        "createdAt": 0,
    }


def bot(name, connected=True, health=20, pos=(0.0, 64.0, 0.0)):
    return {
        "name": name,
        "connected": connected,
        "health": health,
        "food": 20,
        "position": dict(zip("xyz", pos, strict=True)) if pos else None,
        "runningTaskId": None,
    }


def sample(t, tasks=(), bots=None):
    return {"t": t, "tasks": list(tasks), "bots": [bot(n) for n in NAMES] if bots is None else bots, "deaths": []}


# -- duplicates ---------------------------------------------------------------------------------


def test_the_same_goal_bound_to_the_same_bot_twice_is_a_duplicate():
    s = sample(5.0, [task(1, bot="fleet01"), task(2, "pending", bot="fleet01")])
    found = duplicates(s)
    assert [(d["kind"], d["key"], d["bot"]) for d in found] == [("goalKey", "collect:oak_log", "fleet01")]
    verdict = judge_duplicates([sample(0.0), s])
    assert verdict["pass"] is False and "collect:oak_log@fleet01" in verdict["detail"]


def test_the_same_goal_bound_to_different_bots_is_not_a_duplicate():
    s = sample(5.0, [task(1, bot="fleet01"), task(2, bot="fleet02"), task(3, bot="fleet03")])
    assert duplicates(s) == []
    assert judge_duplicates([s])["pass"] is True


def test_an_open_task_is_a_binding_of_its_own_but_two_open_ones_clash():
    assert duplicates(sample(0, [task(1), task(2, bot="fleet01")])) == []
    assert [d["bot"] for d in duplicates(sample(0, [task(1), task(2, "paused")]))] == [None]


def test_a_paused_twin_counts_a_finished_or_unplannable_one_does_not():
    assert duplicates(sample(0, [task(1, bot="fleet02"), task(2, "paused", bot="fleet02")]))
    assert duplicates(sample(0, [task(1, bot="fleet02"), task(2, "completed", bot="fleet02")])) == []
    twin = sample(0, [task(1, bot="fleet02"), task(2, "unplannable", bot="fleet02")])
    assert duplicates(twin) == []
    report = evaluate([twin], NAMES, {})
    assert report["sameGoalAsUnplannable"] == ["collect:oak_log"]  # shown, not judged
    assert report["criteria"][0]["pass"] is True


def test_two_live_goal_bound_tasks_with_one_binding_key_clash_whatever_their_bots():
    s = sample(
        0,
        [
            task(1, key="build:shelter", bot="fleet01", binding="build_shelter:A:abc"),
            task(2, key="build:shelter", bot="fleet02", binding="build_shelter:A:abc"),
        ],
    )
    found = duplicates(s)
    assert [(d["kind"], d["key"]) for d in found] == [("goalBinding", "build_shelter:A:abc")]
    assert "binding build_shelter:A:abc" in judge_duplicates([s])["detail"]


def test_no_task_page_read_is_not_a_pass():
    s = sample(0)
    s["tasks"] = None
    assert judge_duplicates([s])["pass"] is False


# -- alive --------------------------------------------------------------------------------------


def test_every_bot_connected_and_healthy_is_alive():
    v = judge_alive([sample(t) for t in range(10)], NAMES)
    assert v["pass"] is True and "fleet03 connected 100%" in v["detail"]


def test_a_bot_dead_at_the_end_is_caught():
    samples = [sample(t) for t in range(9)]
    samples.append(sample(9, bots=[bot("fleet01"), bot("fleet02", health=0), bot("fleet03")]))
    v = judge_alive(samples, NAMES)
    assert v["pass"] is False and "FAILED: fleet02" in v["detail"]


def test_a_bot_disconnected_at_the_end_or_missing_is_caught():
    last = sample(9, bots=[bot("fleet01"), bot("fleet02"), bot("fleet03", connected=False)])
    assert "FAILED: fleet03" in judge_alive([sample(0), last], NAMES)["detail"]
    gone = sample(9, bots=[bot("fleet01"), bot("fleet02")])
    assert "FAILED: fleet03" in judge_alive([sample(0), gone], NAMES)["detail"]


def test_connected_in_less_than_90_percent_of_samples_fails_even_if_alive_at_the_end():
    down = [bot("fleet01", connected=False), bot("fleet02"), bot("fleet03")]
    samples = [sample(t, bots=down if t < 2 else None) for t in range(10)]  # 80 % for fleet01
    v = judge_alive(samples, NAMES)
    assert v["pass"] is False and "fleet01 connected 80%" in v["detail"] and "FAILED: fleet01" in v["detail"]
    samples = [sample(t, bots=down if t < 1 else None) for t in range(10)]  # 90 %
    assert judge_alive(samples, NAMES)["pass"] is True


def test_a_sample_the_api_did_not_answer_is_counted_apart_not_as_a_disconnection():
    blank = {"t": 0, "tasks": None, "bots": None}
    v = judge_alive([blank, blank] + [sample(t) for t in range(2, 10)], NAMES)
    assert v["pass"] is True and "API unanswered in 2 of 10 samples" in v["detail"]
    assert judge_alive([sample(0), blank], NAMES)["pass"] is False  # no answer at the end: not known alive
    most = judge_alive([sample(0)] + [blank] * 3, NAMES)
    assert most["pass"] is False and "answered 1 of 4" in most["detail"]


# -- worked and per bot -------------------------------------------------------------------------


def test_a_bot_that_held_no_completed_task_is_caught():
    completed = {
        "fleet01": [task(1, "completed", held="fleet01")],
        "fleet02": [task(2, "completed", bot="fleet02", held="fleet01")],  # bound to 02, done by 01
        "fleet03": [task(3, "completed", held="fleet03")],
    }
    v = judge_worked(completed)
    assert v["pass"] is False and "none by fleet02" in v["detail"]
    completed["fleet02"].append(task(4, "completed", held="fleet02"))
    assert judge_worked(completed)["pass"] is True


def test_a_bot_that_finished_no_task_but_gathered_items_worked_and_one_with_nothing_did_not():
    completed = {"fleet01": [task(1, "completed", held="fleet01")], "fleet02": [], "fleet03": []}
    v = judge_worked(completed, {"fleet01": 4, "fleet02": 5, "fleet03": 0})
    assert v["pass"] is False and "items gathered: fleet02 5" in v["detail"] and "none by fleet03" in v["detail"]
    assert judge_worked(completed, {"fleet02": 5, "fleet03": None})["pass"] is False  # fleet03 not read
    assert judge_worked(completed, {"fleet02": 5, "fleet03": 1})["pass"] is True


def test_per_bot_counts_held_tasks_deaths_seen_and_logged_and_the_final_position():
    samples = [
        sample(0, bots=[bot("fleet01", pos=(1, 64, 1))]),
        sample(5, bots=[bot("fleet01", health=0, pos=(2, 64, 2))]),
        sample(10, bots=[bot("fleet01", health=0, pos=None)]),  # still dead: one death
        sample(15, bots=[bot("fleet01", health=20, pos=(0, 70, 0))]),
        sample(20, bots=[bot("fleet01", health=0, pos=(5, 60, 5))]),
    ]
    finished = {
        "fleet01": [
            task(1, "completed", held="fleet01"),
            task(2, "failed", held="fleet01"),
            task(3, "completed", bot="fleet01", held="fleet02"),
        ]
    }
    logged = [{"cause": "zombie", "bot": "fleet01"}, {"cause": "fall", "bot": "fleet02"}, {"cause": "fall"}]
    b = per_bot(samples, ["fleet01"], finished, logged)["fleet01"]
    assert (b["completed"], b["failed"], b["deathsSeen"], b["deathsLogged"]) == (1, 1, 2, 1)
    assert b["finalPosition"] == {"x": 5, "y": 60, "z": 5} and b["finalHealth"] == 0


def test_evaluate_passes_a_clean_run_and_the_table_names_every_bot():
    samples = [sample(t, [task(t * 10 + i, bot=n) for i, n in enumerate(NAMES)]) for t in range(5)]
    finished = {n: [task(100 + i, "completed", bot=n, held=n)] for i, n in enumerate(NAMES)}
    report = evaluate(samples, NAMES, finished)
    assert report["pass"] is True and [c["id"] for c in report["criteria"]] == ["no-duplicate", "alive", "worked"]
    lines = verdict_lines(report)
    assert lines[-1] == "PASS overall" and sum(line.startswith("fleet0") for line in lines) == 3


def test_evaluate_fails_when_one_criterion_fails():
    samples = [sample(0, [task(1, bot="fleet01"), task(2, bot="fleet01")])]
    finished = {n: [task(9, "completed", held=n)] for n in NAMES}
    report = evaluate(samples, NAMES, finished)
    assert report["pass"] is False and verdict_lines(report)[0].startswith("FAIL no-duplicate")


# -- reading the API and the command line --------------------------------------------------------


def test_compact_task_and_bot_read_the_api_shapes():
    t = compact_task(
        {
            "id": "x",
            "status": "paused",
            "progress": 0.5,
            "metadata": {
                "goalKey": "build:shelter",
                "bot": "fleet02",
                "heldBy": "fleet02",
                "goalBinding": {"goalKey": "build_shelter:B:123"},
                "createdAt": 7,
            },
        }
    )
    assert (t["goalKey"], t["bot"], t["heldBy"], t["bindingKey"]) == (
        "build:shelter",
        "fleet02",
        "fleet02",
        "build_shelter:B:123",
    )
    assert compact_task({"id": "y", "status": "pending", "metadata": {}})["bot"] is None
    b = compact_bot(
        {"name": "fleet01", "connected": True, "health": 12.666666984558105, "position": {"x": 1.234, "y": 64, "z": -2}}
    )
    assert b["position"] == {"x": 1.2, "y": 64, "z": -2} and b["health"] == 12.7
    assert compact_bot({"name": "fleet02", "connected": False, "position": None})["position"] is None


def test_the_config_is_a_fleet_the_daemon_accepts():
    cfg = McbotConfig.model_validate(tomllib.loads(config_text(bot_names(3))))
    assert [b.username for b in cfg.bots] == NAMES and all(b.drives for b in cfg.bots)


def test_command_line():
    args = parse(["3", "--fast", "--bots", "4"])
    assert (args.minutes, args.fast, args.bots, args.out) == (3.0, True, 4, "soak-results")
    with pytest.raises(SystemExit):
        parse(["3", "--bots", "0"])
    with pytest.raises(SystemExit):
        parse(["0"])


def test_a_twin_of_a_task_stuck_past_the_stuck_timeout_is_its_recovery_not_a_duplicate():
    old = {**task(1, "pending", bot="fleet03"), "createdAt": 1_000, "progress": 0}
    new = {**task(2, "pending", bot="fleet03"), "createdAt": 71_000, "progress": 0}
    s = {**sample(5.0, [old, new]), "at": 72_000}
    assert duplicates(s, stuck_ms=60_000) == []  # the first has waited 71 s with nothing done
    assert len(duplicates(s, stuck_ms=120_000)) == 1  # not stuck yet: a duplicate
    moving = {**old, "progress": 0.2}
    assert len(duplicates({**s, "tasks": [moving, new]}, stuck_ms=60_000)) == 1  # progress: never stuck
    assert judge_duplicates([s], 60_000)["pass"] is True and judge_duplicates([s], 120_000)["pass"] is False
