"""One process of the crafter resume test: load the fake world from a JSON file, run (or
resume) task `craft wooden_pickaxe 1` by task id against the SQLite file, optionally
crash (os._exit) right after the Nth checkpoint, and print what happened as JSON.

usage: python -m tests.unit.execution.craft_proc DB WORLD.json TASK_ID [CRASH_AFTER]
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.workflows import SqliteCheckpointStore
from agency.tools import ToolContext
from agency.tools.testing import FakeBody, FakeTime


def load_world(path: Path, ftime: FakeTime) -> FakeBody:
    body = FakeBody(ftime.clock)
    data = json.loads(path.read_text())
    body.inventory.update(data["inventory"])
    body.blocks = {tuple(map(int, k.split(","))): v for k, v in data["blocks"].items()}
    return body


def save_world(path: Path, body: FakeBody) -> None:
    blocks = {",".join(map(str, k)): v for k, v in body.blocks.items()}
    path.write_text(json.dumps({"inventory": {k: v for k, v in body.inventory.items() if v}, "blocks": blocks}))


def main() -> int:
    db, world, task_id = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    crash_after = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    ftime = FakeTime()
    body = load_world(world, ftime)
    store = SqliteCheckpointStore(db, clock=ftime.clock)
    if crash_after:
        save = store.save

        def save_then_maybe_crash(cp, wf):
            save(cp, wf)
            if len(store.history(cp.runId)) >= crash_after:
                save_world(world, body)
                os._exit(3)  # a crash: no cleanup, no status update

        store.save = save_then_maybe_crash  # type: ignore[method-assign]  # the test's stand-in
    tools = default_tool_registry()
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    rt = AgentRuntime(load_default_registry(), tools, ctx, checkpoints=store)
    res = asyncio.run(rt.run_task(TaskSpec(action="craft", target="wooden_pickaxe", amount=1, id=task_id)))
    save_world(world, body)
    print(
        json.dumps(
            {
                "status": res.status,
                "agentId": res.agentId,
                "resumedFrom": res.resumedFrom,
                "steps": [[s.stepId, s.status] for s in res.steps],
                "calls": dict(tools.call_counts),
                "inventory": {k: v for k, v in body.inventory.items() if v},
                "errors": [e.model_dump() for e in res.errors],
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
