"""Drive one long JS action (start -> poll -> cancel) from a tool, on the injected clock.

Python never blocks on a long JS promise: it starts the action, polls at the context's
interval, and cancels it when a stop is requested, the deadline passes or the asyncio task
is cancelled. The JS side gets the remaining time as its own timeout so it ends first.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from agency.tools.base import ToolCancelled, ToolContext, ToolFailure, ToolTimeout
from agency.tools.results import EXECUTION_ERROR
from agency.world import ActionState, ActionStatus, Body, BodyError


def _accepts_timeout(body: Body) -> bool:
    try:
        return "timeout_ms" in inspect.signature(body.start_action).parameters
    except (TypeError, ValueError):
        return False


def _cancel_quietly(body: Body, action_id: str) -> ActionStatus | None:
    try:
        return body.cancel_action(action_id)
    except BodyError:
        return None


def _cancel_started(body: Body, started: asyncio.Future[ActionStatus]) -> None:
    if not started.cancelled() and started.exception() is None:
        _cancel_quietly(body, started.result().id)


async def run_action(ctx: ToolContext, kind: str, args: dict[str, Any]) -> dict[str, Any]:
    """Run a body action to its end; return its result dict or raise a Tool* error."""
    ctx.check()
    remaining = ctx.remaining_ms()
    kw = {"timeout_ms": max(1000, remaining - 500)} if remaining is not None and _accepts_timeout(ctx.body) else {}
    starting = asyncio.ensure_future(ctx.io(ctx.body.start_action, kind, args, **kw))
    try:
        st = await asyncio.shield(starting)
    except asyncio.CancelledError:  # cancelled while the start was in flight: cancel what it starts
        starting.add_done_callback(lambda f: _cancel_started(ctx.body, f))
        raise
    try:
        while not st.state.terminal:
            try:
                await ctx.pause()
            except (ToolCancelled, ToolTimeout):
                _cancel_quietly(ctx.body, st.id)
                raise
            st = await ctx.io(ctx.body.poll_action, st.id)
    except asyncio.CancelledError:
        _cancel_quietly(ctx.body, st.id)
        raise
    if st.state is ActionState.done:
        return dict(st.result or {}) if isinstance(st.result, dict) else {"result": st.result}
    if st.state is ActionState.timeout:
        raise ToolTimeout(f"body action {kind} timed out: {st.error}")
    if st.state is ActionState.cancelled:
        raise ToolCancelled(f"body action {kind} was cancelled")
    raise ToolFailure(EXECUTION_ERROR, f"{kind} failed: {st.error}", details={"action": kind, "args": args})
