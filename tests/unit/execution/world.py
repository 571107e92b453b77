"""The executor on the real task store and agent runtime over a fake body (shared by the
executor and reflex tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agency.execution.agents import AgentRuntime, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.executor import Executor
from agency.execution.workflows import SqliteCheckpointStore
from agency.planning.follow_up_params import after_parameters
from agency.planning.tasks.models import NewTask, TaskStatus
from agency.planning.tasks.store import SqliteTaskStore
from agency.tools import ToolContext
from agency.tools.testing import FakeBody, FakeTime


def executor_env(tmp_path: Path, ftime: FakeTime, body: FakeBody) -> dict[str, Any]:
    """ftime, body, tasks, tools, ctx and ex; close env["tasks"] when done."""
    tasks = SqliteTaskStore(tmp_path / "t.db", clock=ftime.clock, dev_mode=False, strict_finalize=False)
    tools = default_tool_registry()
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    runtime = AgentRuntime(load_default_registry(), tools, ctx, checkpoints=SqliteCheckpointStore(tmp_path / "t.db"))
    ex = Executor(tasks, runtime, ftime.clock)
    return {"ftime": ftime, "body": body, "tasks": tasks, "tools": tools, "ctx": ctx, "ex": ex}


def add_task(
    tasks: SqliteTaskStore,
    action: str,
    target: str,
    amount: int = 1,
    goal_key: bool = True,
    then: list[dict[str, Any]] | None = None,
    after: list[dict[str, Any]] | None = None,
) -> str:
    meta = {"goalKey": f"{action}:{target}"} if goal_key else {}
    t = tasks.add_task(
        NewTask(
            title=f"{action} {target} {amount}",
            type=action,
            source="drive-tick",
            parameters={"target": target, "amount": amount}
            | ({"then": then} if then else {})
            | after_parameters(after, None),
            metadata=meta,
        ),
        allow_unfinalized=True,
    )
    return t.id


def tick_task_done(tasks: SqliteTaskStore, action: str = "collect", target: str = "log", amount: int = 8) -> str:
    """A drive tick's task done, of thought-dusk (the thought a task asked after it is of)."""
    t = tasks.add_task(
        NewTask(
            title=f"{action} {target} {amount}",
            type=action,
            source="drive-tick",
            parameters={"target": target, "amount": amount},
            metadata={"goalKey": f"{action}:{target}", "sourceThoughtId": "thought-dusk"},
        ),
        allow_unfinalized=True,
    )
    tasks.set_status(t.id, TaskStatus.active)
    tasks.set_status(t.id, TaskStatus.completed)
    return t.id
