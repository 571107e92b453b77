"""The bridge's calls: each bridge.js helper runs on the bridge thread, and every call's
Python timeout is its JS timeout plus a margin, so a late JS reply never kills the bridge
(docs/contracts.md BRIDGE-1). A call on a bridge that dies meanwhile fails at once as
BridgeDead; a JS error arrives as BridgeError; once the daemon stops, calls are capped
(SHUTDOWN_CALL_S) and none waits behind a call given up on."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import time
from collections.abc import Callable
from typing import Any

from bot.runtime.bridge_errors import BridgeDead, BridgeError
from bot.runtime.bridge_node import DEFAULT_JS_TIMEOUT_MS, jspy
from bot.runtime.bridge_watchdog import BridgeWatchdog

# Once the daemon stops, a call waits at most this long (goodbyes to a node that answers).
SHUTDOWN_CALL_S = 2.0


class BridgeCalls(BridgeWatchdog):
    """Calls on the bridge thread, each bounded, counted, and judged by the node's watch."""

    def call(self, fn: str, *args: Any, timeout_ms: int = DEFAULT_JS_TIMEOUT_MS, urgent: bool = False) -> Any:
        """Call a bridge.js helper on the bridge thread (`urgent`: a user waits for it, it goes
        before the calls queued without).

        `timeout_ms` is the JS-side bound of whatever the helper waits on; the Python wait is
        longer by `call_margin_s` so that JS always settles first (BRIDGE-1).
        """
        node = self._mod  # read once: a rebuild replaces it whole
        if self._executor is None or node is None:
            raise BridgeDead(self._dead_reason or "bridge not started")
        if self._dead_reason:
            raise BridgeDead(self._dead_reason)
        if (held := self._held()) is not None:  # it would only queue behind that call
            raise BridgeDead(f"call {fn} not sent: the bridge is shutting down, its thread still in {held[0]}")
        py_timeout = timeout_ms / 1000 + self.call_margin_s
        # A call waits its turn at most `limit`, then runs at most `limit` from when it began:
        # a slow call ahead of it is not this call's timeout, and the caller waits <= 2 x limit.
        limit = py_timeout + self.call_margin_s
        mod, helpers = node
        # This node's judge: a late answer never counts for the next node.
        judge, watch = self.node_watch.judge, self.node_watch
        what = f"many({args[0]})" if fn == "many" and args else fn
        ran_at: list[float] = []  # when the bridge thread took the call up

        def run() -> Any:
            ran_at.append(time.monotonic())
            watch.in_flight = mine = (what, time.monotonic())
            try:
                helper = helpers.get(fn)
                if helper is None:
                    helper = helpers[fn] = getattr(mod, fn)
                return helper(*args, timeout=py_timeout)
            finally:
                if watch.in_flight is mine:  # an abandoned worker's late return leaves the new one's
                    watch.in_flight = None

        started = time.monotonic()
        future = self._executor.submit(run, urgent=urgent)
        # Wait in slices so a bridge that dies mid-call is reported at once, not at timeout.
        while True:
            deadline = (ran_at[0] if ran_at else started) + limit
            try:
                left = self._wait_until(deadline, started) - time.monotonic()
                result = future.result(timeout=min(0.25, max(0.0, left)))
                break
            except concurrent.futures.TimeoutError:
                reason = self._check()
                if reason:
                    self._dead_reason = reason
                    future.cancel()  # still queued: never sent to a node that is gone
                    raise BridgeDead(reason) from None
                if self._held() is not None and future.cancel():
                    raise BridgeDead(f"call {fn} abandoned: the bridge is shutting down") from None
                now = time.monotonic()
                if now < self._wait_until(deadline, started):
                    continue
                if future.cancel():  # still queued: it never reached node, no node timeout
                    if self._closing_at is not None:
                        self._abandon()
                        raise BridgeDead(f"call {fn} abandoned: the bridge is shutting down") from None
                    busy = watch.in_flight
                    raise BridgeDead(
                        f"call {fn} never ran: the bridge thread was busy"
                        f"{f' in {busy[0]}' if busy else ''} for {limit:.1f} s"
                    ) from None
                if not ran_at:  # taken up just now: its own time starts here
                    ran_at.append(now)
                    continue
                if future.done():  # came back meanwhile
                    continue
                if self._closing_at is not None:
                    self._abandon()
                    if now < deadline:  # cut short by the daemon stopping
                        raise BridgeDead(f"call {fn} abandoned: the bridge is shutting down") from None
                if judge is not None:
                    judge.call_timed_out(what)
                raise BridgeDead(f"call {fn} did not return within {py_timeout:.0f} s") from None
            except Exception as e:  # JS errors arrive as JavaScriptError
                reason = self._check()
                if reason:
                    self._dead_reason = reason
                    raise BridgeDead(reason) from e
                if judge is not None and _jspybridge_timeout(e):  # JSPyBridge gave up: no answer
                    judge.call_timed_out(what)
                elif judge is not None:  # a JS error is an answer
                    judge.call_answered()
                raise BridgeError(f"{fn}: {_js_message(e)}") from None
        if judge is not None:
            judge.call_answered()
        self.calls += 1
        self.call_seconds += time.monotonic() - started
        with self._count_lock:  # calls come from many worker threads
            self.calls_by_fn[fn] += 1
        return result

    def _wait_until(self, deadline: float, started: float) -> float:
        """A call's deadline, cut once the daemon stops: SHUTDOWN_CALL_S from the stop (or
        from the call's start, for a goodbye sent later)."""
        closing = self._closing_at
        if closing is None:
            return deadline
        return min(deadline, max(closing, started) + SHUTDOWN_CALL_S)

    def _abandon(self) -> None:
        """A call was given up while stopping: note what holds the bridge thread, so the
        goodbyes after it fail at once instead of each waiting SHUTDOWN_CALL_S behind it."""
        self._abandoned = self.node_watch.in_flight

    def _held(self) -> tuple[str, float] | None:
        """While stopping, the call abandoned on the bridge thread if it is still there."""
        held = self._abandoned
        if held is None or self._closing_at is None or self.node_watch.in_flight is not held:
            return None
        return held

    def helper_calls(self) -> dict[str, int]:
        with self._count_lock:
            return dict(self.calls_by_fn)

    def call_json(self, fn: str, *args: Any, timeout_ms: int = DEFAULT_JS_TIMEOUT_MS) -> Any:
        return json.loads(self.call(fn, *args, timeout_ms=timeout_ms))

    async def acall_json(self, fn: str, *args: Any, timeout_ms: int = DEFAULT_JS_TIMEOUT_MS) -> Any:
        return await asyncio.to_thread(self.call_json, fn, *args, timeout_ms=timeout_ms)

    def raw(self, fn: str, *args: Any) -> Any:
        """Return a JS proxy (benchmark only: proxies must not escape into the house)."""
        return self.call(fn, *args)

    @property
    def module(self) -> Any:
        """bridge.js's module proxy (the benchmark's per-property baseline reads through it)."""
        node = self._mod
        if node is None:
            raise BridgeDead(self._dead_reason or "bridge not started")
        return node[0]

    def on_bridge_thread(self, func: Callable[[], Any], timeout_s: float = 60.0) -> Any:
        """Run a function on the bridge thread (benchmark's per-property baseline)."""
        if self._executor is None:
            raise BridgeDead("bridge not started")
        return self._executor.submit(func).result(timeout=timeout_s)


def _jspybridge_timeout(e: BaseException) -> bool:
    """JSPyBridge gave up waiting for node's reply (a JS error arrives as JavaScriptError)."""
    errors = jspy("errors")
    if errors is not None and isinstance(e, errors.JavaScriptError):
        return False
    return "timed out" in str(e).lower()


def _js_message(e: BaseException) -> str:
    text = str(e)
    # JavaScriptError renders a long pretty stack; its first error line is what we need.
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Error:") or "Error:" in line[:40]:
            return line.split("Error:", 1)[1].strip() or line
    return text.strip().splitlines()[0] if text.strip() else type(e).__name__
