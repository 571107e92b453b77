"""Agents carrying out a task in the embedded survival world, through the real bridge."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from agency.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.tools import ToolContext, default_tool_registry
from agency.workflows import SqliteCheckpointStore
from bot.server import EmbeddedServer, EmbeddedServerSettings, free_port
from tests.conftest import ROOT, make_body


def test_crafter_crafts_a_wooden_pickaxe_from_an_empty_inventory_near_trees(bridge, embedded_server, tmp_path):
    body = make_body(bridge, embedded_server.port, "crafter_one")
    try:
        assert body.snapshot().inventory == []
        tools = default_tool_registry()
        rt = AgentRuntime(load_default_registry(), tools, ToolContext(body=body, poll_interval_s=0.1),
                          checkpoints=SqliteCheckpointStore(tmp_path / "cp.db"))
        task = TaskSpec(action="craft", target="wooden_pickaxe", amount=1, id="task-pickaxe-1")
        assert rt.choose_agent(task).id == "crafter"
        res = asyncio.run(rt.run_task(task))
        assert res.status == "completed", res.errors
        assert body.snapshot().count_of("wooden_pickaxe") >= 1
        assert tools.call_counts["craft"] >= 3 and tools.call_counts["collect_block"] >= 1
    finally:
        body.close()


def _proc(port, db, task_id, user, crash_after=None):
    args = [sys.executable, "-m", "tests.integration.crafter_proc", str(port), str(db), task_id, user]
    if crash_after:
        args.append(str(crash_after))
    r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=240)
    lines = [line for line in r.stdout.splitlines() if line.startswith("{")]
    assert lines, f"rc={r.returncode} stderr={r.stderr[-2000:]}"
    return r.returncode, json.loads(lines[-1])


def test_interrupted_after_the_third_step_the_workflow_resumes_in_a_new_process(tmp_path, mc_version):
    # A world folder keeps the player's inventory across the crash, as a real server does.
    server = EmbeddedServer(EmbeddedServerSettings(port=free_port(), version=mc_version, hostiles=False,
                                                   world_folder=str(tmp_path / "world")))
    server.start()
    try:
        db = tmp_path / "checkpoints.db"
        rc, first = _proc(server.port, db, "task-resume-1", "resumer", crash_after=3)
        assert rc == 3 and first == {"crashed_after": 3}
        rc, second = _proc(server.port, db, "task-resume-1", "resumer")
        assert rc == 0, second
        assert second["status"] == "completed", second["errors"]
        assert second["resumedFrom"] == 2  # checkpoint of the third step (index 2)
        ran = [step for step, status in second["steps"] if status == "completed"]
        assert "gather-log" not in ran and "craft-planks" not in ran
        assert second["calls"].get("collect_block", 0) == 0  # completed steps were not redone
        assert second["pickaxes"] >= 1
    finally:
        server.stop()
