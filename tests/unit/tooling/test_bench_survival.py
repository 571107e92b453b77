"""`mcbot bench survival`, its pure half (bot/tooling/bench_survival_report.py) on injected
samples: milestones from inventories and the places view in game time (day wraps and a night
slept through counted), nights survived, deaths with their game time, the success rate, the
targets' PASS / FAIL / NOT JUDGED, the report's JSON shape, the table; the CLI's flags; runs side
by side (--jobs) and a stop between samples."""

from __future__ import annotations

import json
import threading
import time

import pytest

from bot.cli.main import build_parser, main
from bot.tooling import bench_survival as bench
from bot.tooling.bench_idle import day_part, goal_held
from bot.tooling.bench_survival import SurvivalSettings, places_seen
from bot.tooling.bench_survival_report import (
    all_milestones,
    failure_lines,
    nights,
    reached_in_order,
    run_result,
    table_lines,
)
from bot.tooling.bench_survival_targets import failed, judge, target_lines
from bot.tooling.competence import FAIL, GAME_S_PER_DAY, MILESTONES, NOT_JUDGED, PASS, game_seconds

STEP = 600  # ticks per sample: 30 game seconds, 40 samples a day


def samples(n, *, tod0=0, inventory_at=None, places_at=None, deaths_at=None, tasks=(), clock=None):
    """n samples 3 s apart, the world clock STEP ticks further each (or `clock(k)`); the bot
    walks a block per sample. inventory_at / places_at: index -> what is held / placed from then
    on; deaths_at: index -> causes the daemon logged in that sample."""
    out, inv, places = [], {}, {"placed": [], "verifiedShelters": 0}
    for k in range(n):
        inv = {**inv, **(inventory_at or {}).get(k, {})}
        places = {**places, **(places_at or {}).get(k, {})}
        out.append(
            {
                "t": 3.0 * k,
                "ok": True,
                "health": 20,
                "timeOfDay": clock(k) if clock else (tod0 + k * STEP) % 24_000,
                "position": {"x": float(k), "y": 64.0, "z": 0.0},
                "inventory": dict(inv),
                "tasks": [dict(t) for t in tasks],
                "deathsRead": True,
                "deaths": [{"cause": c} for c in (deaths_at or {}).get(k, [])],
                "places": dict(places),
            }
        )
    return out


def task(i, status):
    return {"id": i, "status": status, "progress": 1.0 if status == "completed" else 0.0, "goalKey": f"k:{i}"}


def run(version="1.21.4", seed=1, **over):
    """A run result as the bench stores it, with defaults that meet every target."""
    ms = dict.fromkeys(MILESTONES) | {"iron_pickaxe": 2.0 * GAME_S_PER_DAY}
    return {
        "version": version,
        "seed": seed,
        "milestones": ms,
        "task_success_rate": 1.0,
        "tasks": {"completed": 10, "failed": 0, "unplannable": 0, "total": 10},
        "nights": 5,
        "nights_survived": 5,
        "night_deaths": [],
        "deaths": [],
        "deaths_explained": PASS,
        "deaths_detail": "no death",
        "wedges": [],
        "idle": {"daylight_s": 1800.0, "idle_s": 180.0, "share": 0.1},
        "game_days": 5.0,
        "ended": "5 game days",
        **over,
    }


def by_id(targets):
    return {t["id"]: t for t in targets}


# -- milestones and game time -------------------------------------------------------------------


def test_milestones_in_game_seconds_from_inventories_and_placed_blocks():
    s = samples(
        12,
        inventory_at={
            1: {"oak_log": 4},
            2: {"oak_planks": 8},
            5: {"wooden_pickaxe": 1},
            7: {"cobblestone": 3},
            8: {"stone_pickaxe": 1},
        },
        places_at={3: {"placed": ["crafting_table"]}, 10: {"verifiedShelters": 1}},
    )
    ms = all_milestones(s, game_seconds(s))
    per = STEP / 20
    assert ms["log"] == per and ms["planks"] == 2 * per and ms["wooden_pickaxe"] == 5 * per
    assert ms["crafting_table"] == ms["placed_crafting_table"] == 3 * per  # never held in a sample: placed counts
    assert ms["stone_pickaxe"] == 8 * per and ms["verified_shelter"] == 10 * per
    assert ms["iron_pickaxe"] is None and ms["placed_furnace"] is None
    assert list(ms)[: len(MILESTONES)] == list(MILESTONES)
    assert reached_in_order(
        run_result(s, 120.0), ["log", "planks", "crafting_table", "wooden_pickaxe", "cobblestone", "stone_pickaxe"]
    )


def test_held_before_placed_keeps_the_earlier_time():
    s = samples(6, inventory_at={1: {"furnace": 1}}, places_at={4: {"placed": ["furnace"]}})
    ms = all_milestones(s, game_seconds(s))
    assert ms["furnace"] == STEP / 20 and ms["placed_furnace"] == 4 * STEP / 20


def test_game_time_counts_the_day_wrap_and_a_night_slept_through():
    wrap = [22_800, 23_400, 0, 600]
    s = samples(len(wrap), clock=lambda k: wrap[k], inventory_at={3: {"oak_log": 1}})
    assert run_result(s, 120.0)["milestones"]["log"] == 3 * STEP / 20
    # in bed at 13200, woken at 0: the night counts, then the clock runs on
    slept = [12_000, 12_600, 13_200, 0, 600]
    s = samples(len(slept), clock=lambda k: slept[k], inventory_at={4: {"iron_pickaxe": 1}})
    r = run_result(s, 120.0)
    assert r["milestones"]["iron_pickaxe"] == (600 + 600 + (24_000 - 13_200) + 600) / 20
    assert r["milestones_run_s"]["iron_pickaxe"] == 4 * 3.0  # the same milestone in run seconds


def test_an_item_held_only_between_samples_is_dated_by_what_needed_it():
    # planks crafted straight into a table: never seen; the table dates them (and the log)
    s = samples(8, inventory_at={2: {"crafting_table": 1}, 5: {"oak_log": 2}, 6: {"raw_iron": 1}})
    ms = all_milestones(s, game_seconds(s))
    assert ms["planks"] == ms["log"] == ms["crafting_table"] == 2 * STEP / 20
    # raw iron needs a stone pickaxe, cobblestone, a wooden pickaxe: all by then at the latest
    assert ms["stone_pickaxe"] == ms["cobblestone"] == ms["wooden_pickaxe"] == 6 * STEP / 20
    assert ms["furnace"] is None and ms["coal"] is None  # not needed for raw iron


def test_reached_in_order_needs_every_one_and_non_decreasing_times():
    r = {"milestones": {"log": 10.0, "planks": 10.0, "stone_pickaxe": 5.0, "coal": None}}
    assert reached_in_order(r, ["log", "planks"])
    assert not reached_in_order(r, ["log", "stone_pickaxe"])
    assert not reached_in_order(r, ["log", "coal"])


# -- nights and deaths ----------------------------------------------------------------------------


def test_nights_seen_to_morning_and_survived_with_a_death_in_the_second():
    s = samples(100, deaths_at={75: ["zombie"]})  # 0 .. 59400 ticks: mornings at 23000 and 47000
    r = run_result(s, 120.0)
    assert (r["nights"], r["nights_survived"]) == (2, 1)
    assert r["deaths"] == [{"cause": "zombie", "game_s": 75 * STEP / 20, "t": 225.0}]  # 45000 ticks: night 2
    assert r["deaths_explained"] == PASS


def test_a_night_not_yet_ended_is_not_counted_and_a_day_death_spares_the_night():
    s = samples(30, deaths_at={5: ["skeleton"]})  # 0 .. 17400: no morning yet
    assert nights(s, game_seconds(s), run_result(s, 120.0)["deaths"]) == {"nights": 0, "nights_survived": 0}
    s = samples(45, deaths_at={5: ["skeleton"]})  # 3000 ticks in: day
    assert run_result(s, 120.0)["nights_survived"] == 1


def test_a_nights_death_is_judged_by_its_cause_and_the_bot_back_at_work():
    done = {"id": "a", "status": "completed", "progress": 1.0, "goalKey": "k:a"}
    s = samples(100, deaths_at={75: ["zombie"]})  # the second night: day 1.875
    for x in s[78:]:
        x["tasks"] = [done]  # completed 3 samples after the death
    r = run_result(s, 120.0)
    assert r["night_deaths"] == [
        {
            "death_s": 75 * STEP / 20,
            "morning_s": 2 * GAME_S_PER_DAY - 1000 / 20,  # the second night's: 47000 ticks
            "causes": ["zombie"],
            "explained": True,
            "back_s": 78 * STEP / 20,
        }
    ]
    t = by_id(judge([run(game_days=5.0, nights=5, nights_survived=4, night_deaths=r["night_deaths"])]))["nights"]
    assert t["verdict"] == PASS and "4/5" in t["detail"] and "back at work by day 1.95" in t["detail"], t
    never = [{"death_s": 1.0 * GAME_S_PER_DAY, "causes": ["zombie"], "explained": True, "back_s": None}]
    t = by_id(judge([run(nights_survived=4, night_deaths=never)]))["nights"]
    assert t["verdict"] == FAIL and "no task completed after the death at day 1.00" in t["detail"], t
    nameless = [{"death_s": 900.0, "causes": [""], "explained": False, "back_s": 1000.0}]
    assert by_id(judge([run(nights_survived=4, night_deaths=nameless)]))["nights"]["verdict"] == FAIL
    at_the_end = [{"death_s": 4.9 * GAME_S_PER_DAY, "causes": ["zombie"], "explained": True, "back_s": None}]
    assert by_id(judge([run(nights_survived=4, night_deaths=at_the_end)]))["nights"]["verdict"] == NOT_JUDGED


def test_the_daylight_after_a_nights_death_is_what_is_too_near_the_end():
    """A death early in the last night (day 4.62) leaves 0.38 game days, more than IDLE_GAME_S,
    but the bot keeps to its shelter until the morning at day 4.96: not judged. A death as
    early in an earlier night has its whole next day to be back at work: judged."""
    last = {"death_s": 4.62 * GAME_S_PER_DAY, "causes": ["skeleton"], "explained": True, "back_s": None}
    t = by_id(judge([run(nights_survived=4, night_deaths=[last | {"morning_s": 4.958 * GAME_S_PER_DAY}])]))
    assert t["nights"]["verdict"] == NOT_JUDGED and "1 deaths too near the end" in t["nights"]["detail"], t
    earlier = last | {"death_s": 3.62 * GAME_S_PER_DAY, "morning_s": 3.958 * GAME_S_PER_DAY}
    assert by_id(judge([run(nights_survived=4, night_deaths=[earlier])]))["nights"]["verdict"] == FAIL


def test_nights_are_judged_over_five_game_days_only():
    t = by_id(judge([run(game_days=3.0, nights=3, nights_survived=3)]))["nights"]
    assert t["verdict"] == NOT_JUDGED and "judged over 5 game days: 1 runs shorter" in t["detail"]


def test_a_run_starting_at_night_counts_that_night_from_its_start():
    s = samples(10, tod0=20_000)  # 20000 .. 25400: one morning
    assert run_result(s, 120.0)["nights"] == 1


# -- success rate and wedges ------------------------------------------------------------------------


def test_task_success_is_completed_over_finished_unplannable_apart():
    s = samples(
        5,
        tasks=[
            task("a", "completed"),
            task("b", "completed"),
            task("c", "completed"),
            task("d", "failed"),
            task("e", "unplannable"),
            task("f", "active"),
        ],
    )
    r = run_result(s, 120.0)
    assert r["task_success_rate"] == 0.75
    assert r["tasks"] == {"completed": 3, "failed": 1, "unplannable": 1, "total": 6}
    assert run_result(samples(5), 120.0)["task_success_rate"] is None


def test_the_tasks_but_explores_are_counted_beside_every_task():
    """An explore near home completes in seconds: a bot with nothing else to do makes many, and
    every task's rate reads higher for them (printed beside the target's, not judged)."""
    explores = [{**task(f"x{i}", "completed"), "goalKey": "explore:nearby"} for i in range(6)]
    retried = {**task("c", "failed"), "blockedReason": "superseded by task d"}  # not counted, as in K1
    s = samples(5, tasks=[task("a", "completed"), task("b", "failed"), retried, *explores])
    r = run_result(s, 120.0)
    assert r["task_success_rate"] == 0.875
    assert r["work_tasks"] == {"completed": 1, "failed": 1, "rate": 0.5}
    row = next(line for line in table_lines([{**run(), **r}]) if line.startswith("  but explores"))
    assert row.rstrip().endswith("50 % of 2"), row
    assert run_result(samples(5), 120.0)["work_tasks"] == {"completed": 0, "failed": 0, "rate": None}
    old = next(line for line in table_lines([run()]) if line.startswith("  but explores"))
    assert old.rstrip().endswith("-")  # a run stored before the figure


def test_the_commonest_failure_reasons_are_reported():
    stuck = {**task("a", "failed"), "goalKey": "craft:stone_pickaxe", "failureReason": "move_to failed: no progress"}
    elsewhere = {**stuck, "id": "b", "failureReason": "move_to failed: no progress"}
    s = samples(
        3,
        tasks=[
            {**stuck, "failureReason": "move_to failed: no progress toward -7.5,60,6.5 (distance 3.5)"},
            {**elsewhere, "failureReason": "move_to failed: no progress toward -8,61,6.5 (distance 2)"},
            {**task("c", "failed"), "goalKey": "hunt:animal"},
        ],
    )
    r = run_result(s, 120.0)
    assert r["failures"] == [
        {
            "goalKey": "craft:stone_pickaxe",
            "reason": "move_to failed: no progress toward -7.5,60,6.5 (distance 3.5)",
            "n": 2,
        },
        {"goalKey": "hunt:animal", "reason": "no reason given", "n": 1},
    ]
    assert failure_lines(r)[0].startswith("2x craft:stone_pickaxe: move_to failed")


def test_a_bot_frozen_with_an_active_task_is_a_wedge():
    s = samples(60, tasks=[task("a", "active")])
    for x in s:
        x["position"] = {"x": 0.0, "y": 64.0, "z": 0.0}
    assert "frozen" in [w["kind"] for w in run_result(s, 120.0)["wedges"]]
    assert "frozen" not in [w["kind"] for w in run_result(samples(60, tasks=[task("a", "active")]), 120.0)["wedges"]]


def test_a_quarter_day_of_daylight_with_nothing_done_is_an_idle_wedge_though_the_bot_moves():
    # 30 game s a sample: 10 daytime samples (300 game s) without a task completed or a milestone
    s = samples(60, tasks=[task("a", "active")])
    idle = [w for w in run_result(s, 120.0)["wedges"] if w["kind"] == "idle"]
    assert idle and idle[0]["from"] == 0 and idle[0]["daylight_s"] >= GAME_S_PER_DAY / 4
    assert "idle from day 0.00" in by_id(judge([run(wedges=idle)]))["wedges"]["detail"]
    # a task completed every 8 samples (240 game s): never a quarter day of daylight without one
    busy = samples(60)
    for k, x in enumerate(busy):
        x["tasks"] = [task(f"t{j}", "completed") for j in range(k // 8 + 1)]
    assert [w for w in run_result(busy, 120.0)["wedges"] if w["kind"] == "idle"] == []
    # night does not count: the same 9 samples of nothing at night, then a task done at dawn
    night = samples(20, tod0=13_000)
    night[-1]["tasks"] = [task("dawn", "completed")]
    assert [w for w in run_result(night, 120.0)["wedges"] if w["kind"] == "idle"] == []


def test_a_long_task_whose_steps_go_on_is_no_idle_wedge_and_one_stuck_at_a_step_is():
    # one task for all 60 samples (30 game s each), a step done every 8 samples (240 game s):
    # a first hut gathering its logs, then its walls, is work
    steps = samples(60, tasks=[task("hut", "active")])
    for k, x in enumerate(steps):
        x["tasks"] = [{**task("hut", "active"), "progress": min(0.99, (k // 8) / 8)}]
    assert [w for w in run_result(steps, 120.0)["wedges"] if w["kind"] == "idle"] == []
    # the same task replanned or resumed: its progress falls back and climbs to its best again,
    # which is no step past it (the executor keeps the best; a sample may read it lower)
    stuck = samples(60, tasks=[task("hut", "active")])
    for k, x in enumerate(stuck):
        x["tasks"] = [{**task("hut", "active"), "progress": 0.5 if k % 2 else 0.25}]
    idle = [w for w in run_result(stuck, 120.0)["wedges"] if w["kind"] == "idle"]
    assert idle and idle[0]["daylight_s"] >= GAME_S_PER_DAY / 4
    assert "no task completed or advanced" in by_id(judge([run(wedges=idle)]))["wedges"]["detail"]


def test_a_step_that_goes_on_getting_its_goals_item_is_no_idle_wedge_and_one_that_gets_none_is():
    """A collect of 8 logs in a sparse wood gained one every 20-40 s for five minutes in one
    step, its progress at 0 throughout (26.1 and 1.18.2 seed 3608 at 592ef65)."""
    gathering = samples(60, tasks=[{**task("logs", "active"), "goalKey": "collect:log"}])
    for k, x in enumerate(gathering):
        x["inventory"] = {"birch_log": 1 + k // 8, "dirt": 3}
    assert [w for w in run_result(gathering, 120.0)["wedges"] if w["kind"] == "idle"] == []
    # used meanwhile (the hut took 20 of them), then gathered again from 0: work all the same
    used = samples(60, tasks=[{**task("logs", "active"), "goalKey": "collect:log"}])
    for k, x in enumerate(used):
        x["inventory"] = {"birch_log": 20 if k < 4 else 1 + (k - 4) // 6}
    assert [w for w in run_result(used, 120.0)["wedges"] if w["kind"] == "idle"] == []
    # a collect that gets none (other things gathered on the way are not its item)
    stuck = samples(60, tasks=[{**task("logs", "active"), "goalKey": "collect:log"}])
    for k, x in enumerate(stuck):
        x["inventory"] = {"birch_log": 3, "dirt": 3 + k}
    idle = [w for w in run_result(stuck, 120.0)["wedges"] if w["kind"] == "idle"]
    assert idle and idle[0]["daylight_s"] >= GAME_S_PER_DAY / 4


def test_a_craft_whose_plan_goes_on_gathering_what_it_takes_is_no_idle_wedge():
    """A bed's sheep hunt got one wool in 5 minutes, its progress at 0 throughout (26.1 seed
    6391 at 5f5a076, judged an idle wedge): what the craft takes, and what that takes, counts
    as its item; other things gathered on the way do not."""
    assert goal_held("craft:white_bed", {"white_wool": 2, "oak_log": 3, "dirt": 5}) == 3  # 2 wool, 1 log
    assert goal_held("craft:stone_pickaxe", {"birch_log": 1, "stick": 2, "cobblestone": 3, "dirt": 4}) == 6
    # as much as the craft takes: stone dug on the way past its 3 is no progress
    assert goal_held("craft:stone_pickaxe", {"cobblestone": 30}) == 3
    # smelted parts: what smelts into them is the step before (raw iron for an iron pickaxe's ingots)
    assert goal_held("craft:iron_pickaxe", {"raw_iron": 2, "stick": 2, "dirt": 9}) == 4
    assert goal_held("craft:iron_pickaxe", {"raw_iron": 9, "iron_ingot": 1}) == 4
    wool = samples(32, tasks=[{**task("bed", "active"), "goalKey": "craft:white_bed"}])
    for k, x in enumerate(wool):
        x["inventory"] = {"white_wool": k // 8, "oak_planks": 3}
    wool[-1]["tasks"] = [{**task("bed", "completed"), "goalKey": "craft:white_bed"}]
    assert [w for w in run_result(wool, 120.0)["wedges"] if w["kind"] == "idle"] == []
    digging = samples(60, tasks=[{**task("pick", "active"), "goalKey": "craft:stone_pickaxe"}])
    for k, x in enumerate(digging):
        x["inventory"] = {"cobblestone": 3 + k, "stick": 2}
    assert [w for w in run_result(digging, 120.0)["wedges"] if w["kind"] == "idle"]
    stuck = samples(60, tasks=[{**task("bed", "active"), "goalKey": "craft:white_bed"}])
    for k, x in enumerate(stuck):
        x["inventory"] = {"white_wool": 1, "oak_planks": 3, "dirt": k}
    idle = [w for w in run_result(stuck, 120.0)["wedges"] if w["kind"] == "idle"]
    assert idle and idle[0]["daylight_s"] >= GAME_S_PER_DAY / 4


def test_a_smelt_goal_counts_what_smelts_into_its_item_as_held():
    """A food stock's chicken hunt brought 2 chickens in 6 minutes of a cooked_chicken goal, its
    progress at 0 (1.18.2 seed 6417 at 10bf15c, judged an idle wedge): the raw meat counts."""
    assert goal_held("smelt:cooked_chicken", {"chicken": 2, "cooked_chicken": 1, "beef": 3}) == 3
    assert goal_held("smelt:raw_iron", {"raw_iron": 2, "iron_ingot": 4, "deepslate_iron_ore": 1}) == 7
    hunting = samples(60, tasks=[{**task("food", "active"), "goalKey": "smelt:cooked_chicken"}])
    for k, x in enumerate(hunting):
        x["inventory"] = {"chicken": k // 6, "beef": 1}
    assert [w for w in run_result(hunting, 120.0)["wedges"] if w["kind"] == "idle"] == []
    other = samples(60, tasks=[{**task("food", "active"), "goalKey": "smelt:cooked_chicken"}])
    for k, x in enumerate(other):
        x["inventory"] = {"beef": k // 6}
    assert [w for w in run_result(other, 120.0)["wedges"] if w["kind"] == "idle"]


def test_a_goal_retried_as_new_tasks_that_fail_at_the_same_step_is_an_idle_wedge():
    # a task of the goal every 4 samples, each climbing to 0.5 and failing there: every new
    # task id climbs past its own 0, but the goal never gets past where the last one failed
    retried = samples(60)
    goal = "smelt:cooked_porkchop"
    for k, x in enumerate(retried):
        tries = [{**task(f"try{j}", "failed"), "goalKey": goal, "progress": 0.5} for j in range(k // 4)]
        now = {**task(f"try{k // 4}", "active"), "goalKey": goal, "progress": 0.5 if k % 4 else 0.0}
        x["tasks"] = [*tries, now]
    idle = [w for w in run_result(retried, 120.0)["wedges"] if w["kind"] == "idle"]
    assert idle and idle[0]["daylight_s"] >= GAME_S_PER_DAY / 4
    # a try of the goal that failed at 0.5 long ago, listed in every sample after: once a task
    # of the goal completed, the next one climbing from 0 is work again
    failed_then_done = samples(60)
    for k, x in enumerate(failed_then_done):
        old = [
            {**task("a", "failed"), "goalKey": "collect:log", "progress": 0.5},
            {**task("b", "completed"), "goalKey": "collect:log"},
        ]
        x["tasks"] = [*old, {**task("c", "active"), "goalKey": "collect:log", "progress": k / 60}]
    assert [w for w in run_result(failed_then_done, 120.0)["wedges"] if w["kind"] == "idle"] == []
    # the same goal done each time instead: its next task climbing from 0 again is work
    redone = samples(60)
    for k, x in enumerate(redone):
        done = [{**task(f"log{j}", "completed"), "goalKey": "collect:log"} for j in range(k // 9)]
        now = {**task(f"log{k // 9}", "active"), "goalKey": "collect:log", "progress": (k % 9) / 9}
        x["tasks"] = [*done, now]
    assert [w for w in run_result(redone, 120.0)["wedges"] if w["kind"] == "idle"] == []


def test_the_idle_share_is_the_daylight_with_no_task_active():
    # 40 samples (a game day) 3 s apart: daylight to tick 12000 (the first 20 samples, t 0..57)
    s = samples(40, tasks=[task("a", "active")])
    for x in s[10:20]:  # 30 s of the 60 daylight seconds: nothing active
        x["tasks"] = [task("a", "completed")]
    idle = run_result(s, 120.0)["idle"]
    assert (idle["daylight_s"], idle["idle_s"], idle["share"]) == (60.0, 30.0, 0.5)
    for x in s[20:]:  # the night's samples: nothing active, not counted
        x["tasks"] = []
    assert run_result(s, 120.0)["idle"] == idle


def test_a_reflex_acting_with_the_task_paused_is_not_idle_but_is_said_beside_it():
    s = samples(40, tasks=[task("a", "active")])
    for x in s[10:20]:  # 30 s with no task active: 15 of them a creeper fled, the task paused
        x["tasks"] = [task("a", "paused")]
    for x in s[10:15]:
        x["reflexHold"], x["reflexActing"] = "a reflex is acting (a threat, hunger or the night)", True
    for x in s[15:20]:  # then in cover: held, but no reflex acting, which is idle
        x["reflexHold"] = "the bot has taken cover from a zombie (out once its health is back)"
    result = run_result(s, 120.0)
    assert result["idle"] == {"daylight_s": 60.0, "idle_s": 15.0, "reflex_s": 15.0, "share": 0.25}
    row = next(line for line in table_lines([{**run(), **result}]) if line.startswith("  no task active"))
    assert row.rstrip().endswith("50 %"), row  # the share the benches up to s52 printed as idle
    old = next(line for line in table_lines([run()]) if line.startswith("  no task active"))
    assert old.rstrip().endswith("10 %"), old  # a run stored before reflex_s: all of it idle


@pytest.mark.parametrize(
    ("idle", "verdict"),
    [
        ({"daylight_s": 3600.0, "idle_s": 700.0, "share": 0.194}, PASS),
        ({"daylight_s": 3600.0, "idle_s": 720.0, "share": 0.2}, FAIL),
        ({"daylight_s": 300.0, "idle_s": 30.0, "share": 0.1}, NOT_JUDGED),  # too little daylight seen
        ({"daylight_s": 300.0, "idle_s": 240.0, "share": 0.8}, FAIL),  # already over, however short
    ],
)
def test_the_idle_target_is_under_a_fifth_of_the_daylight_each_run(idle, verdict):
    assert by_id(judge([run(), run(seed=2, idle=idle)]))["idle"]["verdict"] == verdict


# -- the targets ---------------------------------------------------------------------------------


def test_every_target_met_passes():
    runs = [run(seed=1), run(seed=2), run(seed=3, milestones=dict.fromkeys(MILESTONES))]  # 2 of 3 seeds
    t = by_id(judge(runs))
    assert [x["verdict"] for x in t.values()] == [PASS] * 6
    assert not failed(judge(runs))


def test_iron_pickaxe_on_one_seed_of_three_fails_and_late_counts_as_missed():
    late = dict.fromkeys(MILESTONES) | {"iron_pickaxe": 3.5 * GAME_S_PER_DAY}
    runs = [run(seed=1), run(seed=2, milestones=late), run(seed=3, milestones=dict.fromkeys(MILESTONES))]
    t = by_id(judge(runs))["iron_pickaxe"]
    assert t["verdict"] == FAIL and "1/3 seeds (need 2)" in t["detail"]


def test_iron_pickaxe_is_judged_per_version():
    none = dict.fromkeys(MILESTONES)
    runs = [run(seed=s) for s in (1, 2, 3)] + [run("1.18.2", s, milestones=none) for s in (1, 2, 3)]
    t = by_id(judge(runs))["iron_pickaxe"]
    assert t["verdict"] == FAIL and "1.21.4: 3/3" in t["detail"] and "1.18.2: 0/3" in t["detail"]


def test_a_run_stopped_before_three_days_without_iron_is_not_judged():
    short = run(milestones=dict.fromkeys(MILESTONES), game_days=0.3, ended="until stone_pickaxe")
    t = by_id(judge([short]))
    assert t["iron_pickaxe"]["verdict"] == NOT_JUDGED and "1 ended early" in t["iron_pickaxe"]["detail"]
    assert not failed(judge([short]))


@pytest.mark.parametrize(
    ("rates", "verdict"), [([0.95, 0.9], PASS), ([0.95, 0.89], FAIL), ([1.0, None], NOT_JUDGED), ([None, 0.5], FAIL)]
)
def test_tasks_target_needs_ninety_percent_in_each_run(rates, verdict):
    runs = [run(seed=i, task_success_rate=r) for i, r in enumerate(rates)]
    assert by_id(judge(runs))["tasks"]["verdict"] == verdict


def test_a_death_without_a_cause_fails_one_with_a_cause_passes():
    ok = run(deaths=[{"cause": "zombie", "game_s": 900.0, "t": 40.0}])
    t = by_id(judge([ok]))["deaths"]
    assert t["verdict"] == PASS and "zombie at day 0.75" in t["detail"]
    bad = run(
        deaths=[{"cause": "unknown", "game_s": 900.0, "t": 40.0}],
        deaths_explained=FAIL,
        deaths_detail="1 deaths recorded: 1 without a cause",
    )
    assert by_id(judge([ok, bad]))["deaths"]["verdict"] == FAIL
    assert by_id(judge([run(deaths_explained=NOT_JUDGED)]))["deaths"]["verdict"] == NOT_JUDGED


def test_a_wedge_fails():
    wedged = run(wedges=[{"kind": "frozen", "from": 30.0, "to": 200.0, "s": 170.0}])
    t = by_id(judge([run(), wedged]))["wedges"]
    assert t["verdict"] == FAIL and "frozen 170 s" in t["detail"]
    assert failed(judge([wedged]))


# -- the report's shape and the printing -------------------------------------------------------------


def test_a_run_result_is_json_with_the_agreed_keys():
    s = samples(50, inventory_at={2: {"birch_log": 1}}, tasks=[task("a", "completed")], deaths_at={30: ["creeper"]})
    r = json.loads(json.dumps(run_result(s, 120.0)))
    assert {"milestones", "task_success_rate", "nights_survived", "deaths", "wedges", "game_days"} <= set(r)
    assert set(MILESTONES) <= set(r["milestones"])
    assert all(v is None or isinstance(v, float) for v in r["milestones"].values())
    assert 0.0 <= r["task_success_rate"] <= 1.0
    assert r["deaths"][0]["cause"] == "creeper" and r["deaths"][0]["game_s"] == 30 * STEP / 20
    assert r["game_days"] == round(49 * STEP / 24_000, 3)


def test_table_and_target_lines_show_each_run_side_by_side():
    runs = [run(seed=1), run("1.18.2", 1, task_success_rate=0.5, deaths=[{"cause": "zombie", "game_s": 1.0, "t": 1}])]
    lines = table_lines(runs)
    assert "1.21.4 s1" in lines[0] and "1.18.2 s1" in lines[0]
    iron = next(x for x in lines if x.startswith("iron pickaxe at"))
    assert iron.split()[-4:] == ["day", "2.00", "day", "2.00"]
    assert next(x for x in lines if x.startswith("deaths")).split()[-2:] == ["0", "1"]
    words = [x.split()[0] for x in target_lines(judge(runs))]
    assert words == ["PASS", "FAIL", "PASS", "PASS", "PASS", "PASS"]
    assert next(x for x in lines if x.startswith("idle in daylight")).split()[-4:] == ["10", "%", "10", "%"]


# -- the command's settings and flags ----------------------------------------------------------------


def test_settings_give_the_daemon_no_llm_the_day_scale_and_the_tick():
    env = SurvivalSettings(day_length_scale=0.25, drive_tick_ms=4000).env()
    assert env["MCBOT_LLM__TARGETS"] == "[]"
    assert env["MCBOT_SERVER__DAY_LENGTH_SCALE"] == "0.25" and env["MCBOT_DRIVE_TICK__INTERVAL_MS"] == "4000"
    assert SurvivalSettings(game_days=2, day_length_scale=0.5).wall_limit_s == 1.5 * 2 * 600 + 300
    assert SurvivalSettings(max_minutes=4).wall_limit_s == 240
    assert env["MCBOT_SERVER__TERRAIN"] == "caves"  # competence is claimed on the vanilla world
    assert SurvivalSettings(terrain="plains").env()["MCBOT_SERVER__TERRAIN"] == "plains"
    assert build_parser().parse_args(["bench", "survival"]).terrain == "caves"
    assert build_parser().parse_args(["bench", "survival", "--terrain", "plains"]).terrain == "plains"


def test_the_users_config_file_is_the_daemons_too(monkeypatch, tmp_path):
    """`--config` reached the bench alone: a bench of a setting in it ran the daemon's default."""
    argvs: list[list[str]] = []

    class Ended:
        pid, returncode = 1, 3

        def poll(self):
            return 3

    monkeypatch.setattr(bench.subprocess, "Popen", lambda argv, **kw: argvs.append(argv) or Ended())
    monkeypatch.setattr(bench, "wait_up", lambda proc, base, timeout: False)
    monkeypatch.setattr(bench, "stop_daemon", lambda proc: None)
    for path in ("mine.toml", None):
        run = bench.Run("26.1", 1, SurvivalSettings(config_path=path), tmp_path, lambda _line: None)
        assert run.run() is False
    assert argvs[0][-4:] == ["bot", "--config", "mine.toml", "run"] and argvs[1][-2:] == ["bot", "run"]
    called: list[SurvivalSettings] = []
    monkeypatch.setattr(bench, "bench_survival", lambda settings, as_json: called.append(settings) or 0)
    mine = tmp_path / "mine.toml"
    mine.write_text("[drive_tick]\nqueued_follow_ups = 1\n")
    monkeypatch.chdir(tmp_path)  # a path relative to where the user stands: the daemons run from the root
    assert main(["bench", "survival", "--config", "mine.toml"]) == 0
    assert [s.config_path for s in called] == [str(mine)]
    assert SurvivalSettings().env()["MCBOT_STORAGE__URL"] == ""  # not one shared PostgreSQL store


def test_places_seen_is_none_when_the_api_does_not_answer():
    assert places_seen("http://127.0.0.1:9") is None  # discard port: nothing listens


@pytest.mark.parametrize(
    "argv",
    [
        ["--seeds", "1,x"],
        ["--game-days", "0"],
        ["--until", "emerald"],
        ["--version", "1.12.2"],
        ["--day-scale", "-1"],
        ["--terrain", "mountains"],
    ],
)
def test_bad_flags_exit_4_naming_the_flag(argv, capsys):
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(["bench", "survival", *argv])
    assert e.value.code == 4
    assert f"argument {argv[0]}" in capsys.readouterr().err


def test_flags_parse_into_the_settings():
    a = build_parser().parse_args(
        [
            "bench",
            "survival",
            "--seeds",
            "4,5",
            "--game-days",
            "1.5",
            "--until",
            "stone_pickaxe",
            "--version",
            "1.21.4,1.18.2",
            "--jobs",
            "3",
        ]
    )
    assert a.jobs == 3
    assert (a.seeds, a.game_days, a.until, a.version, a.day_scale) == (
        "4,5",
        1.5,
        "stone_pickaxe",
        "1.21.4,1.18.2",
        1.0,
    )


def test_jobs_runs_that_many_at_once_and_every_run_is_reported(monkeypatch, tmp_path):
    """--jobs 2 over 3 runs: two at once (both inside Run.run together), the third after."""
    monkeypatch.setattr(bench, "START_STAGGER_S", 0.0)
    inside, most, lock = [0], [0], threading.Lock()
    both_in = threading.Barrier(2, timeout=10)

    def fake_run(self):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        if self.seed in (1, 2):
            both_in.wait()  # fails (BrokenBarrierError) unless the two run together
        self.samples = [{"t": 0.0, "ok": True, "tasks": []}]
        self.ended = "done"
        with lock:
            inside[0] -= 1
        return True

    monkeypatch.setattr(bench.Run, "run", fake_run)
    code = bench.bench_survival(SurvivalSettings(seeds=(1, 2, 3), out=str(tmp_path), jobs=2))
    report = json.loads(next(tmp_path.glob("survival-*/report.json")).read_text())
    assert sorted(r["seed"] for r in report["runs"]) == [1, 2, 3]
    assert most[0] == 2 and code in (0, 1)


def test_a_stop_ends_a_run_between_samples(monkeypatch, tmp_path):
    stop = threading.Event()
    run = bench.Run("1.21.4", 1, SurvivalSettings(sample_s=30.0), tmp_path, lambda _line: None, stop)
    monkeypatch.setattr(bench, "sample", lambda *a, **k: {"t": 0.0, "ok": True, "tasks": []})
    monkeypatch.setattr(bench, "places_seen", lambda base: None)

    class Alive:
        returncode = None

        def poll(self):
            return None

    threading.Timer(0.2, stop.set).start()
    with (tmp_path / "s.jsonl").open("w") as out:
        # the next sample is 30 s off: only the stop ends the wait
        assert run._sample_until_done(Alive(), "http://127.0.0.1:9", time.monotonic(), None, out) == "interrupted"


def test_a_run_that_does_not_start_stops_no_other(monkeypatch, tmp_path):
    monkeypatch.setattr(bench, "START_STAGGER_S", 0.0)

    def fake_run(self):
        if self.seed == 1:
            self.ended = "daemon did not start"
            return False
        self.samples = [{"t": 0.0, "ok": True, "tasks": []}]
        self.ended = "done"
        return True

    monkeypatch.setattr(bench.Run, "run", fake_run)
    code = bench.bench_survival(SurvivalSettings(seeds=(1, 2, 3), out=str(tmp_path), jobs=3))
    report = json.loads(next(tmp_path.glob("survival-*/report.json")).read_text())
    assert code == bench.EXIT_START
    assert sorted((r["seed"], r["ended"]) for r in report["runs"]) == [(2, "done"), (3, "done")]


def test_a_night_slept_through_between_two_samples_is_no_idle_daylight():
    # 180 s of evening, the bed skips the night (12600 -> 0), then 60 s of morning: 260 s of
    # daylight, under a quarter day; the skip itself counted as 570 s of daylight before
    clock = [9_000 + 600 * k for k in range(7)] + [0, 600, 1_200]
    s = samples(len(clock), clock=lambda k: clock[k], tasks=[task("a", "active")])
    assert [w for w in run_result(s, 120.0)["wedges"] if w["kind"] == "idle"] == []
    assert day_part(12_600, 11_400) == 400 + 1_000  # the evening's last and the morning's first ticks
    assert day_part(1_000, 600) == 600
