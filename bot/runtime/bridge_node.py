"""What every part of Bridge (bot/runtime/bridge.py) stands on: its state, and the node
process under it. node runs ONE entry file (node/bridge.js) by absolute path, required on
the bridge thread (docs/contracts.md BRIDGE-5); it is killed at once (SIGKILL) or ended
with a grace; how it ended is read as a reason. JSPyBridge's modules are read only if
already loaded: importing the package starts node."""

from __future__ import annotations

import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from loguru import logger

from bot.runtime.bridge_errors import BridgeInitError
from bot.runtime.bridge_worker import BridgeWorker
from bot.runtime.node_watch import NodeWatch
from bot.runtime.wedge import WedgeLimits

NODE_DIR = Path(__file__).resolve().parents[2] / "node"
ENTRY = NODE_DIR / "bridge.js"

# Property gets through JSPyBridge have a fixed 10 s timeout (its own); plain helper calls
# that wait on nothing in JS get this one.
DEFAULT_JS_TIMEOUT_MS = 10_000
DEFAULT_HEAP_MB = 1024  # node's old space (--max-old-space-size)


class BridgeNode:
    """The bridge's state, set once here and read by every part, and its node process."""

    def __init__(
        self,
        node_bin: str = "auto",
        call_margin_s: float = 5.0,
        dead_check_interval_s: float = 1.0,
        on_dead: Callable[[str], None] | None = None,
        *,
        limits: WedgeLimits | None = None,
        heap_mb: int = DEFAULT_HEAP_MB,
    ) -> None:
        self.node_bin = node_bin
        self.call_margin_s = call_margin_s
        self.dead_check_interval_s = dead_check_interval_s
        self.on_dead = on_dead
        self.heap_mb = heap_mb
        # Heartbeat, wedge judgement, what runs on node, the figures of each wedge.
        self.node_watch = NodeWatch(limits or WedgeLimits())
        self._executor: BridgeWorker | None = None
        self._thread: threading.Thread | None = None
        # bridge.js as (module proxy, its helpers' proxies read so far), replaced as one value
        # at every (re)start: a helper read from an older node is never called on a newer one.
        # JSPyBridge's `mod.fn` is a round trip of its own ("get") before the call's ("call"):
        # each helper is read once per node. Only the bridge thread fills the dict.
        self._mod: tuple[Any, dict[str, Any]] | None = None
        self._dead_reason: str | None = None
        self._starting = False  # a start in progress reads as not alive (and never as dead)
        self._closing_at: float | None = None  # when shutdown began: no rebuild, calls capped
        self._abandoned: tuple[str, float] | None = None  # the in-flight call a stop gave up on
        self._stopping = threading.Event()
        self._watchdog: threading.Thread | None = None
        self.generation = 0  # bumped by every (re)start: ids from older generations are stale
        self._rebuild_lock = threading.Lock()
        self.calls = 0
        self.call_seconds = 0.0
        self.calls_by_fn: Counter[str] = Counter()  # which helpers the daemon leans on (/metrics)
        self._count_lock = threading.Lock()

    def _start_on_thread(self) -> None:
        self._thread = threading.current_thread()
        import javascript  # noqa: PLC0415 - importing it spawns node: only ever on this thread
        from javascript import config, connection, events, proxy  # noqa: PLC0415 - as the line above

        # JSPyBridge prints node's stray output and its own complaints to stdout: send them
        # to the log instead (stdout carries `mcbot snapshot`'s JSON).
        for module in (connection, proxy, events):
            module.print = _route_node_output
        if config.event_loop is None:  # after a rebuild the module must be re-initialised
            javascript.init()
        mod = javascript.require(str(ENTRY))
        if mod.ping(timeout=DEFAULT_JS_TIMEOUT_MS / 1000) != "pong":
            raise BridgeInitError("bridge.js did not answer ping")
        self._mod = (mod, {})

    def _signal_kill(self) -> None:
        """SIGKILL node now: a wedged or stopped node does not act on SIGTERM."""
        proc = getattr(jspy("connection"), "proc", None)  # not loaded: no node to kill
        try:
            if proc is not None and proc.poll() is None:
                proc.kill()
                self.node_watch.note("killed", f"node pid {proc.pid}")
        except OSError as e:  # already gone
            logger.debug("killing node failed: {}", e)

    def _kill_node(self, grace_s: float = 5.0) -> None:
        connection = jspy("connection")
        if connection is None:  # never loaded: nothing to kill
            return
        proc, com_thread = connection.proc, connection.com_thread
        connection.stop()  # terminates node and resets JSPyBridge's globals
        if proc is not None:
            try:
                proc.wait(timeout=grace_s)
            except Exception:  # noqa: BLE001 - a node that does not exit in its grace is killed, whatever the wait raised
                proc.kill()
                proc.wait(timeout=5)
        # The old reader thread must be gone before a new node starts: it reads the
        # module-global process handle and would otherwise steal the new node's replies.
        if com_thread is not None:
            com_thread.join(timeout=5)

    @property
    def node_pid(self) -> int | None:
        proc = getattr(jspy("connection"), "proc", None)
        return proc.pid if proc is not None else None


# A node that ends by one of these signals was stopped by someone else (an operator, a
# supervisor, the chaos soak): the bridge's own kills of a wedged node are reasoned "wedged: ..."
# first, and a runaway dies of its heap limit (SIGABRT). Such an end says nothing of the task
# that was running (bot/runtime/bridge_downs.py does not count it toward poison).
OUTSIDE_KILL = "node process killed from outside"
_OUTSIDE_SIGNALS = (signal.SIGKILL, signal.SIGTERM)


def node_exit_reason(code: int | None) -> str:
    if code is not None and code < 0 and -code in _OUTSIDE_SIGNALS:
        return f"{OUTSIDE_KILL} ({signal.Signals(-code).name})"
    return f"node process exited (code {code})"


def jspy(name: str) -> Any:
    """A JSPyBridge module if loaded, else None. Never imported here: importing the package
    starts node, and node_spawn loads `connection` (and its `config`) without the package."""
    return sys.modules.get(f"javascript.{name}")


def _route_node_output(*parts: Any, **_: Any) -> None:
    text = " ".join(str(p) for p in parts).strip()
    if text.startswith("[JSE]"):
        text = text[5:].strip()
    if text:
        logger.debug("node: {}", text)
