"""docs/contracts.md EVAL-1 (hot-swappable suites) and EVAL-2 (schema validation, exit 5), plus
the shipped suites."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from agency.eval.suite import SuiteInvalid, load_suite
from tests.unit.eval.conftest import lines, run_cli, scenario, write_suite

SUITES = Path(__file__).resolve().parents[3] / "config" / "suites"


def test_ev_c1_hot_swap_new_sha_and_count_on_next_run(llm, logs, tmp_path):
    suite = write_suite(tmp_path / "hot.jsonl", [scenario(1), scenario(2)])
    out = str(tmp_path / "out")
    assert run_cli(llm, ["--suite", str(suite), "--run-id", "r1", "--out-dir", out]) == 0
    sha1 = hashlib.sha256(suite.read_bytes()).hexdigest()
    write_suite(suite, [scenario(1), scenario(2), scenario(3, world={"food": 19})])  # edited between runs
    assert run_cli(llm, ["--suite", str(suite), "--run-id", "r2", "--out-dir", out]) == 0
    sha2 = hashlib.sha256(suite.read_bytes()).hexdigest()
    loaded = lines(logs, "[Eval] suite_loaded")
    assert loaded == [
        f"[Eval] suite_loaded path={suite} line_count=2 suite_sha256={sha1}",
        f"[Eval] suite_loaded path={suite} line_count=3 suite_sha256={sha2}",
    ]
    assert sha1 != sha2
    summary = json.loads((tmp_path / "out" / "hot" / "balanced" / "r2" / "summary.json").read_text())
    assert summary["suite_sha256"] == sha2 and summary["line_count"] == 3 and summary["metrics"]["scenarios"] == 3


def test_ev_c2_invalid_line_fails_fast_with_diagnostics_and_exit_5(llm, logs, tmp_path):
    bad = scenario(2)
    bad["world"]["health"] = 42  # out of range
    del bad["version"]
    suite = write_suite(tmp_path / "bad.jsonl", [scenario(1), bad, "{not json"])
    assert run_cli(llm, ["--suite", str(suite), "--out-dir", str(tmp_path / "out")]) == 5
    invalid = lines(logs, "[Eval] suite_invalid")
    assert len(invalid) == 1  # fail fast: line 3 is never reached
    prefix = f"[Eval] suite_invalid path={suite} line=2 errors="
    assert invalid[0].startswith(prefix)
    errors = json.loads(invalid[0][len(prefix) :])
    assert {tuple(e["loc"]) for e in errors} == {("version",), ("world", "health")}
    assert not llm.requests and not (tmp_path / "out").exists()  # nothing ran


@pytest.mark.parametrize(
    "row, loc",
    [
        ("{not json", []),
        ({"id": "x", "version": 1, "stimulus": "calm", "world": {}}, ["stimulus"]),
        ({"id": "x", "version": 1, "stimulus": "low", "world": {"inventory": {"bread": -1}}}, ["world"]),
        ({"id": "x", "version": 1, "stimulus": "low", "world": {}, "surprise": 1}, ["surprise"]),
        ({"id": "../x", "version": 1, "stimulus": "low", "world": {}}, ["id"]),
    ],
)
def test_ev_c2_schema_rejects(tmp_path, logs, row, loc):
    suite = write_suite(tmp_path / "s.jsonl", [scenario(1), row])
    with pytest.raises(SuiteInvalid) as exc:
        load_suite(suite)
    assert exc.value.line == 2
    assert exc.value.errors[0]["loc"] == loc


def test_ev_c2_duplicate_ids_and_empty_suite_are_invalid(tmp_path, logs):
    with pytest.raises(SuiteInvalid) as exc:
        load_suite(write_suite(tmp_path / "d.jsonl", [scenario(1, "a"), scenario(2, "a")]))
    assert exc.value.line == 2 and exc.value.errors[0]["type"] == "duplicate_id"
    with pytest.raises(SuiteInvalid) as exc:
        load_suite(write_suite(tmp_path / "e.jsonl", []))
    assert exc.value.errors[0]["type"] == "empty_suite"


def test_shipped_suites_validate_and_cover_their_themes(logs):
    idle = load_suite(SUITES / "idle-v1.jsonl")
    assert len(idle.scenarios) >= 20 and {s.stimulus for s in idle.scenarios} == {"low"}
    assert all(s.snapshot.hostiles == 0 for s in idle.scenarios)
    threat = load_suite(SUITES / "threat-v1.jsonl")
    kinds = {st.kind for s in threat.scenarios for st in s.stimuli}
    assert {"threat_delta", "damage", "health_drop"} <= kinds
    assert any(s.snapshot.health <= 6 for s in threat.scenarios)
    needs = load_suite(SUITES / "needs-v1.jsonl")
    assert any(s.snapshot.food <= 6 for s in needs.scenarios)
    assert any(not s.snapshot.isDay and not s.snapshot.inventory for s in needs.scenarios)  # night, nothing
    assert any(not s.snapshot.inventory for s in needs.scenarios)
    for suite in (idle, threat, needs):
        assert all(s.expect.no_hallucination for s in suite.scenarios)
