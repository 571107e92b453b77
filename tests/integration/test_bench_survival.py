"""The short survival benchmark: `mcbot bench survival` for one seed at the session's version,
until the wooden pickaxe, as a user runs it (a child process that starts the daemon, which
starts its embedded world; no LLM). The bot must get from nothing to a wooden pickaxe through
the real server and bridge; the report must carry the milestones in game time, the success
rate and the timeline. Bounded by --max-minutes; the figures are printed, never asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.tooling.bench_survival_report import reached_in_order

ROOT = Path(__file__).resolve().parents[2]
# The stone pickaxe is not reached reliably yet (README: a pit beside the table it cannot walk out
# of), so make test holds the bot to the part of the tree it reaches every time.
TREE_TO_WOOD = ["log", "planks", "crafting_table", "wooden_pickaxe"]
MAX_MINUTES = 5  # a run that has not reached the wooden pickaxe by then ends, and the test fails (a smooth one: ~2)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.mark.timeout(MAX_MINUTES * 60 + 180)  # + the daemon's start and stop, the report
def test_the_bot_reaches_the_wooden_pickaxe_and_the_report_says_when(tmp_path: Path, mc_version: str,
                                                                    node_available: None) -> None:
    # Day length x1: the world starts at dawn, so the run ends before dusk sends it to build a shelter.
    cmd = [sys.executable, "-m", "bot", "bench", "survival", "--seeds", "1", "--version", mc_version,
           "--until", "wooden_pickaxe", "--day-scale", "1", "--max-minutes", str(MAX_MINUTES), "--out", str(tmp_path)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=MAX_MINUTES * 60 + 150)
    print(proc.stdout[-4000:])
    reports = list(tmp_path.glob("survival-*/report.json"))
    assert reports, f"no report written (exit {proc.returncode}): {proc.stdout[-2000:]} {proc.stderr[-2000:]}"
    report = json.loads(reports[0].read_text())
    (run,) = report["runs"]
    assert (run["version"], run["seed"]) == (mc_version, 1)
    assert run["ended"] == "until wooden_pickaxe", f"{run['ended']}: {run['milestones']}; failed: {run['failures']}"
    assert reached_in_order(run, TREE_TO_WOOD), run["milestones"]
    assert run["milestones"]["wooden_pickaxe"] > 0
    assert run["task_success_rate"] is not None and 0.0 <= run["task_success_rate"] <= 1.0, run["tasks"]
    assert run["tasks"]["completed"] >= 2  # logs, then table and pickaxe: at least that many tasks did it
    assert {t["id"] for t in report["targets"]} == {"iron_pickaxe", "tasks", "deaths", "wedges"}
    assert report["settings"]["daemon_env"]["MCBOT_LLM__TARGETS"] == "[]"
    png = reports[0].parent / "timeline.png"
    assert png.read_bytes()[:8] == PNG_MAGIC
    assert "[Bench survival]" in proc.stdout and "milestone wooden_pickaxe at game day" in proc.stdout
    assert proc.returncode in (0, 1), proc.stderr[-2000:]  # 1: a target failed, which the notes report
