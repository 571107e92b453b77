"""The soak's verdicts on crafted samples: each criterion can fail."""

from bot.soak_report import evaluate


def _s(t, drives=1, tasks=(), stalled=(), ok=True, intents=0, llm=0):
    return {"t": t, "ok": ok, "health": 20, "counters": {"driveTicks": drives, "goalTags": drives,
            "intentExtractions": intents, "llmCalls": llm}, "tasks": list(tasks), "stalled": list(stalled)}


def _task(i, status, key="collect:oak_log", progress=0.0, created=0, ce=True):
    return {"id": i, "status": status, "progress": progress, "source": "drive-tick", "goalKey": key,
            "createdAt": created, "convertEligible": ce, "solver": None}


def _by_id(report):
    return {c["id"]: c for c in report["criteria"]}


def test_a_healthy_run_passes_every_criterion():
    r = evaluate([_s(0), _s(30, tasks=[_task("a", "completed", progress=1.0)])], creative=False, daemon_alive_until_end=True)
    assert r["pass"], r["criteria"]


def test_no_drive_ticks_no_claims_no_closure_fail():
    r = _by_id(evaluate([_s(0, drives=0, tasks=[_task("a", "pending")])], creative=False, daemon_alive_until_end=True))
    assert not r["1"]["pass"] and not r["2"]["pass"] and not r["3"]["pass"]


def test_two_moving_tasks_with_one_goalKey_fail_idempotency():
    tasks = [_task("a", "active"), _task("b", "pending", progress=0.2)]
    assert not _by_id(evaluate([_s(0, tasks=tasks)], creative=False, daemon_alive_until_end=True))["4"]["pass"]


def test_a_stalled_task_without_a_fresh_one_fails_recovery_and_with_one_passes():
    stuck = _task("a", "pending", created=1)
    bad = evaluate([_s(0, tasks=[stuck], stalled=[{"id": "a", "stallClass": "stuck_pending"}])], creative=False,
                   daemon_alive_until_end=True)
    assert not _by_id(bad)["5"]["pass"]
    good = evaluate([_s(0, tasks=[stuck, _task("b", "active", created=2)], stalled=[{"id": "a", "stallClass": "stuck_pending"}])],
                    creative=False, daemon_alive_until_end=True)
    assert _by_id(good)["5"]["pass"] and good["stallClasses"] == {"stuck_pending": 1}


def test_a_task_from_a_non_convertible_thought_fails_criterion_7():
    r = evaluate([_s(0, tasks=[_task("a", "completed", ce=False)])], creative=False, daemon_alive_until_end=True)
    assert not _by_id(r)["7"]["pass"]


def test_creative_run_fails_when_drive_ticks_fired():
    assert not _by_id(evaluate([_s(0, drives=1)], creative=True, daemon_alive_until_end=True))["8"]["pass"]
    assert evaluate([_s(0, drives=0)], creative=True, daemon_alive_until_end=True)["pass"]


def test_a_wedged_bot_fails_alive():
    r = evaluate([_s(0, ok=False), _s(30, ok=False)], creative=False, daemon_alive_until_end=True)
    assert not _by_id(r)["alive"]["pass"]


def _shelter(i, status, passes=2, done=True, reason=None):
    t = _task(i, status, key=f"build:basic_shelter@{i}")  # one key each: no duplicate live goalKey
    t["failureReason"] = reason
    t["goal"] = {"goalType": "build_shelter", "consecutivePasses": passes, "lastVerifiedAt": 1, "done": done,
                 "blockers": [], "anchored": True}
    return t


def _clock(sample, tod):
    return {**sample, "timeOfDay": tod, "isDay": not 13_000 <= tod < 23_000}


def test_shelters_count_verified_at_night_day_unverified_and_failed():
    samples = [
        _clock(_s(0, tasks=[_shelter("day", "active"), _shelter("night", "active")]), 6000),
        _clock(_s(30, tasks=[_shelter("day", "completed"), _shelter("night", "active"),
                             _shelter("once", "completed", passes=1)]), 6500),
        _clock(_s(60, tasks=[_shelter("night", "completed"),
                             _shelter("bad", "failed", passes=0, done=None, reason="no wood")]), 14000),
        _clock(_s(90, tasks=[_shelter("bad2", "failed", passes=0, done=None, reason="no wood")]), 15000),
    ]
    r = evaluate(samples, creative=False, daemon_alive_until_end=True)
    sh = r["shelters"]
    assert (sh["built"], sh["verified"], sh["atNight"], sh["failed"]) == (3, 2, 1, 2)
    assert sh["failureReasons"] == ["no wood"] and sh["nightSamples"] == 2
    items = {i["id"]: i for i in sh["items"]}
    assert items["night"]["firstCompletedAt"] == 60 and items["night"]["timeOfDay"] == 14000
    assert items["day"]["verified"] and not items["day"]["atNight"]
    assert not items["once"]["verified"] and items["once"]["passes"] == 1
    assert r["pass"], r["criteria"]  # informational: shelters never change the verdict


def test_a_shelter_finished_at_dusk_counts_at_night():
    sh = evaluate([_clock(_s(0, tasks=[_shelter("a", "completed")]), 11_500)], creative=False,
                  daemon_alive_until_end=True)["shelters"]
    assert sh["atNight"] == 1 and sh["nightSamples"] == 1


def test_old_samples_without_clock_or_goal_fields_do_not_crash():
    r = evaluate([_s(0, tasks=[_task("a", "completed", key="build:basic_shelter")])], creative=False,
                 daemon_alive_until_end=True)
    assert r["shelters"] == {"built": 0, "verified": 0, "atNight": 0, "failed": 0, "failureReasons": [],
                             "nightSamples": 0, "items": []}
    old = _shelter("b", "completed")
    del old["failureReason"]
    sh = evaluate([_s(0, tasks=[old])], creative=False, daemon_alive_until_end=True)["shelters"]
    assert (sh["verified"], sh["atNight"], sh["items"][0]["timeOfDay"]) == (1, 0, None)
