"""--from-fixture (frames from a recorded replay), `mcbot eval report`, the tty-only
progress bar and the CLI's argument errors."""

from __future__ import annotations

import argparse
import io
import json
import threading
import time
from types import SimpleNamespace

from agency.eval.fixture import load_fixture_suite
from agency.eval.progress import Progress
from agency.llm.testing import text
from bot.cli.eval import add_eval_commands, cmd_eval
from bot.config.llm import LlmSection
from tests.conftest import replay_fixture
from tests.unit.eval.conftest import lines, run_cli, scenario, write_suite


def test_from_fixture_builds_frames_from_recorded_snapshots(logs, replay_version):
    path = replay_fixture(replay_version, "taking_damage")
    suite = load_fixture_suite(path)
    assert lines(logs, "[Eval] suite_loaded")[0].startswith(f"[Eval] suite_loaded path={path} line_count=")
    assert suite.name == "fixture-taking_damage" and suite.scenarios
    assert suite.scenarios[0].previous is None and suite.scenarios[1].previous == suite.scenarios[0].snapshot
    hurt = [s for s in suite.scenarios if {st.kind for st in s.stimuli} & {"damage", "health_drop"}]
    assert hurt and all(s.stimulus == "high" for s in hurt)  # real perception found the damage
    assert len({s.id for s in suite.scenarios}) == len(suite.scenarios)


def test_from_fixture_runs_end_to_end(llm, logs, tmp_path, replay_version):
    code = run_cli(
        llm,
        [
            "--from-fixture",
            str(replay_fixture(replay_version, "day_to_dusk")),
            "--profile",
            "rich",
            "--mode",
            "end_to_end",
            "--run-id",
            "fx",
            "--out-dir",
            str(tmp_path / "out"),
        ],
    )
    summary = json.loads((tmp_path / "out" / "fixture-day_to_dusk" / "rich" / "fx" / "summary.json").read_text())
    assert code == 0 and summary["metrics"]["scenarios"] == len(lines(logs, "[Eval] scenario_run")) > 0


def test_report_compares_runs_in_a_table_and_an_html_chart(llm, logs, tmp_path, capsys):
    suite = write_suite(tmp_path / "cmp.jsonl", [scenario(1), scenario(2)])
    out = tmp_path / "out"
    for profile in ("minimal", "rich"):
        assert run_cli(llm, ["--suite", str(suite), "--profile", profile, "--run-id", "r", "--out-dir", str(out)]) == 0
    capsys.readouterr()
    html_path = tmp_path / "report.html"
    dirs = [str(out / "cmp" / p / "r") for p in ("minimal", "rich")]
    assert run_cli(llm, ["report", *dirs, "--html", str(html_path)]) == 0
    table = capsys.readouterr().out
    assert "action" in table and "grounding" in table and "compulsion" in table
    assert "cmp/minimal/openai/scripted-1/r" in table and "cmp/rich/openai/scripted-1/r" in table
    page = html_path.read_text()
    assert page.count("<svg") == 6 and "grounding_pass_rate" in page and "<script" not in page


def test_report_on_a_missing_run_is_an_argument_error(llm, tmp_path):
    assert run_cli(llm, ["report", str(tmp_path / "nope")]) == 4


def test_cli_argument_errors_exit_4(llm, tmp_path):
    suite = write_suite(tmp_path / "s.jsonl", [scenario(1)])
    assert run_cli(llm, []) == 4  # neither --suite nor --from-fixture
    assert run_cli(llm, ["--suite", str(suite), "--concurrency", "0"]) == 4
    args = ["--suite", str(suite), "--run-id", "same", "--out-dir", str(tmp_path / "o")]
    assert run_cli(llm, args) == 0 and run_cli(llm, args) == 4  # a run directory is never overwritten


def test_progress_bar_only_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    piped, tty = io.StringIO(), Tty()
    for stream in (piped, tty):
        p = Progress(2, stream=stream)
        p.advance("a")
        p.advance("b")
    assert piped.getvalue() == ""
    assert "\r" in tty.getvalue() and "2/2" in tty.getvalue()


def test_no_llm_targets_is_a_config_error(tmp_path):
    p = argparse.ArgumentParser()
    add_eval_commands(p.add_subparsers(dest="command"))
    args = p.parse_args(["eval", "--suite", str(write_suite(tmp_path / "s.jsonl", [scenario(1)]))])
    assert cmd_eval(args, SimpleNamespace(llm=LlmSection())) == 4


def test_scenarios_run_concurrently_up_to_the_limit(llm, tmp_path):
    state = {"now": 0, "max": 0}
    lock = threading.Lock()

    def step(req):
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.15)  # a slow model: overlapping requests become visible
        with lock:
            state["now"] -= 1
        return text("Quiet.\nINTENT: none")

    llm.default = step
    suite = write_suite(tmp_path / "c.jsonl", [scenario(i) for i in range(1, 7)])
    assert run_cli(llm, ["--suite", str(suite), "--concurrency", "3", "--out-dir", str(tmp_path / "o")]) == 0
    assert state["max"] == 3
