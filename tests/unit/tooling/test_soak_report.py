"""The soak's verdicts on crafted samples: a clean run passes, and each criterion of
docs/contracts.md SOAK-1 fails on a run that violates it (and only it), so none of them can
pass by reading a field that is always set."""

from __future__ import annotations

import copy
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from bot.tooling.daemon_run import LogTail
from bot.tooling.soak_report import evaluate
from bot.tooling.soak_sample import sample
from bot.tooling.soak_settings import FAST, cadence_ms

T0 = 1_700_000_000_000  # epoch ms of the soak's start
INTERVAL = 20_000  # the fast soak's drive-tick interval
CRITERIA = ("1", "2", "3", "4", "5", "6", "7", "8", "alive")


def _task(i, status, key, created_s, progress=0.0, source="drive-tick", thought=None, ce=True):
    return {
        "id": i,
        "status": status,
        "progress": progress,
        "source": source,
        "goalKey": key,
        "createdAt": T0 + int(created_s * 1000),
        "convertEligible": ce,
        "solver": None,
        "sourceThoughtId": thought if thought is not None else (f"th-{i}" if source != "manual" else None),
    }


def _thought(i, at_s, ce=True, system="drive-tick"):
    return {"id": f"th-{i}", "convertEligible": ce, "timestamp": T0 + int(at_s * 1000), "cognitiveSystem": system}


def _sample(t, tasks, thoughts=(), drives=3, stalled=(), mode="survival", ok=True, counters=None):
    c = {"driveTicks": drives, "goalTags": drives, "intentExtractions": 0, "llmCalls": 0}
    return {
        "t": t,
        "ok": ok,
        "health": 20,
        "gameMode": mode,
        "counters": {**c, **(counters or {})},
        "tasks": copy.deepcopy(list(tasks)),
        "stalled": list(stalled),
        "thoughts": list(thoughts),
    }


def clean_run():
    """Two minutes of a fast soak: ticks 20 s apart (each one's task created at the next
    planning poll), two tasks closed and one running, every source thought convertible."""
    ticks = [("a", "collect:oak_log", 0), ("b", "craft:crafting_table", 20.5), ("c", "explore:nearby", 41)]
    thoughts = [_thought(i, s) for i, _, s in ticks]
    done = [_task(i, "completed", k, s + 2, progress=1.0) for i, k, s in ticks[:2]]
    running = _task("c", "active", "explore:nearby", 43, progress=0.3)
    samples = [_sample(0, [], thoughts[:1], drives=1)]
    samples += [_sample(t, [*done, running], thoughts[1:] if t == 5 else ()) for t in range(5, 125, 5)]
    return samples


def judge(samples, creative=False, alive=True):
    r = evaluate(samples, creative=creative, daemon_alive_until_end=alive, drive_interval_ms=INTERVAL)
    return r, {c["id"]: c for c in r["criteria"]}


def only_failing(by_id, cid):
    assert not by_id[cid]["pass"], by_id[cid]
    others = {k: v["detail"] for k, v in by_id.items() if k != cid and not v["pass"]}
    assert not others, f"criterion {cid} violated, but also failing: {others}"


def test_a_clean_run_passes_every_criterion():
    r, by_id = judge(clean_run())
    assert r["pass"], r["criteria"]
    assert tuple(by_id) == CRITERIA
    assert "3 drive-tick tasks" in by_id["1"]["detail"] and "20.0 s" in by_id["1"]["detail"]


# -- one violation at a time --------------------------------------------------------------


def _each(samples, fn):
    for s in samples:
        fn(s)
    return samples


def _retime(samples, ticks_s):
    """Move the three drive ticks (and their tasks, a poll later) to these times."""
    for s in samples:
        for th in s["thoughts"]:
            th["timestamp"] = T0 + int(ticks_s["abc".index(th["id"][-1])] * 1000)
        for t in s["tasks"]:
            t["createdAt"] = T0 + int((ticks_s["abc".index(t["id"])] + 2) * 1000)
    return samples


def v1_no_drive_ticks(s):
    return _each(s, lambda x: x["counters"].update(driveTicks=0, goalTags=0))


def v1_ticks_faster_than_the_cadence(s):
    return _retime(s, [0, 6, 12])


def v1_ticks_never_near_the_cadence(s):
    return _retime(s, [0, 45, 90])


def v1_a_long_run_with_a_single_tick(s):
    return _each(s, lambda x: x.update(tasks=[t for t in x["tasks"] if t["id"] == "a"]))


def v2_no_drive_task_ever_claimed(s):
    def pend(x):
        x["tasks"] = [{**t, "status": "pending", "progress": 0.0} for t in x["tasks"]]
        x["tasks"].append(_task("m", "completed", "manual:job", 50, progress=1.0, source="manual"))

    return _each(s, pend)


def v3_nothing_ever_closes(s):
    return _each(s, lambda x: x.update(tasks=[{**t, "status": "active"} for t in x["tasks"]]))


def v4_two_moving_tasks_share_a_goal_key(s):
    # an LLM's thought for the goal the running drive task already pursues
    return _each(
        s,
        lambda x: x["tasks"].append(
            _task("d", "pending", "explore:nearby", 44, progress=0.1, source="thought", thought="th-c")
        ),
    )


def v5_a_stuck_task_never_recovers(s):
    stuck = _task("z", "pending", "craft:wooden_pickaxe", 15, source="thought", thought="th-c")
    for x in s:
        x["tasks"].append(stuck)
        if x["t"] >= 80:
            x["stalled"] = [{"id": "z", "stallClass": "stuck_pending"}]
    return s


def v6_counters_never_observed(s):
    return _each(s, lambda x: [x["counters"].pop("intentExtractions"), x["counters"].pop("llmCalls")])


def v6_more_intents_than_model_calls(s):
    return _each(s, lambda x: x["counters"].update(intentExtractions=4, llmCalls=2))


def v6_a_counter_goes_backwards(s):
    for x in s:
        x["counters"].update(llmCalls=5, intentExtractions=3 if x["t"] < 60 else 1)
    return s


def v7_a_task_from_a_non_convertible_thought(s):
    s[1]["thoughts"][0]["convertEligible"] = False  # the task itself still says convertEligible: true
    return s


def v7_a_source_thought_never_seen(s):
    s[1]["thoughts"] = s[1]["thoughts"][:1]
    return s


def v7_a_thought_task_without_source_thought(s):
    return _each(s, lambda x: [t.update(sourceThoughtId=None) for t in x["tasks"] if t["id"] == "b"])


def v8_a_drive_tick_while_in_creative(s):
    for x in s:
        x["gameMode"] = "creative" if 60 <= x["t"] <= 70 else "survival"
        x["counters"]["driveTicks"] += 1 if x["t"] >= 70 else 0
        x["counters"]["goalTags"] = x["counters"]["driveTicks"]
    return s


def v_alive_the_bot_wedges(s):
    return _each(s, lambda x: x.update(ok=x["t"] < 30))


VIOLATIONS = {
    "1": [
        v1_no_drive_ticks,
        v1_ticks_faster_than_the_cadence,
        v1_ticks_never_near_the_cadence,
        v1_a_long_run_with_a_single_tick,
    ],
    "2": [v2_no_drive_task_ever_claimed],
    "3": [v3_nothing_ever_closes],
    "4": [v4_two_moving_tasks_share_a_goal_key],
    "5": [v5_a_stuck_task_never_recovers],
    "6": [v6_counters_never_observed, v6_more_intents_than_model_calls, v6_a_counter_goes_backwards],
    "7": [
        v7_a_task_from_a_non_convertible_thought,
        v7_a_source_thought_never_seen,
        v7_a_thought_task_without_source_thought,
    ],
    "8": [v8_a_drive_tick_while_in_creative],
    "alive": [v_alive_the_bot_wedges],
}


@pytest.mark.parametrize(
    ("cid", "violate"), [(c, v) for c, vs in VIOLATIONS.items() for v in vs], ids=lambda x: getattr(x, "__name__", x)
)
def test_each_criterion_fails_on_a_run_that_violates_it(cid, violate):
    r, by_id = judge(violate(clean_run()))
    only_failing(by_id, cid)
    assert not r["pass"]


def test_every_criterion_has_a_violation():
    assert set(VIOLATIONS) == set(CRITERIA)


# -- creative runs (criterion 8) ----------------------------------------------------------


def _creative(drives=0, mode="creative", counters=True):
    samples = [_sample(t, [], drives=drives, mode=mode) for t in range(0, 65, 5)]
    if not counters:
        for s in samples:
            s["counters"] = {}
    return samples


def test_a_creative_run_with_no_drive_ticks_passes():
    r, _by_id = judge(_creative(), creative=True)
    assert r["pass"], r["criteria"]


@pytest.mark.parametrize(
    "run",
    [_creative(drives=1), _creative(mode="survival"), _creative(counters=False)],
    ids=["drive_ticks_fired", "bot_never_in_creative", "counters_never_read"],
)
def test_a_creative_run_fails_criterion_8_when_it_cannot_show_safety(run):
    _, by_id = judge(run, creative=True)
    assert not by_id["8"]["pass"], by_id["8"]


# -- criterion 5 reports the stall and its recovery -----------------------------------------


def _stall_then(recover_with):
    s = v5_a_stuck_task_never_recovers(clean_run())
    for x in s:
        if x["t"] >= 90:
            if recover_with == "fresh":
                x["tasks"].append(
                    _task("y", "active", "craft:wooden_pickaxe", 88, progress=0.2, source="thought", thought="th-c")
                )
            else:
                x["stalled"] = []
                x["tasks"] = [{**t, "status": "active", "progress": 0.1} if t["id"] == "z" else t for t in x["tasks"]]
    return s


@pytest.mark.parametrize(("how", "by"), [("fresh", "y"), ("itself", "z")])
def test_a_recovered_stall_passes_and_says_which_stall_and_when(how, by):
    r, by_id = judge(_stall_then(how))
    assert by_id["5"]["pass"], by_id["5"]
    [stall] = r["stalls"]
    assert stall == {
        "id": "z",
        "goalKey": "craft:wooden_pickaxe",
        "stallClass": "stuck_pending",
        "stalledAt": 80,
        "recovered": True,
        "recoveredAt": 90,
        "by": by,
    }
    assert "z craft:wooden_pickaxe stuck_pending at 80 s: recovered at 90 s" in by_id["5"]["detail"]


def test_a_stall_too_close_to_the_end_is_reported_not_judged():
    s = clean_run()
    for x in s:
        x["tasks"].append(_task("z", "pending", "craft:wooden_pickaxe", 30, source="thought", thought="th-c"))
        if x["t"] >= 100:  # too close to the end for the next drive tick to have come
            x["stalled"] = [{"id": "z", "stallClass": "stuck_pending"}]
    r, by_id = judge(s)
    assert by_id["5"]["pass"] and "not yet due" in by_id["5"]["detail"]
    assert r["stalls"][0]["recovered"] is False


def test_no_stall_says_recovery_was_not_exercised():
    assert judge(clean_run())[1]["5"]["detail"] == "no task stalled (recovery not exercised)"


def test_a_huts_follow_ups_queued_as_a_second_task_of_its_tick_are_not_a_second_tick():
    """agency/execution/after_goal.py: the task shares the hut's source thought."""
    samples = clean_run()
    for s in samples[1:]:
        s["tasks"].append(_task("b2", "active", "craft:wooden_pickaxe", 30, thought="th-b"))
    r, by_id = judge(samples)
    assert r["pass"], by_id["1"]
    assert "3 drive-tick tasks, gaps [20.5, 20.5]" in by_id["1"]["detail"]


# -- the cadence scale follows the fast soak's drive-tick interval ---------------------------


def test_the_expected_cadence_is_the_specs_3_minutes_scaled_like_the_fast_soak():
    assert cadence_ms(fast=False) == 180_000
    assert cadence_ms(fast=True) == int(FAST["MCBOT_DRIVE_TICK__INTERVAL_MS"]) == INTERVAL


# -- shelters: informational ------------------------------------------------------------------


def _shelter(i, status, passes=2, done=True, reason=None):
    t = _task(i, status, f"build:basic_shelter@{i}", 50, source="thought", thought="th-c")  # one key each
    t["failureReason"] = reason
    t["goal"] = {
        "goalType": "build_shelter",
        "consecutivePasses": passes,
        "lastVerifiedAt": 1,
        "done": done,
        "blockers": [],
        "anchored": True,
    }
    return t


def _clock(sample, tod):
    return {**sample, "timeOfDay": tod, "isDay": not 13_000 <= tod < 23_000}


def test_shelters_count_verified_at_night_day_unverified_and_failed():
    base = clean_run()
    extra = {
        60: ([_shelter("day", "active"), _shelter("night", "active")], 6000),
        65: (
            [_shelter("day", "completed"), _shelter("night", "active"), _shelter("once", "completed", passes=1)],
            6500,
        ),
        70: ([_shelter("night", "completed"), _shelter("bad", "failed", passes=0, done=None, reason="no wood")], 14000),
        75: ([_shelter("bad2", "failed", passes=0, done=None, reason="no wood")], 15000),
    }
    samples = [
        _clock({**s, "tasks": s["tasks"] + extra[s["t"]][0]}, extra[s["t"]][1]) if s["t"] in extra else s for s in base
    ]
    r, _ = judge(samples)
    sh = r["shelters"]
    assert (sh["built"], sh["verified"], sh["atNight"], sh["failed"]) == (3, 2, 1, 2)
    assert sh["failureReasons"] == ["no wood"] and sh["nightSamples"] == 2
    items = {i["id"]: i for i in sh["items"]}
    assert items["night"]["firstCompletedAt"] == 70 and items["night"]["timeOfDay"] == 14000
    assert items["day"]["verified"] and not items["day"]["atNight"]
    assert not items["once"]["verified"] and items["once"]["passes"] == 1
    assert r["pass"], r["criteria"]  # informational: shelters never change the verdict


def test_a_shelter_finished_at_dusk_counts_at_night():
    samples = clean_run()
    samples[-1] = _clock({**samples[-1], "tasks": samples[-1]["tasks"] + [_shelter("s1", "completed")]}, 11_500)
    sh = judge(samples)[0]["shelters"]
    assert sh["atNight"] == 1 and sh["nightSamples"] == 1


def test_old_samples_without_clock_goal_or_thought_fields_do_not_crash():
    old = clean_run()
    for s in old:
        del s["thoughts"]
    r, by_id = judge(old)
    assert r["shelters"]["items"] == [] and not by_id["7"]["pass"]  # source thoughts unknown: not verified
    legacy = _shelter("b", "completed")
    del legacy["failureReason"]
    samples = clean_run()
    samples[-1]["tasks"].append(legacy)
    sh = judge(samples)[0]["shelters"]
    assert (sh["verified"], sh["atNight"], sh["items"][0]["timeOfDay"]) == (1, 0, None)


# -- sampling the daemon's HTTP API ------------------------------------------------------------


class _Api(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, object]] = {}  # set by each test before it serves

    def do_GET(self):  # the method name http.server calls
        body = self.routes.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(body if body is not None else {"error": "not_found"}).encode())

    def log_message(self, *_args):
        pass


@pytest.fixture
def api():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield _Api.routes, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    _Api.routes.clear()


def test_a_sample_reads_source_thought_ids_and_each_thought_once(api):
    routes, base = api
    task = {
        "id": "t1",
        "status": "active",
        "progress": 0.2,
        "source": "drive-tick",
        "metadata": {
            "goalKey": "collect:oak_log",
            "createdAt": T0,
            "convertEligible": True,
            "sourceThoughtId": "th-1",
            "origin": {"kind": "drive-tick", "sourceId": "th-1"},
        },
    }
    goal_task = {
        "id": "t2",
        "status": "pending",
        "source": "drive-tick",
        "metadata": {
            "goalKey": "build:basic_shelter",
            "createdAt": T0,
            "origin": {"kind": "drive-tick", "sourceId": "th-2"},
        },
    }
    thoughts = [
        {"id": "th-2", "convertEligible": False, "timestamp": T0 + 5, "cognitiveSystem": "keepalive", "content": "..."},
        {"id": "th-1", "convertEligible": True, "timestamp": T0, "cognitiveSystem": "drive-tick", "content": "..."},
    ]
    routes.update(
        {
            "/healthz": {"ok": True},
            "/api/agency/counters": {"driveTicks": 1},
            "/api/bot/snapshot": {"health": 20, "gameMode": "survival", "timeOfDay": 100, "isDay": True},
            "/api/tasks?limit=1000": {"tasks": [task, goal_task]},
            "/api/tasks?stalled=true&limit=1000": {"tasks": []},
            "/api/cognitive-stream/recent?limit=500": {"thoughts": thoughts},
        }
    )
    seen: set[str] = set()
    first = sample(base, 0.0, seen)
    assert [t["sourceThoughtId"] for t in first["tasks"]] == ["th-1", "th-2"]  # origin.sourceId when metadata lacks it
    assert first["thoughts"] == [
        {"id": "th-2", "convertEligible": False, "timestamp": T0 + 5, "cognitiveSystem": "keepalive"},
        {"id": "th-1", "convertEligible": True, "timestamp": T0, "cognitiveSystem": "drive-tick"},
    ]
    assert sample(base, 0.0, seen)["thoughts"] == []  # already recorded: the report merges all samples


def test_a_sample_reads_position_inventory_and_the_deaths_logged_since_the_last(api, tmp_path):
    routes, base = api
    routes.update(
        {
            "/healthz": {"ok": True},
            "/api/agency/counters": {},
            "/api/tasks?limit=1000": {"tasks": []},
            "/api/tasks?stalled=true&limit=1000": {"tasks": []},
            "/api/cognitive-stream/recent?limit=500": {"thoughts": []},
            "/api/bot/snapshot": {
                "health": 20,
                "gameMode": "survival",
                "timeOfDay": 100,
                "isDay": True,
                "position": {"x": 1.234, "y": 64.0, "z": -7.66},
                "inventory": [
                    {"name": "oak_log", "count": 3, "slot": 36},
                    {"name": "oak_log", "count": 2, "slot": 37},
                    {"name": "wooden_pickaxe", "count": 1, "slot": 38},
                ],
            },
        }
    )
    log = tmp_path / "daemon.log"
    log.write_text("12:00:21.522 | WARNING | [Reflex] death recorded (total 1) cause=zombie at {'x': 1}\n")
    tail = LogTail(log)
    hold = "a reflex is acting (a threat, hunger or the night)"
    routes["/api/bots"] = {"count": 1, "bots": [{"name": "bot", "reflexHold": hold, "reflexActing": True}]}
    s = sample(base, 0.0, set(), daemon_log=tail)
    assert (s["reflexHold"], s["reflexActing"]) == (hold, True)
    assert s["position"] == {"x": 1.2, "y": 64.0, "z": -7.7}
    assert s["inventory"] == {"oak_log": 5, "wooden_pickaxe": 1}
    assert (s["deathsRead"], s["deaths"]) == (True, [{"cause": "zombie"}])
    again = sample(base, 0.0, set(), daemon_log=tail)
    assert (again["deathsRead"], again["deaths"]) == (True, [])  # each death once
    del routes["/api/bot/snapshot"]  # the bot is away: nothing read, not an empty inventory
    del routes["/api/bots"]  # unread: no reflex said to hold the body
    away = sample(base, 0.0, set())
    assert (away["position"], away["inventory"], away["reflexHold"], away["reflexActing"]) == (None, None, None, False)
    assert "deathsRead" not in away
