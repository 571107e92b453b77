"""Agents carrying out a task in the embedded survival world, through the real bridge."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.workflows import SqliteCheckpointStore
from agency.tools import ToolContext
from bot.runtime.server import EmbeddedServer, free_port
from tests.conftest import ROOT, make_body, wait_until, world_settings


def test_crafter_crafts_a_wooden_pickaxe_from_an_empty_inventory_near_trees(bridge, embedded_server, tmp_path):
    body = make_body(bridge, embedded_server.port, "crafter_one")
    try:
        assert body.snapshot().inventory == []
        tools = default_tool_registry()
        rt = AgentRuntime(
            load_default_registry(),
            tools,
            ToolContext(body=body, poll_interval_s=0.1),
            checkpoints=SqliteCheckpointStore(tmp_path / "cp.db"),
        )
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


@pytest.mark.one_version(
    reason="a workflow's checkpoint and its resume are the daemon's store; each step is tested per version"
)
def test_interrupted_after_the_third_step_the_workflow_resumes_in_a_new_process(tmp_path, mc_version):
    # A world folder keeps the player's inventory across the crash, as a real server does.
    server = EmbeddedServer(
        world_settings(port=free_port(), version=mc_version, hostiles=False, world_folder=str(tmp_path / "world"))
    )
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


# -- eat, attack, flee: the survivor agent's workflows on a flat stone pad ------------------

SURVIVOR = "survivor_bot"
PAD = (-360, 70, -520)  # far from spawn and from the other tests' pads


def _husks(body):
    return [e for e in body.snapshot().entities if e.name == "husk"]


def _onto_pad(body):
    x, y, z = PAD
    body.chat(f"/mcbot tp {SURVIVOR} {x} {y} {z}")
    wait_until(
        lambda: (
            abs((p := body.snapshot().position).x - (x + 0.5)) < 1 and abs(p.z - (z + 0.5)) < 1 and abs(p.y - y) < 0.5
        ),
        10,
        "the survivor standing at the pad's centre",
    )


def _arena(body, r=28):
    """A flat stone floor with 5 blocks of air above, r blocks around PAD: room to run. The
    bot goes there first (the fills must reach loaded chunks it can read back), waits until
    one region read shows the whole pad built, then stands on it."""
    x, y, z = PAD
    body.chat(f"/mcbot tp {SURVIVOR} {x} {y} {z}")
    wait_until(lambda: body.region((x, y - 1, z), (1, 1, 1)).block_at(x, y - 1, z) is not None, 15, "chunks there")
    body.chat(f"/mcbot fill {x - r} {y - 1} {z - r} {x + r} {y - 1} {z + r} stone")
    body.chat(f"/mcbot fill {x - r} {y} {z - r} {x + r} {y + 4} {z + r} air")
    side = 2 * r + 1
    wait_until(
        lambda: (
            body.region((x - r, y - 1, z - r), (side, 1, side)).palette == ["stone"]
            and body.region((x - r, y, z - r), (side, 5, side)).palette == ["air"]
        ),
        60,
        "the pad built",
        poll_s=0.5,
    )
    _onto_pad(body)


@pytest.fixture(scope="module")
def survivor(bridge, embedded_server):
    body = make_body(bridge, embedded_server.port, SURVIVOR)
    try:
        _arena(body)
        yield (
            body,
            AgentRuntime(load_default_registry(), default_tool_registry(), ToolContext(body=body, poll_interval_s=0.1)),
        )
    finally:
        body.chat("/mcbot killall husk")
        body.close()


@pytest.fixture
def fresh(survivor):
    """Back at the pad's centre, healthy and fed, no husk around; and so after the test."""
    body, rt = survivor

    def reset():
        body.chat("/mcbot killall husk")
        body.chat(f"/mcbot health {SURVIVOR} 20")
        body.chat(f"/mcbot food {SURVIVOR} 20")
        wait_until(
            lambda: (s := body.snapshot()).health == 20 and s.food == 20 and not _husks(body),
            15,
            "the survivor healthy, fed, alone",
        )
        _onto_pad(body)

    reset()
    yield body, rt
    reset()


def _summon_husk(body, dx):
    x, y, z = PAD
    body.chat(f"/mcbot summon husk {x + dx} {y} {z}")
    return wait_until(lambda: _husks(body), 10, "the husk in the snapshot")[0]


def test_a_hungry_bot_with_food_eats_through_the_survivor_agent(fresh):
    body, rt = fresh
    body.chat(f"/give {SURVIVOR} bread 2")
    body.chat(f"/mcbot food {SURVIVOR} 10 0")
    wait_until(lambda: (s := body.snapshot()).count_of("bread") >= 2 and s.food == 10, 15, "bread held, food 10")
    bread = body.snapshot().count_of("bread")
    res = asyncio.run(rt.run_task(TaskSpec(action="eat", target="food")))
    assert res.status == "completed" and res.agentId == "survivor", res.errors
    wait_until(lambda: body.snapshot().food > 10, 5, "food up after eating")
    assert body.snapshot().count_of("bread") == bread - 1


def test_a_named_hostile_nearby_is_fought_until_it_is_gone(fresh):
    body, rt = fresh
    body.chat(f"/give {SURVIVOR} diamond_sword 1")
    wait_until(lambda: body.snapshot().count_of("diamond_sword") >= 1, 10, "a sword")
    _summon_husk(body, 4)
    res = asyncio.run(rt.run_task(TaskSpec(action="attack", target="husk")))
    assert res.status == "completed" and res.agentId == "survivor", res.errors
    fight = res.outputs["fight"]
    assert fight["target"] == "husk" and fight["hits"] >= 1 and fight["gone"] is True
    wait_until(lambda: not _husks(body), 5, "the husk's body removed")


def test_the_bot_runs_from_a_hostile_and_ends_farther_from_it(fresh):
    body, rt = fresh
    husk = _summon_husk(body, 4)
    start = husk.distance
    res = asyncio.run(rt.run_task(TaskSpec(action="flee", target="husk")))
    assert res.status == "completed" and res.agentId == "survivor", res.errors
    fled = res.outputs["flee"]
    assert fled["fled"] is True and fled["legs"]
    now = _husks(body)
    end = now[0].distance if now else 48.0  # out of sight counts as far
    assert end > start + 6, f"husk {start:.1f} -> {end:.1f} blocks away"
    assert body.snapshot().position.x < PAD[0]  # ran away from it (it stood at +x), not past it
