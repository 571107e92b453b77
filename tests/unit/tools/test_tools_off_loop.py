"""With a live body (offload on) a tool reads the body on a worker thread, never on the
event loop: in a fleet, a read on the loop held every other bot's jobs and the API for the
bridge's round trip. The body here refuses any call made on the loop's thread."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from typing import Any

from agency.execution.builtin_tools import default_tool_registry
from agency.tools.base import ToolContext
from agency.tools.testing import GROUND_Y, FakeBody

BODY_CALLS = ("snapshot", "region", "chat", "start_action", "poll_action", "cancel_action")


class OffLoopBody(FakeBody):
    """A FakeBody whose calls fail on the thread that runs the event loop."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.loop_thread: threading.Thread | None = None
        self.on_loop: list[str] = []
        self.off_loop = 0

    def __getattribute__(self, name: str) -> Any:
        attr = super().__getattribute__(name)
        if name not in BODY_CALLS:
            return attr

        def guarded(*a: Any, **kw: Any) -> Any:
            if threading.current_thread() is self.loop_thread:
                self.on_loop.append(name)
                raise AssertionError(f"body.{name} called on the event loop")
            self.off_loop += 1
            return attr(*a, **kw)

        return guarded


def run_tools(body: OffLoopBody, ctx: ToolContext, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def go() -> list[Any]:
        body.loop_thread = threading.current_thread()
        reg = default_tool_registry()
        return [await reg.execute(name, args, ctx) for name, args in calls]

    return asyncio.run(go())


def test_gathering_crafting_and_walking_read_the_body_off_the_loop(ftime) -> None:
    body = OffLoopBody(ftime.clock)
    body.add_tree(3, 3, height=4)
    ctx = replace(ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1), offload=True)
    results = run_tools(
        body,
        ctx,
        [
            ("find_blocks", {"block": "log", "radius": 8}),
            ("collect_block", {"block": "log", "count": 3}),
            ("craft", {"item": "wooden_pickaxe"}),
            ("explore", {"legs": 2}),
            ("inventory", {}),
            ("chat", {"message": "hello"}),
            ("shelter_site", {}),
            ("prepare_shelter_site", {"origin": [3, GROUND_Y, 3], "facing": "north"}),
        ],
    )
    for res in results:
        assert res.success or "on the event loop" not in str(res.error), res.error
    assert body.on_loop == [], f"read on the loop: {body.on_loop}"
    assert results[2].success and body.inventory["wooden_pickaxe"] == 1  # the tools really ran
    assert body.off_loop > 20


def test_the_guard_catches_a_read_on_the_loop(ftime) -> None:
    body = OffLoopBody(ftime.clock)
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)  # offload off
    [res] = run_tools(body, ctx, [("inventory", {})])
    assert not res.success and body.on_loop == ["snapshot"]
