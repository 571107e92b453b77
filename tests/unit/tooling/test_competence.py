"""Competence judged from sample series (bot/tooling/competence.py): each criterion PASSES a
run that meets it, FAILS one that does not, and says NOT JUDGED when the run could not show
it; the milestones and game days come from inventories and the world clock; the soak's flags
refuse bad thresholds with a clear message."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from loguru import logger

from agency.execution.reflexes import Reflexes
from agency.tools import ToolContext
from agency.tools.testing import FakeBody, FakeTime
from agency.world import BodyEvent, EventType
from bot.tooling.competence import (
    FAIL,
    GAME_S_PER_DAY,
    MILESTONES,
    NOT_JUDGED,
    PASS,
    CompetenceLimits,
    deaths_in,
    evaluate_competence,
    game_seconds,
    milestones,
    tick_rate,
    wedges,
)
from bot.tooling.daemon_run import LogTail
from bot.tooling.soak_report import add_competence, competence_lines
from bot.tooling.soak_settings import daemon_env, parse, wedge_s

TICKS_PER_SAMPLE = 1000  # a fast soak: 5 s samples, the clock 10x faster (200 ticks/s)
LIMITS = CompetenceLimits(min_task_success=0.8, milestone_game_days=2.0, wedge_s=120.0)


def _task(i, status, progress=0.0):
    return {"id": i, "status": status, "progress": progress, "source": "drive-tick", "goalKey": f"k:{i}"}


def run(n=36, *, tod0=1000, moving=True, tasks=(), inventory_at=None, deaths_read=True):
    """n samples 5 s apart; the clock advances TICKS_PER_SAMPLE each; the bot walks one block
    per sample (moving) with one active task whose progress grows; inventory_at: sample index
    -> items added from then on."""
    out, inv = [], {}
    for k in range(n):
        inv = {**inv, **((inventory_at or {}).get(k, {}))}
        active = _task("act", "active", progress=round(k / n, 3) if moving else 0.5)
        out.append(
            {
                "t": 5.0 * k,
                "ok": True,
                "health": 20,
                "gameMode": "survival",
                "timeOfDay": (tod0 + k * TICKS_PER_SAMPLE) % 24_000,
                "isDay": True,
                "position": {"x": float(k if moving else 0), "y": 64.0, "z": 0.0},
                "inventory": dict(inv),
                "tasks": copy.deepcopy([active, *tasks]),
                "stalled": [],
                "counters": {},
                "deathsRead": deaths_read,
                "deaths": [],
            }
        )
    return out


def by_id(block):
    return {c["id"]: c for c in block["criteria"]}


def judge(samples, limits=LIMITS, **kw):
    return by_id(evaluate_competence(samples, limits, **kw))


def finished(done, failed):
    return [_task(f"c{i}", "completed", 1.0) for i in range(done)] + [_task(f"f{i}", "failed") for i in range(failed)]


# -- game time and milestones -------------------------------------------------------------------


def _clock(*readings):
    return [{"t": t, "timeOfDay": tod} for t, tod in readings]


def test_game_seconds_count_day_wraps_and_a_night_slept_through():
    # a fast world (200 ticks/s), sampled every 5 s: 23000 -> 1000 wraps (2000 ticks)
    samples = _clock((0, 22_000), (5, 23_000), (10, 0), (15, 1_000), (20, 2_000))
    samples.insert(2, {"t": 7})  # no clock read: carries the last value
    assert game_seconds([{"t": -5}, *samples]) == [None, 0.0, 50.0, 50.0, 100.0, 150.0, 200.0]
    # in bed at 13000, woken at 0: the night counts (11000 ticks), then the clock runs on
    slept = _clock((0, 12_000), (5, 13_000), (10, 0), (15, 1_000), (20, 2_000))
    assert game_seconds(slept)[-1] == (1_000 + 11_000 + 2_000) / 20


def test_a_clock_set_back_by_a_restarted_world_counts_the_time_that_passed():
    # the chaos soak's world restart: 5800 -> 200 in 11 s, then 12400 -> 400 in 14.5 s (at dusk:
    # no bed can be used yet, so no night was slept through)
    samples = _clock(
        (0, 4_800),
        (5, 5_800),
        (16, 200),
        (21, 1_200),
        (26, 2_200),
        (76, 12_200),
        (77, 12_400),
        (91.5, 400),
        (96.5, 1_400),
    )
    g = game_seconds(samples)
    assert tick_rate(samples) == 200
    assert g[2] - g[1] == 11 * 200 / 20  # not the 18400 ticks "forward" the clock moved
    assert g[7] - g[6] == 14.5 * 200 / 20  # not 12000: the run's time says 2900 ticks passed
    assert g[-1] == pytest.approx(96.5 * 200 / 20)


def test_a_fast_three_minute_soak_is_about_one_and_a_half_game_days():
    block = evaluate_competence(run(36), LIMITS)
    assert block["gameDays"] == pytest.approx(35 * TICKS_PER_SAMPLE / 24_000, abs=1e-3)  # 1.458


def test_milestones_are_reached_the_first_time_the_item_is_held_in_any_version_s_name():
    samples = run(
        10,
        inventory_at={
            2: {"birch_log": 3},
            3: {"oak_planks": 4, "crafting_table": 1},
            5: {"raw_iron": 1},
            7: {"red_bed": 1},
        },
    )
    samples[4]["inventory"] = {}  # a death dropped everything: reached stays reached
    got = milestones(samples)
    assert list(got) == list(MILESTONES)
    per = TICKS_PER_SAMPLE / 20
    assert got["log"] == 2 * per and got["planks"] == got["crafting_table"] == 3 * per
    assert got["iron_ore"] == 5 * per and got["bed"] == 7 * per
    assert got["wooden_pickaxe"] is None and got["verified_shelter"] is None and got["iron_ingot"] is None


def test_a_verified_shelter_is_a_milestone_an_unverified_one_is_not():
    def shelter(passes, done):
        t = _task("s", "completed", 1.0)
        t.update(
            goalKey="build:basic_shelter@1",
            goal={"goalType": "build_shelter", "consecutivePasses": passes, "done": done},
        )
        return t

    samples = run(6)
    samples[2]["tasks"].append(shelter(1, True))
    assert milestones(samples)["verified_shelter"] is None
    samples[4]["tasks"].append(shelter(2, True))
    assert milestones(samples)["verified_shelter"] == 4 * TICKS_PER_SAMPLE / 20


def test_items_seen_before_the_world_clock_count_from_the_start():
    samples = run(3, inventory_at={0: {"oak_log": 1}})
    samples[0]["timeOfDay"] = None
    assert milestones(samples)["log"] == 0.0


# -- K1 task success rate -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("done", "failed", "limit", "verdict"),
    [
        (5, 1, 0.8, PASS),  # 83 %
        (4, 1, 0.8, PASS),  # exactly 80 %
        (3, 3, 0.8, FAIL),  # 50 %
        (3, 3, 0.5, PASS),  # the threshold is the caller's
        (8, 2, 0.9, FAIL),
        (3, 1, 0.8, NOT_JUDGED),  # 4 finished: too few to judge
        (0, 0, 0.8, NOT_JUDGED),
    ],
)
def test_k1_task_success_rate(done, failed, limit, verdict):
    samples = run(6, tasks=finished(done, failed))
    block = evaluate_competence(samples, CompetenceLimits(min_task_success=limit, wedge_s=120.0))
    k1 = by_id(block)["K1"]
    assert k1["verdict"] == verdict, k1
    assert block["task_success_rate"] == (round(done / (done + failed), 4) if done + failed else None)


def test_k1_reads_each_task_s_latest_view_and_reports_the_counts():
    samples = run(6, tasks=finished(4, 2))
    for s in samples[3:]:  # the two failed ones were retried and completed under the same id
        s["tasks"] = [{**t, "status": "completed"} if t["id"].startswith("f") else t for t in s["tasks"]]
    k1 = judge(samples)["K1"]
    assert k1["verdict"] == PASS and k1["detail"].startswith("6 completed, 0 failed (100 %)")


def test_k1_leaves_out_a_task_its_goal_s_retry_superseded():
    samples = run(6, tasks=finished(5, 2))
    for s in samples:  # one failure is a stuck pending task closed when its goal was retried
        s["tasks"] = [
            {**t, "blockedReason": "superseded by task-9: pending 300 s with no progress"} if t["id"] == "f0" else t
            for t in s["tasks"]
        ]
    k1 = judge(samples)["K1"]
    assert k1["detail"] == "5 completed, 1 failed (83 %); 1 superseded by a retry not counted", k1


# -- K2 a new milestone every N game days -----------------------------------------------------------

DAY = round(24_000 / TICKS_PER_SAMPLE)  # samples per game day: 24


def test_k2_passes_a_run_past_the_window_with_milestones_coming_in_time():
    samples = run(3 * DAY, inventory_at={DAY: {"oak_log": 1}, 2 * DAY: {"oak_planks": 1}})  # ~3 game days
    k2 = judge(samples)["K2"]
    assert k2["verdict"] == PASS, k2
    assert f"2/{len(MILESTONES)} reached" in k2["detail"]


def test_k2_fails_when_no_milestone_came_for_the_window_at_the_end():
    samples = run(3 * DAY, inventory_at={5: {"oak_log": 1}})
    k2 = judge(samples)["K2"]
    assert k2["verdict"] == FAIL and "after log" in k2["detail"], k2


def test_k2_fails_on_a_gap_in_the_middle_even_if_progress_resumed():
    samples = run(
        4 * DAY, inventory_at={2: {"oak_log": 1}, 2 + 2 * DAY + 1: {"oak_planks": 1}, 3 * DAY: {"crafting_table": 1}}
    )
    k2 = judge(samples)["K2"]
    assert k2["verdict"] == FAIL and "next: planks" in k2["detail"], k2


def test_k2_window_is_the_caller_s():
    samples = run(3 * DAY, inventory_at={5: {"oak_log": 1}})
    assert judge(samples, CompetenceLimits(milestone_game_days=3.5, wedge_s=120.0))["K2"]["verdict"] == NOT_JUDGED
    assert judge(samples, CompetenceLimits(milestone_game_days=1.0, wedge_s=120.0))["K2"]["verdict"] == FAIL


def test_k2_is_not_judged_in_a_run_shorter_than_the_window_even_with_no_milestone():
    k2 = judge(run(36))["K2"]  # a 3-minute fast soak: 1.46 game days
    assert k2["verdict"] == NOT_JUDGED and "shorter than the 2-day window" in k2["detail"], k2


def test_k2_passes_once_the_whole_tree_is_reached():
    every = {
        "oak_log": 1,
        "oak_planks": 1,
        "crafting_table": 1,
        "wooden_pickaxe": 1,
        "cobblestone": 1,
        "stone_pickaxe": 1,
        "furnace": 1,
        "coal": 1,
        "raw_iron": 1,
        "iron_ingot": 1,
        "iron_pickaxe": 1,
        "white_bed": 1,
        "diamond": 1,
        "diamond_pickaxe": 1,
    }
    samples = run(3 * DAY, inventory_at={3: every})
    samples[4]["tasks"].append(
        {
            **_task("s", "completed", 1.0),
            "goalKey": "build:basic_shelter",
            "goal": {"goalType": "build_shelter", "consecutivePasses": 2, "done": True},
        }
    )
    k2 = judge(samples)["K2"]
    assert k2["verdict"] == PASS and f"{len(MILESTONES)}/{len(MILESTONES)}" in k2["detail"], k2


def test_k2_is_not_judged_without_a_world_clock():
    samples = run(3 * DAY)
    for s in samples:
        s["timeOfDay"] = None
    assert judge(samples)["K2"] == {
        "id": "K2",
        "name": "a new milestone every 2 game days",
        "verdict": NOT_JUDGED,
        "pass": None,
        "detail": "the world clock was never read",
    }


# -- K3 deaths explained ----------------------------------------------------------------------------


def test_the_daemon_s_death_record_is_the_line_the_soak_parses():
    lines = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="WARNING")
    try:
        reflexes = Reflexes(None, ToolContext(body=FakeBody(FakeTime().clock)), None, clock=lambda: 0)
        reflexes.record_events(
            [
                BodyEvent(type=EventType.death, ts=0, data={"cause": "zombie"}),
                BodyEvent(type=EventType.death, ts=1, data={}),
            ]
        )
    finally:
        logger.remove(sink)
    assert deaths_in([f"12:00:21.522 | WARNING | {m}" for m in lines] + ["[Reflex] fight -> ok"]) == [
        {"cause": "zombie"},
        {"cause": "unknown"},
    ]


def _die(samples, k, cause, seen_dead=False):
    samples[k]["deaths"] = [{"cause": cause}] if cause is not None else []
    if seen_dead:
        samples[k]["health"] = 0
    return samples


def test_k3_passes_without_a_death_and_with_deaths_that_have_causes():
    assert judge(run(10))["K3"]["verdict"] == PASS
    k3 = judge(_die(_die(run(10), 3, "zombie", seen_dead=True), 6, "fall"))["K3"]
    assert k3["verdict"] == PASS and "zombie at t=15s, fall at t=30s" in k3["detail"], k3


@pytest.mark.parametrize(
    ("cause", "seen_dead", "why"),
    [
        ("unknown", False, "1 without a cause"),
        ("", False, "1 without a cause"),
        (None, True, "1 seen but never recorded"),
    ],
)
def test_k3_fails_on_a_death_without_a_recorded_cause(cause, seen_dead, why):
    k3 = judge(_die(run(10), 4, cause, seen_dead))["K3"]
    assert k3["verdict"] == FAIL and why in k3["detail"], k3


def test_k3_counts_a_death_seen_over_several_samples_once():
    samples = _die(run(10), 4, "skeleton", seen_dead=True)
    samples[5]["health"] = 0
    assert judge(samples)["K3"]["verdict"] == PASS


def test_k3_is_not_judged_when_the_death_records_were_never_read():
    assert judge(run(10, deaths_read=False))["K3"]["verdict"] == NOT_JUDGED


# -- K4 never wedged -------------------------------------------------------------------------------


def test_k4_passes_a_bot_that_keeps_moving():
    k4 = judge(run(36))["K4"]
    assert k4["verdict"] == PASS and "36/36 samples with an active task" in k4["detail"], k4


def test_k4_fails_when_nothing_moves_for_the_window_while_a_task_is_active():
    samples = run(36)
    for s in samples[5:31]:  # t=25..150: frozen for 125 s
        s["position"], s["inventory"], s["tasks"] = samples[5]["position"], {}, copy.deepcopy(samples[5]["tasks"])
    k4 = judge(samples)["K4"]
    assert k4["verdict"] == FAIL and "frozen from t=25s to t=150s (125 s)" in k4["detail"], k4


def test_k4_a_frozen_stretch_shorter_than_the_window_or_without_work_is_no_wedge():
    samples = run(36, moving=False)
    for s in samples[:12]:  # still for 55 s with work, then still and idle
        s["position"]["x"] = 0.0
    for s in samples[12:]:
        s["tasks"] = [_task("act", "completed", 1.0)]
    assert judge(samples)["K4"]["verdict"] == PASS


def test_k4_a_move_within_the_same_block_is_no_movement():
    samples = run(36, moving=False)
    for k, s in enumerate(samples):
        s["position"] = {"x": 0.1 + 0.02 * k, "y": 64.0, "z": 0.5}
    assert judge(samples)["K4"]["verdict"] == FAIL


def test_k4_fails_when_the_daemon_is_down_for_the_window():
    samples = run(36)
    for s in samples[2:28]:  # t=10..135, up again at t=140
        s["ok"] = False
    assert wedges(samples, 120.0) == [{"kind": "down", "from": 10.0, "to": 140.0, "s": 130.0}]
    assert judge(samples)["K4"]["verdict"] == FAIL


@pytest.mark.parametrize("why", ["short", "no_position"])
def test_k4_is_not_judged_when_the_run_could_not_show_it(why):
    samples = run(20) if why == "short" else run(36)  # 95 s < 120 s
    if why == "no_position":
        for s in samples:
            s["position"] = None
    k4 = judge(samples)["K4"]
    assert k4["verdict"] == NOT_JUDGED, k4


# -- the block, the verdict and the report lines ----------------------------------------------------


def test_a_competence_fail_fails_the_run_except_under_chaos():
    bad = run(36, tasks=finished(1, 5))
    block = evaluate_competence(bad, LIMITS)
    assert block["pass"] is False and block["task_success_rate"] == round(1 / 6, 4)
    report = {"pass": True}
    add_competence(report, bad, LIMITS, chaos=False)
    assert report["pass"] is False and report["competence"]["criteria"][0]["verdict"] == FAIL
    report = {"pass": True}
    add_competence(report, bad, LIMITS, chaos=True)
    assert report["pass"] is True and report["competence"]["decides"] is False
    lines = competence_lines(report["competence"])
    assert lines[0].startswith(
        "[Soak] FAIL K1 task success rate at least 80 %: (informational under chaos) 1 completed"
    )


def test_not_judged_never_fails_nor_passes_the_run():
    report = {"pass": False}  # the SOAK-1 criteria failed: competence cannot make it pass
    block = add_competence(report, run(36), LIMITS, chaos=False)
    assert report["pass"] is False and block["pass"] is True
    lines = competence_lines(block)
    assert [line.split(" ")[1] for line in lines[:4]] == ["NOT", "NOT", "PASS", "PASS"]
    assert lines[0].startswith(
        "[Soak] NOT JUDGED K1 task success rate at least 80 %: 0 completed, 0 failed: fewer than 5 finished tasks"
    )
    assert lines[4] == "[Soak] milestones: none reached; not reached: " + ", ".join(MILESTONES)
    # a task active in every sample
    assert lines[5] == (
        "[Soak] idle 0 % of 175 s of daylight (no task active, no reflex acting; 0 s more a reflex acting)"
    )


def test_the_idle_share_counts_daylight_with_no_task_active_and_leaves_the_night_out():
    samples = run(36)
    for s in samples[10:20]:
        s["tasks"] = []
    for s in samples[20:]:
        s["tasks"], s["isDay"] = [], False  # night: not counted
    idle = evaluate_competence(samples, LIMITS)["idle"]
    assert idle == {"daylight_s": 100.0, "idle_s": 50.0, "reflex_s": 0.0, "share": 0.5}
    samples[5]["ok"] = False  # the daemon down: not the bot's idling
    assert evaluate_competence(samples, LIMITS)["idle"]["daylight_s"] == 95.0


def test_the_json_block_keys_milestones_by_name_in_game_seconds():
    block = evaluate_competence(run(10, inventory_at={1: {"oak_log": 2}}), LIMITS)
    assert block["milestones"]["log"] == 50.0 and set(block["milestones"]) == set(MILESTONES)
    assert competence_lines(block)[4].startswith("[Soak] milestones: log=50 (game s); not reached: planks, ")
    assert block["limits"] == {
        "min_task_success": 0.8,
        "milestone_game_days": 2.0,
        "wedge_s": 120.0,
        "min_finished_tasks": 5,
    }


def test_in_creative_mode_the_bot_does_not_play_so_k1_and_k2_are_not_judged():
    samples = run(3 * DAY, tasks=finished(0, 6))
    crit = judge(samples, creative=True)
    assert crit["K1"]["verdict"] == crit["K2"]["verdict"] == NOT_JUDGED
    assert judge(samples)["K1"]["verdict"] == judge(samples)["K2"]["verdict"] == FAIL


# -- thresholds: the soak's flags and the limits object ----------------------------------------------


def test_the_soak_flags_set_the_thresholds_with_documented_defaults():
    a = parse(["3"])
    assert (a.min_task_success, a.milestone_game_days) == (0.8, 2.0)
    a = parse(["3", "--min-task-success", "0.9", "--milestone-game-days", "1.5"])
    assert (a.min_task_success, a.milestone_game_days) == (0.9, 1.5)
    assert wedge_s(fast=True) == 120.0 and wedge_s(fast=False) == 600.0


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--min-task-success", "80", "80 is not a fraction from 0 to 1 (0.8 = 80 %)"),
        ("--min-task-success", "-0.1", "is not a fraction from 0 to 1"),
        ("--min-task-success", "most", "'most' is not a number"),
        ("--min-task-success", "nan", "is not a fraction"),
        ("--milestone-game-days", "0", "the window must be above 0"),
        ("--milestone-game-days", "-2", "the window must be above 0"),
        ("--milestone-game-days", "inf", "the window must be above 0"),
        ("--milestone-game-days", "two", "'two' is not a number of game days"),
    ],
)
def test_a_bad_threshold_is_refused_with_a_clear_message(flag, value, says, capsys):
    with pytest.raises(SystemExit) as e:
        parse(["3", flag, value])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: " in err and says in err, err


@pytest.mark.parametrize(
    "kw", [{"min_task_success": 1.2}, {"milestone_game_days": 0}, {"wedge_s": 0}, {"min_finished_tasks": 0}]
)
def test_the_limits_refuse_bad_values(kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        CompetenceLimits(**kw)


# -- reading the daemon's log -----------------------------------------------------------------------


def test_the_log_tail_returns_only_new_whole_lines(tmp_path):
    log = tmp_path / "daemon.log"
    tail = LogTail(log)
    assert tail.read() is None  # not there yet: not read, not "no deaths"
    log.write_text("a\n[Reflex] death recorded (total 1) cause=fall at {}\npart")
    assert deaths_in(tail.read()) == [{"cause": "fall"}]
    with log.open("a") as f:
        f.write("ial line\n")
    assert tail.read() == ["partial line"]
    assert tail.read() == []


def test_a_game_day_is_1200_game_seconds():
    assert GAME_S_PER_DAY == 1200


@pytest.mark.parametrize(
    ("given", "runs_with"), [(None, "INFO"), ("ERROR", "INFO"), ("debug", "debug"), ("WARNING", "WARNING")]
)
def test_the_soaked_daemon_logs_its_death_records(given, runs_with, monkeypatch, tmp_path):
    if given is None:
        monkeypatch.delenv("MCBOT_LOGGING__LEVEL", raising=False)
    else:
        monkeypatch.setenv("MCBOT_LOGGING__LEVEL", given)
    env = daemon_env(parse(["3"]), tmp_path / "db", 1234)
    assert env["MCBOT_LOGGING__LEVEL"] == runs_with


# -- recorded runs: the two soaks of make test, as they were sampled ----------------------------------


def _recorded(name):
    return json.loads((Path(__file__).parents[2] / "fixtures" / f"soak-competence-{name}.json").read_text())["samples"]


def test_a_recorded_fast_soak_is_judged_where_it_can_be_and_not_judged_where_it_cannot():
    block = evaluate_competence(_recorded("plain-1.18.2"), LIMITS)
    crit = by_id(block)
    assert {k: c["verdict"] for k, c in crit.items()} == {"K1": NOT_JUDGED, "K2": NOT_JUDGED, "K3": PASS, "K4": PASS}
    assert crit["K1"]["detail"] == "2 completed, 0 failed (100 %): fewer than 5 finished tasks"
    assert block["pass"] and block["gameDays"] == pytest.approx(1.36, abs=0.01)
    assert {k: v for k, v in block["milestones"].items() if v is not None} == {
        "log": 110.0,
        "planks": 600.0,
        "crafting_table": 600.0,
    }
    # the same run would FAIL K2 with a one-day window: no milestone after day 0.5
    limits = CompetenceLimits(milestone_game_days=0.8, wedge_s=120.0)
    assert by_id(evaluate_competence(_recorded("plain-1.18.2"), limits))["K2"]["verdict"] == FAIL


def test_a_recorded_chaos_soak_s_world_restarts_do_not_add_game_days():
    samples = _recorded("chaos-1.21.4")  # the world's clock started again at each world and daemon kill
    block = evaluate_competence(samples, LIMITS, decides=False)
    span_s = samples[-1]["t"] - samples[0]["t"]  # 174 s of a world whose clock runs 200 ticks/s
    assert block["gameDays"] == pytest.approx(span_s * 200 / 24_000, rel=0.02)
    assert by_id(block)["K2"]["verdict"] == NOT_JUDGED  # 1.45 days, not the 2.49 the raw wraps make


def test_a_fleet_s_death_line_names_its_bot():
    lines = [
        "12:00:21.522 | WARNING | fleet02 | [Reflex] death recorded (total 1) cause=zombie at {'x': 1}",
        "12:00:22.001 | WARNING | [Reflex] death recorded (total 2) cause=fall at {'x': 1}",
    ]
    assert deaths_in(lines) == [{"cause": "zombie", "bot": "fleet02"}, {"cause": "fall"}]
