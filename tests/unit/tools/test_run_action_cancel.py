"""A tool cancelled while its body action is still being started (the start runs in a worker
thread) cancels that action once the start returns: nothing is left walking."""

from __future__ import annotations

import asyncio
import threading

from agency.tools import ToolContext
from agency.tools.actions import run_action
from agency.world import ActionState, ActionStatus


class SlowStartBody:
    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        self.cancelled: list[str] = []

    def start_action(self, kind: str, args: dict) -> ActionStatus:
        self.entered.set()
        self.release.wait(5)
        return ActionStatus(id="a7", kind=kind, state=ActionState.running, startedAt=1)

    def poll_action(self, action_id: str) -> ActionStatus:
        return ActionStatus(id=action_id, kind="move_to", state=ActionState.running, startedAt=1)

    def cancel_action(self, action_id: str) -> ActionStatus:
        self.cancelled.append(action_id)
        return ActionStatus(id=action_id, kind="move_to", state=ActionState.cancelled, startedAt=1)


def test_a_tool_cancelled_mid_start_cancels_the_action_the_start_began():
    body = SlowStartBody()

    async def main() -> None:
        call = asyncio.ensure_future(run_action(ToolContext(body=body, offload=True), "move_to", {"x": 1}))  # type: ignore[arg-type]  # a fake body
        while not body.entered.is_set():
            await asyncio.sleep(0.01)
        call.cancel()
        await asyncio.sleep(0.05)
        assert body.cancelled == []  # the start has not returned: nothing to cancel yet
        body.release.set()
        for _ in range(200):
            if body.cancelled:
                break
            await asyncio.sleep(0.01)
        assert call.cancelled()

    asyncio.run(main())
    assert body.cancelled == ["a7"]
