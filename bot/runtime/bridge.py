"""The one object through which Python talks to node (JSPyBridge).

Keeps docs/contracts.md BRIDGE-1, BRIDGE-4 and BRIDGE-5 by design:
- node side pinned: we require ONE entry file (node/bridge.js) by absolute path, with
  NODE_PM=false so JSPyBridge can never auto-install packages;
- every JSPyBridge call runs on ONE thread owned by this object, and every call's Python
  timeout is its JS timeout plus a margin, so a late JS reply never kills the bridge;
- a watchdog notices a dead node process or a dead bridge thread within seconds, and a
  wedged one (alive but answering nothing: its heartbeat stopped or lags, calls time out one
  after another, its RSS is over the limit; bot/runtime/wedge.py) too: it kills that node,
  which then is dead like any other;
- node runs with a heap limit, so a runaway dies early instead of eating the machine;
- `rebuild()` replaces node and all JS state (old proxies are stale; bots are rebuilt by
  their owners); `shutdown()` quits every bot and ends node, within seconds even when node
  answers nothing.

Here: the bridge's lifecycle (start, stop, rebuild), and the names callers import. Bridge is
put together from its parts: its state and the node process (bridge_node.py), the watchdog
(bridge_watchdog.py), the calls (bridge_calls.py) on the one bridge thread (bridge_worker.py).
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
import time

from loguru import logger

from bot.runtime import node_spawn
from bot.runtime.bridge_calls import BridgeCalls
from bot.runtime.bridge_errors import BridgeDead, BridgeError, BridgeInitError
from bot.runtime.bridge_node import ENTRY, NODE_DIR, OUTSIDE_KILL, node_exit_reason
from bot.runtime.bridge_worker import BridgeWorker
from bot.runtime.node_runtime import NodeRuntimeError, resolve_node_bin

# Callers import the bridge's errors, node's folder and how node ended from here, beside the Bridge.
__all__ = ["NODE_DIR", "OUTSIDE_KILL", "Bridge", "BridgeDead", "BridgeError", "BridgeInitError", "node_exit_reason"]


class Bridge(BridgeCalls):
    """The bridge itself (see above): started, stopped and rebuilt here, one live at a time."""

    _instance_lock = threading.Lock()
    _live_instance: Bridge | None = None  # JSPyBridge is process-global: one at a time

    def start(self, timeout_s: float = 60.0) -> None:
        self._closing_at, self._abandoned = None, None
        self._start(timeout_s)

    def _start(self, timeout_s: float) -> None:
        with Bridge._instance_lock:
            if Bridge._live_instance not in (None, self):
                raise BridgeInitError("another Bridge is live in this process (JSPyBridge is process-global)")
            Bridge._live_instance = self
        if not ENTRY.exists():
            raise BridgeInitError(f"{ENTRY} is missing")
        if not (NODE_DIR / "node_modules" / "mineflayer").exists():
            raise BridgeInitError(f"node dependencies are not installed: run `npm ci` in {NODE_DIR}")
        try:
            node_bin = resolve_node_bin(self.node_bin)
        except NodeRuntimeError as e:
            raise BridgeInitError(str(e)) from None
        os.environ["NODE_PM"] = "false"  # never let JSPyBridge npm-install anything
        os.environ["NODE_BIN"] = node_bin
        # The heap limit and the heartbeat file go to the bridge's node only (node_spawn.py).
        node_spawn.configure([f"--max-old-space-size={self.heap_mb}"], self.node_watch.spawn_env())
        self._executor = BridgeWorker("jsbridge")
        self._stopping.clear()
        self._starting = True
        try:
            future = self._executor.submit(self._start_on_thread)
            deadline = time.monotonic() + timeout_s
            while True:  # in slices: a daemon stopping meanwhile does not wait for node
                try:
                    future.result(timeout=min(0.25, max(0.0, deadline - time.monotonic())))
                    break
                except concurrent.futures.TimeoutError:
                    if self._closing_at is not None:
                        raise BridgeInitError("the bridge was shut down while starting") from None
                    if time.monotonic() >= deadline:
                        raise BridgeInitError(f"node side did not start within {timeout_s:.0f} s") from None
        except BridgeInitError:
            self._starting = False
            raise
        except FileNotFoundError as e:
            self._starting = False
            raise BridgeInitError(f"node executable not found ({node_bin}): {e}") from e
        except Exception as e:  # any start failure is an init failure
            self._starting = False
            raise BridgeInitError(f"node side failed to start: {e}") from e
        # Cleared only now (a bridge being rebuilt still says why it went down, /healthz), and
        # with the generation, before it reads alive: never the old generation alive.
        self._dead_reason = None
        self.generation += 1
        self.node_watch.node_up(self.node_pid, self.generation)  # judged afresh from here
        self._starting = False
        self._watchdog = threading.Thread(target=self._watch, name="jsbridge-watchdog", daemon=True)
        self._watchdog.start()
        logger.info(
            "bridge up: node pid {} (generation {}, heap limit {} MB)", self.node_pid, self.generation, self.heap_mb
        )

    def begin_shutdown(self) -> None:
        """The daemon is stopping: from now on no rebuild starts, every call waits at most
        SHUTDOWN_CALL_S (none once one was given up behind a call still holding the bridge
        thread), and a node that has not beaten within SHUTDOWN_BEAT_S is killed
        (now, or by the watchdog as soon as its beats stop): nothing would answer the
        goodbyes, and stopping must not wait on it."""
        if self._closing_at is None:
            self._closing_at = time.monotonic()
        self._kill_if_silent()

    def shutdown(self) -> None:
        """Quit every bot, end node, stop the thread. Safe to call twice."""
        self.begin_shutdown()
        self._stopping.set()
        if self._executor is None:
            self.node_watch.close()
            return
        if self.alive:
            try:
                self.call("quitAll", timeout_ms=2_000)
            except Exception as e:  # noqa: BLE001 - shutting down regardless
                logger.debug("quitAll at shutdown failed: {}", e)
        self._kill_node(grace_s=1.0)
        self._executor.shutdown()
        self._executor = None
        self._mod = None
        self.node_watch.close()
        with Bridge._instance_lock:
            if Bridge._live_instance is self:
                Bridge._live_instance = None
        logger.info("bridge shut down")

    def rebuild_if_dead(self, timeout_s: float = 60.0) -> None:
        """Rebuild a dead bridge once, however many bodies see it dead at the same time."""
        with self._rebuild_lock:
            if not self.alive and self._closing_at is None:
                self.rebuild(timeout_s)

    def rebuild(self, timeout_s: float = 60.0) -> None:
        """A fresh node and bridge thread; every bot id from before is gone."""
        if self._closing_at is not None:
            raise BridgeDead("the bridge is shut down")
        logger.warning("rebuilding bridge (was: {})", self._dead_reason or "alive")
        self.node_watch.note("rebuild", self._dead_reason or "alive")
        self._stopping.set()
        self._kill_node()
        if self._executor is not None:
            self._executor.shutdown()
            self._executor = None
        self._mod = None
        self._start(timeout_s)
