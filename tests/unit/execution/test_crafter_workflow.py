"""`craft wooden_pickaxe 1` handled by the shipped crafter profile on a fake block world:
from an empty inventory near trees it ends with a pickaxe, and a run crashed after its
third step resumes in a new process without redoing the completed steps."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.workflows import SqliteCheckpointStore
from agency.tools import ToolContext
from agency.tools.testing import FakeBody
from tests.unit.conftest import run

ROOT = Path(__file__).resolve().parents[3]
EXPECTED_STEPS = [
    "gather-log",
    "craft-planks",
    "craft-crafting-table",
    "place-crafting-table",
    "craft-stick",
    "craft-wooden-pickaxe",
]


def test_crafter_makes_a_wooden_pickaxe_from_nothing(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.add_tree(4, 2, height=5)
    rt = AgentRuntime(load_default_registry(), default_tool_registry(), ctx, checkpoints=store)
    task = TaskSpec(action="craft", target="wooden_pickaxe", amount=1, id="task-pick")
    assert rt.select(task)[0].agentId == "crafter"
    res = run(rt.run_task(task))
    assert res.ok, res.errors
    assert res.agentId == "crafter" and [s.stepId for s in res.steps] == EXPECTED_STEPS
    assert body.inventory["wooden_pickaxe"] == 1
    assert [c.completedStepId for c in store.history("task-pick")] == EXPECTED_STEPS
    assert list(body.blocks.values()).count("crafting_table") == 1


def test_crafter_resumes_in_a_new_process_after_a_crash(tmp_path: Path) -> None:
    db, world = tmp_path / "agency.db", tmp_path / "world.json"
    tree = {f"4,{64 + dy},2": "oak_log" for dy in range(5)}
    world.write_text(json.dumps({"inventory": {}, "blocks": tree}))
    cmd = [sys.executable, "-m", "tests.unit.execution.craft_proc", str(db), str(world), "task-crash"]

    first = subprocess.run([*cmd, "3"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert first.returncode == 3, first.stderr  # crashed right after the third checkpoint
    assert json.loads(world.read_text())["inventory"] == {"oak_planks": 8, "crafting_table": 1}

    second = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert second.returncode == 0, second.stderr
    out = json.loads(second.stdout.strip().splitlines()[-1])
    assert out["status"] == "completed" and out["agentId"] == "crafter" and out["resumedFrom"] == 2
    assert out["steps"][:3] == [[s, "restored"] for s in EXPECTED_STEPS[:3]]
    # only the last three steps ran in the new process: no collecting, two crafts, one placement
    assert out["calls"] == {"place_block": 1, "craft": 2}
    assert out["inventory"].get("wooden_pickaxe") == 1


def test_a_resumed_build_resumes_its_delegated_craft_with_the_steps_it_started_with(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_door": 1, "torch": 1, "wooden_pickaxe": 1})  # (a pickaxe held: no night kit)
    body.add_tree(12, 12, height=6)  # one tree: the first batch of logs, then nothing
    rt = AgentRuntime(load_default_registry(), default_tool_registry(), ctx, checkpoints=store)
    task = TaskSpec(action="build", target="basic_shelter", amount=1, id="task-hut")
    first = run(rt.run_task(task))
    assert not first.ok and "oak_log" in first.errors[0].message
    child = "task-hut/get-walls"
    assert [c.completedStepId for c in store.history(child)] == ["gather-oak_log"]
    # more trees, and logs in hand: planned afresh, the craft would now gather less
    bx, bz = int(body.position.x), int(body.position.z)  # where exploring left the bot
    for dx in (3, 5, 7, 9):
        body.add_tree(bx + dx, bz + 3, height=6)
    body.inventory["oak_log"] += 2
    again = run(rt.run_task(task))
    assert again.ok, again.errors
    steps = [c.completedStepId for c in store.history(child)]
    assert steps[:2] == ["gather-oak_log", "gather-oak_log-2"]  # resumed after its first batch, same steps
    assert steps[-1] == "craft-oak-planks" and body.inventory["oak_door"] == 0  # and the hut got its door


def test_crafter_makes_a_door_from_nothing_gathering_oak_logs_for_the_table_and_the_door(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    """A door needs oak planks, so the table's planks are oak too (agency.tools.craft_planner):
    one gather of 3 oak logs for 10 planks, not oak logs and then some other wood's."""
    body.add_tree(4, 2, height=6)
    rt = AgentRuntime(load_default_registry(), default_tool_registry(), ctx, checkpoints=store)
    res = run(rt.run_task(TaskSpec(action="craft", target="oak_door", amount=1, id="task-door")))
    assert res.ok, res.errors
    assert body.inventory["oak_door"] >= 1
    gathered = [s.stepId for s in res.steps if s.stepId.startswith("gather-")]
    assert gathered == ["gather-oak_log"]
    assert body.inventory["oak_log"] == 0 and body.inventory["oak_planks"] == 2  # 12 made: 6 for the door, 4 the table
