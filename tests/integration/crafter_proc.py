"""One process of the real-world crafter test: connect a bot to the embedded server on PORT,
run (or resume) `craft wooden_pickaxe 1` by TASK_ID against the SQLite file DB, optionally
crash (os._exit, no cleanup) right after the Nth checkpoint; print the outcome as JSON.

usage: python -m tests.integration.crafter_proc PORT DB TASK_ID USERNAME [CRASH_AFTER]
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
from bot.runtime.body import ConnectionSettings, MineflayerBody
from bot.runtime.bridge import Bridge


def main() -> int:
    port, db, task_id, username = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    crash_after = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    bridge = Bridge()
    bridge.start()
    body = MineflayerBody(bridge, ConnectionSettings(port=port, username=username))
    body.connect()
    store = SqliteCheckpointStore(db)
    if crash_after:
        save = store.save

        def save_then_maybe_crash(cp, wf):
            save(cp, wf)
            if len(store.history(cp.runId)) >= crash_after:
                print(json.dumps({"crashed_after": crash_after}), flush=True)
                os._exit(3)  # a crash: no cleanup, no status update, node dies with its pipe

        store.save = save_then_maybe_crash  # type: ignore[method-assign]  # the test's stand-in
    tools = default_tool_registry()
    rt = AgentRuntime(load_default_registry(), tools, ToolContext(body=body, poll_interval_s=0.1), checkpoints=store)
    res = asyncio.run(rt.run_task(TaskSpec(action="craft", target="wooden_pickaxe", amount=1, id=task_id)))
    snap = body.snapshot()
    print(
        json.dumps(
            {
                "status": res.status,
                "agentId": res.agentId,
                "resumedFrom": res.resumedFrom,
                "steps": [[s.stepId, s.status] for s in res.steps],
                "calls": dict(tools.call_counts),
                "pickaxes": snap.count_of("wooden_pickaxe"),
                "errors": [e.model_dump(mode="json") for e in res.errors],
            }
        ),
        flush=True,
    )
    body.close()
    bridge.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
