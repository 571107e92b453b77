"""The chaos soak's verdict on crafted samples: a run whose faults cost nothing passes, and
each kind of loss (a task failed by a fault or vanished, an acked thought gone or
unprocessed, a duplicate live goal key, an orphan process, a slow recovery) makes it FAIL."""

from __future__ import annotations

import copy

import pytest

from bot.tooling.soak import CounterCarry, prune_results
from bot.tooling.soak_chaos import INTERVALS_S, QUIET_END_S, Chaos
from bot.tooling.soak_chaos_verdict import FAULT_WINDOW_S, evaluate_chaos


def _task(i, status, key, reason=None, progress=0.0):
    return {
        "id": i,
        "status": status,
        "progress": progress,
        "source": "drive-tick",
        "goalKey": key,
        "failureReason": reason,
    }


def _sample(t, tasks, processed, reachable=True, full=False):
    return {
        "t": t,
        "ok": reachable,
        "reachable": reachable,
        "tasks": copy.deepcopy(tasks),
        "stalled": [],
        "thoughts": [],
        "processed": [list(p) for p in processed],
        "processedFull": full,
    }


FAULTS = [
    {"kind": "bridge", "t": 30.0, "recoveryS": 2.1},
    {"kind": "world", "t": 60.0, "recoveryS": 12.0},
    {"kind": "daemon", "t": 90.0, "recoveryS": 8.5},
]


def clean():
    """Two minutes, three faults: a task paused across the bridge death and completed, an
    earlier task that failed on its own merits long before any fault, thoughts acked and kept."""
    a = _task("a", "active", "collect:oak_log", progress=0.2)
    old = _task("old", "failed", "craft:stick", reason="no recipe")
    samples = []
    for t in range(0, 125, 5):
        status = "paused" if 30 <= t < 40 else "completed" if t >= 100 else "active"
        reachable = not (90 <= t < 100)  # the daemon was down (killed, restarting)
        processed = [("th-1", 1000)] + ([("th-2", 2000)] if t >= 50 else [])
        samples.append(_sample(t, [old, {**a, "status": status}], processed, reachable))
    return samples


def judge(samples, faults=FAULTS, orphans=()):
    r = evaluate_chaos(samples, copy.deepcopy(faults), list(orphans))
    return r, {c["id"]: c for c in r["criteria"]}


def only_failing(by_id, cid):
    assert not by_id[cid]["pass"], by_id[cid]
    assert [k for k, c in by_id.items() if not c["pass"]] == [cid], by_id


def test_a_chaos_run_that_loses_nothing_passes():
    r, _by_id = judge(clean())
    assert r["pass"], r["criteria"]
    assert r["faultsByKind"] == {"bridge": 1, "world": 1, "daemon": 1}
    assert r["recovery"]["world"]["p50S"] == 12.0 and r["recovery"]["bridge"]["maxS"] == 2.1
    assert r["tasksLost"] == [] and r["thoughtsLost"] == [] and r["orphans"] == []


def _set(samples, since, tid, **fields):
    for s in samples:
        if s["t"] >= since:
            for t in s["tasks"]:
                if t["id"] == tid:
                    t.update(fields)
    return samples


@pytest.mark.parametrize(
    "reason", ["EXECUTION_ERROR: BridgeDead: node process exited (code -9)", "bot disconnected", "the bot died"]
)
def test_a_task_failed_with_a_fault_reason_is_lost(reason):
    r, by_id = judge(_set(clean(), 35, "a", status="failed", failureReason=reason))
    only_failing(by_id, "C2")
    assert r["tasksLost"][0]["id"] == "a" and r["tasksLost"][0]["how"] == "failed"


def test_a_task_failed_soon_after_a_fault_is_lost_whatever_its_reason():
    r, by_id = judge(_set(clean(), 60 + FAULT_WINDOW_S - 5, "a", status="failed", failureReason="path blocked"))
    only_failing(by_id, "C2")
    assert r["tasksLost"][0]["fault"] == "world"


def test_a_task_failed_long_after_every_fault_on_its_own_merits_is_not_lost():
    r, _ = judge(
        _set(clean(), 60 + FAULT_WINDOW_S + 15, "a", status="failed", failureReason="path blocked"), faults=FAULTS[:2]
    )
    assert r["pass"], r["criteria"]


def _superseded_after_the_world_fault(successor_seen):
    """Task a, pending with no progress, is superseded by its goal's retry b soon after the
    world fault; b is in the samples or not."""
    samples = clean()
    reason = "superseded by b: pending 65 s with no progress"
    _set(samples, 0, "a", status="pending", progress=0.0)
    _set(samples, 60 + FAULT_WINDOW_S - 5, "a", status="failed", blockedReason=reason)
    if successor_seen:
        for s in samples:
            if s["t"] >= 60 + FAULT_WINDOW_S - 5:
                s["tasks"].append(_task("b", "completed" if s["t"] >= 100 else "active", "collect:oak_log"))
    return samples


def test_a_task_superseded_by_its_goals_retry_is_not_lost_when_the_retry_is_there():
    r, _ = judge(_superseded_after_the_world_fault(successor_seen=True))
    assert r["pass"], r["criteria"]
    assert r["tasksLost"] == []


def test_a_task_superseded_by_a_retry_never_seen_is_lost():
    r, by_id = judge(_superseded_after_the_world_fault(successor_seen=False))
    only_failing(by_id, "C2")
    assert r["tasksLost"][0]["id"] == "a" and r["tasksLost"][0]["how"] == "failed"


def test_a_task_that_vanished_between_samples_is_lost():
    samples = clean()
    for s in samples:
        if s["t"] >= 100:
            s["tasks"] = [t for t in s["tasks"] if t["id"] != "a"]
    r, by_id = judge(samples)
    only_failing(by_id, "C2")
    assert r["tasksLost"] == [{"id": "a", "how": "vanished", "detail": "seen at t=85s, gone at t=100s"}]


def test_an_unreachable_sample_does_not_count_as_vanished():
    samples = clean()
    for s in samples:
        if not s["reachable"]:
            s["tasks"], s["processed"] = [], []
    assert judge(samples)[0]["pass"]


def test_an_acked_thought_that_vanished_or_became_unprocessed_is_lost():
    samples = clean()
    for s in samples:
        if s["t"] >= 100:
            s["processed"] = [p for p in s["processed"] if p[0] != "th-2"]
    r, by_id = judge(samples)
    only_failing(by_id, "C3")
    assert r["thoughtsLost"][0]["id"] == "th-2"


def test_a_full_page_judges_only_the_thoughts_it_covers():
    samples = clean()
    for s in samples:
        if s["t"] >= 100:  # a full page of newer thoughts: th-1 fell off the page, not out of the store
            s["processed"], s["processedFull"] = [["th-2", 2000], ["th-3", 3000]], True
    assert judge(samples)[0]["pass"]


def test_a_duplicate_live_goal_key_fails():
    samples = clean()
    for s in samples:
        if s["t"] >= 70:  # a second task for the goal moving alongside the first, later closed
            s["tasks"].append(_task("a2", "active" if s["t"] < 90 else "completed", "collect:oak_log", progress=0.1))
    only_failing(judge(samples)[1], "C4")


def test_an_orphan_process_fails():
    _r, by_id = judge(clean(), orphans=["node server.js (pid 4242)"])
    only_failing(by_id, "C5")


@pytest.mark.parametrize(
    "fault", [{"kind": "bridge", "t": 30.0, "recoveryS": 11.0}, {"kind": "world", "t": 60.0, "recoveryS": None}]
)
def test_a_fault_not_recovered_within_its_bound_fails(fault):
    faults = [f if f["kind"] != fault["kind"] else fault for f in FAULTS]
    only_failing(judge(clean(), faults=faults)[1], "C1")


def test_with_recovery_times_as_figures_a_slow_recovery_passes_and_an_unrecovered_fault_still_fails():
    slow = [f if f["kind"] != "bridge" else {**f, "recoveryS": 12.2} for f in FAULTS]
    r = evaluate_chaos(clean(), slow, [], judge_times=False)
    c1 = next(c for c in r["criteria"] if c["id"] == "C1")
    assert r["pass"] and c1["pass"], c1
    assert "12.2" in c1["detail"] and "not judged" in c1["detail"]  # the figure is still printed
    gone = [f if f["kind"] != "world" else {**f, "recoveryS": None} for f in FAULTS]
    r = evaluate_chaos(clean(), gone, [], judge_times=False)
    assert [c["id"] for c in r["criteria"] if not c["pass"]] == ["C1"]


# -- the harness's schedule and the results cap ---------------------------------------------


def test_the_chaos_schedule_is_seeded_bounded_and_sees_every_kind():
    def make(seed, embedded=True):
        return Chaos(
            seed=seed, fast=True, embedded=embedded, base="http://127.0.0.1:1", restart=None, say=lambda _: None
        )

    a, b = make(7), make(7)
    kinds = [a.next_kind() for _ in range(6)]
    assert kinds == [b.next_kind() for _ in range(6)]  # the printed seed replays the run
    assert sorted(kinds[:3]) == sorted(kinds[3:]) == ["bridge", "daemon", "world"]
    lo, hi = INTERVALS_S["fast"]
    for now in range(0, 1000, 37):
        a.schedule(now, deadline=10_000)
        assert now + lo <= a.next_at <= now + hi
    a.schedule(1000, deadline=1000 + QUIET_END_S + lo - 1)  # too close to the end: no fault
    assert a.next_at is None
    other = make(7, embedded=False)  # another's server: mcbot cannot kill (or restart) it
    assert {other.next_kind() for _ in range(4)} == {"bridge", "daemon"}


def test_soak_results_keep_only_the_newest_runs(tmp_path):
    stamps = [f"20261123-0{h}0000" for h in range(5)]
    for st in stamps:
        for suffix in (".log", "-report.json", ".db", ".db-wal", "-daemon.log"):
            (tmp_path / f"soak-{st}{suffix}").write_text("x")
        (tmp_path / f"soak-{st}-world").mkdir()
        (tmp_path / f"soak-{st}-world" / "level.dat").write_text("x")
    (tmp_path / "report.json").write_text("{}")  # the latest copies stay
    assert prune_results(tmp_path, keep=2) == stamps[:3]
    left = sorted(p.name for p in tmp_path.iterdir())
    assert "report.json" in left
    assert {n[5:20] for n in left if n.startswith("soak-")} == set(stamps[3:])
    assert len(left) == 1 + 2 * 6


def test_two_soaks_started_in_the_same_second_keep_their_files_apart(tmp_path):
    stamps = ["20261123-010000-p11", "20261123-010000-p12", "20261123-020000-p13"]
    for st in stamps:
        (tmp_path / f"soak-{st}.log").write_text("x")
        (tmp_path / f"soak-{st}-world").mkdir()
    assert prune_results(tmp_path, keep=2) == stamps[:1]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "soak-20261123-010000-p12-world",
        "soak-20261123-010000-p12.log",
        "soak-20261123-020000-p13-world",
        "soak-20261123-020000-p13.log",
    ]


def test_counters_stay_cumulative_across_a_daemon_restart():
    carry = CounterCarry()
    seen = [
        carry(c)
        for c in (
            {"driveTicks": 3, "llmCalls": 1},
            {"driveTicks": 4, "llmCalls": 1},
            {},
            {"driveTicks": 0, "llmCalls": 0},
            {"driveTicks": 2, "llmCalls": 1},
        )
    ]
    assert [c.get("driveTicks") for c in seen] == [3, 4, None, 4, 6]  # the restart counted from 0 again
    assert seen[-1]["llmCalls"] == 2
