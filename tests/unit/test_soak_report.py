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
