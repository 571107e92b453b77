"""docs/contracts.md EVAL-3..7 and PROPERTY-1..3 over the scripted provider: log lines,
artifacts, metrics on crafted outputs, both modes, and a PASS that never requires action."""

from __future__ import annotations

import json

import pytest

from agency.eval.metrics import compute_metrics
from agency.llm.testing import fail
from agency.stats import percentile
from tests.unit.eval.conftest import by_position, lines, run_cli, scenario, write_suite

QUIET = "The meadow is quiet and I feel rested.\nINTENT: none"


def run(llm, tmp_path, rows, replies, *extra, run_id="r"):
    llm.default = by_position(replies)
    suite = write_suite(tmp_path / "suite.jsonl", rows)
    code = run_cli(llm, ["--suite", str(suite), "--run-id", run_id, "--out-dir", str(tmp_path / "out"), *extra])
    profile = extra[extra.index("--profile") + 1] if "--profile" in extra else "balanced"
    out = tmp_path / "out" / "suite" / profile / run_id
    return code, out, json.loads((out / "summary.json").read_text())


def test_ev_c3_scenario_run_line_per_scenario_with_profile_counts_and_seed(llm, logs, tmp_path):
    rows = [
        scenario(1, memory=["Earlier I saw a cow.", "The sun rose."]),
        scenario(2, world={"food": 15}, deltas={"previous": {"food": 19}}, memory=["x"]),
    ]
    for profile, expect in (
        ("balanced", {"sc-01": (8, 2, 0), "sc-02": (8, 1, 1)}),
        ("rich", {"sc-01": (9, 2, 0), "sc-02": (9, 1, 1)}),
        ("minimal", {"sc-01": (4, 0, 0), "sc-02": (4, 0, 0)}),
    ):
        logs.clear()
        run(llm, tmp_path, rows, {}, "--profile", profile, "--seed", "7", run_id=profile)
        got = sorted(lines(logs, "[Eval] scenario_run"))
        assert got == [
            f"[Eval] scenario_run id={sid} profile={profile} facts={f} memories={m} deltas={d} seed=7"
            for sid, (f, m, d) in sorted(expect.items())
        ]


def test_ev_c4_artifacts_hold_every_listed_field(llm, logs, tmp_path):
    rows = [scenario(1, world={"inventory": {"oak_log": 2}}), scenario(2)]
    code, out, summary = run(llm, tmp_path, rows, {1: "Logs in my pack. [GOAL: craft oak_planks 4]\nINTENT: craft"})
    assert code == 0
    assert sorted(p.name for p in (out / "scenarios").iterdir()) == ["sc-01.json", "sc-02.json"]
    rec = json.loads((out / "scenarios" / "sc-01.json").read_text())
    assert rec["scenario"]["id"] == "sc-01" and rec["scenario"]["version"] == 1 and len(rec["scenario"]["hash"]) == 64
    assert rec["frame"]["kind"] == "factual_only" and "inventory: oak_log x2" in rec["frame"]["text"]
    assert rec["prompt"]["user"].endswith(rec["frame"]["text"])  # the exact rendered frame was sent
    assert rec["model"]["target"] == "openai/scripted-1" and rec["model"]["actual_model"] == "scripted-1"
    assert rec["output"]["raw"].startswith("Logs in my pack.") and rec["output"]["text"] == "Logs in my pack."
    assert rec["extractedGoal"] == {"action": "craft", "target": "oak_planks", "amount": 4}
    assert rec["grounding"]["decision"] == "pass" and rec["grounding"]["detail"]
    assert rec["convertEligible"] == {"value": True, "reason": "goal_passed", "routable": True}
    assert rec["timestamps"]["started_ms"] <= rec["timestamps"]["finished_ms"]
    assert rec["timestamps"]["started_at"].endswith("+00:00") and rec["latency_ms"] >= 0
    model = summary["model"]
    assert model["ids"] == ["openai/scripted-1"] and "api_key" not in json.dumps(model)
    assert model["targets"][0]["sampling"]["max_output_tokens"] <= 512
    for key in ("suite", "profile", "mode", "seed", "run_id", "suite_sha256", "metrics", "verdict", "counters"):
        assert key in summary
    assert summary["counters"]["llmCalls"] == 2 and summary["counters"]["goalTags"] == 1
    other = json.loads((out / "scenarios" / "sc-02.json").read_text())
    assert other["extractedGoal"] is None and other["convertEligible"]["reason"] == "no_goal"


def test_ev_c5_metrics_on_crafted_outputs(llm, logs, tmp_path):
    rows = [
        scenario(1),  # hallucinated item: claims bread it does not hold
        scenario(2),  # hallucinated entity
        scenario(3),  # repeated thought (same as 4, case/space folded)
        scenario(4),
        scenario(5),  # acting in a low-stimulus scene: compulsion
        scenario(6, stimulus="high", world={"entities": [{"name": "zombie", "distance": 4}]}),  # acting under threat
        scenario(7),  # goal at a location the frame does not show
    ]
    replies = {
        1: "I have bread in my pack.\nINTENT: food",
        2: "A zombie is lurking right behind me.\nINTENT: none",
        3: "Nothing moves out here.\nINTENT: none",
        4: "nothing   moves out here\nINTENT: none",
        5: "Plenty of daylight left. [GOAL: explore nearby]\nINTENT: explore",
        6: "That zombie is close. [GOAL: flee zombie]\nINTENT: none",
        7: "I remember a village. [GOAL: navigate village]\nINTENT: navigate",
    }
    code, _out, summary = run(llm, tmp_path, rows, replies)
    m = summary["metrics"]
    assert m["action_rate"] == pytest.approx(3 / 7)  # goals extracted: 5, 6, 7
    assert m["hallucination_count"] == {"missing_entity": 1, "missing_item": 1, "missing_location": 1, "total": 3}
    assert m["grounding_pass_rate"] == pytest.approx(4 / 7)
    assert m["repeated_scenarios"] == ["sc-04"] and m["repetition_rate"] == pytest.approx(1 / 7)
    assert m["low_stimulus_scenarios"] == 6 and m["compulsion_count"] == 2  # sc-05 and sc-07 acted while calm
    assert m["compulsion_proxy"] == pytest.approx(2 / 6)
    assert m["latency_p95_ms"] >= m["latency_p50_ms"] > 0
    assert lines(logs, "[Eval] summary") == [
        f"[Eval] summary action_rate={3 / 7:.3f} grounding_pass_rate={4 / 7:.3f} repetition_rate={1 / 7:.3f} "
        f"compulsion_proxy={2 / 6:.3f} latency_p95_ms={int(m['latency_p95_ms'])}"
    ]
    assert code == 1  # hallucinations break the no_hallucination property


def test_ev_c5_latency_percentiles_nearest_rank():
    assert compute_metrics([])["latency_p95_ms"] == 0.0 and compute_metrics([])["latency_p50_ms"] == 0.0
    assert percentile([10, 20, 30, 40], 0.5) == 20 and percentile(list(range(1, 101)), 0.95) == 95


def test_ev_c6_thought_only_mode(llm, logs, tmp_path):
    code, _out, summary = run(llm, tmp_path, [scenario(1)], {}, "--mode", "thought_only")
    assert code == 0 and "[Eval] mode=thought_only" in logs
    assert summary["mode"] == "thought_only" and summary["planning"] is None
    assert not lines(logs, "[Thought-to-task]")  # no planning at all


def test_ev_c6_end_to_end_planning_acks_and_creates_tasks(llm, logs, tmp_path):
    rows = [scenario(1, world={"inventory": {"oak_log": 3}}), scenario(2), scenario(3)]
    replies = {
        1: "Three logs. [GOAL: craft oak_planks 4]\nINTENT: craft",
        3: "I will collect the diamonds here. [GOAL: collect diamond 3]\nINTENT: mine",
    }
    code, out, summary = run(llm, tmp_path, rows, replies, "--mode", "end_to_end")
    assert "[Eval] mode=end_to_end planning_ack=true" in logs
    assert summary["planning"] == {
        "fetched": 1,
        "acked": 1,
        "converted": 1,
        "skipped": 0,
        "errors": 0,
        "tasks_created": 1,
    }
    assert lines(logs, "[Eval] planning") == [
        "[Eval] planning fetched=1 acked=1 converted=1 skipped=0 errors=0 tasks_created=1"
    ]
    recs = {p.stem: json.loads(p.read_text()) for p in (out / "scenarios").iterdir()}
    assert recs["sc-01"]["planning"]["tasks"][0]["goalKey"] == "craft:oak_planks"
    assert recs["sc-01"]["planning"]["thought_processed"] is True
    for sid in ("sc-02", "sc-03"):  # no goal / ungrounded goal: nothing reaches planning
        assert recs[sid]["planning"]["tasks_created"] == 0 and recs[sid]["planning"]["fetched"] == 0
    assert "[CognitiveStream] Acked 1/1 thoughts" in logs
    assert code == 1  # sc-03's diamonds are a hallucination: FAIL, but planning stayed clean


def test_ev_c7_pass_with_action_rate_zero(llm, logs, tmp_path):
    rows = [scenario(i, expect={"no_compulsion": True}) for i in range(1, 6)]
    code, _out, summary = run(llm, tmp_path, rows, {i: f"{QUIET} {i}" for i in range(1, 6)})
    assert code == 0 and summary["metrics"]["action_rate"] == 0
    assert "[Eval] PASS properties_satisfied=true action_rate_may_be_zero=true" in logs
    assert summary["verdict"] == "PASS" and summary["action_rate_may_be_zero"] is True


def test_ev_c7_fail_line_and_nonzero_exit_when_a_property_fails(llm, logs, tmp_path):
    rows = [scenario(1, expect={"no_compulsion": True}), scenario(2)]
    code, _, summary = run(llm, tmp_path, rows, {1: "Bored. [GOAL: explore nearby]\nINTENT: explore"})
    assert code == 1 and summary["verdict"] == "FAIL"
    assert summary["failed"] == [{"scenario": "sc-01", "properties": ["no_compulsion"]}]
    assert "[Eval] FAIL properties_satisfied=false failed_scenarios=1 first=sc-01:no_compulsion" in logs
    assert not lines(logs, "[Eval] PASS")


def test_ev_c7_unreachable_model_is_not_a_pass(llm, logs, tmp_path):
    llm.default = lambda req: fail(500)
    suite = write_suite(tmp_path / "suite.jsonl", [scenario(1)])
    assert run_cli(llm, ["--suite", str(suite), "--out-dir", str(tmp_path / "out")]) == 1
    assert lines(logs, "[Eval] FAIL") and not lines(logs, "[Eval] PASS")


def test_pa_d1_fabricated_state_logs_grounding_fail_with_scenario_id(llm, logs, tmp_path):
    rows = [scenario(1, "fab-item"), scenario(2, "fab-entity"), scenario(3, "fab-place")]
    run(
        llm,
        tmp_path,
        rows,
        {
            1: "I am holding a torch.\nINTENT: none",
            2: "Two creepers hiss nearby.\nINTENT: none",
            3: "Home is close. [GOAL: navigate home]\nINTENT: navigate",
        },
    )
    assert sorted(lines(logs, "[Grounding] fail")) == [
        "[Grounding] fail scenario=fab-entity reason=missing_entity",
        "[Grounding] fail scenario=fab-item reason=missing_item",
        "[Grounding] fail scenario=fab-place reason=missing_location",
    ]


def test_pa_d2_goal_emitted_only_when_grounded_and_routable(llm, logs, tmp_path):
    rows = [
        scenario(1, "eat-ok", world={"inventory": {"bread": 2}, "food": 8}, stimulus="elevated"),
        scenario(2, "eat-absent", stimulus="elevated", world={"food": 8}),
        scenario(3, "sleep", stimulus="elevated", world={"timeOfDay": 14000}),
    ]
    _code, out, _ = run(
        llm,
        tmp_path,
        rows,
        {
            1: "My stomach growls. [GOAL: eat bread 1]\nINTENT: food",
            2: "My stomach growls. [GOAL: eat bread 1]\nINTENT: food",
            3: "It is dark. [GOAL: sleep bed]\nINTENT: none",
        },
    )
    assert lines(logs, "[Eval] goal_emitted") == [
        "[Eval] goal_emitted scenario=eat-ok action=eat target=bread grounding=pass routable=true"
    ]
    rec = json.loads((out / "scenarios" / "eat-ok.json").read_text())
    assert rec["extractedGoal"]["action"] == "eat" and rec["grounding"]["decision"] == "pass"
    assert rec["convertEligible"]["value"] is True
    absent = json.loads((out / "scenarios" / "eat-absent.json").read_text())
    assert absent["convertEligible"] == {"value": False, "reason": "grounding_failed", "routable": None}
    not_routable = json.loads((out / "scenarios" / "sleep.json").read_text())
    assert not_routable["convertEligible"] == {"value": False, "reason": "not_routable", "routable": False}
    rejected = sorted(lines(logs, "[Eval] goal_rejected"))
    assert rejected[0].startswith(
        "[Eval] goal_rejected scenario=eat-absent action=eat target=bread reason=grounding_failed"
    )
    assert rejected[1].startswith("[Eval] goal_rejected scenario=sleep action=sleep target=bed reason=not_routable")


def test_routable_is_what_an_agent_can_do_so_sleep_is_rejected_and_smelt_is_a_task(llm, logs, tmp_path):
    """No agent has a sleep workflow: a grounded sleep goal is not routable, and end to end
    it never becomes a task the executor could not plan; a grounded smelt goal, which the
    crafter handles (smelt_plan), does."""
    rows = [scenario(1, "sleep"), scenario(2, "smelt", world={"inventory": {"raw_iron": 2, "coal": 1}})]
    _code, out, _summary = run(
        llm,
        tmp_path,
        rows,
        {
            1: "Night is near. [GOAL: sleep bed]\nINTENT: none",
            2: "Raw iron in my pack. [GOAL: smelt iron_ingot 2]\nINTENT: craft",
        },
        "--mode",
        "end_to_end",
    )
    sleep = json.loads((out / "scenarios" / "sleep.json").read_text())
    assert sleep["grounding"]["decision"] == "pass"
    assert sleep["convertEligible"] == {"value": False, "reason": "not_routable", "routable": False}
    assert sleep["planning"]["tasks_created"] == 0
    smelt = json.loads((out / "scenarios" / "smelt.json").read_text())
    assert smelt["grounding"]["decision"] == "pass"
    assert smelt["convertEligible"] == {"value": True, "reason": "goal_passed", "routable": True}
    assert smelt["planning"]["tasks_created"] == 1
    assert lines(logs, "[Eval] goal_rejected scenario=sleep")[0].startswith(
        "[Eval] goal_rejected scenario=sleep action=sleep target=bed reason=not_routable"
    )


def test_pa_d3_no_goal_stays_non_actionable_and_creates_no_task(llm, logs, tmp_path):
    rows = [scenario(1, "quiet"), scenario(2, "intent-only")]
    code, out, summary = run(
        llm, tmp_path, rows, {1: QUIET, 2: "I could look around.\nINTENT: explore"}, "--mode", "end_to_end"
    )
    assert sorted(lines(logs, "[Eval] no_goal")) == [
        "[Eval] no_goal scenario=intent-only convertEligible=false",
        "[Eval] no_goal scenario=quiet convertEligible=false",
    ]
    assert summary["planning"]["tasks_created"] == 0 and code == 0
    rec = json.loads((out / "scenarios" / "intent-only.json").read_text())
    assert rec["output"]["intent"] == "explore" and rec["convertEligible"]["value"] is False
